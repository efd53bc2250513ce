import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { BENCHMARKS } from './benchmarks.js';

const bench = new URL('./', import.meta.url);

/** A script run from the command line reads its options with parseArgs; helpers and the entry itself do not count. */
function runnableScripts(dir: string): string[] {
  return readdirSync(new URL(dir, bench))
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts') && !f.endsWith('.d.ts'))
    .map((f) => `${dir}${f}`)
    .filter((path) => path !== './main.ts' && /\bparseArgs\(/.test(readFileSync(new URL(path, bench), 'utf8')));
}

describe('npm run bench', () => {
  it('lists every benchmark script in bench/ and bench/eval/, and only scripts that exist', () => {
    const listed = Object.values(BENCHMARKS).map((b) => b.script);
    for (const script of [...runnableScripts('./'), ...runnableScripts('./eval/')]) expect(listed).toContain(script);
    for (const script of listed) expect(() => readFileSync(new URL(script, bench))).not.toThrow();
  });
});
