import { readdirSync, readFileSync } from 'node:fs';
import { getPriority } from 'node:os';
import { BACKGROUND_NICE, createMemoryReadModel, createSqlReadModel, getAreaCounts, getAreaModelVersion, ROOT_AREA, setBackgroundNice, type Db, type Queryable, type VectorStore } from '@engram/stores';
import { testWorkspace } from '@engram/stores/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rebuildAreaModel } from '../src/areas/index.js';
import { DEFAULT_FEATURE_SPACE, recluster, DEFAULT_PARTITION } from '../src/clusters/index.js';
import { meanOf, toTopicalEntity, topicFeature, type EntityRow } from '../src/clusters/features.js';
import { startComputeThread } from '../src/clusters/offThread.js';
import { planRecluster, type PlanOptions, type ReclusterPage, type ReclusterPlan, type SharedVectors } from '../src/clusters/plan.js';
import { openHarness, pullRequest, stageAndIndex, type Harness } from './helpers.js';

/**
 * The re-cluster job computes in a worker thread so that the api's event loop stays free; what it
 * computes must not depend on where. A seeded fixture whose clusters need both merges and splits goes
 * through the plan inline and through the worker, and a small indexed workspace through the whole job.
 */
const DIMENSIONS = 48;
const TOPICS = 6;
const WORDS = ['parser', 'css', 'decorators', 'markdown', 'yaml', 'comments', 'indent', 'vue', 'angular', 'typescript', 'jsx', 'flow'];
const PATHS = ['src/language-js/print', 'src/language-css', 'src/language-markdown', 'src/language-yaml', 'tests/format/js', 'docs'];
/** What one of the vector mirror's 16-bit integers is worth: the fixture's vectors are multiples of it, so read in place they are the copies' values. */
const UNIT = 1 / 32_767;
const onGrid = (x: number): number => Math.round(x / UNIT) * UNIT;

/** A page as the re-cluster reads it, with the members' item ids it keeps beside the plan (which names members by position). */
type Page = ReclusterPage & { itemIds: string[] };

function page(from: number, count: number): Page {
  let seed = 11 + from;
  const random = (): number => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31) - 0.5;
  const itemIds: string[] = [];
  const clusterIds: string[] = [];
  const vectors = new Float32Array(count * DIMENSIONS);
  const hasVector = new Uint8Array(count);
  const mentions: EntityRow[][] = [];
  const titles: string[] = [];
  for (let i = 0; i < count; i++) {
    const n = from + i;
    const topic = n % TOPICS;
    itemIds.push(`obs_${String(n).padStart(5, '0')}`);
    // Topics 0-2 are spread over several clusters each (to merge); clusters 90+ hold two topics (to split).
    clusterIds.push(topic < 3 ? `clu_t${topic}_${n % 4}` : `clu_mixed_${Math.floor(topic / 2)}`);
    hasVector[i] = n % 17 === 5 ? 0 : 1;
    for (let d = 0; d < DIMENSIONS; d++) vectors[i * DIMENSIONS + d] = hasVector[i] ? onGrid((d === 0 ? 0.8 : 0) + (d === 1 + topic ? 0.55 : 0) + 0.06 * random()) : 0;
    mentions.push([
      { category: 'path', key: PATHS[topic]!, confidence: 1, df: 40 + topic },
      { category: 'keyword', key: WORDS[n % 5 === 0 ? (n * 7) % WORDS.length : topic * 2]!, confidence: 0.8, df: 12 },
    ]);
    titles.push(`Fix ${WORDS[topic * 2]} ${WORDS[(topic * 2 + 1) % WORDS.length]} in ${PATHS[topic]} (#${n})`);
  }
  return { itemIds, clusterIds, dimensions: DIMENSIONS, vectors, hasVector, mentions, titles };
}

const options: PlanOptions = { partition: DEFAULT_PARTITION, space: { ...DEFAULT_FEATURE_SPACE, entityDimensions: 32 }, itemCount: 500, centralTitlesMinMembers: 3 };
const pages = (): Page[] => [page(0, 150), page(150, 150), page(300, 60)];

