import { describe, expect, it } from 'vitest';
import { FeatureRows } from '../src/clusters/featureRows.js';
import { dot } from '../src/clusters/features.js';

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
});
