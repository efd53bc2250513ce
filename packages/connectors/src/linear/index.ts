export { createLinearConnector, LINEAR_STREAMS, type LinearConnectorOptions } from './connector.js';
export { githubKeyFromUrl, normalizeLinearComment, normalizeLinearIssue, normalizeLinearProject } from './normalize.js';
export { LinearRateLimitedError, type LinearRetryPolicy } from './transport.js';
export { checkLinearWebhook, normalizeLinearWebhook, verifyLinearSignature } from './webhook.js';
