import { narrowsItems, readItemRows, type PoolRow, type Queryable, type SearchItemRow, type SearchReadModel } from '@engram/stores';
import { arrayPool } from './arrayPool.js';
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
 * A search's pooled results, column by column: some 1,400 at 100k items, of which the cut at MAX_RESULTS
 * keeps 200 (an object and a record of path scores each was a sixth of the bytes a search allocated under
 * 16 clients, most of it for results the cut then dropped). `result(r)` makes result r's object, for those
 * that survive the cut; it copies the scores, so it outlives the pool. `scores` sits on a reused array: once
 * `release` has given it back, the pool itself may not be read.
 */
export interface Pool {
  readonly size: number;
  /** Result r's row: the item it shows. */
  readonly rows: readonly PoolRow[];
  /** Result r's best score on each path over its members, at `r * PATH_COUNT + path` (PATH_NAMES' order). */
  readonly scores: Float64Array;
  /** The pooled items result r stands for (itself included when a path returned it); null for one that stands for itself alone (most do). */
  readonly members: readonly (string[] | null)[];
  /**
   * Result r's fusion signals, the largest over its members (0 where none has one): `proximity` at
   * `r * FUSION_SIGNAL_COUNT`, `idfCovered` after it (FUSION_SIGNALS' order), read by position from the
   * paths whose signals have `at` (the lexical path's).
   */
  readonly fusionSignals: Float64Array;
  result(r: number): Pooled;
  release(): void;
}

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
export async function poolCandidates(read: SearchReadModel, filter: ItemFilter, results: Partial<Record<PathName, PathResult>>): Promise<Pool> {
  const workspaceId = filter.workspaceId;
  // Each id the paths returned gets a slot, in the order first seen, and its path scores a row of `scores`
  // (typed arrays and one map, not a map and a record an id). Results are at most as many as slots.
  let bound = 0;
  for (const name of PATH_NAMES) bound += results[name]?.scores.size ?? 0;
  const width = bound * PATH_COUNT;
  const signalWidth = bound * FUSION_SIGNAL_COUNT;
  const size = 2 * width + bound + 2 * signalWidth;
  const scratch = scratchPool.take(size).fill(0, 0, size);
  const columns: PoolColumns = {
    scores: scratch.subarray(0, width),
    evidence: scratch.subarray(width, width + bound),
    resultScores: scratch.subarray(width + bound, 2 * width + bound),
    signals: scratch.subarray(2 * width + bound, 2 * width + bound + signalWidth),
    resultSignals: scratch.subarray(2 * width + bound + signalWidth, size),
  };
  try {
    return await poolInto(read, filter, results, workspaceId, columns, () => scratchPool.give(scratch));
  } catch (error) {
    scratchPool.give(scratch);
    throw error;
  }
}

/** The signals fusion reads besides the path scores (`fusionSignalsInto`), as a pool holds them (`Pool.fusionSignals`). */
export const FUSION_SIGNALS = ['proximity', 'idfCovered'] as const;
export const FUSION_SIGNAL_COUNT = FUSION_SIGNALS.length;

/**
 * The pool's columns, on one reused array: each slot's path scores (`PATH_COUNT` a slot), path evidence
 * (their sum) and fusion signals (`FUSION_SIGNAL_COUNT` a slot); each result's path scores and fusion signals.
 */
interface PoolColumns {
  scores: Float64Array;
  evidence: Float64Array;
  resultScores: Float64Array;
  signals: Float64Array;
  resultSignals: Float64Array;
}

/** The pool's path scores, reused (`arrayPool`): a fresh 64 KB array a search at 100k items was a quarter of the server's page faults under 16 clients. */
const scratchPool = arrayPool((length) => new Float64Array(Math.max(length, 8192)));

