import { randomBytes } from 'node:crypto';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { getSetting, putSetting, safeEqual, sha256, type Queryable } from '@engram/stores';

async function readOrCreate(path: string, make: () => string): Promise<{ value: string; created: boolean }> {
  try {
    return { value: (await readFile(path, 'utf8')).trim(), created: false };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const value = make();
  await writeFile(path, `${value}\n`, { mode: 0o600, flag: 'wx' }).catch(async (err: NodeJS.ErrnoException) => {
    if (err.code !== 'EEXIST') throw err;
  });
  await chmod(path, 0o600).catch(() => undefined);
  return { value: (await readFile(path, 'utf8')).trim(), created: true };
}

export const adminTokenPath = (dataDir: string): string => join(dataDir, 'admin-token');

/**
 * The admin token guards `/admin`. `ENGRAM_ADMIN_TOKEN` sets it; otherwise the first start generates
 * one, writes it to `<dataDir>/admin-token` (mode 600) for the CLI, and reports it once. Only its hash
 * is kept in the database.
 */
export async function bootstrapAdminToken(db: Queryable, options: { dataDir: string; fromEnv?: string }): Promise<{ token: string | null; created: boolean; verify: (t: string) => boolean }> {
  let token: string;
  let created = false;
  if (options.fromEnv) {
    token = options.fromEnv;
  } else {
    await mkdir(options.dataDir, { recursive: true });
    const r = await readOrCreate(adminTokenPath(options.dataDir), () => `egadm_${randomBytes(24).toString('base64url')}`);
    token = r.value;
    created = r.created;
  }
  const hash = sha256(`engram-admin:${token}`);
  await putSetting(db, 'admin_token_hash', hash);
  return { token, created, verify: (t) => safeEqual(sha256(`engram-admin:${t}`), hash) };
}

export class SecretKeyError extends Error {
  override name = 'SecretKeyError';
}

/**
 * Key that encrypts provider credentials: `ENGRAM_SECRET_KEY`, else the file `ENGRAM_SECRET_KEY_FILE`
 * names (a mounted secret, kept outside the data dir so a copy of the data is not a copy of the key),
 * else one generated into the data dir (the embedded default).
 */
export async function loadSecretKey(options: { dataDir: string; fromEnv?: string | undefined; fromFile?: string | undefined }): Promise<string> {
  if (options.fromEnv) return options.fromEnv;
  if (options.fromFile) {
    let value: string;
    try {
      value = (await readFile(options.fromFile, 'utf8')).trim();
    } catch (err) {
      throw new SecretKeyError(`ENGRAM_SECRET_KEY_FILE: cannot read ${options.fromFile}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
    }
    if (value.length < 16) throw new SecretKeyError(`ENGRAM_SECRET_KEY_FILE: ${options.fromFile} must hold at least 16 characters`);
    return value;
  }
  await mkdir(options.dataDir, { recursive: true });
  return (await readOrCreate(join(options.dataDir, 'secret-key'), () => randomBytes(32).toString('base64url'))).value;
}

export async function storedAdminTokenHash(db: Queryable): Promise<string | null> {
  return getSetting<string>(db, 'admin_token_hash');
}
