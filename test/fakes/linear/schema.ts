import { buildSchema, type GraphQLSchema } from 'graphql';

/**
 * The subset of Linear's public GraphQL schema the connector uses, with Linear's type, field, argument
 * and input names, so a query that validates here validates against api.linear.app too.
 */
const connection = (name: string): string => `
type ${name}Edge { node: ${name}! cursor: String! }
type ${name}Connection { nodes: [${name}!]! edges: [${name}Edge!]! pageInfo: PageInfo! }`;

const page = 'first: Int, after: String, last: Int, before: String, includeArchived: Boolean, orderBy: PaginationOrderBy';

const issueFields = `
  id: ID!
  identifier: String!
  number: Float!
  title: String!
  description: String
  url: String!
  branchName: String!
  priority: Float!
  priorityLabel: String!
  createdAt: DateTime!
  updatedAt: DateTime!
  completedAt: DateTime
  canceledAt: DateTime
  archivedAt: DateTime
  team: Team!
  state: WorkflowState!
  assignee: User
  creator: User
  project: Project
  labels(${page}): IssueLabelConnection!
  attachments(${page}): AttachmentConnection!
  comments(${page}): CommentConnection!`;

const comparators = `
input DateComparator { eq: DateTimeOrDuration, neq: DateTimeOrDuration, gt: DateTimeOrDuration, gte: DateTimeOrDuration, lt: DateTimeOrDuration, lte: DateTimeOrDuration, in: [DateTimeOrDuration!], nin: [DateTimeOrDuration!] }
input NullableDateComparator { eq: DateTimeOrDuration, neq: DateTimeOrDuration, gt: DateTimeOrDuration, gte: DateTimeOrDuration, lt: DateTimeOrDuration, lte: DateTimeOrDuration, in: [DateTimeOrDuration!], nin: [DateTimeOrDuration!], null: Boolean }
input StringComparator { eq: String, neq: String, in: [String!], nin: [String!], eqIgnoreCase: String, neqIgnoreCase: String, contains: String, containsIgnoreCase: String, notContains: String, startsWith: String, endsWith: String }
input NullableStringComparator { eq: String, neq: String, in: [String!], nin: [String!], eqIgnoreCase: String, neqIgnoreCase: String, contains: String, containsIgnoreCase: String, notContains: String, startsWith: String, endsWith: String, null: Boolean }
input NumberComparator { eq: Float, neq: Float, gt: Float, gte: Float, lt: Float, lte: Float, in: [Float!], nin: [Float!] }
input NullableNumberComparator { eq: Float, neq: Float, gt: Float, gte: Float, lt: Float, lte: Float, in: [Float!], nin: [Float!], null: Boolean }
input IDComparator { eq: ID, neq: ID, in: [ID!], nin: [ID!] }`;