/** The pages' vectors as one shared matrix (filled from its end: a member's row is not its position) and pages that give rows instead. */
function inPlace(input: Page[]): { shared: SharedVectors; pages: Page[] } {
  const total = input.reduce((n, p) => n + p.itemIds.length, 0);
  const data = new Int16Array(new SharedArrayBuffer(total * DIMENSIONS * 2));
  let next = total - 1;
  const out = input.map((p) => {
    const rows = new Int32Array(p.itemIds.length).fill(-1);
    p.itemIds.forEach((_, i) => {
      if (p.hasVector[i] !== 1) return;
      data.set(Array.from(p.vectors.subarray(i * DIMENSIONS, (i + 1) * DIMENSIONS), (x) => Math.round(x / UNIT)), next * DIMENSIONS);
      rows[i] = next--;
    });
    return { ...p, vectors: new Float32Array(0), rows };
  });
  return { shared: { data, unit: UNIT, dimensions: DIMENSIONS }, pages: out };
}

/** Each cluster of a plan as its members' item ids, and each member's similarity by item id. */
function membersOf(plan: ReclusterPlan, ids: string[]): { clusters: string[][]; similarity: Map<string, number> } {
  const clusters = plan.clusters.map(() => [] as string[]);
  const similarity = new Map<string, number>();
  plan.memberItems.forEach((item, m) => {
    clusters[plan.memberClusters[m]!]!.push(ids[item]!);
    similarity.set(ids[item]!, plan.memberSimilarities[m]!);
  });
  return { clusters: clusters.map((c) => c.sort()).sort((x, y) => x[0]!.localeCompare(y[0]!)), similarity };
}

