import { refreshExpertise } from '@engram/indexer';
import type { JobHandlers } from '@engram/queue';
import type { Runtime } from '../runtime.js';

/** `actors.expertise`: recomputes the expertise of actors whose items changed. */
export function expertiseHandler(runtime: Runtime): Pick<JobHandlers, 'actors.expertise'> {
  return {
    'actors.expertise': async ({ workspaceId, actorIds }) => {
      await refreshExpertise(runtime.db, workspaceId, actorIds);
    },
  };
}
