/**
 * `node --import tsx bench/recluster-memory.ts <data dir>` (or through `scripts/allocator.sh`): one
 * re-cluster of the first workspace of an Engram data dir (a copy: it rewrites the clusters), with the
 * resident set sampled every 200 ms. Prints it once loaded, at its peak during the re-cluster and after.
 * The scale benchmark's `--keep-index` leaves such a dir.
 */
import { join } from 'node:path';
import { getHeapStatistics } from 'node:v8';
import { readFileSync } from 'node:fs';
import { createPgVectorStore, openDatabase } from '@engram/stores';
import { recluster } from '@engram/indexer';
const dir = process.argv[2]!;
const db = await openDatabase(`pglite://${join(dir, 'db')}`);
const workspaceId = (await db.query<{ id: string }>('SELECT id FROM workspaces ORDER BY created_at LIMIT 1')).rows[0]!.id;
const active = (await db.query<{ model: string; dimensions: number }>('SELECT model, dimensions FROM vector_collections WHERE active')).rows[0]!;
const store = await createPgVectorStore(db);
await store.ensureCollection({ model: active.model, dimensions: active.dimensions });
await store.memoryReady?.();
const rss = () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))![1]) / 1024;
console.log(`loaded: rss ${rss().toFixed(0)} MB, heap ${(getHeapStatistics().total_heap_size / 1e6).toFixed(0)} MB`);
let peak = 0;
const t = setInterval(() => { peak = Math.max(peak, rss()); }, 200);
const started = performance.now();
const r = await recluster(db, store, workspaceId, { thread: 'worker' });
clearInterval(t);
console.log(`recluster ${JSON.stringify(r)} in ${((performance.now() - started) / 1000).toFixed(1)} s: peak rss ${peak.toFixed(0)} MB, after ${rss().toFixed(0)} MB`);
await db.close();
