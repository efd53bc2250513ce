import type { SourceEvent, SourceEventInput } from '@engram/contracts';
import { SourceEvent as SourceEventSchema } from '@engram/contracts';
import { createPgVectorStore, stageEvents, type Db, type VectorStore } from '@engram/stores';
import { openTestDatabase } from '@engram/stores/testing';
import { createIndexer, type EmbeddingProvider, type Indexer } from '../src/index.js';
import { countingEmbedder, createHashEmbedder, type CountingEmbedder } from '../src/testing/index.js';

export interface Harness {
  db: Db;
  vectors: VectorStore;
  embedder: CountingEmbedder;
  indexer: Indexer;
}

export async function openHarness(provider: EmbeddingProvider = createHashEmbedder()): Promise<Harness> {
  const embedder = countingEmbedder(provider);
  const db = await openTestDatabase('pglite://memory');
  const vectors = await createPgVectorStore(db);
  await vectors.ensureCollection({ model: embedder.model, dimensions: embedder.dimensions });
  return { db, vectors, embedder, indexer: createIndexer({ db, vectors, embedder }) };
}

/** Stages events as a connector would and returns their staged ids, in order. */
export async function stage(db: Db, workspaceId: string, events: SourceEventInput[]): Promise<string[]> {
  const ids: string[] = [];
  for (const input of events) {
    const { ids: staged } = await stageEvents(db, { workspaceId, events: [SourceEventSchema.parse(input)] });
    ids.push(...staged);
  }
  return ids;
}

export async function stageAndIndex(h: Harness, workspaceId: string, event: SourceEventInput) {
  const [id] = await stage(h.db, workspaceId, [event]);
  return h.indexer.indexEvent(id!);
}

const sha = (seed: string): string => seed.padEnd(40, '0').replace(/[^0-9a-f]/g, 'a').slice(0, 40);
export { sha };

export function pullRequest(n: number, over: Partial<SourceEvent> = {}): SourceEventInput {
  return {
    source: 'github',
    type: 'pull_request',
    externalId: `github:acme/app:pull_request:${n}`,
    url: `https://github.com/acme/app/pull/${n}`,
    title: `Pull request ${n}`,
    body: '',
    occurredAt: '2025-01-10T10:00:00.000Z',
    updatedAt: '2025-01-10T10:00:00.000Z',
    keys: [`pr:acme/app#${n}`],
    container: 'acme/app',
    actors: [{ role: 'author', provider: 'github', login: 'octocat' }],
    ...over,
  };
}

export function commit(hash: string, over: Partial<SourceEvent> = {}): SourceEventInput {
  return {
    source: 'github',
    type: 'commit',
    externalId: `github:acme/app:commit:${hash}`,
    url: `https://github.com/acme/app/commit/${hash}`,
    title: 'A commit',
    body: '',
    occurredAt: '2025-01-11T10:00:00.000Z',
    updatedAt: '2025-01-11T10:00:00.000Z',
    keys: [`commit:${hash}`],
    container: 'acme/app',
    actors: [{ role: 'author', provider: 'github', login: 'octocat' }],
    ...over,
  };
}

export function linearIssue(key: string, over: Partial<SourceEvent> = {}): SourceEventInput {
  return {
    source: 'linear',
    type: 'issue',
    externalId: `linear:issue:${key}`,
    url: `https://linear.app/acme/issue/${key}`,
    title: `Linear ${key}`,
    body: '',
    occurredAt: '2025-01-09T10:00:00.000Z',
    updatedAt: '2025-01-09T10:00:00.000Z',
    keys: [`linear:${key}`],
    container: 'ENG',
    ...over,
  };
}

/** Row counts of every table the indexer writes, for one workspace. */
export async function tableCounts(h: Harness, workspaceId: string): Promise<Record<string, number>> {
  const one = async (sql: string) => Number((await h.db.query<{ n: string }>(sql, [workspaceId])).rows[0]?.n ?? 0);
  return {
    items: await one('SELECT count(*) AS n FROM items WHERE workspace_id = $1'),
    refs: await one('SELECT count(*) AS n FROM item_refs WHERE workspace_id = $1'),
    entities: await one('SELECT count(*) AS n FROM entities WHERE workspace_id = $1'),
    entityItemCounts: await one('SELECT coalesce(sum(item_count), 0) AS n FROM entities WHERE workspace_id = $1'),
    mentions: await one('SELECT count(*) AS n FROM entity_mentions WHERE workspace_id = $1'),
    actors: await one('SELECT count(*) AS n FROM actors WHERE workspace_id = $1'),
    identities: await one('SELECT count(*) AS n FROM actor_identities WHERE workspace_id = $1'),
    itemActors: await one('SELECT count(*) AS n FROM item_actors WHERE workspace_id = $1'),
    edges: await one('SELECT count(*) AS n FROM edges WHERE workspace_id = $1'),
    lexicon: await one('SELECT count(*) AS n FROM lexicon WHERE workspace_id = $1'),
    lexiconDf: await one('SELECT coalesce(sum(df), 0) AS n FROM lexicon WHERE workspace_id = $1'),
    vectorItems: await h.vectors.count(workspaceId),
  };
}

export async function vectorChunkIds(h: Harness, workspaceId: string, itemId: string): Promise<string[]> {
  const table = (await h.db.query<{ name: string }>('SELECT name FROM vector_collections WHERE active')).rows[0]!.name;
  const res = await h.db.query<{ id: string }>(`SELECT id FROM ${table} WHERE workspace_id = $1 AND item_id = $2 ORDER BY id`, [workspaceId, itemId]);
  return res.rows.map((r) => r.id);
}
