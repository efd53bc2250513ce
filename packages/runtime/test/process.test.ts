import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { MIN_NODE_MAJOR, unsupportedNode, workersAtYoungGeneration } from '../src/process.js';

describe('unsupportedNode', () => {
  it('refuses Node 20 with what to install', () => {
    expect(unsupportedNode('20.20.2')).toMatch(new RegExp(`needs Node.js ${MIN_NODE_MAJOR} or newer; this is 20.20.2`));
  });

  it('accepts the supported majors and later', () => {
    expect(unsupportedNode(`${MIN_NODE_MAJOR}.0.0`)).toBeNull();
    expect(unsupportedNode('24.3.1')).toBeNull();
  });
});

describe('workersAtYoungGeneration', () => {
  const processTs = fileURLToPath(new URL('../src/process.ts', import.meta.url));
  /** The V8 heap limits (MB) of a process started with `flags` and of a worker thread it starts, after `workersAtYoungGeneration(mb)` when given. */
  const limits = (flags: string[], mb: number | null): { main: number; worker: number } => {
    const script = `
      import { getHeapStatistics } from 'node:v8';
      import { Worker } from 'node:worker_threads';
      import { workersAtYoungGeneration } from ${JSON.stringify(processTs)};
      const main = getHeapStatistics().heap_size_limit / 2 ** 20;
      if (${mb} !== null) workersAtYoungGeneration(${mb});
      const worker = await new Promise((resolve) => new Worker("import { parentPort } from 'node:worker_threads'; import { getHeapStatistics } from 'node:v8'; parentPort.postMessage(getHeapStatistics().heap_size_limit / 2 ** 20)", { eval: true }).once('message', resolve));
      console.log(JSON.stringify({ main, worker }));`;
    return JSON.parse(execFileSync(process.execPath, [...flags, '--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' } })) as { main: number; worker: number };
  };

  it("gives worker threads started after it the semi-space asked for (0: V8's own) while the event loop keeps the process's", () => {
    const own = limits([], null).main;
    const before = limits(['--max-semi-space-size=32'], null);
    expect(before.worker).toBe(before.main);
    expect(before.main).toBeGreaterThan(own);
    const ownAfter = limits(['--max-semi-space-size=32'], 0);
    expect(ownAfter.main).toBe(before.main);
    expect(ownAfter.worker).toBe(own);
    const small = limits(['--max-semi-space-size=32'], 4);
    expect(small.main).toBe(before.main);
    expect(small.worker).toBeLessThan(own);
  });

  it('refuses a size that is not a whole number of MB', () => {
    expect(() => workersAtYoungGeneration(-1)).toThrow(RangeError);
    expect(() => workersAtYoungGeneration(2.5)).toThrow(RangeError);
  });
});
