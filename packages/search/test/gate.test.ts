import { describe, expect, it } from 'vitest';
import { SearchGate } from '../src/pipeline/gate.js';

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('SearchGate', () => {
  it('runs at most `limit` searches at once, in the order they came', async () => {
    const gate = new SearchGate(2);
    let running = 0;
    let most = 0;
    const started: number[] = [];
    const search = (n: number) =>
      gate.run(async () => {
        started.push(n);
        running++;
        most = Math.max(most, running);
        await tick();
        await tick();
        running--;
        return n;
      });
    const results = await Promise.all([1, 2, 3, 4, 5, 6].map(search));
    expect(results).toEqual([1, 2, 3, 4, 5, 6]);
    expect(started).toEqual([1, 2, 3, 4, 5, 6]);
    expect(most).toBe(2);
    expect(gate.queued).toBe(0);
  });

  it('lets the event loop turn between two searches, so a health check is not held behind all of them', async () => {
    const gate = new SearchGate(1);
    const order: string[] = [];
    // Searches that never yield: without the gate all three would run before the check below.
    const busy = (name: string) => gate.run(async () => void order.push(name));
    const searches = Promise.all([busy('a'), busy('b'), busy('c')]);
    setImmediate(() => order.push('healthz'));
    await searches;
    expect(order.indexOf('healthz')).toBeGreaterThan(0);
    expect(order.indexOf('healthz')).toBeLessThan(order.indexOf('c'));
  });

  it('frees its place when a search throws, and drops a waiting search whose request was aborted', async () => {
    const gate = new SearchGate(1);
    let release!: () => void;
    const first = gate.run(() => new Promise<void>((resolve) => (release = resolve)));
    const controller = new AbortController();
    const ran: string[] = [];
    const abandoned = gate.run(async () => void ran.push('abandoned'), controller.signal);
    const failing = gate.run(async () => {
      ran.push('failing');
      throw new Error('boom');
    });
    const after = gate.run(async () => void ran.push('after'));
    expect(gate.queued).toBe(3);
    controller.abort(new Error('client went away'));
    await expect(abandoned).rejects.toThrow('client went away');
    expect(gate.queued).toBe(2);
    release();
    await first;
    await expect(failing).rejects.toThrow('boom');
    await after;
    expect(ran).toEqual(['failing', 'after']);
    await expect(gate.run(async () => 1, controller.signal)).rejects.toThrow('client went away');
  });

  it('admits everything at once with limit 0, and rejects a limit that is not a whole number', async () => {
    const gate = new SearchGate(0);
    let running = 0;
    let most = 0;
    await Promise.all([1, 2, 3].map(() => gate.run(async () => {
      running++;
      most = Math.max(most, running);
      await tick();
      running--;
    })));
    expect(most).toBe(3);
    expect(() => new SearchGate(-1)).toThrow(/whole number/);
    expect(() => new SearchGate(1.5)).toThrow(/whole number/);
  });
});
