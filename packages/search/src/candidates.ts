import { narrowsItems, readItemRows, type PoolRow, type Queryable, type SearchItemRow, type SearchReadModel } from '@engram/stores';
import type { ItemFilter } from './filters.js';
import { PATH_NAMES, type PathName } from './fusion.js';
import type { PathResult } from './paths/types.js';
import { previewOf } from './preview.js';
import { fileKinds } from './rank/fileKinds.js';
import { writesReleaseNote } from './rank/releaseNotes.js';
import type { Candidate } from './rank/types.js';

export type ItemRow = SearchItemRow;

export function loadItems(db: Queryable, workspaceId: string, ids: string[]): Promise<Map<string, ItemRow>> {
  return readItemRows(db, { workspaceId }, ids);
}

/** Rows of the given ids that pass the filter. */
export function loadFiltered(db: Queryable, filter: ItemFilter, ids: string[]): Promise<Map<string, ItemRow>> {
  return readItemRows(db, filter, ids);
}

/** A pooled result: the item shown, its best score per path over the items it stands for, and those items. */
export interface Pooled {
  row: PoolRow;
  paths: Record<PathName, number>;
  /**
   * The pooled items it stands for (itself included when a path returned it), whose signals are its own;
   * null for a result that stands for itself alone (most do).
   */
  members: string[] | null;
  /** Members other than the result itself: a PR's commits, or a commits-only change's other commits. */
  commitsFolded: number;
}

/**
 * What `toCandidate` reads of a pooled result, with its signals merged (`pooledSignals`), or null where
 * nothing after fusion reads signals (`fast`): then the candidate carries none.
 */
export interface PooledWithSignals {
  row: PoolRow;
  paths: Record<PathName, number>;
  signals: Record<string, number> | null;
}

/**
 * Results a search ranks at most: the list its pages are cut from, and so the most `total` can be. A
 * fixed number of results (not of items), so that a filter never raises `total` (docs/api.md, "total").
 */
export const MAX_RESULTS = 200;

/**
 * The union of every path's candidates, one result per change: a pull request and its commits are one
 * change, so they collapse into one result that keeps the best score of each path over its members.
 * The result is the PR when the PR passes the filters (a commit whose PR no path returned is replaced by
 * it); when the filters leave the PR out (a commits-only search), the change's commits still collapse
 * into one result, the commit with the most path evidence (sum of its path scores; ties by id). A
 * change counts once under any filter, so a filter can only narrow the results. Items of other types
 * stay as they are. Reads only ids, types and dates (from the read model): text is read later, for the
 * few the second stage or the page needs.
 */
export async function poolCandidates(read: SearchReadModel, filter: ItemFilter, results: Partial<Record<PathName, PathResult>>): Promise<Map<string, Pooled>> {
  const workspaceId = filter.workspaceId;
  const ids = new Set<string>();
  for (const r of Object.values(results)) for (const id of r?.scores.keys() ?? []) ids.add(id);
  const rows = await read.poolRows({ workspaceId }, [...ids]);
  const commitIds = [...rows.values()].filter((r) => r.type === 'commit').map((r) => r.id);
  const prOf = await read.pullRequestsOf(workspaceId, commitIds);
  const missingPrs = [...new Set(prOf.values())].filter((id) => !rows.has(id));
  const passing = await read.poolRows(filter, missingPrs);
  // A PR of the workspace that the filters leave out still names the change its commits belong to.
  const existing = narrowsItems(filter) ? await read.poolRows({ workspaceId }, missingPrs.filter((id) => !passing.has(id))) : new Map<string, PoolRow>();
  for (const [commit, pr] of prOf) if (!rows.has(pr) && !passing.has(pr) && !existing.has(pr)) prOf.delete(commit);
  for (const [id, row] of passing) rows.set(id, row);

  // Each id's path scores, read once, a path at a time: the pool is some 1,400 ids at 100k items, and
  // the choice of a change's best commit below compares their evidence (the sum, in path order) repeatedly.
  const scoresOf = new Map<string, { paths: Record<PathName, number>; evidence: number }>();
  // (`forEach`, not `for ... of`: no [key, value] pair allocated per entry, on the hottest loops of a search.)
  for (const name of PATH_NAMES) {
    results[name]?.scores.forEach((score, id) => {
      if (!rows.has(id)) return;
      let entry = scoresOf.get(id);
      if (!entry) scoresOf.set(id, (entry = { paths: { lexical: 0, vector: 0, entity: 0, cluster: 0, actor: 0 }, evidence: 0 }));
      entry.paths[name] = score;
      entry.evidence += score;
    });
  }
  const evidence = (id: string): number => scoresOf.get(id)!.evidence;
  // Per change, the item that stands for it: the PR when it passes, else its best commit.
  const shownAs = new Map<string, string>();
  for (const id of scoresOf.keys()) {
    const change = prOf.get(id) ?? id;
    if (rows.has(change)) {
      shownAs.set(change, change);
      continue;
    }
    const current = shownAs.get(change);
    const better = current === undefined || evidence(id) > evidence(current) || (evidence(id) === evidence(current) && id < current);
    if (better) shownAs.set(change, id);
  }

  // Most results stand for themselves alone: they keep their own score record (no copy); a result with
  // members gets the best of each path over them. Signals are merged later, for the results that survive
  // the cut (`pooledSignals`): a pool holds ~1,000 ids, a page reads 200 at most.
  const pooled = new Map<string, Pooled>();
  scoresOf.forEach((own, id) => {
    const target = shownAs.get(prOf.get(id) ?? id)!;
    let entry = pooled.get(target);
    if (!entry && target === id && nonNegative(own.paths)) {
      pooled.set(target, { row: rows.get(target)!, paths: own.paths, members: null, commitsFolded: 0 });
      return;
    }
    if (!entry) pooled.set(target, (entry = { row: rows.get(target)!, paths: { lexical: 0, vector: 0, entity: 0, cluster: 0, actor: 0 }, members: [], commitsFolded: 0 }));
    // A result that stood for itself alone gets a member list once a second member joins it.
    entry.members ??= [target];
    entry.members.push(id);
    if (target !== id) entry.commitsFolded++;
    for (const name of PATH_NAMES) if (own.paths[name] > entry.paths[name]) entry.paths[name] = own.paths[name];
  });
  return pooled;
}

