/**
 * The area model: which words the titles of changes to each part of the tree use. A question about
 * decorators fits a change to `src/language-js/print/decorators.js` even when that change's own title is
 * "Fix #12345", because the other changes to that file are titled in the question's words. The model
 * counts, per file and directory, the changes touching it and how many of their titles hold each term;
 * the search service turns those counts into the `areaTitleLift` signal of a candidate.
 *
 * A change is a pull request with its commits, or a commit no pull request contains: a commit folded into
 * a PR would count the PR's title twice in every area the PR touched. Areas only one change touched are
 * left out (they tell nothing about another change). Rebuilt wholesale, since titles and files change:
 * changes are read in pages, counted in a worker thread, and written as a new generation in slices that
 * is published at once (readers see the old model or the new one).
 */
import { areasOfFiles, listChangesPage, replaceAreaModel, type Db } from '@engram/stores';
import { pageSink, startComputeThread, unlessAborted, yieldingDb, yieldToLoop, type PageSink } from '../clusters/offThread.js';
import { createAreaCounter, type AreaRows, type ChangePage } from './count.js';

/** Changes read per page. */
const READ_PAGE = 2_000;

export interface AreaModelSummary {
  changes: number;
  areas: number;
  terms: number;
}

export interface AreaModelOptions {
  /**
   * Where the counting runs: a worker thread, this thread, or `auto` (the default): this thread up to
   * 2,000 changes, a worker above. All give the same model.
   */
  thread?: 'worker' | 'inline' | 'auto';
  /** Stops the rebuild at the next statement or page once aborted; the workspace keeps its model. */
  signal?: AbortSignal;
}

/** Below this many changes they are counted inline (a few ms a page), above it in a worker thread. */
const INLINE_MAX_CHANGES = 2_000;

function countSink(mode: AreaModelOptions['thread']): PageSink<ChangePage, AreaRows> {
  return pageSink(mode, INLINE_MAX_CHANGES, createAreaCounter, () => {
    const worker = startComputeThread();
    worker.post({ kind: 'areas:start' });
    return {
      addPage: (page) => worker.post({ kind: 'areas:page', page }),
      finish: async () => (await worker.ask({ kind: 'areas:finish' }, 'areas')).rows,
      close: () => worker.close(),
    };
  });
}

export async function rebuildAreaModel(database: Db, workspaceId: string, options: AreaModelOptions = {}): Promise<AreaModelSummary> {
  const db = yieldingDb(database, options.signal);
  const sink = countSink(options.thread);
  let rows: AreaRows;
  try {
    for (let after = ''; ; ) {
      const page = await listChangesPage(db, workspaceId, after, READ_PAGE);
      if (page.length === 0) break;
      sink.addPage({ titles: page.map((r) => r.title ?? ''), areas: page.map((r) => [...areasOfFiles(r.files)]) }, page.length);
      after = page[page.length - 1]!.id;
      await yieldToLoop();
      if (page.length < READ_PAGE) break;
    }
    rows = await unlessAborted(sink.finish(), options.signal);
  } finally {
    await sink.close();
  }
  // The root is written even for an empty workspace: its row says the model was built.
  await replaceAreaModel(db, workspaceId, rows, yieldToLoop);
  return { changes: rows.changes, areas: rows.areaNames.length, terms: rows.termOf.length };
}