async function poolInto(
  read: SearchReadModel,
  filter: ItemFilter,
  results: Partial<Record<PathName, PathResult>>,
  workspaceId: string,
  columns: PoolColumns,
  release: () => void,
): Promise<Pool> {
  const { scores, evidence, resultScores, signals, resultSignals } = columns;
  const slotOf = new Map<string, number>();
  const ids: string[] = [];
  // Each slot's document ordinal where a path gave it (-1 where none did).
  const docs: number[] = [];
  // (`forEach`, not `for ... of`: no [key, value] pair allocated per entry, on the hottest loops of a search.)
  PATH_NAMES.forEach((name, path) => {
    const given = results[name]?.docs;
    const signalAt = results[name]?.signals?.at?.bind(results[name]!.signals);
    let i = 0;
    results[name]?.scores.forEach((score, id) => {
      const doc = given ? given[i]! : -1;
      let slot = slotOf.get(id);
      if (slot === undefined) {
        slot = ids.length;
        slotOf.set(id, slot);
        ids.push(id);
        docs.push(doc);
      } else if (docs[slot] === -1) docs[slot] = doc;
      scores[slot * PATH_COUNT + path] = score;
      evidence[slot] = evidence[slot]! + score;
      if (signalAt) {
        // The largest over the paths, from 0 (absent: 0, as fusion reads it).
        for (let k = 0; k < FUSION_SIGNAL_COUNT; k++) {
          const value = signalAt(i, FUSION_SIGNALS[k]!);
          const o = slot * FUSION_SIGNAL_COUNT + k;
          if (value !== undefined) signals[o] = Math.max(signals[o]!, value);
        }
      }
      i++;
    });
  });
  const rows = await read.changeRows(workspaceId, ids, docs);
  const hasRow = (id: string): boolean => {
    const slot = slotOf.get(id);
    return slot !== undefined && rows[slot] !== undefined;
  };
  // The pull requests of pooled commits that no path returned: shown in their commits' place when they
  // pass the filters; when they exist but the filters leave them out, they still name their commits' change.
  const missing = new Set<string>();
  for (const row of rows) if (row?.pr !== undefined && !hasRow(row.pr)) missing.add(row.pr);
  const passing = await read.poolRows(filter, [...missing]);
  const existing = narrowsItems(filter) ? await read.poolRows({ workspaceId }, [...missing].filter((id) => !passing.has(id))) : new Map<string, PoolRow>();
  // Per pooled id, the slot of the result that stands for its change: its own (most items), its PR's when
  // a path returned the PR, the best commit's (most path evidence, ties by id) when the filters leave the PR
  // out; -1 for a PR no path returned that passes the filters.
  const target = new Int32Array(ids.length).fill(NO_ROW);
  const bestCommit = new Map<string, number>();
  for (let slot = 0; slot < ids.length; slot++) {
    const row = rows[slot];
    if (row === undefined) continue;
    const pr = row.pr;
    if (pr === undefined) target[slot] = slot;
    else if (passing.has(pr)) target[slot] = MISSING_PR;
    else if (hasRow(pr)) target[slot] = slotOf.get(pr)!;
    else if (existing.has(pr)) {
      target[slot] = FOLDED;
      const current = bestCommit.get(pr);
      const better = current === undefined || evidence[slot]! > evidence[current]! || (evidence[slot] === evidence[current] && ids[slot]! < ids[current]!);
      if (better) bestCommit.set(pr, slot);
    } else target[slot] = slot;
  }

  // Most results stand for themselves alone and take their slot's scores; a result with members gets the
  // best of each path over them. Signals are merged later, for the results that survive the cut (`pooledSignals`).
  const shown: PoolRow[] = [];
  const members: (string[] | null)[] = [];
  const folded: number[] = [];
  const resultOf = new Int32Array(ids.length).fill(-1);
  const resultOfPr = new Map<string, number>();
  const open = (row: PoolRow, list: string[] | null): number => {
    shown.push(row);
    members.push(list);
    folded.push(0);
    return shown.length - 1;
  };
  for (let slot = 0; slot < ids.length; slot++) {
    const row = rows[slot];
    if (row === undefined) continue;
    let at = target[slot]!;
    if (at === FOLDED) at = bestCommit.get(row.pr!)!;
    if (at === slot && resultOf[slot] === -1 && nonNegative(scores, slot)) {
      const r = (resultOf[slot] = open(row, null));
      for (let path = 0; path < PATH_COUNT; path++) resultScores[r * PATH_COUNT + path] = scores[slot * PATH_COUNT + path]!;
      for (let k = 0; k < FUSION_SIGNAL_COUNT; k++) resultSignals[r * FUSION_SIGNAL_COUNT + k] = signals[slot * FUSION_SIGNAL_COUNT + k]!;
      continue;
    }
    let r = at === MISSING_PR ? (resultOfPr.get(row.pr!) ?? -1) : resultOf[at]!;
    if (r === -1) {
      // Its scores start at 0 (the scratch is zeroed), and so never fall below 0.
      r = open(at === MISSING_PR ? passing.get(row.pr!)! : rows[at]!, []);
      if (at === MISSING_PR) resultOfPr.set(row.pr!, r);
      else resultOf[at] = r;
    }
    // A result that stood for itself alone gets a member list once a second member joins it.
    const list = (members[r] ??= [shown[r]!.id]);
    list.push(row.id);
    if (shown[r]!.id !== row.id) folded[r]!++;
    for (let path = 0; path < PATH_COUNT; path++) {
      const score = scores[slot * PATH_COUNT + path]!;
      if (score > resultScores[r * PATH_COUNT + path]!) resultScores[r * PATH_COUNT + path] = score;
    }
    for (let k = 0; k < FUSION_SIGNAL_COUNT; k++) {
      const o = r * FUSION_SIGNAL_COUNT + k;
      resultSignals[o] = Math.max(resultSignals[o]!, signals[slot * FUSION_SIGNAL_COUNT + k]!);
    }
  }
  return {
    size: shown.length,
    rows: shown,
    scores: resultScores,
    members,
    fusionSignals: resultSignals,
    result: (r) => ({ row: shown[r]!, paths: pathsAt(resultScores, r), members: members[r] ?? null, commitsFolded: folded[r]! }),
    release,
  };
}

