export { runSyncPage, type SyncPageContext, type SyncPageOutcome } from './page.js';
export { startBackfill, startIncremental, type StartedWalk } from './walks.js';
export { resumeSyncs, scheduleIncrementalSync, scheduleAllIncrementalSyncs } from './recovery.js';
export { receiveWebhook, type WebhookAnswer, type WebhookDeliveryInput, type WebhookProvider } from './webhooks.js';
export { syncPageJobId, incrementalScheduleKey } from './jobIds.js';
export { ALL_STREAMS, HIGH_WATER_OVERLAP_MS, type SyncDeps, type SyncLogger } from './types.js';
