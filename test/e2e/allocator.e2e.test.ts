import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/** `npm start` and `npm run worker` run the services through scripts/allocator.sh. */
const script = fileURLToPath(new URL('../../scripts/allocator.sh', import.meta.url));
const jemalloc = ['/usr/lib/x86_64-linux-gnu/libjemalloc.so.2', '/usr/lib/aarch64-linux-gnu/libjemalloc.so.2', '/usr/lib64/libjemalloc.so.2', '/usr/lib/libjemalloc.so.2', '/usr/local/lib/libjemalloc.so.2'].find((f) => existsSync(f));

/** What a node process started through the script sees: its allocator settings and whether jemalloc is mapped into it. */
function started(env: Record<string, string | undefined>): { preload: string | null; arenas: string | null; jemallocMapped: boolean } {
  const probe = "const maps = require('fs').readFileSync('/proc/self/maps', 'utf8'); console.log(JSON.stringify({ preload: process.env.LD_PRELOAD ?? null, arenas: process.env.MALLOC_ARENA_MAX ?? null, jemallocMapped: maps.includes('libjemalloc') }))";
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
    expect(seen).toEqual({ preload: null, arenas: '2', jemallocMapped: false });
  });
});
