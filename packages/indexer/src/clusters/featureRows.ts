import { centreInPlace, type CentredMean } from './features.js';

/**
 * Every member's topic feature during a re-cluster plan, at 16 bits a value: row r is a feature of
 * `dimensions` int16 values and one float32 scale (value = q * scale, the scale the row's largest
 * magnitude / 32767). A 100k-member plan at 768 dimensions held its features as float32 arrays, 307 MB
 * beside the server's own memory for the plan's ~30 s (the peak of every 100k import); as rows it holds
 * 154 MB. Features are unit vectors whose values are mostly a few hundredths, so a value is off by at most
 * its row's largest magnitude / 65534 (~3e-6 for a feature's typical largest value of 0.2) and a cosine
 * between two features by about that: far below what moves a member across a merge or split threshold.
 *
 * Rows live in blocks that are allocated as members arrive (no copy of everything when the count grows).
 */
const ROWS_PER_BLOCK = 2_048;
const LARGEST = 32_767;

/**
 * Every member's topic feature during a plan, by row: raw (as `topicFeature` makes it) until `centre`,
 * centred and unit length after it. What merge, split and labels read of them.
 */
export interface FeatureMatrix {
  readonly dimensions: number;
  readonly count: number;
  /** Row `row`'s values into `out` (which it returns). */
  read(row: number, out?: Float32Array): Float32Array;
  /** Row · `x`, as a function of the row: for the many rows scored against one `x` (which must not change meanwhile). */
  dotWith(x: Float32Array): (row: number) => number;
  /** Adds row `row` to `sum`, value by value. */
  addTo(row: number, sum: Float32Array): void;
  /** Centres every row on the workspace mean (`centreInPlace`); returns the length each was divided by, by row. */
  centre(mean: CentredMean): Float64Array;
}

export class FeatureRows implements FeatureMatrix {
  private readonly blocks: Int16Array[] = [];
  private readonly scales: Float32Array[] = [];
  private rows = 0;

  constructor(readonly dimensions: number) {}

  get count(): number {
    return this.rows;
  }

  /** Stores a feature as a new row; returns the row. */
  push(feature: ArrayLike<number>): number {
    const row = this.rows++;
    if (row % ROWS_PER_BLOCK === 0) {
      this.blocks.push(new Int16Array(ROWS_PER_BLOCK * this.dimensions));
      this.scales.push(new Float32Array(ROWS_PER_BLOCK));
    }
    this.write(row, feature);
    return row;
  }

  /** Replaces row `row`'s values. */
  write(row: number, feature: ArrayLike<number>): void {
    const { dimensions } = this;
    let largest = 0;
    for (let i = 0; i < dimensions; i++) largest = Math.max(largest, Math.abs(feature[i] ?? 0));
    const scale = largest === 0 ? 0 : largest / LARGEST;
    this.scales[this.blockOf(row)]![row % ROWS_PER_BLOCK] = scale;
    const inverse = scale === 0 ? 0 : 1 / scale;
    const block = this.blocks[this.blockOf(row)]!;
    const at = this.offsetOf(row);
    for (let i = 0; i < dimensions; i++) block[at + i] = Math.round((feature[i] ?? 0) * inverse);
  }

  /** Row `row`'s values into `out` (which it returns). */
  read(row: number, out: Float32Array = new Float32Array(this.dimensions)): Float32Array {
    const block = this.blocks[this.blockOf(row)]!;
    const at = this.offsetOf(row);
    const scale = this.scaleOf(row);
    for (let i = 0; i < this.dimensions; i++) out[i] = block[at + i]! * scale;
    return out;
  }

  /** Row `row` · `x`. */
  dot(row: number, x: ArrayLike<number>): number {
    const block = this.blocks[this.blockOf(row)]!;
    const at = this.offsetOf(row);
    let sum = 0;
    for (let i = 0; i < this.dimensions; i++) sum += block[at + i]! * x[i]!;
    return sum * this.scaleOf(row);
  }

  dotWith(x: Float32Array): (row: number) => number {
    return (row) => this.dot(row, x);
  }

  centre(mean: CentredMean): Float64Array {
    const lengths = new Float64Array(this.rows);
    const feature = new Float32Array(this.dimensions);
    for (let row = 0; row < this.rows; row++) {
      lengths[row] = centreInPlace(this.read(row, feature), mean);
      this.write(row, feature);
    }
    return lengths;
  }

