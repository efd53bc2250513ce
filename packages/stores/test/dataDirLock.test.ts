import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DataDirInUseError, openDatabase } from '../src/index.js';

describe('the embedded database directory has one owner', () => {
  let root: string;
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'engram-dirlock-'));
  });
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('refuses a directory a live process holds, takes over one whose process is gone, and frees it on close', async () => {
    const dir = join(root, 'db');
    // Another process that holds the directory (any live process: its pid in the lock is what counts).
    const other = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
    await new Promise((resolve) => other.once('spawn', resolve));
    await writeFile(`${dir}.lock`, String(other.pid));
    const refused = await openDatabase(`pglite://${dir}`).then(
      () => null,
      (err: unknown) => err,
    );
    expect(refused).toBeInstanceOf(DataDirInUseError);
    expect((refused as Error).message).toContain(`in use by process ${other.pid}`);
    expect(existsSync(join(dir, 'PG_VERSION'))).toBe(false);

    // Once that process is gone its lock is stale: the next open takes it over.
    other.kill('SIGKILL');
    await new Promise((resolve) => other.once('exit', resolve));
    const db = await openDatabase(`pglite://${dir}`);
    expect((await db.query<{ one: number }>('SELECT 1 AS one')).rows[0]?.one).toBe(1);
    expect(await readFile(`${dir}.lock`, 'utf8')).toBe(String(process.pid));
    await db.close();
    expect(existsSync(`${dir}.lock`)).toBe(false);
  }, 60_000);
});
