import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPgVectorStore, type Db, type VectorStore } from '@engram/stores';
import { openTestDatabase, testWorkspace } from '@engram/stores/testing';
import { assignCluster, recluster } from '../src/clusters/index.js';
import { insertFixtureItem } from '../src/testing/clusterFixtures.js';

/**
 * Sentence embeddings are anisotropic: every vector shares a strong common direction, so two items of
 * unrelated topics still have a cosine around 0.7. Here each vector is 0.85 common direction plus
 * either a topic direction (four topics) or noise of its own (generic items such as "Fix typo").
 * A cluster that drifts toward the common direction must not swallow everything.
 */
const DIMENSIONS = 64;
const TOPICS = 4;
const PER_TOPIC = 8;
const GENERIC = 16;

let seed = 7;
const random = (): number => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31) - 0.5;

function anisotropic(topic: number | null): number[] {
  const v = Array.from({ length: DIMENSIONS }, () => 0.08 * random());
  v[0]! += 0.85;
  if (topic !== null) v[1 + topic]! += 0.5;
  else for (let i = 1 + TOPICS; i < DIMENSIONS; i++) v[i]! += 0.12 * random();
  const length = Math.hypot(...v);
  return v.map((x) => x / length);
}

let db: Db;
let vectors: VectorStore;

beforeAll(async () => {
  db = await openTestDatabase('pglite://memory');
  vectors = await createPgVectorStore(db);
  await vectors.ensureCollection({ model: 'test-clusters-snowball', dimensions: DIMENSIONS });
});
afterAll(async () => db.close());

describe('clusters on anisotropic embeddings', () => {
  it('keeps distinct topics apart and never grows one cluster over most items', async () => {
    const ws = await testWorkspace(db);
    // Interleaved as they would arrive: topic items and generic ones mixed in time.
    const kinds: (number | null)[] = [];
    for (let i = 0; i < TOPICS * PER_TOPIC + GENERIC; i++) kinds.push(i % 3 === 2 && kinds.filter((k) => k === null).length < GENERIC ? null : i % TOPICS);
    while (kinds.filter((k) => k === null).length < GENERIC) kinds.push(null);
    const items: { id: string; topic: number | null; vector: number[] }[] = [];
    for (const [i, topic] of kinds.entries()) {
      // Titles share no words, so only the vectors can bring items together.
      const id = await insertFixtureItem(db, ws, { externalId: `pr:${i}`, type: 'pull_request', title: `zq${i}w${i * 7}v` });
      const vector = anisotropic(topic);
      await vectors.upsert([{ id, itemId: id, workspaceId: ws, vector, source: 'github', type: 'pull_request', occurredAt: new Date().toISOString(), actorNames: [] }]);
      items.push({ id, topic, vector });
    }
    for (const item of items) await assignCluster(db, { workspaceId: ws, itemId: item.id, vector: item.vector });
    await recluster(db, vectors, ws);

    const rows = (await db.query<{ item_id: string; cluster_id: string }>('SELECT item_id, cluster_id FROM cluster_members WHERE workspace_id = $1', [ws])).rows;
    const clusterOf = new Map(rows.map((r) => [r.item_id, r.cluster_id]));
    const sizes = new Map<string, number>();
    for (const r of rows) sizes.set(r.cluster_id, (sizes.get(r.cluster_id) ?? 0) + 1);
    expect(rows).toHaveLength(items.length);
    // No blob: the largest cluster is one topic, not the workspace.
    expect(Math.max(...sizes.values())).toBeLessThanOrEqual(PER_TOPIC + 2);
    for (let topic = 0; topic < TOPICS; topic++) {
      const clusters = new Set(items.filter((i) => i.topic === topic).map((i) => clusterOf.get(i.id)));
      // A topic stays together (at most split in two while the workspace mean was still unknown)...
      expect(clusters.size).toBeLessThanOrEqual(2);
      // ...and never shares a cluster with another topic.
      const mixed = items.filter((i) => i.topic !== null && i.topic !== topic && clusters.has(clusterOf.get(i.id)));
      expect(mixed).toHaveLength(0);
    }
  });
});