describe('the re-cluster plan', () => {
  it('does not depend on the order members arrive in (ids are random, so two workspaces order the same items differently)', () => {
    const [first, second, third] = pages();
    const reversed = (p: Page): Page => {
      const order = p.itemIds.map((_, i) => p.itemIds.length - 1 - i);
      const vectors = new Float32Array(p.vectors.length);
      order.forEach((from, to) => vectors.set(p.vectors.subarray(from * p.dimensions, (from + 1) * p.dimensions), to * p.dimensions));
      const pick = <T,>(xs: readonly T[]): T[] => order.map((i) => xs[i]!);
      return { ...p, itemIds: pick(p.itemIds), clusterIds: pick(p.clusterIds), vectors, hasVector: Uint8Array.from(order.map((i) => p.hasVector[i]!)), mentions: pick(p.mentions), titles: pick(p.titles) };
    };
    const forward = planRecluster([first!, second!, third!], options);
    const backward = planRecluster([third!, second!, first!].map(reversed), options);
    const byItem = (plan: typeof forward, ids: string[]) =>
      new Map(Array.from(plan.memberItems, (item, m) => [ids[item]!, plan.memberSimilarities[m]!] as const));
    const ids = (ps: Page[]) => ps.flatMap((p) => p.itemIds);
    expect(byItem(backward, ids([third!, second!, first!].map(reversed)))).toEqual(byItem(forward, ids([first!, second!, third!])));

    const spread = Array.from({ length: 200 }, (_, i) => Float32Array.from({ length: 8 }, (_, d) => Math.sin(i * 7.3 + d) * 10 ** ((i % 7) - 3)));
    expect(meanOf([...spread].reverse(), 8)).toEqual(meanOf(spread, 8));
  });


  it("gives each cluster the mean of its members' raw features as its centroid, merges and splits included", () => {
    const input = pages();
    const plan = planRecluster(input, options);
    // Each member's raw feature, as the planner computes it from its page.
    const features = input.flatMap((p) =>
      p.itemIds.map((_, i) =>
        p.hasVector[i] === 1
          ? topicFeature(p.vectors.subarray(i * DIMENSIONS, (i + 1) * DIMENSIONS), p.mentions[i]!.map((m) => toTopicalEntity(m, options.itemCount)), options.space)
          : null,
      ),
    );
    const members = plan.clusters.map(() => [] as Float32Array[]);
    plan.memberItems.forEach((item, m) => members[plan.memberClusters[m]!]!.push(features[item]!));
    expect(plan.merged + plan.split).toBeGreaterThan(0);
    members.forEach((list, c) => {
      const want = meanOf(list, plan.dimensions);
      const got = plan.centroids.subarray(c * plan.dimensions, (c + 1) * plan.dimensions);
      // Within what 16-bit feature rows keep (`featureRows.ts`); a member too many or too few moves one by far more.
      for (let d = 0; d < plan.dimensions; d++) expect(got[d]).toBeCloseTo(want[d]!, 4);
    });
  });

  it('is the same computed in a worker thread as in this one, merges and splits included', async () => {
    const inline = planRecluster(pages(), options);
    expect(inline.merged).toBeGreaterThan(0);
    expect(inline.split).toBeGreaterThan(0);

    const thread = startComputeThread();
    try {
      thread.post({ kind: 'plan:start', options });
      for (const p of pages()) thread.post({ kind: 'plan:page', page: p }, [p.vectors.buffer as ArrayBuffer]);
      const { plan } = await thread.ask({ kind: 'plan:finish' }, 'plan');
      expect(plan).toEqual(inline);
    } finally {
      await thread.close();
    }
  });

  it("reads members' vectors in place from a shared matrix: the clusters copies give, centroids the mean of the exact raw features", async () => {
    const ids = pages().flatMap((p) => p.itemIds);
    const copies = planRecluster(pages(), options);
    const { shared, pages: rows } = inPlace(pages());
    const plan = planRecluster(rows, options, shared);
    expect(plan.merged).toBeGreaterThan(0);
    expect(plan.split).toBeGreaterThan(0);
    expect([plan.merged, plan.split]).toEqual([copies.merged, copies.split]);
    const [got, want] = [membersOf(plan, ids), membersOf(copies, ids)];
    expect(got.clusters).toEqual(want.clusters);
    // Copies are held as 16-bit rows with a scale each; in place, the mirror's values are read.
    for (const [id, similarity] of want.similarity) expect(got.similarity.get(id)).toBeCloseTo(similarity, 4);

    const features = pages().flatMap((p) =>
      p.itemIds.map((_, i) =>
        p.hasVector[i] === 1 ? topicFeature(p.vectors.subarray(i * DIMENSIONS, (i + 1) * DIMENSIONS), p.mentions[i]!.map((m) => toTopicalEntity(m, options.itemCount)), options.space) : null,
      ),
    );
    const members = plan.clusters.map(() => [] as Float32Array[]);
    plan.memberItems.forEach((item, m) => members[plan.memberClusters[m]!]!.push(features[item]!));
    members.forEach((list, c) => {
      const mean = meanOf(list, plan.dimensions);
      const centroid = plan.centroids.subarray(c * plan.dimensions, (c + 1) * plan.dimensions);
      for (let d = 0; d < plan.dimensions; d++) expect(centroid[d]).toBeCloseTo(mean[d]!, 6);
    });

    // The same in the worker, which reads the matrix through the shared buffer.
    const thread = startComputeThread();
    try {
      const again = inPlace(pages());
      thread.post({ kind: 'plan:start', options, shared: again.shared });
      for (const p of again.pages) thread.post({ kind: 'plan:page', page: p }, [p.rows!.buffer, p.hasVector.buffer] as ArrayBuffer[]);
      expect((await thread.ask({ kind: 'plan:finish' }, 'plan')).plan).toEqual(plan);
    } finally {
      await thread.close();
    }
  });

  it.runIf(process.platform === 'linux')('runs at the background nice value while the threads searches use keep theirs', async () => {
    // Each thread of this process and its nice value (field 19 of /proc/<pid>/task/<tid>/stat).
    const niceByThread = (): Map<string, number> =>
      new Map(readdirSync('/proc/self/task').map((tid) => [tid, Number(readFileSync(`/proc/self/task/${tid}/stat`, 'utf8').split(') ')[1]!.split(' ')[16])]));
    const startedThreads = async (): Promise<{ before: Map<string, number>; after: Map<string, number> }> => {
      const before = niceByThread();
      const thread = startComputeThread();
      try {
        // An answer means the worker ran its module, where it lowers its own priority.
        await expect(thread.ask({ kind: 'plan:finish' }, 'plan')).rejects.toThrow(/before plan:start/);
        return { before, after: niceByThread() };
      } finally {
        await thread.close();
      }
    };
    const own = getPriority();
    const { before, after } = await startedThreads();
    const started = [...after].filter(([tid]) => !before.has(tid)).map(([, nice]) => nice);
    expect(started).toContain(Math.max(own, BACKGROUND_NICE));
    for (const [tid, nice] of before) if (after.has(tid)) expect(after.get(tid)).toBe(nice);

    setBackgroundNice(0);
    try {
      const unchanged = await startedThreads();
      expect([...unchanged.after].filter(([tid]) => !unchanged.before.has(tid)).map(([, nice]) => nice).every((nice) => nice === own)).toBe(true);
    } finally {
      setBackgroundNice(BACKGROUND_NICE);
    }
  });

  it('reports a failure in the worker instead of hanging', async () => {
    const thread = startComputeThread();
    try {
      await expect(thread.ask({ kind: 'plan:finish' }, 'plan')).rejects.toThrow(/plan:finish before plan:start/);
    } finally {
      await thread.close();
    }
  });
});

