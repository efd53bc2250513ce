import { z } from 'zod';

/**
 * Queue payloads carry ids and cursors, never content. Change them only by adding optional fields:
 * jobs already queued during a deploy must still parse.
 */
export const SyncPagePayload = z.object({
  connectionId: z.string(),
  stream: z.string(),
  mode: z.enum(['backfill', 'incremental']),
});
export type SyncPagePayload = z.infer<typeof SyncPagePayload>;

export const IndexItemPayload = z.object({
  workspaceId: z.string(),
  /** Id of the staged raw event (table `source_events`). */
  eventId: z.string(),
});
export type IndexItemPayload = z.infer<typeof IndexItemPayload>;

export const ReclusterPayload = z.object({
  workspaceId: z.string(),
  /** Run only once no indexing is waiting or running; until then the job puts itself back, a few seconds later. */
  whenQuiet: z.boolean().optional(),
  /** Asked for during a burst of indexing (paced: `requestBurstRecluster`). */
  burst: z.boolean().optional(),
});
export type ReclusterPayload = z.infer<typeof ReclusterPayload>;

export const ExpertisePayload = z.object({ workspaceId: z.string(), actorIds: z.array(z.string()).optional() });
export type ExpertisePayload = z.infer<typeof ExpertisePayload>;
