/**
 * `npx tsx bench/related-graph.ts --index <Engram data dir holding the dataset> [--data ../shared/data/github-prettier]`
 *
 * Scores the related graph as stored (the edges `POST /v1/related` walks) against `links.json`, two ways:
 * - exact: an edge counts when its two items are the link's two items;
 * - per change: a pull request and its commits are one change (as search collapses them), so a revert
 *   linking the reverting commit to the reverted PR matches the ground truth's commit-to-commit link.
 * Reads the database directly (seconds) instead of 9,000 HTTP round trips (`npm run eval` does those).
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { openDatabase } from '@engram/stores';
import { datasetIdFromUrl, linkKind, loadAuditedLinks, loadDataset, pullRequestsByCommit } from './eval/dataset.js';

const { values: args } = parseArgs({ options: { data: { type: 'string', default: '../shared/data/github-prettier' }, index: { type: 'string' } } });
if (!args.index) throw new Error('--index <data dir> is required');
const dataset = await loadDataset(resolve(args.data));
const audited = await loadAuditedLinks();
const byCommit = pullRequestsByCommit(dataset.corpus, dataset.links);
const change = (id: string): string => [...(byCommit.get(id) ?? [])].sort()[0] ?? id;
const KINDS: Record<string, string> = { commit_pr: 'commit_pr', reverts: 'reverts', references: 'references_pr', fixes: 'fixes_issue' };

const db = await openDatabase(`pglite://${resolve(args.index, 'db')}`);
const rows = (
  await db.query<{ s: string; t: string; type: string }>(
    'SELECT s.url AS s, t.url AS t, e.type FROM edges e JOIN items s ON s.id = e.source_id JOIN items t ON t.id = e.target_id',
  )
).rows;
const titles = new Map(dataset.corpus.map((c) => [c.id, c.type === 'pull_request' ? c.title : (c.commit.message.split('\n')[0] ?? '')]));
const unlabelled: string[] = [];
await db.close();

const corpusIds = new Set(dataset.corpus.map((c) => c.id));
const pairKey = (kind: string, a: string, b: string) => `${kind}|${[a, b].sort().join('|')}`;
console.log('| link kind | scoring | truth (reachable) | predicted | correct | precision | recall | precision with audited links |');
console.log('| --- | --- | --- | --- | --- | --- | --- | --- |');
for (const [engramType, kind] of Object.entries(KINDS)) {
  const truth = dataset.links.filter((l) => linkKind(l) === kind && corpusIds.has(l.source) && corpusIds.has(l.target));
  const predicted = rows.filter((r) => r.type === engramType).map((r) => [datasetIdFromUrl(r.s), datasetIdFromUrl(r.t)] as const).filter((p): p is [string, string] => Boolean(p[0] && p[1]));
  for (const scoring of kind === 'commit_pr' ? ['exact'] : ['exact', 'per change']) {
    const map = scoring === 'exact' ? (id: string) => id : change;
    const t = new Set(truth.map((l) => pairKey(kind, map(l.source), map(l.target))).filter((k) => k.split('|')[1] !== k.split('|')[2]));
    const p = new Set(predicted.map(([a, b]) => pairKey(kind, map(a), map(b))).filter((k) => k.split('|')[1] !== k.split('|')[2]));
    const correct = [...p].filter((k) => t.has(k)).length;
    const a = new Set(audited.filter((l) => linkKind(l) === kind).map((l) => pairKey(kind, map(l.source), map(l.target))));
    const auditedCorrect = [...p].filter((k) => t.has(k) || a.has(k)).length;
    if (scoring === 'exact' && kind === 'reverts') {
      for (const [x, y] of predicted) if (!t.has(pairKey(kind, x, y))) unlabelled.push(`- ${a.has(pairKey(kind, x, y)) ? '(audited) ' : ''}${x} "${titles.get(x)}" -> ${y} "${titles.get(y)}"`);
    }
    const ratio = (n: number, d: number) => (d === 0 ? '—' : (n / d).toFixed(3));
    console.log(`| ${kind} | ${scoring} | ${t.size} | ${p.size} | ${correct} | ${ratio(correct, p.size)} | ${ratio(correct, t.size)} | ${ratio(auditedCorrect, p.size)} |`);
  }
}
// Predicted reverts the labels do not hold, to audit by hand: each says what it reverts, or it is a wrong edge.
// Those found real are listed with their evidence in bench/eval/audited-links.json.
console.log(`\nreverts edges not in links.json (${unlabelled.length}):\n${unlabelled.join('\n')}`);
