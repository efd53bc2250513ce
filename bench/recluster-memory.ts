/**
 * `node --import tsx bench/recluster-memory.ts <data dir>` (or through `scripts/allocator.sh`): one
 * re-cluster of the first workspace of an Engram data dir (a copy: it rewrites the clusters), with the
 * resident set sampled every 200 ms. Prints it once loaded, at its peak during the re-cluster and after.
 * The scale benchmark's `--keep-index` leaves such a dir.
 */
import { getHeapStatistics } from 'node:v8';
import { recluster } from '@engram/indexer';
import { openKeptIndex } from './runtime.js';
import { memorySampler } from './scale/proc.js';

const dir = process.argv[2];
if (!dir) throw new Error('usage: recluster-memory.ts <data dir>');
const { db, workspaceId, store } = await openKeptIndex(dir);
await store.memoryReady();
const mb = (bytes: number) => (bytes / 2 ** 20).toFixed(0);
const memory = memorySampler([process.pid], 200);
console.log(`loaded: rss ${mb(memory.last())} MB, heap ${(getHeapStatistics().total_heap_size / 1e6).toFixed(0)} MB`);
const started = performance.now();
const r = await recluster(db, store, workspaceId, { thread: 'worker' });
memory.stop();
console.log(`recluster ${JSON.stringify(r)} in ${((performance.now() - started) / 1000).toFixed(1)} s: peak rss ${mb(memory.peak())} MB, after ${mb(memory.last())} MB`);
await db.close();
