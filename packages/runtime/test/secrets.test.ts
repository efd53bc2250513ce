import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, loadSecretKey, SecretKeyError } from '../src/index.js';

describe('the secret key', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'engram-secret-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('comes from ENGRAM_SECRET_KEY_FILE outside the data dir, and nothing is written into the data dir', async () => {
    const file = join(dir, 'mounted-secret');
    await writeFile(file, 'a-mounted-secret-key-0123456789\n');
    const dataDir = join(dir, 'data');
    expect(await loadSecretKey({ dataDir, fromFile: file })).toBe('a-mounted-secret-key-0123456789');
    await expect(import('node:fs/promises').then((fs) => fs.access(join(dataDir, 'secret-key')))).rejects.toThrow();
    expect(await loadSecretKey({ dataDir, fromEnv: 'from-the-environment-0123', fromFile: file })).toBe('from-the-environment-0123');
  });

  it('a missing or short key file stops the start with a clear error', async () => {
    await expect(loadSecretKey({ dataDir: dir, fromFile: join(dir, 'absent') })).rejects.toBeInstanceOf(SecretKeyError);
    await writeFile(join(dir, 'short'), 'short\n');
    await expect(loadSecretKey({ dataDir: dir, fromFile: join(dir, 'short') })).rejects.toThrow(/at least 16/);
  });

  it('a server DATABASE_URL accepts ENGRAM_SECRET_KEY_FILE in place of ENGRAM_SECRET_KEY', () => {
    expect(() => loadConfig({ DATABASE_URL: 'postgres://x/db', REDIS_URL: 'redis://x', VECTOR_URL: 'postgres://x/db' })).toThrow(/ENGRAM_SECRET_KEY/);
    expect(loadConfig({ DATABASE_URL: 'postgres://x/db', REDIS_URL: 'redis://x', VECTOR_URL: 'postgres://x/db', ENGRAM_SECRET_KEY_FILE: '/run/secrets/engram' }).secretKeyFile).toBe('/run/secrets/engram');
  });

  it('the limits have defaults generous enough for the benchmarks, and a header timeout cannot exceed the request timeout', () => {
    const c = loadConfig({});
    expect(c.rateLimits.keyPerSecond).toBeGreaterThanOrEqual(1_000);
    expect(c.rateLimits.keyConcurrency).toBeGreaterThanOrEqual(16);
    expect(() => loadConfig({ HTTP_HEADERS_TIMEOUT_MS: '60000', HTTP_REQUEST_TIMEOUT_MS: '30000' })).toThrow(/HTTP_HEADERS_TIMEOUT_MS/);
  });
});
