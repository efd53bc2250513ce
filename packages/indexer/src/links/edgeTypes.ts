/**
 * Edge types of the related graph, from the relation of the reference that links two items.
 * `commit_pr` joins a commit and a pull request (contains / merged_as, from either side);
 * `same_commit` and `same_branch` join two items that point at the same commit or branch.
 */
export type EdgeType =
  | 'commit_pr'
  | 'fixes'
  | 'reverts'
  | 'references'
  | 'attachment'
  | 'built_from'
  | 'parent'
  | 'in_project'
  | 'same_commit'
  | 'same_branch';

const isCommitPr = (a: string, b: string): boolean => (a === 'commit' && b === 'pull_request') || (a === 'pull_request' && b === 'commit');

/**
 * Type of an edge from a referencing item (`fromType`) to the item holding the key (`toType`); null: no direct edge.
 * A revert between changes joins one level (a commit reverts a commit, a pull request a pull request): a revert
 * that names the other level reaches its own level through REVERT_COUNTERPART_RELATIONS instead. Anything
 * else that says it reverts a change (an issue, a message) links to it directly.
 */
export function edgeTypeOf(relation: string, fromType: string, toType: string): EdgeType | null {
  switch (relation) {
    case 'contains':
    case 'merged_as':
      return isCommitPr(fromType, toType) ? 'commit_pr' : 'references';
    case 'reverts':
      return isCommitPr(fromType, toType) ? null : 'reverts';
    case 'fixes':
    case 'references':
    case 'attachment':
    case 'built_from':
    case 'parent':
    case 'in_project':
      return relation;
    default:
      return null;
  }
}

/** Relations whose shared key joins two items directly, and the edge type they make. */
export const SHARED_RELATIONS: Readonly<Record<string, EdgeType>> = {
  contains: 'same_commit',
  merged_as: 'same_commit',
  built_from: 'same_commit',
  on_branch: 'same_branch',
};

/**
 * Relations by which an item stands for a key of the other level of the same change: a squash commit is
 * `merged_as gh:o/r#n` of its pull request, a pull request is `merged_as`/`contains commit:<sha>` of its
 * commits. A revert naming that key reverts the item of its own type holding one of these refs.
 */
export const REVERT_COUNTERPART_RELATIONS: readonly string[] = ['merged_as', 'contains'];

/** Types without a natural direction get one canonical direction, so each pair has one edge whoever arrives first. */
export function orient(
  type: EdgeType,
  from: { id: string; type: string },
  to: { id: string; type: string },
): { sourceId: string; targetId: string } {
  if (type === 'commit_pr') return from.type === 'pull_request' ? { sourceId: from.id, targetId: to.id } : { sourceId: to.id, targetId: from.id };
  if (type === 'same_commit' || type === 'same_branch') {
    return from.id < to.id ? { sourceId: from.id, targetId: to.id } : { sourceId: to.id, targetId: from.id };
  }
  return { sourceId: from.id, targetId: to.id };
}
