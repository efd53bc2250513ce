import { z } from 'zod';

/**
 * GraphQL documents the connector sends through `LinearClient.client.rawRequest`. One request per page
 * selects the issue with its state, people, labels, project and attachments: the SDK's model methods
 * would lazily fetch each of those per issue (N+1 requests against a rate-limited API).
 */
const USER = 'id name displayName email';

const ISSUE_FIELDS = `
  id identifier number title description url branchName priority priorityLabel
  createdAt updatedAt completedAt canceledAt
  team { id key name }
  state { id name type }
  assignee { ${USER} }
  creator { ${USER} }
  project { id name url }
  labels(first: 50) { nodes { id name } }
  attachments(first: 50) { nodes { id title url sourceType createdAt } }`;

export const ISSUES_QUERY = `query EngramIssues($first: Int!, $after: String, $filter: IssueFilter) {
  issues(first: $first, after: $after, filter: $filter, orderBy: createdAt, includeArchived: true) {
    nodes {${ISSUE_FIELDS}
    }
    pageInfo { hasNextPage endCursor }
  }
}`;

export const ISSUE_QUERY = `query EngramIssue($id: String!) {
  issue(id: $id) {${ISSUE_FIELDS}
  }
}`;

export const SEARCH_ISSUES_QUERY = `query EngramSearchIssues($term: String!, $first: Int!, $after: String, $filter: IssueFilter) {
  searchIssues(term: $term, first: $first, after: $after, filter: $filter) {
    nodes {${ISSUE_FIELDS}
    }
    pageInfo { hasNextPage endCursor }
    totalCount
  }
}`;

export const COMMENTS_QUERY = `query EngramComments($first: Int!, $after: String, $filter: CommentFilter) {
  comments(first: $first, after: $after, filter: $filter, orderBy: createdAt, includeArchived: true) {
    nodes {
      id body url createdAt updatedAt editedAt
      user { ${USER} }
      issue { id identifier url team { key } }
    }
    pageInfo { hasNextPage endCursor }
  }
}`;

export const PROJECTS_QUERY = `query EngramProjects($first: Int!, $after: String, $filter: ProjectFilter) {
  projects(first: $first, after: $after, filter: $filter, orderBy: createdAt, includeArchived: true) {
    nodes {
      id name slugId description content url state progress
      createdAt updatedAt startedAt targetDate completedAt
      status { name type }
      lead { ${USER} }
      creator { ${USER} }
      teams(first: 10) { nodes { key } }
    }
    pageInfo { hasNextPage endCursor }
  }
}`;

const nodes = <T extends z.ZodType>(node: T) => z.object({ nodes: z.array(node) });
const PageInfo = z.object({ hasNextPage: z.boolean(), endCursor: z.string().nullish() });

export const LinearUserNode = z.object({
  id: z.string(),
  name: z.string().nullish(),
  displayName: z.string().nullish(),
  email: z.string().nullish(),
});
export type LinearUserNode = z.infer<typeof LinearUserNode>;

export const LinearIssueNode = z.object({
  id: z.string(),
  identifier: z.string(),
  number: z.number().nullish(),
  title: z.string(),
  description: z.string().nullish(),
  url: z.string(),
  branchName: z.string().nullish(),
  priority: z.number().nullish(),
  priorityLabel: z.string().nullish(),
  createdAt: z.string(),
  updatedAt: z.string(),
  completedAt: z.string().nullish(),
  canceledAt: z.string().nullish(),
  team: z.object({ id: z.string().nullish(), key: z.string(), name: z.string().nullish() }).nullish(),
  state: z.object({ id: z.string().nullish(), name: z.string(), type: z.string().nullish() }).nullish(),
  assignee: LinearUserNode.nullish(),
  creator: LinearUserNode.nullish(),
  project: z.object({ id: z.string(), name: z.string().nullish(), url: z.string().nullish() }).nullish(),
  labels: nodes(z.object({ id: z.string().nullish(), name: z.string() })).nullish(),
  attachments: nodes(z.object({ id: z.string(), title: z.string().nullish(), url: z.string(), sourceType: z.string().nullish() })).nullish(),
});
export type LinearIssueNode = z.infer<typeof LinearIssueNode>;

export const LinearCommentNode = z.object({
  id: z.string(),
  body: z.string(),
  url: z.string(),
  createdAt: z.string(),
  updatedAt: z.string(),
  editedAt: z.string().nullish(),
  user: LinearUserNode.nullish(),
  issue: z.object({ id: z.string(), identifier: z.string(), url: z.string().nullish(), team: z.object({ key: z.string() }).nullish() }).nullish(),
});
export type LinearCommentNode = z.infer<typeof LinearCommentNode>;

export const LinearProjectNode = z.object({
  id: z.string(),
  name: z.string(),
  slugId: z.string().nullish(),
  description: z.string().nullish(),
  content: z.string().nullish(),
  url: z.string(),
  state: z.string().nullish(),
  progress: z.number().nullish(),
  createdAt: z.string(),
  updatedAt: z.string(),
  startedAt: z.string().nullish(),
  targetDate: z.string().nullish(),
  completedAt: z.string().nullish(),
  status: z.object({ name: z.string(), type: z.string().nullish() }).nullish(),
  lead: LinearUserNode.nullish(),
  creator: LinearUserNode.nullish(),
  teams: nodes(z.object({ key: z.string() })).nullish(),
});
export type LinearProjectNode = z.infer<typeof LinearProjectNode>;

const connection = <T extends z.ZodType>(node: T) => z.object({ nodes: z.array(node), pageInfo: PageInfo });

export const IssuesResponse = z.object({ issues: connection(LinearIssueNode) });
export const IssueResponse = z.object({ issue: LinearIssueNode });
export const SearchIssuesResponse = z.object({
  searchIssues: connection(LinearIssueNode).extend({ totalCount: z.number().nullish() }),
});
export const CommentsResponse = z.object({ comments: connection(LinearCommentNode) });
export const ProjectsResponse = z.object({ projects: connection(LinearProjectNode) });
