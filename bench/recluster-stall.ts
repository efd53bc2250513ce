/**
 * `npx tsx bench/recluster-stall.ts --data /tmp/rc-idx [--label after] [--dump /tmp/clusters.json] [--rounds 1]`
 *
 * Runs the `cluster.recluster` job's work (re-cluster, area model rebuild, planner statistics) on a
 * full embedded index, the way the job does on the api's event loop, and measures what it costs the
 * rest of that process: the wall time of each phase, the event-loop delay (max and p99 of
 * `monitorEventLoopDelay`), and the latency of a small query sent every 50 ms while it runs (what a
 * search waits for on the single PGlite connection). Prints the load average before and after.
 * `--dump` writes the resulting clusters (members, labels) and area model to a JSON file, so two runs
 * (before and after a change) can be compared with `--compare a.json b.json`.
 *
 * PGlite has one owner: run it on a copy of a data dir (`cp -a /work/idx/base /tmp/rc-idx`), never on
 * a data dir a server has open.
 */
import { writeFileSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import * as stores from '@engram/stores';
import { createPgVectorStore, migrate, openDatabase, refreshPlannerStats, type Db } from '@engram/stores';
import { rebuildAreaModel, recluster } from '@engram/indexer';

const { values: args } = parseArgs({
  options: {
    data: { type: 'string', default: '/tmp/rc-idx' },
    label: { type: 'string', default: 'run' },
    dump: { type: 'string' },
    rounds: { type: 'string', default: '1' },
    compare: { type: 'string', multiple: true },
    /** Prints every statement that took longer than this (ms): where a stall comes from. */
    'trace-ms': { type: 'string' },
  },
});

if (args.compare) {
  compare(args.compare);
  process.exit(0);
}

const load = () => loadavg().map((x) => x.toFixed(2)).join(' ');
const loadBefore = load();
const db = traced(await openDatabase(`pglite://${join(args.data!, 'db')}`), args['trace-ms'] ? Number(args['trace-ms']) : null);
const migrated = await migrate(db);
if (migrated.length > 0) console.log(`[${args.label}] applied migrations ${migrated.join(', ')}`);
const workspaceId = (await db.query<{ id: string }>('SELECT id FROM workspaces ORDER BY created_at LIMIT 1')).rows[0]!.id;
const active = (await db.query<{ model: string; dimensions: number }>('SELECT model, dimensions FROM vector_collections WHERE active')).rows[0]!;
const vectors = await createPgVectorStore(db, { memoryIndex: false });
await vectors.ensureCollection({ model: active.model, dimensions: active.dimensions });
const counts = (await db.query<{ items: number; members: number; clusters: number }>(
  `SELECT (SELECT count(*)::int FROM items WHERE workspace_id = $1) AS items,
          (SELECT count(*)::int FROM cluster_members WHERE workspace_id = $1) AS members,
          (SELECT count(*)::int FROM clusters WHERE workspace_id = $1) AS clusters`,
  [workspaceId],
)).rows[0]!;
console.log(`[${args.label}] ${args.data}: workspace ${workspaceId}, ${counts.items} items, ${counts.members} cluster members in ${counts.clusters} clusters`);

/** The database with statements slower than `slowMs` printed (SQL cut to 100 characters). */
function traced(database: Db, slowMs: number | null): Db {
  if (slowMs === null) return database;
  const time = async <T>(sql: string, run: () => Promise<T>): Promise<T> => {
    const started = performance.now();
    const out = await run();
    const ms = performance.now() - started;
    if (ms > slowMs) console.log(`    slow statement ${ms.toFixed(0)} ms: ${sql.replace(/\s+/g, ' ').slice(0, 100)}`);
    return out;
  };
  const wrap = (q: Db['query']): Db['query'] => (sql, params) => time(sql, () => q(sql, params));
  return {
    ...database,
    query: wrap(database.query.bind(database)),
    transaction: (fn) => database.transaction((tx) => fn({ query: wrap(tx.query.bind(tx)) })),
  };
}

interface ProbeFigures {
  /** Longest gap between two ticks of a 10 ms timer, less 10 ms: the longest the loop was held. */
  stallMaxMs: number;
  stallP99Ms: number;
  /** `monitorEventLoopDelay` (resolution 10 ms). */
  loopMaxMs: number;
  loopP99Ms: number;
  /** A small query every 50 ms, timed from send to answer (one still waiting counts its age). */
  queryMaxMs: number;
  queryP99Ms: number;
  queries: number;
}

const TICK_MS = 10;
const p99 = (sorted: number[]): number => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.99))] ?? 0;