/** Path scores a pooled result has (`Pool.scores`' stride). */
export const PATH_COUNT = PATH_NAMES.length;
/** `target` of a slot without a row, of a commit shown as a PR no path returned, of a commit folded into its change's best commit. */
const NO_ROW = -3;
const MISSING_PR = -1;
const FOLDED = -2;

/** A slot's path scores as a record. */
function pathsAt(scores: Float64Array, slot: number): Record<PathName, number> {
  const at = slot * PATH_COUNT;
  return { lexical: scores[at]!, vector: scores[at + 1]!, entity: scores[at + 2]!, cluster: scores[at + 3]!, actor: scores[at + 4]! };
}

function nonNegative(scores: Float64Array, slot: number): boolean {
  for (let i = slot * PATH_COUNT, end = i + PATH_COUNT; i < end; i++) if (!(scores[i]! >= 0)) return false;
  return true;
}

/** The i-th item a pooled result stands for (no array made for one that stands for itself alone). */
const memberCount = (members: readonly string[] | null): number => members?.length ?? 1;
const memberAt = (id: string, members: readonly string[] | null, i: number): string => (members ? members[i]! : id);

/** A pooled result's signals: the largest of each kind over its members, path by path (and how many commits it folds). */
export function pooledSignals(p: Pooled, results: Partial<Record<PathName, PathResult>>): Record<string, number> {
  const signals: Record<string, number> = {};
  if (p.commitsFolded > 0) signals.commitsFolded = p.commitsFolded;
  for (const name of PATH_NAMES) {
    const byId = results[name]?.signals;
    if (!byId) continue;
    for (let i = 0; i < memberCount(p.members); i++) {
      const own = byId.get(memberAt(p.row.id, p.members, i));
      if (own) for (const k in own) signals[k] = Math.max(signals[k] ?? 0, own[k]!);
    }
  }
  return signals;
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
