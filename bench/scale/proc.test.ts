import { describe, expect, it } from 'vitest';
import { memorySampler, settledMemory } from './proc.js';

describe('settledMemory', () => {
  it('waits for the resident set to stop falling and reports where it settled', async () => {
    // Falls for six samples (the heap given back after a re-cluster), then holds within 1%.
    const values = [3000, 2900, 2600, 2100, 1500, 1220, 1217, 1216, 1218, 1217, 1216, 1217, 1216];
    let i = 0;
    const settled = await settledMemory({ last: () => values[Math.min(i++, values.length - 1)]! }, { everyMs: 1, windowMs: 4, maxMs: 10_000 });
    expect(settled.bytes).toBeLessThan(1220);
    expect(i).toBeGreaterThanOrEqual(10);
  });

  it('gives up after maxMs on a resident set that never settles', async () => {
    let v = 0;
    const settled = await settledMemory({ last: () => (v += 1000) }, { everyMs: 1, windowMs: 4, maxMs: 30 });
    expect(settled.bytes).toBeGreaterThan(0);
    expect(settled.seconds).toBeLessThan(5);
  });
});

describe('memorySampler', () => {
  it('names the phase the peak came in', async () => {
    const memory = memorySampler([process.pid], 20);
    memory.label('quiet');
    await new Promise((resolve) => setTimeout(resolve, 80));
    memory.label('busy');
    // 256 MB written (resident), held while the sampler looks.
    const held = Buffer.alloc(256 * 2 ** 20, 1);
    await new Promise((resolve) => setTimeout(resolve, 120));
    memory.stop();
    expect(held.length).toBeGreaterThan(0);
    expect(memory.peakLabel()).toBe('busy');
    expect(memory.peak()).toBeGreaterThan(256 * 2 ** 20);
  });

  it("keeps the server's account of its memory asked for as the peak was sampled", async () => {
    let asked = 0;
    const memory = memorySampler([process.pid], 20, async () => ({ 'main heap': ++asked }));
    await new Promise((resolve) => setTimeout(resolve, 60));
    const before = memory.peakParts();
    const held = Buffer.alloc(256 * 2 ** 20, 1);
    await new Promise((resolve) => setTimeout(resolve, 120));
    memory.stop();
    expect(held.length).toBeGreaterThan(0);
    const atPeak = memory.peakParts()!;
    // Asked again once the 256 MB set a new peak, and kept with the resident set it was asked at.
    expect(atPeak.parts['main heap']).toBeGreaterThan(before?.parts['main heap'] ?? 0);
    expect(atPeak.bytes).toBeGreaterThan(256 * 2 ** 20);
    expect(atPeak.bytes).toBeLessThanOrEqual(memory.peak());
  });
});