  /** Adds row `row` to `sum`, value by value. */
  addTo(row: number, sum: Float32Array): void {
    const block = this.blocks[this.blockOf(row)]!;
    const at = this.offsetOf(row);
    const scale = this.scaleOf(row);
    for (let i = 0; i < this.dimensions; i++) sum[i]! += block[at + i]! * scale;
  }

  private blockOf(row: number): number {
    return Math.floor(row / ROWS_PER_BLOCK);
  }

  /** Where row `row`'s values start in its block. */
  private offsetOf(row: number): number {
    return (row % ROWS_PER_BLOCK) * this.dimensions;
  }

  private scaleOf(row: number): number {
    return this.scales[this.blockOf(row)]![row % ROWS_PER_BLOCK]!;
  }
}

/** A 16-bit view of `buffer` from `offset` to its current end, of fixed length. */
const fixedView = (buffer: ArrayBufferLike, offset: number): Int16Array => new Int16Array(buffer, offset, Math.floor((buffer.byteLength - offset) / 2));

/** Growable typed arrays' next size. */
const grown = <T extends Float32Array | Int32Array | Uint16Array | Float64Array>(a: T, need: number, make: (n: number) => T): T => {
  if (need <= a.length) return a;
  const next = make(Math.max(need, a.length * 2, 1_024));
  next.set(a);
  return next;
};

/**
 * Feature rows that read each member's text part from the vector mirror's matrix in place (the shared
 * 16-bit rows the searches read: `VectorStore.sharedRows`) and keep only what is the member's own: its
 * text scale, its few entity buckets (sparse: a member mentions a handful of the 256), and after `centre`
 * the length it is divided by. Centring is applied as rows are read (`(raw - mean) / length`), so no row is
 * ever written. A 100k-member plan held 154 MB of 16-bit rows (and the pages' copies of every vector on the
 * way); these hold ~70 bytes a member, and the text part's values are the mirror's, as searches read them.
 * The mirror's `unit` (what one of its integers is worth) is folded into each member's text scale.
 *
 * The matrix must not change under the plan: the caller checks the mirror's stamp after the plan and
 * computes it again from copies when a row may have moved (`recluster.ts`).
 */
export class SharedFeatureRows implements FeatureMatrix {
  readonly dimensions: number;
  private rows = 0;
  private textRow = new Int32Array(0);
  private textScale = new Float32Array(0);
  /** Row r's entity values are `entityValue[entityStart[r] .. entityStart[r + 1])` at buckets `entityBucket[..]`. */
  private entityStart = new Int32Array(1);
  private entityBucket = new Uint16Array(0);
  private entityValue = new Float32Array(0);
  private mean: Float32Array | null = null;
  /** 1 / the length each row is divided by once centred (0 for a row that is the mean). */
  private inverse = new Float64Array(0);
  /** `addTo`'s row, read before it is added. */
  private scratch: Float32Array | null = null;

  /** A fixed-length view of the matrix: V8 reads a length-tracking one (the mirror's, which follows its growth) ~8x slower. */
  private data: Int16Array;

  constructor(
    matrix: Int16Array,
    private readonly unit: number,
    readonly textDimensions: number,
    readonly entityDimensions: number,
  ) {
    this.dimensions = textDimensions + entityDimensions;
    this.data = fixedView(matrix.buffer, matrix.byteOffset);
  }

  get count(): number {
    return this.rows;
  }

  /** The norm of the matrix's row `row` (its text part before scaling). */
  textNorm(row: number): number {
    const at = row * this.textDimensions;
    let sum = 0;
    for (let i = 0; i < this.textDimensions; i++) sum += this.data[at + i]! ** 2;
    return Math.sqrt(sum) * this.unit;
  }

