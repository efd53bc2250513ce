import { existsSync, readFileSync } from 'node:fs';
import { normalizeGitHubObject } from '@engram/connectors';
import { createIndexer } from '@engram/indexer';
import { createHashEmbedder, stageAndIndex } from '@engram/indexer/testing';
import { createPgVectorStore, migrate, openDatabase, createWorkspace, type Db, type VectorStore } from '@engram/stores';
import { SourceEvent } from '@engram/contracts';

export const DATA_DIR = new URL('../../../../shared/data/github-prettier/', import.meta.url).pathname;
export const hasData = existsSync(`${DATA_DIR}corpus.json`);

interface CorpusObject {
  type: string;
  id: string;
  number?: number;
  sha?: string;
  title?: string;
  body?: string | null;
  files?: { filename: string }[];
  commit_shas?: string[];
  merge_commit_sha?: string;
}

let corpus: CorpusObject[] | null = null;
export function loadCorpus(): CorpusObject[] {
  corpus ??= JSON.parse(readFileSync(`${DATA_DIR}corpus.json`, 'utf8')) as CorpusObject[];
  return corpus;
}

/** The first `n` pull requests of the real corpus with their commits. */
export function corpusSubset(n: number): CorpusObject[] {
  const all = loadCorpus();
  const prs = all.filter((o) => o.type === 'pull_request').slice(0, n);
  const shas = new Set(prs.flatMap((p) => [...(p.commit_shas ?? []), p.merge_commit_sha ?? '']));
  return [...prs, ...all.filter((o) => o.type === 'commit' && shas.has(o.sha!))];
}

export interface Indexed {
  db: Db;
  vectors: VectorStore;
  workspaceId: string;
  embedder: ReturnType<typeof createHashEmbedder>;
  close(): Promise<void>;
}

/** A real PGlite index of the given events, built through the production indexing pipeline. */
export async function buildIndex(events: SourceEvent[]): Promise<Indexed> {
  const db = await openDatabase('pglite://memory');
  await migrate(db);
  const vectors = await createPgVectorStore(db);
  const embedder = createHashEmbedder({ dimensions: 256 });
  await vectors.ensureCollection({ model: embedder.model, dimensions: embedder.dimensions });
  const ws = await createWorkspace(db, 'search-test');
  const indexed = { db, vectors, workspaceId: ws.id, embedder, close: () => db.close() };
  await indexInto(indexed, ws.id, events);
  return indexed;
}

/** Stages and indexes events into a workspace of the index (the production pipeline); their item ids, in order. */
export async function indexInto(index: Omit<Indexed, 'close' | 'workspaceId'>, workspaceId: string, events: SourceEvent[]): Promise<string[]> {
  return stageAndIndex(index.db, createIndexer({ db: index.db, vectors: index.vectors, embedder: index.embedder }), workspaceId, events);
}

export const normalizeAll = (objects: unknown[]): SourceEvent[] => objects.map((o) => normalizeGitHubObject(o, 'prettier/prettier'));

/** A pull request of `repo` (default acme/widgets) as a connector would stage it. */
export function pullRequest(n: number, fields: { title: string; body?: string; at?: string; repo?: string; files?: string[] }): SourceEvent {
  const repo = fields.repo ?? 'acme/widgets';
  const at = fields.at ?? '2025-03-01T00:00:00.000Z';
  return SourceEvent.parse({
    source: 'github',
    type: 'pull_request',
    externalId: `github:${repo}:pull_request:${n}`,
    url: `https://github.com/${repo}/pull/${n}`,
    title: fields.title,
    body: fields.body ?? '',
    occurredAt: at,
    updatedAt: at,
    keys: [`pr:${repo}#${n}`],
    container: repo,
    ...(fields.files ? { files: fields.files } : {}),
  });
}