/** Event-loop stalls (a drift probe and the delay histogram) plus a small query every 50 ms. */
function probe(database: Db): { stop(): ProbeFigures } {
  const histogram = monitorEventLoopDelay({ resolution: TICK_MS });
  histogram.enable();
  const stalls: number[] = [];
  let last = performance.now();
  const ticker = setInterval(() => {
    const now = performance.now();
    stalls.push(Math.max(0, now - last - TICK_MS));
    last = now;
  }, TICK_MS);
  const latencies: number[] = [];
  let sentAt: number | null = null;
  const querier = setInterval(() => {
    if (sentAt !== null) return;
    const started = (sentAt = performance.now());
    void database.query('SELECT count(*) FROM workspaces').then(() => {
      latencies.push(performance.now() - started);
      sentAt = null;
    });
  }, 50);
  return {
    stop() {
      const now = performance.now();
      stalls.push(Math.max(0, now - last - TICK_MS));
      clearInterval(ticker);
      clearInterval(querier);
      histogram.disable();
      if (sentAt !== null) latencies.push(now - sentAt);
      stalls.sort((a, b) => a - b);
      latencies.sort((a, b) => a - b);
      return {
        stallMaxMs: stalls[stalls.length - 1] ?? 0,
        stallP99Ms: p99(stalls),
        loopMaxMs: histogram.count > 0 ? histogram.max / 1e6 : 0,
        loopP99Ms: histogram.count > 0 ? histogram.percentile(99) / 1e6 : 0,
        queryMaxMs: latencies[latencies.length - 1] ?? 0,
        queryP99Ms: p99(latencies),
        queries: latencies.length,
      };
    },
  };
}

const describe = (s: ProbeFigures): string =>
  `longest stall ${s.stallMaxMs.toFixed(0)} ms (p99 ${s.stallP99Ms.toFixed(0)}) | loop delay histogram max ${s.loopMaxMs.toFixed(0)} ms, p99 ${s.loopP99Ms.toFixed(0)} ms` +
  ` | probe query (${s.queries}) max ${s.queryMaxMs.toFixed(0)} ms, p99 ${s.queryP99Ms.toFixed(0)} ms`;

const figures: Record<string, ProbeFigures & { wallMs: number }> = {};

async function phase<T>(name: string, fn: () => Promise<T>): Promise<T> {
  const p = probe(db);
  const started = performance.now();
  const out = await fn();
  const wallMs = performance.now() - started;
  const s = p.stop();
  figures[name] = { ...s, wallMs };
  console.log(`[${args.label}] ${name.padEnd(13)} wall ${(wallMs / 1000).toFixed(2)} s | ${describe(s)} | ${JSON.stringify(out)}`);
  return out;
}

for (let round = 1; round <= Number(args.rounds); round++) {
  await phase('recluster', () => recluster(db, vectors, workspaceId));
  await phase('area model', () => rebuildAreaModel(db, workspaceId));
  // The job refreshes statistics one table at a time where the stores offer it (after this change).
  const byTable = (stores as Partial<{ refreshPlannerStatsByTable: (d: Db, between: () => Promise<void>) => Promise<unknown> }>).refreshPlannerStatsByTable;
  await phase('planner stats', () => (byTable ? byTable(db, () => new Promise((resolve) => setImmediate(resolve))) : refreshPlannerStats(db)));
  const all = Object.values(figures);
  console.log(
    `[${args.label}] round ${round}: job wall ${(all.reduce((a, f) => a + f.wallMs, 0) / 1000).toFixed(2)} s, longest stall ${Math.max(...all.map((f) => f.stallMaxMs)).toFixed(0)} ms, ` +
      `loop delay max ${Math.max(...all.map((f) => f.loopMaxMs)).toFixed(0)} ms, probe query max ${Math.max(...all.map((f) => f.queryMaxMs)).toFixed(0)} ms`,
  );
}
console.log(`[${args.label}] load average before ${loadBefore}, after ${load()} (node ${process.version})`);

