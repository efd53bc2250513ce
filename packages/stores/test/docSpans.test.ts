/**
 * The in-memory read model keeps each document's terms and mentions end to end on resizable buffers: they
 * grow in place within their reservation, and move to a larger one when it is full, keeping every run.
 */
import { describe, expect, it } from 'vitest';
import { DocSpans } from '../src/readModels/search/memory.js';

describe('per-document spans', () => {
  it('keeps every document run as the arrays grow past their first reservation', () => {
    // 4 KB reserved: 1,024 ints, so the values move to a larger reservation twice over 20k values.
    const spans = new DocSpans(4096);
    const expected: number[][] = [];
    let next = 7;
    for (let doc = 0; doc < 2_000; doc++) {
      const count = doc % 23;
      const at = spans.append(doc, count);
      const run = Array.from({ length: count }, () => (next = (next * 31 + 11) % 100_003));
      run.forEach((v, i) => (spans.values[at + i] = v));
      expected.push(run);
    }
    expected.forEach((run, doc) => {
      const got = Array.from(spans.values.subarray(spans.start(doc), spans.end(doc)));
      expect(got, `document ${doc}`).toEqual(run);
    });
    expect(spans.values.buffer.byteLength).toBeGreaterThan(4096);
  });
});
