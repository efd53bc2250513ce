/** `engram` as a package bin: installed globally from the checkout, it runs from any directory. */
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const CLI_DIR = fileURLToPath(new URL('..', import.meta.url));

describe('the engram bin', () => {
  let prefix: string | undefined;
  afterAll(async () => prefix && rm(prefix, { recursive: true, force: true }));

  it('runs outside the repository after `npm install -g ./services/cli`', async () => {
    prefix = await mkdtemp(join(tmpdir(), 'engram-bin-'));
    await run('npm', ['install', '-g', '--prefix', prefix, '--no-audit', '--no-fund', '--offline', CLI_DIR]);
    const elsewhere = await mkdtemp(join(tmpdir(), 'engram-elsewhere-'));
    try {
      const version = await run(join(prefix, 'bin', 'engram'), ['--version'], { cwd: elsewhere });
      expect(version.stdout.trim()).toBe('0.1.0');
      const help = await run(join(prefix, 'bin', 'engram'), ['mcp', '--help'], { cwd: elsewhere });
      expect(help.stdout).toMatch(/over stdio/);
    } finally {
      await rm(elsewhere, { recursive: true, force: true });
    }
  });
});
