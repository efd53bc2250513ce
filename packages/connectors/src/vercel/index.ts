export { createVercelConnector, VERCEL_STREAMS, type VercelConnectorOptions } from './connector.js';
export { VercelApiError, type VercelRetryPolicy } from './client.js';
export { buildLogText, normalizeVercelBuildLog, normalizeVercelDeployment, repoOf } from './normalize.js';
export { checkVercelWebhook, normalizeVercelWebhook, verifyVercelSignature } from './webhook.js';