function nonNegative(paths: Record<PathName, number>): boolean {
  for (const name of PATH_NAMES) if (!(paths[name] >= 0)) return false;
  return true;
}

/** The i-th item a pooled result stands for (no array made for one that stands for itself alone). */
const memberCount = (p: Pooled): number => p.members?.length ?? 1;
const memberAt = (p: Pooled, i: number): string => (p.members ? p.members[i]! : p.row.id);

/** A pooled result's signals: the largest of each kind over its members, path by path (and how many commits it folds). */
export function pooledSignals(p: Pooled, results: Partial<Record<PathName, PathResult>>): Record<string, number> {
  const signals: Record<string, number> = {};
  if (p.commitsFolded > 0) signals.commitsFolded = p.commitsFolded;
  for (const name of PATH_NAMES) {
    const byId = results[name]?.signals;
    if (!byId) continue;
    for (let i = 0; i < memberCount(p); i++) {
      const own = byId.get(memberAt(p, i));
      if (own) for (const k in own) signals[k] = Math.max(signals[k] ?? 0, own[k]!);
    }
  }
  return signals;
}

/** The two signals fusion reads of every pooled result (`fusionSignals`): each undefined when no member has it. */
export interface FusionEvidence {
  proximity: number | undefined;
  idfCovered: number | undefined;
}

/**
 * `pooledSignals`' `proximity` and `idfCovered` alone, in one pass over the result's members and paths
 * (fusion reads them for every pooled result, some 1,400 at 100k items), into `out`.
 */
export function pooledFusionEvidence(p: Pooled, results: Partial<Record<PathName, PathResult>>, out: FusionEvidence): FusionEvidence {
  out.proximity = undefined;
  out.idfCovered = undefined;
  for (const name of PATH_NAMES) {
    const byId = results[name]?.signals;
    if (!byId) continue;
    for (let i = 0; i < memberCount(p); i++) {
      const own = byId.get(memberAt(p, i));
      if (!own) continue;
      const proximity = own.proximity;
      const idfCovered = own.idfCovered;
      if (proximity !== undefined) out.proximity = Math.max(out.proximity ?? 0, proximity);
      if (idfCovered !== undefined) out.idfCovered = Math.max(out.idfCovered ?? 0, idfCovered);
    }
  }
  return out;
}

const CHANGE_TYPES = new Set(['pull_request', 'commit']);

/**
 * The pooled signals (`p.signals`, which it takes over) with the item's own added: age, bot author, merged,
 * release note, file kinds and sizes. Added in place, in this order (one object a candidate, not two).
 */
function withItemSignals(p: PooledWithSignals & { signals: Record<string, number> }, row: ItemRow | undefined, title: string, content: string, now: Date): Record<string, number> {
  const signals = p.signals;
  signals.recencyDays = Math.max(0, (now.getTime() - p.row.occurredAt) / 86_400_000);
  signals.isBot = row?.actor_names.some((a) => a.endsWith('[bot]')) ? 1 : 0;
  signals.isMergedPr = p.row.type === 'pull_request' && row?.metadata.merged === true ? 1 : 0;
  // A change (PR or commit) that wrote a release note; a changelog document itself is not one.
  signals.releaseNote = row && CHANGE_TYPES.has(p.row.type) && writesReleaseNote(row.files) ? 1 : 0;
  const kinds = fileKinds(row?.files ?? []);
  signals.docsShare = kinds.docsShare;
  signals.toolingShare = kinds.toolingShare;
  signals.testShare = kinds.testShare;
  signals.fileCount = row?.files.length ?? 0;
  signals.titleLength = title.length;
  signals.bodyLength = content.length;
  return signals;
}

/**
 * A fused candidate as the second stage sees it. `row` is the item's full row; without it (a candidate
 * past the depth whose text is read) the candidate carries its paths, signals and date but no text.
 */
export function toCandidate(p: PooledWithSignals, row: ItemRow | undefined, fused: number, now: Date): Candidate {
  const occurredAt = new Date(p.row.occurredAt).toISOString();
  const title = row?.title ?? '';
  const content = row?.content ?? '';
  return {
    id: p.row.id,
    title,
    snippet: row ? previewOf(row.snippet, row.files) : '',
    content,
    type: p.row.type,
    source: row?.source ?? '',
    occurredAt,
    fused,
    paths: { ...p.paths },
    signals: p.signals ? withItemSignals({ ...p, signals: p.signals }, row, title, content, now) : {},
  };
}
