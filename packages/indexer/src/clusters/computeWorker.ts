// Runs inside a worker_threads Worker started by offThread.ts: the CPU work of the re-cluster job
// (features, merge and split, labels) and of the area model (tokenizing and counting), fed page by page.
import { parentPort, workerData } from 'node:worker_threads';
// The module alone, not the package's index: this thread needs none of the stores.
import { lowerThreadPriority } from '@engram/stores/threads';
import { createAreaCounter, type AreaCounter, type AreaRows, type ChangePage } from '../areas/count.js';
import { createPlanner, type PlanOptions, type Planner, type ReclusterPage, type ReclusterPlan, type SharedVectors } from './plan.js';

export type WorkerRequest =
  | { kind: 'plan:start'; options: PlanOptions; shared?: SharedVectors }
  | { kind: 'plan:page'; page: ReclusterPage }
  | { kind: 'plan:finish' }
  | { kind: 'areas:start' }
  | { kind: 'areas:page'; page: ChangePage }
  | { kind: 'areas:finish' };

export type WorkerReply = { kind: 'plan'; plan: ReclusterPlan } | { kind: 'areas'; rows: AreaRows } | { kind: 'failed'; message: string };

const port = parentPort;
if (!port) throw new Error('computeWorker.ts must run in a worker thread');
// A re-cluster's plan or an area model's counts are waited for by nobody in a hurry: searches' threads first.
lowerThreadPriority((workerData as { nice?: number } | null)?.nice ?? 0);

let planner: Planner | null = null;
let counter: AreaCounter | null = null;

function handle(request: WorkerRequest): void {
  switch (request.kind) {
    case 'plan:start':
      planner = createPlanner(request.options, request.shared);
      return;
    case 'plan:page':
      if (!planner) throw new Error('plan:page before plan:start');
      planner.addPage(request.page);
      return;
    case 'plan:finish': {
      if (!planner) throw new Error('plan:finish before plan:start');
      const plan = planner.finish();
      planner = null;
      port!.postMessage({ kind: 'plan', plan } satisfies WorkerReply, [plan.centroids.buffer, plan.memberItems.buffer, plan.memberClusters.buffer, plan.memberSimilarities.buffer] as ArrayBuffer[]);
      return;
    }
    case 'areas:start':
      counter = createAreaCounter();
      return;
    case 'areas:page':
      if (!counter) throw new Error('areas:page before areas:start');
      counter.addPage(request.page);
      return;
    case 'areas:finish': {
      if (!counter) throw new Error('areas:finish before areas:start');
      const rows = counter.finish();
      counter = null;
      port!.postMessage({ kind: 'areas', rows } satisfies WorkerReply, [rows.areaChanges.buffer, rows.termOf.buffer, rows.termArea.buffer, rows.termChanges.buffer] as ArrayBuffer[]);
      return;
    }
  }
}

port.on('message', (request: WorkerRequest) => {
  try {
    handle(request);
  } catch (error) {
    port.postMessage({ kind: 'failed', message: error instanceof Error ? (error.stack ?? error.message) : String(error) } satisfies WorkerReply);
  }
});