if (args.dump) {
  const clusters = (await db.query<{ id: string; topic: string; summary: string; keywords: string[]; member_count: number; centroid: string }>(
    "SELECT id, topic, summary, keywords, member_count, encode(centroid, 'hex') AS centroid FROM clusters WHERE workspace_id = $1",
    [workspaceId],
  )).rows;
  const members = (await db.query<{ item_id: string; cluster_id: string; similarity: number }>(
    'SELECT item_id, cluster_id, similarity FROM cluster_members WHERE workspace_id = $1 ORDER BY item_id',
    [workspaceId],
  )).rows;
  const areas = (await db.query<{ area: string; changes: number }>('SELECT area, changes FROM areas WHERE workspace_id = $1 ORDER BY area', [workspaceId])).rows;
  const terms = (await db.query<{ term: string; area: string; changes: number }>(
    'SELECT term, u.area, u.changes FROM area_term_lists, unnest(areas, changes) AS u(area, changes) WHERE workspace_id = $1 ORDER BY term, u.area',
    [workspaceId],
  )).rows;
  writeFileSync(args.dump, JSON.stringify({ clusters, members, areas, terms }));
  console.log(`[${args.label}] wrote ${clusters.length} clusters, ${members.length} members, ${areas.length} areas, ${terms.length} area terms to ${args.dump}`);
}
await db.close();

interface Dump {
  clusters: { id: string; topic: string; summary: string; keywords: string[]; member_count: number; centroid: number[] }[];
  members: { item_id: string; cluster_id: string; similarity: number }[];
  areas: { area: string; changes: number }[];
  terms: { term: string; area: string; changes: number }[];
}

/** Same partition (clusters as sets of items), labels, centroids and similarities, whatever the new clusters' ids. */
function compare([a, b]: string[]): void {
  const [x, y] = [a!, b!].map((f) => JSON.parse(readFileSync(f, 'utf8')) as Dump);
  const key = (d: Dump) => {
    const byCluster = new Map<string, string[]>();
    for (const m of d.members) (byCluster.get(m.cluster_id) ?? byCluster.set(m.cluster_id, []).get(m.cluster_id)!).push(m.item_id);
    const info = new Map(d.clusters.map((c) => [c.id, c]));
    return new Map([...byCluster].map(([id, items]) => [items.sort().join(','), info.get(id)!]));
  };
  const [kx, ky] = [key(x!), key(y!)];
  const same = [...kx.keys()].filter((k) => ky.has(k));
  const labels = same.filter((k) => {
    const [c, d] = [kx.get(k)!, ky.get(k)!];
    return c.topic === d.topic && c.summary === d.summary && c.keywords.join() === d.keywords.join();
  });
  let centroidDiff = 0;
  for (const k of same) {
    const [c, d] = [kx.get(k)!.centroid, ky.get(k)!.centroid];
    for (let i = 0; i < c.length; i++) centroidDiff = Math.max(centroidDiff, Math.abs(c[i]! - (d[i] ?? 0)));
  }
  const simY = new Map(y!.members.map((m) => [m.item_id, m.similarity]));
  const simDiff = Math.max(0, ...x!.members.map((m) => Math.abs(m.similarity - (simY.get(m.item_id) ?? Infinity))));
  const areaKey = (d: Dump) => new Set([...d.areas.map((r) => `a:${r.area}:${r.changes}`), ...d.terms.map((r) => `t:${r.term}:${r.area}:${r.changes}`)]);
  const [ax, ay] = [areaKey(x!), areaKey(y!)];
  const areaSame = [...ax].filter((r) => ay.has(r)).length;
  console.log(`clusters: ${kx.size} vs ${ky.size}; identical member sets ${same.length}; of those identical labels ${labels.length}`);
  console.log(`max centroid difference ${centroidDiff}, max member similarity difference ${simDiff}`);
  console.log(`area model rows: ${ax.size} vs ${ay.size}, identical ${areaSame}`);
}
