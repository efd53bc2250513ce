import { describe, expect, it } from 'vitest';
import { FeatureRows, SharedFeatureRows } from '../src/clusters/featureRows.js';
import { centredMean, centreInPlace, dot } from '../src/clusters/features.js';

describe("a re-cluster plan's feature rows", () => {
  it('give back each value within its row\'s largest magnitude / 65534, across blocks, and rewrite in place', () => {
    const dimensions = 40;
    const rows = new FeatureRows(dimensions);
    const features = Array.from({ length: 5_000 }, (_, r) => Float32Array.from({ length: dimensions }, (_, d) => Math.sin(r * 1.7 + d * 0.3) * (d === r % dimensions ? 1 : 0.05)));
    features.push(new Float32Array(dimensions));
    features.forEach((f, r) => expect(rows.push(f)).toBe(r));
    expect(rows.count).toBe(features.length);
    const probe = Float32Array.from({ length: dimensions }, (_, d) => Math.cos(d));
    features.forEach((f, r) => {
      // Half a step of the row's scale, and float32's own rounding of the scale and of the value read.
      const bound = Math.max(...Array.from(f, Math.abs)) * (1 / 65_534 + 1e-6);
      const back = rows.read(r);
      for (let d = 0; d < dimensions; d++) expect(Math.abs(back[d]! - f[d]!)).toBeLessThanOrEqual(bound);
      expect(rows.dot(r, probe)).toBeCloseTo(dot(back, probe), 5);
      const sum = new Float32Array(dimensions).fill(1);
      rows.addTo(r, sum);
      for (let d = 0; d < dimensions; d++) expect(sum[d]).toBeCloseTo(1 + back[d]!, 6);
    });
    expect(Array.from(rows.read(features.length - 1))).toEqual(new Array(dimensions).fill(0));
    rows.write(3, probe);
    for (let d = 0; d < dimensions; d++) expect(rows.read(3)[d]).toBeCloseTo(probe[d]!, 4);
    for (let d = 0; d < dimensions; d++) expect(rows.read(4)[d]).toBeCloseTo(features[4]![d]!, 4);
  });

  it('read in place from a growing shared matrix: rows written after the plan began, and centred as they are read', () => {
    const text = 6;
    const entity = 4;
    // As the vector mirror holds it: 16-bit integers, each worth `unit`, in a view that follows the buffer's growth.
    const unit = 1 / 32_767;
    const held = (x: number): number => Math.round(x / unit);
    const buffer = new SharedArrayBuffer(2 * text * 2, { maxByteLength: 64 * text * 2 });
    const matrix = new Int16Array(buffer);
    matrix.set([1, 0, 0, 0, 0, 0, 0, 0.6, 0.8, 0, 0, 0].map(held));
    const rows = new SharedFeatureRows(matrix, unit, text, entity);
    expect(rows.textNorm(1)).toBeCloseTo(1, 4);
    expect(rows.push(1, 0.5, [2], [0.7])).toBe(0);
    // The mirror grows by a row after the plan took its view; a member's chunk is there.
    buffer.grow(3 * text * 2);
    new Int16Array(buffer).set([0, 0, 0, 0, 0.6, -0.8].map(held), 2 * text);
    expect(rows.push(2, 2, [0, 3], [0.1, -0.2])).toBe(1);
    // The text part is the values the mirror holds (within 1.6e-5 of those written) times the member's scale.
    const stored = (x: number): number => held(x) * unit;
    const raw = [
      Float32Array.from([0, stored(0.6) * 0.5, stored(0.8) * 0.5, 0, 0, 0, 0, 0, 0.7, 0]),
      Float32Array.from([0, 0, 0, 0, stored(0.6) * 2, stored(-0.8) * 2, 0.1, 0, 0, -0.2]),
    ];
    raw.forEach((want, r) => {
      const back = rows.read(r);
      for (let d = 0; d < text + entity; d++) expect(back[d]).toBeCloseTo(want[d]!, 6);
      for (let d = 0; d < text; d++) expect(Math.abs(back[d]! - [[0, 0.3, 0.4, 0, 0, 0], [0, 0, 0, 0, 1.2, -1.6]][r]![d]!)).toBeLessThan(1e-4);
    });

    const mean = centredMean(Float64Array.from(raw[0]!, (x, i) => x + raw[1]![i]!), 2);
    const lengths = rows.centre(mean);
    const probe = Float32Array.from({ length: text + entity }, (_, d) => Math.cos(d));
    raw.forEach((feature, r) => {
      const centred = Float32Array.from(feature);
      expect(lengths[r]).toBeCloseTo(centreInPlace(centred, mean), 6);
      const back = rows.read(r);
      for (let d = 0; d < text + entity; d++) expect(back[d]).toBeCloseTo(centred[d]!, 6);
      expect(rows.dotWith(probe)(r)).toBeCloseTo(dot(centred, probe), 6);
      const sum = new Float32Array(text + entity).fill(1);
      rows.addTo(r, sum);
      for (let d = 0; d < text + entity; d++) expect(sum[d]).toBeCloseTo(1 + centred[d]!, 6);
    });
  });
});
