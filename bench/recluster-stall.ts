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
import { createPgVectorStore, openDatabase, refreshPlannerStats, type Db } from '@engram/stores';
import { rebuildAreaModel, recluster } from '@engram/indexer';

const { values: args } = parseArgs({
  options: {
    data: { type: 'string', default: '/tmp/rc-idx' },
    label: { type: 'string', default: 'run' },
    dump: { type: 'string' },
    rounds: { type: 'string', default: '1' },
    compare: { type: 'string', multiple: true },
  },
});

if (args.compare) {
  compare(args.compare);
  process.exit(0);
}

const load = () => loadavg().map((x) => x.toFixed(2)).join(' ');
const loadBefore = load();
const db = await openDatabase(`pglite://${join(args.data!, 'db')}`);
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

interface Probe {
  stop(): { loopMaxMs: number; loopP99Ms: number; queryMaxMs: number; queryP99Ms: number; queries: number };
}

/** Event-loop delay histogram plus a small query every 50 ms, timed from send to answer. */
function probe(database: Db): Probe {
  const histogram = monitorEventLoopDelay({ resolution: 5 });
  histogram.enable();
  const latencies: number[] = [];
  let inFlight = false;
  const timer = setInterval(() => {
    if (inFlight) return;
    inFlight = true;
    const started = performance.now();
    void database.query('SELECT count(*) FROM workspaces').then(() => {
      latencies.push(performance.now() - started);
      inFlight = false;
    });
  }, 50);
  return {
    stop() {
      clearInterval(timer);
      histogram.disable();
      latencies.sort((a, b) => a - b);
      return {
        loopMaxMs: histogram.max / 1e6,
        loopP99Ms: histogram.percentile(99) / 1e6,
        queryMaxMs: latencies[latencies.length - 1] ?? 0,
        queryP99Ms: latencies[Math.floor(latencies.length * 0.99)] ?? 0,
        queries: latencies.length,
      };
    },
  };
}

async function phase<T>(name: string, fn: () => Promise<T>): Promise<T> {
  const p = probe(db);
  const started = performance.now();
  const out = await fn();
  const wall = performance.now() - started;
  // Let the last probe query land.
  await new Promise((resolve) => setTimeout(resolve, 60));
  const s = p.stop();
  console.log(
    `[${args.label}] ${name.padEnd(14)} wall ${(wall / 1000).toFixed(2)} s | event-loop delay max ${s.loopMaxMs.toFixed(0)} ms, p99 ${s.loopP99Ms.toFixed(0)} ms` +
      ` | probe query (${s.queries}) max ${s.queryMaxMs.toFixed(0)} ms, p99 ${s.queryP99Ms.toFixed(0)} ms | ${JSON.stringify(out)}`,
  );
  return out;
}

for (let round = 1; round <= Number(args.rounds); round++) {
  const p = probe(db);
  const started = performance.now();
  await phase('recluster', () => recluster(db, vectors, workspaceId));
  await phase('area model', () => rebuildAreaModel(db, workspaceId));
  await phase('planner stats', () => refreshPlannerStats(db));
  const s = p.stop();
  console.log(
    `[${args.label}] round ${round}: job wall ${((performance.now() - started) / 1000).toFixed(2)} s, event-loop delay max ${s.loopMaxMs.toFixed(0)} ms, p99 ${s.loopP99Ms.toFixed(0)} ms, ` +
      `probe query max ${s.queryMaxMs.toFixed(0)} ms, p99 ${s.queryP99Ms.toFixed(0)} ms`,
  );
}
console.log(`[${args.label}] load average before ${loadBefore}, after ${load()} (node ${process.version})`);

if (args.dump) {
  const clusters = (await db.query<{ id: string; topic: string; summary: string; keywords: string[]; member_count: number; centroid: number[] }>(
    'SELECT id, topic, summary, keywords, member_count, centroid FROM clusters WHERE workspace_id = $1',
    [workspaceId],
  )).rows;
  const members = (await db.query<{ item_id: string; cluster_id: string; similarity: number }>(
    'SELECT item_id, cluster_id, similarity FROM cluster_members WHERE workspace_id = $1 ORDER BY item_id',
    [workspaceId],
  )).rows;
  const areas = (await db.query<{ area: string; changes: number }>('SELECT area, changes FROM areas WHERE workspace_id = $1 ORDER BY area', [workspaceId])).rows;
  const terms = (await db.query<{ term: string; area: string; changes: number }>(
    'SELECT term, area, changes FROM area_terms WHERE workspace_id = $1 ORDER BY term, area',
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
