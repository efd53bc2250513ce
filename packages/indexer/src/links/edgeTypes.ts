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

/** Type of an edge from a referencing item (`fromType`) to the item holding the key (`toType`); null: no direct edge. */
export function edgeTypeOf(relation: string, fromType: string, toType: string): EdgeType | null {
  switch (relation) {
    case 'contains':
    case 'merged_as':
      return isCommitPr(fromType, toType) ? 'commit_pr' : 'references';
    case 'fixes':
    case 'reverts':
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
