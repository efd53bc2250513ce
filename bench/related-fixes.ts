/**
 * `npx tsx bench/related-fixes.ts --index <data dir> [--data ../shared/data/github-prettier]`
 *
 * `fixes_issue` links of `links.json` through the related graph: the fixed issues are not in the corpus,
 * so they can only appear as stub nodes (`ref:gh:owner/repo#N`). Asks the graph (depth 1, as
 * `POST /v1/related` does) around every PR that fixes an issue and around its commits, and scores the
 * `fixes` edges it returns (by the nodes' URLs) against the ground truth. Work on a copy of the data dir.
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { listWorkspaces, openDatabase } from '@engram/stores';
import { getRelatedGraph } from '@engram/search';
import { RelatedRequest } from '@engram/contracts';
const { values: args } = parseArgs({ options: { index: { type: 'string' }, data: { type: 'string', default: '../shared/data/github-prettier' } } });
if (!args.index) throw new Error('--index <data dir of an Engram instance holding the dataset> is required');
const db = await openDatabase(`pglite://${join(resolve(args.index), 'db')}`);
const ws = (await listWorkspaces(db))[0]!.id;
const links = JSON.parse(readFileSync(join(resolve(args.data), 'links.json'), 'utf8')) as { type: string; source: string; target: string }[];
const truth = new Set(links.filter((l) => l.type === 'fixes_issue').map((l) => `${l.source}>${l.target}`));
const roots = new Set(links.filter((l) => l.type === 'fixes_issue').map((l) => l.source));
for (const l of links) if (l.type === 'commit_pr' && roots.has(l.target)) roots.add(l.source);
const idOf = async (d: string) => {
  const [kind, ref] = d.split(':');
  const url = kind === 'pull_request' ? `https://github.com/prettier/prettier/pull/${ref}` : `https://github.com/prettier/prettier/commit/${ref}`;
  return (await db.query<{ id: string }>('SELECT id FROM items WHERE workspace_id = $1 AND url = $2', [ws, url])).rows[0]?.id;
};
const toDataset = (url: string) => {
  const m = /\/(pull|issues|commit)\/([0-9a-f]+)$/.exec(url);
  return m ? `${m[1] === 'pull' ? 'pull_request' : m[1] === 'issues' ? 'issue' : 'commit'}:${m[2]}` : url;
};
const predicted = new Set<string>();
for (const root of roots) {
  const id = await idOf(root);
  if (!id) continue;
  const g = await getRelatedGraph(db, ws, RelatedRequest.parse({ id }));
  const url = new Map(g!.nodes.map((n) => [n.id, n.url]));
  for (const e of g!.edges) if (e.type === 'fixes') predicted.add(`${toDataset(url.get(e.source)!)}>${toDataset(url.get(e.target)!)}`);
}
const correct = [...predicted].filter((p) => truth.has(p));
console.log(`roots ${roots.size}; truth ${truth.size}; predicted ${predicted.size}; correct ${correct.length}; precision ${(correct.length / predicted.size).toFixed(3)} recall ${(correct.length / truth.size).toFixed(3)}`);
console.log('extra', [...predicted].filter((p) => !truth.has(p)), 'missed', [...truth].filter((t) => !predicted.has(t)));
await db.close();
