import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { MIN_NODE_MAJOR, unsupportedNode } from '../src/process.js';

describe('unsupportedNode', () => {
  it('refuses Node 20 with what to install', () => {
    expect(unsupportedNode('20.20.2')).toMatch(new RegExp(`needs Node.js ${MIN_NODE_MAJOR} or newer; this is 20.20.2`));
  });

  it('accepts the supported majors and later', () => {
    expect(unsupportedNode(`${MIN_NODE_MAJOR}.0.0`)).toBeNull();
    expect(unsupportedNode('24.3.1')).toBeNull();
  });
});

describe('workersAtOwnYoungGeneration', () => {
  const processTs = fileURLToPath(new URL('../src/process.ts', import.meta.url));
  /** The V8 heap limits (MB) of a process started with `flags` and of a worker thread it starts, with or without the call first. */
  const limits = (flags: string[], call: boolean): { main: number; worker: number } => {
    const script = `
      import { getHeapStatistics } from 'node:v8';
      import { Worker } from 'node:worker_threads';
      import { workersAtOwnYoungGeneration } from ${JSON.stringify(processTs)};
      const main = getHeapStatistics().heap_size_limit / 2 ** 20;
      if (${call}) workersAtOwnYoungGeneration();
      const worker = await new Promise((resolve) => new Worker("import { parentPort } from 'node:worker_threads'; import { getHeapStatistics } from 'node:v8'; parentPort.postMessage(getHeapStatistics().heap_size_limit / 2 ** 20)", { eval: true }).once('message', resolve));
      console.log(JSON.stringify({ main, worker }));`;
    return JSON.parse(execFileSync(process.execPath, [...flags, '--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' } })) as { main: number; worker: number };
  };

  it("gives worker threads started after it V8's own young generation while the event loop keeps the process's", () => {
    const own = limits([], false).main;
    const before = limits(['--max-semi-space-size=64'], false);
    expect(before.worker).toBe(before.main);
    expect(before.main).toBeGreaterThan(own);
    const after = limits(['--max-semi-space-size=64'], true);
    expect(after.main).toBe(before.main);
    expect(after.worker).toBe(own);
  });
});
