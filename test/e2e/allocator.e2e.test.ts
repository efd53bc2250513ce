import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/** `npm start` and `npm run worker` run the services through scripts/allocator.sh. */
const script = fileURLToPath(new URL('../../scripts/allocator.sh', import.meta.url));
const jemalloc = ['/usr/lib/x86_64-linux-gnu/libjemalloc.so.2', '/usr/lib/aarch64-linux-gnu/libjemalloc.so.2', '/usr/lib64/libjemalloc.so.2', '/usr/lib/libjemalloc.so.2', '/usr/local/lib/libjemalloc.so.2'].find((f) => existsSync(f));

/**
 * What a node process started through the script sees: its allocator settings, whether jemalloc is mapped
 * into it, and its V8 heap's limit in MB (old generation plus three semi-spaces' worth of young generation).
 */
function started(env: Record<string, string | undefined>): { preload: string | null; arenas: string | null; jemallocMapped: boolean; heapLimitMb: number } {
  const probe =
    "const maps = require('fs').readFileSync('/proc/self/maps', 'utf8'); console.log(JSON.stringify({ preload: process.env.LD_PRELOAD ?? null, arenas: process.env.MALLOC_ARENA_MAX ?? null, jemallocMapped: maps.includes('libjemalloc'), heapLimitMb: require('v8').getHeapStatistics().heap_size_limit / 2 ** 20 }))";
  const childEnv = { ...process.env, ...env };
  for (const [k, v] of Object.entries(env)) if (v === undefined) delete childEnv[k];
  return JSON.parse(execFileSync('sh', [script, process.execPath, '-e', probe], { env: childEnv, encoding: 'utf8' })) as ReturnType<typeof started>;
}

describe.runIf(process.platform === 'linux')('scripts/allocator.sh', () => {
  it.skipIf(!jemalloc)('runs the service on jemalloc when the system has it', () => {
    const seen = started({ LD_PRELOAD: undefined, ENGRAM_ALLOCATOR: undefined });
    expect(seen.preload).toBe(jemalloc);
    expect(seen.jemallocMapped).toBe(true);
  });

  it('keeps glibc, with its fixed settings, when asked to', () => {
    const seen = started({ LD_PRELOAD: undefined, ENGRAM_ALLOCATOR: 'glibc', MALLOC_ARENA_MAX: undefined });
    expect(seen).toMatchObject({ preload: null, arenas: '2', jemallocMapped: false });
  });

  it("gives V8 32 MB semi-spaces unless told otherwise, and refuses a size that is not a number", () => {
    const limit = (semi: string | undefined, nodeOptions?: string) => started({ ENGRAM_SEMI_SPACE_MB: semi, NODE_OPTIONS: nodeOptions }).heapLimitMb;
    const thirtyTwo = limit('32');
    expect(limit(undefined)).toBe(thirtyTwo);
    // The young generation is three semi-spaces: 64 MB ones add 3 x 32 MB to the limit that 32 MB ones give.
    const sixtyFour = limit('64');
    expect(sixtyFour - thirtyTwo).toBe(3 * 32);
    // 0 leaves V8's own (16 MB on 64-bit platforms), below both.
    expect(limit('0')).toBeLessThan(thirtyTwo);
    // One the operator put in NODE_OPTIONS wins.
    expect(limit(undefined, '--max-semi-space-size=64')).toBe(sixtyFour);
    expect(() => limit('64mb')).toThrow(/ENGRAM_SEMI_SPACE_MB must be a whole number/);
  });
});
