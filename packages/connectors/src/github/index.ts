export { createGitHubConnector, GITHUB_STREAMS } from './connector.js';
export type { GitHubConnectorOptions } from './connector.js';
export {
  normalizeGitHubObject,
  normalizePull,
  normalizeCommit,
  normalizeIssue,
  normalizeComment,
  normalizeDiscussion,
  detectGitHubKind,
  externalIdOf as githubExternalId,
  pullKey,
  issueKey,
  commitKey,
  discussionKey,
} from './normalize.js';
export type { GitHubObjectKind } from './normalize.js';
export { verifyGitHubSignature, normalizeGitHubWebhook } from './webhooks.js';
export { isSyncedDoc } from './docs.js';
export { parseGitHubWebUrl, webUrlFor } from './urls.js';
