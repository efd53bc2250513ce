/**
 * related on `links.json`: ask for the depth-1 neighbourhood of every item that ground-truth edges
 * touch, and measure precision and recall of the recovered edges per kind. Issues are not corpus
 * items, so edges to an issue (`fixes_issue`) can only be matched approximately (by the issue URL the
 * service reports) and are reported apart from the exact kinds.
 */
import { mapLimit } from './concurrency.js';
import { linkKind, type Link } from './dataset.js';

/** An edge in dataset ids, its kind already in the dataset's vocabulary (`commit_pr`, `reverts`, ...). */
export interface RelatedEdge {
  source: string;
  target: string;
  kind: string;
}

export type Related = (datasetId: string) => Promise<RelatedEdge[]>;

export const EXACT_KINDS = ['commit_pr', 'reverts', 'references_pr'] as const;
export const APPROXIMATE_KINDS = ['fixes_issue'] as const;
export const SCORED_KINDS: readonly string[] = [...EXACT_KINDS, ...APPROXIMATE_KINDS];

export interface KindScore {
  kind: string;
  approximate: boolean;
  /** Ground-truth edges of this kind. */
  truth: number;
  /** Of those, edges retrievable (endpoints are corpus items, or an issue for issue kinds) that touch a root asked about. */
  reachable: number;
  /** Reachable edges the answers hold, and that share of reachable. */
  found: number;
  recall: number;
  /** Edges the answers hold; those links.json holds (anywhere), and that share of predicted. */
  predicted: number;
  correct: number;
  precision: number;
  /** Predictions that are in `links.json` or among the audited links (`loadAuditedLinks`), and that share of predicted. */
  auditedCorrect: number;
  auditedPrecision: number;
}

export interface RelatedScores {
  roots: number;
  byKind: KindScore[];
  /** commit_pr + reverts + references_pr together. */
  exact: KindScore;
}

const edgeKey = (kind: string, a: string, b: string): string => `${kind}|${[a, b].sort().join('|')}`;

function ratio(numerator: number, denominator: number): number {
  return denominator === 0 ? 0 : numerator / denominator;
}

export async function scoreRelated(links: readonly Link[], corpusIds: ReadonlySet<string>, related: Related, options: { concurrency?: number; maxRoots?: number; audited?: readonly Link[] } = {}): Promise<RelatedScores> {
  const { concurrency = 4, maxRoots = Number.POSITIVE_INFINITY, audited = [] } = options;
  const truth = links.map((link) => ({ ...link, type: linkKind(link) })).filter((link) => SCORED_KINDS.includes(link.type));
  const retrievable = (id: string): boolean => corpusIds.has(id) || id.startsWith('issue:');
  const reachable = truth.filter((link) => retrievable(link.source) && retrievable(link.target));
  const allRoots = [...new Set(reachable.flatMap((link) => [link.source, link.target]).filter((id) => corpusIds.has(id)))].sort();
  // With --related-roots N, an even sample across all roots (every k-th), not the first N by id (all commits).
  const step = Number.isFinite(maxRoots) && maxRoots < allRoots.length ? allRoots.length / maxRoots : 1;
  const roots = step === 1 ? allRoots : Array.from({ length: maxRoots }, (_, i) => allRoots[Math.floor(i * step)]!);
  const rootSet = new Set(roots);

  const answers = await mapLimit(roots, concurrency, related);
  const predicted = new Map<string, string>();
  for (const edge of answers.flat()) {
    if (SCORED_KINDS.includes(edge.kind)) predicted.set(edgeKey(edge.kind, edge.source, edge.target), edge.kind);
  }
  // Only truth edges with an endpoint among the roots asked about can be recovered.
  const expected = new Map<string, string>();
  for (const link of reachable) {
    if (rootSet.has(link.source) || rootSet.has(link.target)) expected.set(edgeKey(link.type, link.source, link.target), link.type);
  }
  // A predicted edge is right when links.json holds it, whether or not it touches a root: at depth 1 the
  // answer also holds edges between two neighbours.
  const truthKeys = new Set(reachable.map((link) => edgeKey(link.type, link.source, link.target)));
  const auditedKeys = new Set(audited.map((link) => edgeKey(linkKind(link), link.source, link.target)));

  const score = (kind: string, kinds: readonly string[], approximate: boolean): KindScore => {
    const predictedKeys = [...predicted].filter(([, k]) => kinds.includes(k)).map(([key]) => key);
    const expectedKeys = [...expected].filter(([, k]) => kinds.includes(k)).map(([key]) => key);
    const found = expectedKeys.filter((key) => predicted.has(key)).length;
    const correct = predictedKeys.filter((key) => truthKeys.has(key)).length;
    const auditedCorrect = predictedKeys.filter((key) => truthKeys.has(key) || auditedKeys.has(key)).length;
    return {
      kind,
      approximate,
      truth: truth.filter((link) => kinds.includes(link.type)).length,
      reachable: expectedKeys.length,
      found,
      recall: ratio(found, expectedKeys.length),
      predicted: predictedKeys.length,
      correct,
      precision: ratio(correct, predictedKeys.length),
      auditedCorrect,
      auditedPrecision: ratio(auditedCorrect, predictedKeys.length),
    };
  };
  return {
    roots: roots.length,
    byKind: SCORED_KINDS.map((kind) => score(kind, [kind], !(EXACT_KINDS as readonly string[]).includes(kind))),
    exact: score('exact kinds', EXACT_KINDS, false),
  };
}
