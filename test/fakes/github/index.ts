export { startFakeGitHub } from './server.js';
export type { FakeGitHub, FakeGitHubOptions, FakeGitHubState } from './server.js';
export { signWebhook, deliverWebhook } from './webhooks.js';
export type { WebhookDelivery } from './webhooks.js';
export { PRETTIER_CORPUS_PATH, hasPrettierCorpus, loadPrettierCorpus, prettierSubset } from './corpus.js';
export type { FakeCommit, FakeDiscussion, FakeDoc, FakeGitHubItem, FakeIssue, FakeIssueComment, FakePull } from './model.js';
export { syntheticIssues, syntheticComments, syntheticDiscussions } from './synthetic.js';
export { walkStream } from './walk.js';
export type { Walk } from './walk.js';
