import { randomBytes } from 'node:crypto';
import type { Db } from '../db.js';
import { openDatabase } from '../db.js';
import { migrate } from '../migrations/index.js';
import { createWorkspace } from '../repositories/workspaces.js';

export interface Backend {
  name: string;
  url: string;
}

/**
 * Backends a contract suite runs against: embedded PGlite always; server Postgres when
 * `DATABASE_URL` (or `ENGRAM_TEST_DATABASE_URL`) names one. With CI=true an unreachable server fails the
 * suite instead of skipping it.
 */
export function databaseBackends(): Backend[] {
  const list: Backend[] = [{ name: 'pglite', url: 'pglite://memory' }];
  const server = process.env.ENGRAM_TEST_DATABASE_URL ?? process.env.DATABASE_URL;
  if (server?.startsWith('postgres')) list.push({ name: 'postgres', url: server });
  else if (process.env.CI === 'true') throw new Error('CI=true but DATABASE_URL is not set: the server Postgres suites must run in CI');
  return list;
}

export const redisUrl = (): string | undefined => {
  const url = process.env.REDIS_URL;
  if (!url && process.env.CI === 'true') throw new Error('CI=true but REDIS_URL is not set: the BullMQ suites must run in CI');
  return url;
};

export const qdrantUrl = (): string | undefined => process.env.QDRANT_URL;

export const skipReason = (what: string): string => `${what} not configured; set its URL to run this suite`;

/** Opens and migrates a database for a test file. */
export async function openTestDatabase(url: string): Promise<Db> {
  const db = await openDatabase(url, { poolSize: 4 });
  await migrate(db);
  return db;
}

/** Each test makes its own workspace instead of truncating shared tables. */
export async function testWorkspace(db: Db, label = 'test'): Promise<string> {
  const ws = await createWorkspace(db, `${label}-${randomBytes(4).toString('hex')}`);
  return ws.id;
}

export const randomSuffix = (): string => randomBytes(6).toString('hex');