const filters = `
input TeamFilter { id: IDComparator, key: StringComparator, name: StringComparator, createdAt: DateComparator, updatedAt: DateComparator, and: [TeamFilter!], or: [TeamFilter!] }
input TeamCollectionFilter { some: TeamFilter, every: TeamFilter, length: NumberComparator }
input WorkflowStateFilter { id: IDComparator, name: StringComparator, type: StringComparator, and: [WorkflowStateFilter!], or: [WorkflowStateFilter!] }
input UserFilter { id: IDComparator, name: StringComparator, displayName: StringComparator, email: StringComparator, and: [UserFilter!], or: [UserFilter!] }
input NullableUserFilter { id: IDComparator, name: StringComparator, displayName: StringComparator, email: StringComparator, null: Boolean, and: [NullableUserFilter!], or: [NullableUserFilter!] }
input NullableProjectFilter { id: IDComparator, name: StringComparator, updatedAt: DateComparator, null: Boolean, and: [NullableProjectFilter!], or: [NullableProjectFilter!] }
input IssueLabelFilter { id: IDComparator, name: StringComparator }
input IssueLabelCollectionFilter { some: IssueLabelFilter, every: IssueLabelFilter, length: NumberComparator }
input IssueFilter {
  id: IDComparator, number: NumberComparator, title: StringComparator, description: NullableStringComparator,
  createdAt: DateComparator, updatedAt: DateComparator, completedAt: NullableDateComparator, priority: NullableNumberComparator,
  team: TeamFilter, state: WorkflowStateFilter, assignee: NullableUserFilter, creator: NullableUserFilter,
  labels: IssueLabelCollectionFilter, project: NullableProjectFilter, and: [IssueFilter!], or: [IssueFilter!]
}
input NullableIssueFilter {
  id: IDComparator, number: NumberComparator, title: StringComparator, createdAt: DateComparator, updatedAt: DateComparator,
  team: TeamFilter, state: WorkflowStateFilter, null: Boolean, and: [NullableIssueFilter!], or: [NullableIssueFilter!]
}
input CommentFilter { id: IDComparator, body: StringComparator, createdAt: DateComparator, updatedAt: DateComparator, user: UserFilter, issue: NullableIssueFilter, and: [CommentFilter!], or: [CommentFilter!] }
input ProjectFilter { id: IDComparator, name: StringComparator, state: StringComparator, createdAt: DateComparator, updatedAt: DateComparator, accessibleTeams: TeamCollectionFilter, and: [ProjectFilter!], or: [ProjectFilter!] }`;

export const linearSchemaSdl = `
scalar DateTime
scalar DateTimeOrDuration
scalar TimelessDate
scalar JSONObject
enum PaginationOrderBy { createdAt updatedAt }
type PageInfo { startCursor: String, endCursor: String, hasPreviousPage: Boolean!, hasNextPage: Boolean! }
type User { id: ID!, name: String!, displayName: String!, email: String!, active: Boolean!, url: String! }
type Team { id: ID!, key: String!, name: String! }
type WorkflowState { id: ID!, name: String!, type: String!, color: String! }
type IssueLabel { id: ID!, name: String!, color: String! }
type ProjectStatus { id: ID!, name: String!, type: String! }
type Attachment { id: ID!, title: String!, subtitle: String, url: String!, sourceType: String, metadata: JSONObject!, createdAt: DateTime!, updatedAt: DateTime! }
type Comment { id: ID!, body: String!, url: String!, createdAt: DateTime!, updatedAt: DateTime!, editedAt: DateTime, user: User, issue: Issue, parent: Comment }
type Project {
  id: ID!, name: String!, slugId: String!, description: String!, content: String, url: String!, state: String!, status: ProjectStatus!,
  progress: Float!, createdAt: DateTime!, updatedAt: DateTime!, startedAt: DateTime, targetDate: TimelessDate, completedAt: DateTime,
  lead: User, creator: User, teams(${page}): TeamConnection!
}
type Issue {${issueFields}
}
type IssueSearchResult {${issueFields}
  metadata: JSONObject!
}
type IssueSearchPayload { nodes: [IssueSearchResult!]!, pageInfo: PageInfo!, totalCount: Float! }
${['User', 'Team', 'IssueLabel', 'Attachment', 'Comment', 'Project', 'Issue'].map(connection).join('\n')}
${comparators}
${filters}
type Query {
  issue(id: String!): Issue!
  issues(${page}, filter: IssueFilter): IssueConnection!
  searchIssues(term: String!, ${page}, filter: IssueFilter, includeComments: Boolean, teamId: String): IssueSearchPayload!
  comments(${page}, filter: CommentFilter): CommentConnection!
  project(id: String!): Project!
  projects(${page}, filter: ProjectFilter): ProjectConnection!
  teams(${page}, filter: TeamFilter): TeamConnection!
  users(${page}): UserConnection!
}`;

export const buildLinearSchema = (): GraphQLSchema => buildSchema(linearSchemaSdl);