  /** A member: its text part is `scale` x the matrix's row `textRow`; its entity part the given buckets' values. */
  push(textRow: number, scale: number, buckets: ArrayLike<number>, values: ArrayLike<number>): number {
    // A row written since the view was taken: the matrix grew, and the view follows it.
    if ((textRow + 1) * this.textDimensions > this.data.length) this.data = fixedView(this.data.buffer, this.data.byteOffset);
    const row = this.rows++;
    this.textRow = grown(this.textRow, this.rows, (n) => new Int32Array(n));
    this.textScale = grown(this.textScale, this.rows, (n) => new Float32Array(n));
    this.entityStart = grown(this.entityStart, this.rows + 1, (n) => new Int32Array(n));
    this.textRow[row] = textRow;
    this.textScale[row] = scale * this.unit;
    const start = this.entityStart[row]!;
    this.entityBucket = grown(this.entityBucket, start + buckets.length, (n) => new Uint16Array(n));
    this.entityValue = grown(this.entityValue, start + buckets.length, (n) => new Float32Array(n));
    for (let k = 0; k < buckets.length; k++) {
      this.entityBucket[start + k] = buckets[k]!;
      this.entityValue[start + k] = values[k]!;
    }
    this.entityStart[row + 1] = start + buckets.length;
    return row;
  }

  read(row: number, out: Float32Array = new Float32Array(this.dimensions)): Float32Array {
    const { textDimensions, data, mean } = this;
    const at = this.textRow[row]! * textDimensions;
    const scale = this.textScale[row]!;
    if (!mean) {
      for (let i = 0; i < textDimensions; i++) out[i] = data[at + i]! * scale;
      out.fill(0, textDimensions, this.dimensions);
      for (let k = this.entityStart[row]!; k < this.entityStart[row + 1]!; k++) out[textDimensions + this.entityBucket[k]!] = this.entityValue[k]!;
      return out;
    }
    const inverse = this.inverse[row]!;
    for (let i = 0; i < textDimensions; i++) out[i] = (data[at + i]! * scale - mean[i]!) * inverse;
    for (let i = textDimensions; i < this.dimensions; i++) out[i] = -mean[i]! * inverse;
    for (let k = this.entityStart[row]!; k < this.entityStart[row + 1]!; k++) {
      const i = textDimensions + this.entityBucket[k]!;
      out[i] = (this.entityValue[k]! - mean[i]!) * inverse;
    }
    return out;
  }

  dotWith(x: Float32Array): (row: number) => number {
    const { textDimensions, data, mean } = this;
    // (raw - mean) · x / length: mean · x once for every row.
    let towardMean = 0;
    if (mean) for (let i = 0; i < this.dimensions; i++) towardMean += mean[i]! * x[i]!;
    return (row) => {
      const at = this.textRow[row]! * textDimensions;
      let text = 0;
      for (let i = 0; i < textDimensions; i++) text += data[at + i]! * x[i]!;
      let sum = text * this.textScale[row]!;
      for (let k = this.entityStart[row]!; k < this.entityStart[row + 1]!; k++) sum += this.entityValue[k]! * x[textDimensions + this.entityBucket[k]!]!;
      return mean ? (sum - towardMean) * this.inverse[row]! : sum;
    };
  }

  addTo(row: number, sum: Float32Array): void {
    const feature = this.scratch ??= new Float32Array(this.dimensions);
    this.read(row, feature);
    for (let i = 0; i < this.dimensions; i++) sum[i]! += feature[i]!;
  }

  centre(centred: CentredMean): Float64Array {
    const { textDimensions, data } = this;
    const mean = centred.mean;
    // |raw - mean|² with the entity part sparse: every bucket's mean², corrected at the row's own buckets.
    let entityMean2 = 0;
    for (let i = textDimensions; i < this.dimensions; i++) entityMean2 += mean[i]! ** 2;
    const lengths = new Float64Array(this.rows);
    this.inverse = new Float64Array(this.rows);
    for (let row = 0; row < this.rows; row++) {
      const at = this.textRow[row]! * textDimensions;
      const scale = this.textScale[row]!;
      let sum = entityMean2;
      for (let i = 0; i < textDimensions; i++) sum += (data[at + i]! * scale - mean[i]!) ** 2;
      for (let k = this.entityStart[row]!; k < this.entityStart[row + 1]!; k++) {
        const m = mean[textDimensions + this.entityBucket[k]!]!;
        sum += (this.entityValue[k]! - m) ** 2 - m * m;
      }
      const length = Math.sqrt(Math.max(0, sum));
      lengths[row] = length;
      this.inverse[row] = length > 0 ? 1 / length : 0;
    }
    this.mean = mean;
    return lengths;
  }
}
