/**
 * The area model: which words the titles of changes to each part of the tree use. A question about
 * decorators fits a change to `src/language-js/print/decorators.js` even when that change's own title is
 * "Fix #12345", because the other changes to that file are titled in the question's words. The model
 * counts, per file and directory, the changes touching it and how many of their titles hold each term;
 * the search service turns those counts into the `areaTitleLift` signal of a candidate.
 *
 * A change is a pull request with its commits, or a commit no pull request contains: a commit folded into
 * a PR would count the PR's title twice in every area the PR touched. Areas only one change touched are
 * left out (they tell nothing about another change). Rebuilt wholesale, since titles and files change.
 */
import { areasOfFiles, replaceAreaModel, ROOT_AREA, type Db } from '@engram/stores';
import { tokenize } from '@engram/text';

const PAGE = 5_000;

export interface AreaModelSummary {
  changes: number;
  areas: number;
  terms: number;
}

export async function rebuildAreaModel(db: Db, workspaceId: string): Promise<AreaModelSummary> {
  // The root is written even for an empty workspace: its row says the model was built.
  const changesIn = new Map<string, number>([[ROOT_AREA, 0]]);
  const termsIn = new Map<string, Map<string, number>>();
  let changes = 0;
  let after = '';
  for (;;) {
    const page = await db.query<{ id: string; title: string | null; files: string[] }>(
      `SELECT i.id, i.title, i.files FROM items i
       WHERE i.workspace_id = $1 AND i.id > $2
         AND NOT (i.type = 'commit' AND EXISTS (SELECT 1 FROM edges e WHERE e.type = 'commit_pr' AND e.target_id = i.id))
       ORDER BY i.id LIMIT ${PAGE}`,
      [workspaceId, after],
    );
    for (const row of page.rows) {
      changes++;
      const terms = new Set(tokenize(row.title ?? ''));
      for (const area of [ROOT_AREA, ...areasOfFiles(row.files)]) {
        changesIn.set(area, (changesIn.get(area) ?? 0) + 1);
        const counts = termsIn.get(area) ?? termsIn.set(area, new Map()).get(area)!;
        for (const t of terms) counts.set(t, (counts.get(t) ?? 0) + 1);
      }
    }
    if (page.rows.length < PAGE) break;
    after = page.rows[page.rows.length - 1]!.id;
  }
  const areas: [string, number][] = [];
  const terms: [string, string, number][] = [];
  for (const [area, n] of changesIn) {
    if (n < 2 && area !== ROOT_AREA) continue;
    areas.push([area, n]);
    for (const [t, c] of termsIn.get(area) ?? []) terms.push([t, area, c]);
  }
  // Stored in key order, so a term's rows sit together on disk and a query reads few pages.
  areas.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  terms.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0));
  await replaceAreaModel(db, workspaceId, { areas, terms });
  return { changes, areas: areas.length, terms: terms.length };
}
