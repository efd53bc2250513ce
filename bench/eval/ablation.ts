/**
 * Each retrieval path and fusion signal removed in turn, scored like every other system: the `fast`
 * first stage run in-process on the evaluated index (a data dir no other process holds: the eval's own
 * instance after it stopped, or a copy given with `--ablate-index`). Paths are switched off inside
 * retrieval (`disablePaths`), so a path's candidates go too, not only its weight; the non-path signals
 * (term coverage, proximity, recency) are removed by zeroing their fusion weight.
 */
import { join } from 'node:path';
import { SearchRequest } from '@engram/contracts';
import { openFirstStageRuntime } from '../runtime.js';
import { DEFAULT_FUSION, PATH_NAMES, type FusionWeights, type PathName } from '@engram/search';
import { createSearchService } from '@engram/search';
import { listWorkspaces } from '@engram/stores';
import { datasetIdFromUrl, type Query } from './dataset.js';
import type { Judgement } from './metrics.js';
import type { AblationTable } from './report.js';
import { runSystem, type SearchSystem } from './run.js';

const SIGNALS = ['termCoverage', 'proximity', 'recency'] as const satisfies readonly (keyof FusionWeights)[];

export async function ablatePaths(dataDir: string, queries: readonly Query[], judgements: ReadonlyMap<string, Judgement>, workspaceId?: string): Promise<AblationTable> {
  const runtime = await openFirstStageRuntime(dataDir, 'eval-ablation');
  try {
    const ws = workspaceId ?? (await listWorkspaces(runtime.db))[0]?.id;
    if (!ws) throw new Error(`no workspace in ${join(dataDir, 'db')}`);
    const urls = new Map((await runtime.db.query<{ id: string; url: string }>('SELECT id, url FROM items WHERE workspace_id = $1', [ws])).rows.map((r) => [r.id, r.url]));
    const system = (fusion: FusionWeights, disablePaths: PathName[] = []): SearchSystem => {
      const service = createSearchService({ db: runtime.db, vectors: runtime.vectors, embedder: runtime.embedder, fusion });
      return async (query, limit) => {
        const out = await service.search(ws, SearchRequest.parse({ query, limit, mode: 'fast' }), { disablePaths });
        return { ids: out.results.flatMap((r) => datasetIdFromUrl(urls.get(r.id) ?? r.url) ?? []) };
      };
    };
    // One query at a time: the in-process PGlite is single-threaded anyway.
    const run = (name: string, s: SearchSystem) => runSystem(name, s, queries, judgements, { concurrency: 1 });
    const reference = await run('fast, all paths and signals', system(DEFAULT_FUSION));
    const rows = [];
    for (const path of PATH_NAMES) {
      const name = path === 'lexical' ? 'lexical path removed (and with it term coverage, proximity)' : `${path} path removed`;
      rows.push(await run(name, system(DEFAULT_FUSION, [path])));
    }
    for (const signal of SIGNALS) rows.push(await run(`${signal} removed`, system({ ...DEFAULT_FUSION, [signal]: 0 })));
    return { caption: 'Paths and signals removed in turn (`fast`, in-process on the evaluated index)', reference, rows };
  } finally {
    await runtime.close();
  }
}