describe('the re-cluster job and the area model, in a worker thread and inline', () => {
  let h: Harness;
  let db: Db;
  beforeAll(async () => {
    h = await openHarness();
    db = h.db;
  });
  afterAll(async () => h.db.close());

  const events = Array.from({ length: 18 }, (_, n) =>
    pullRequest(n + 1, {
      title: `${['Fix', 'Support', 'Keep'][n % 3]} ${WORDS[n % 4]} ${WORDS[(n % 4) + 4]} formatting`,
      // Every text distinct: items embedded alike tie, and a tie is broken by item id, which differs between the two workspaces.
      body: `Changes how ${WORDS[n % 4]} is printed (case ${n + 1}).`,
      files: [`${PATHS[n % 4]}/${WORDS[n % 4]}.js`, `tests/format/${WORDS[n % 4]}/jsfmt.spec.js`],
    }),
  );

  async function indexed(): Promise<string> {
    const ws = await testWorkspace(db);
    for (const e of events) await stageAndIndex(h, ws, e);
    return ws;
  }

  /**
   * Clusters as sets of member titles with their labels: the same whatever the ids of new clusters.
   * Similarities are compared to 5 decimals: two workspaces hold the same items in a different order, and
   * a float32 centroid can differ in its last digit with the order its members were summed in.
   */
  async function clusters(ws: string) {
    const rows = (await db.query<{ title: string; topic: string; summary: string; keywords: string[]; member_count: number; similarity: number }>(
      `SELECT i.title, c.topic, c.summary, c.keywords, c.member_count, m.similarity
       FROM cluster_members m JOIN clusters c ON c.id = m.cluster_id JOIN items i ON i.id = m.item_id WHERE m.workspace_id = $1`,
      [ws],
    )).rows;
    const byLabel = new Map<string, { members: string[]; similarities: number[] }>();
    const byTitleThenSimilarity = (a: (typeof rows)[number], b: (typeof rows)[number]) => a.title.localeCompare(b.title) || a.similarity - b.similarity;
    for (const r of rows.sort(byTitleThenSimilarity)) {
      const key = JSON.stringify([r.topic, r.summary, r.keywords, r.member_count]);
      const entry = byLabel.get(key) ?? byLabel.set(key, { members: [], similarities: [] }).get(key)!;
      entry.members.push(r.title);
      entry.similarities.push(Number(r.similarity.toFixed(5)));
    }
    return [...byLabel].sort((a, b) => a[0].localeCompare(b[0]));
  }

  it('gives the same clusters and area model either way', async () => {
    const [a, b] = [await indexed(), await indexed()];
    expect(await clusters(a)).toEqual(await clusters(b));

    const inline = await recluster(db, h.vectors, a, { thread: 'inline' });
    const worker = await recluster(db, h.vectors, b, { thread: 'worker' });
    expect(worker).toEqual(inline);
    expect(await clusters(b)).toEqual(await clusters(a));

    expect(await rebuildAreaModel(db, a, { thread: 'inline' })).toEqual(await rebuildAreaModel(db, b, { thread: 'worker' }));
    const areas = [ROOT_AREA, ...PATHS.slice(0, 4).map((p) => `${p}/`)];
    const [countsA, countsB] = [await getAreaCounts(db, a, areas, WORDS), await getAreaCounts(db, b, areas, WORDS)];
    expect(countsA.areas.get(ROOT_AREA)).toBe(events.length);
    expect(countsB).toEqual(countsA);
  });

  it("gives the same clusters with members' mentions read from the in-memory read model as from SQL", async () => {
    const [a, b] = [await indexed(), await indexed()];
    const memory = createMemoryReadModel(db, createSqlReadModel(db));
    let mentions = 0;
    const read = {
      stats: (workspaceId: string) => memory.stats(workspaceId),
      itemMentions: async (...args: Parameters<typeof memory.itemMentions>) => {
        const out = await memory.itemMentions(...args);
        for (const rows of out.values()) mentions += rows.length;
        return out;
      },
    };
    try {
      const fromSql = await recluster(db, h.vectors, a, { thread: 'inline' });
      const fromMemory = await recluster(db, h.vectors, b, { thread: 'inline', read });
      expect(mentions).toBeGreaterThan(events.length);
      expect(fromMemory).toEqual(fromSql);
      expect(await clusters(b)).toEqual(await clusters(a));
    } finally {
      await memory.close();
    }
  });

  /** `h.vectors`, counting the reads of vectors in place and as copies; `during` runs as the first page's rows are read. */
  function countingStore(options: { inPlace: boolean; during?: () => Promise<void> }) {
    const counts = { inPlace: 0, copies: 0 };
    let pending = options.during;
    const store: VectorStore = {
      ...h.vectors,
      getVectors: (ws, ids) => (counts.copies++, h.vectors.getVectors(ws, ids)),
      sharedRows: options.inPlace
        ? (ws, ids) => {
            if (ids.length > 0) {
              counts.inPlace++;
              // Started, not awaited: the removal lands while the job reads the page's mentions and texts, as a
              // concurrent write would.
              const write = pending;
              pending = undefined;
              void write?.();
            }
            return h.vectors.sharedRows!(ws, ids);
          }
        : undefined,
    };
    return { store, counts };
  }

  it('reads the vector mirror in place, and plans again from copies when a removal moves its rows during the plan', async () => {
    const [a, b, c] = [await indexed(), await indexed(), await indexed()];
    expect(h.vectors.sharedRows?.(a, [])).toBeTruthy();
    const plain = countingStore({ inPlace: true });
    await recluster(db, plain.store, a, { thread: 'worker' });
    expect(plain.counts).toEqual({ inPlace: 1, copies: 0 });

    // One item's vectors are removed in workspace b while its plan reads the first page (the mirror moves
    // its last row into the hole), and in workspace c before its re-cluster: the two must agree.
    const itemOf = async (ws: string) => (await db.query<{ id: string }>("SELECT id FROM items WHERE workspace_id = $1 AND content LIKE '%(case 3).%'", [ws])).rows[0]!.id;
    const [gone, twin] = [await itemOf(b), await itemOf(c)];
    const racing = countingStore({ inPlace: true, during: () => h.vectors.deleteItems(b, [gone]) });
    await recluster(db, racing.store, b, { thread: 'worker' });
    expect(racing.counts.inPlace).toBe(1);
    expect(racing.counts.copies).toBeGreaterThan(0);
    await h.vectors.deleteItems(c, [twin]);
    const copies = countingStore({ inPlace: false });
    await recluster(db, copies.store, c, { thread: 'worker' });
    expect(copies.counts.inPlace).toBe(0);
    expect(await clusters(b)).toEqual(await clusters(c));
  });

  /** The database, aborting `controller` as it runs its `at`-th statement (counting every statement, in transactions too). */
  function abortingAt(at: number, controller: AbortController): { db: Db; statements: () => number } {
    let n = 0;
    const counting = (target: Queryable): Queryable['query'] =>
      (sql, params) => {
        if (++n === at) controller.abort(new Error(`stopped at statement ${at}`));
        return target.query(sql, params);
      };
    return { db: { ...db, query: counting(db), transaction: (fn) => db.transaction((tx) => fn({ query: counting(tx) })) }, statements: () => n };
  }

  const staged = async (ws: string) =>
    (await db.query<{ n: number }>('SELECT (SELECT count(*) FROM cluster_stage WHERE workspace_id = $1) + (SELECT count(*) FROM cluster_member_stage WHERE workspace_id = $1) AS n', [ws])).rows[0]!.n;

  it('stopped at any statement, has either changed nothing and staged nothing or swapped in its whole result', async () => {
    const [a, b] = [await indexed(), await indexed()];
    const full = abortingAt(0, new AbortController());
    const expected = await recluster(full.db, h.vectors, a, { thread: 'worker' });
    const after = await clusters(a);
    const statements = full.statements();
    expect(statements).toBeGreaterThan(6);

    const before = await clusters(b);
    expect(before).not.toEqual(after);
    const outcomes: string[] = [];
    for (let at = 1; at <= statements; at++) {
      const controller = new AbortController();
      const run = recluster(abortingAt(at, controller).db, h.vectors, b, { thread: 'worker', signal: controller.signal });
      const outcome = await run.then(
        (result) => (expect(result).toEqual(expected), 'swapped'),
        (error: Error) => (expect(error.message).toBe(`stopped at statement ${at}`), 'stopped'),
      );
      expect(await clusters(b)).toEqual(outcome === 'swapped' ? after : before);
      expect(Number(await staged(b))).toBe(0);
      outcomes.push(outcome);
      if (outcome === 'swapped') break;
    }
    // Stopped at every statement before the swap; once the swap began, it finished.
    expect(outcomes.filter((o) => o === 'stopped').length).toBeGreaterThan(4);
    expect(outcomes.at(-1)).toBe('swapped');

    const built = await rebuildAreaModel(db, a);
    const stopped = new AbortController();
    stopped.abort(new Error('stopping'));
    await expect(rebuildAreaModel(db, b, { signal: stopped.signal })).rejects.toThrow('stopping');
    expect(await getAreaModelVersion(db, b)).toBeNull();
    expect(await rebuildAreaModel(db, b)).toEqual(built);
  });
});
