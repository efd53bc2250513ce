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

export class FeatureRows {
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
