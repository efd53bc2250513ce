import type { Db } from '../../db.js';
import { createMemoryReadModel } from './memory.js';
import { createSqlReadModel } from './sql.js';
import type { SearchReadModel } from './types.js';

export * from './types.js';
export { itemFilterSql, itemPredicate, narrowsItems } from './filterSql.js';
export { fieldTf, GrowingPostingList, packFields, parseTsvector, type DocumentTerm } from './postingLists.js';
export { createSqlReadModel } from './sql.js';
export { createMemoryReadModel } from './memory.js';

export interface ReadModelOptions {
  /**
   * Serve reads from memory. Defaults to on for PGlite (this process is the database's only writer, so
   * the change feed it follows is complete the moment a write returns) and off for a Postgres server.
   */
  memory?: boolean;
  onLoaded?: (info: { items: number; ms: number }) => void;
  onError?: (err: unknown) => void;
  /** In memory: how long a read waits for a catch-up already running behind continuous writes (`createMemoryReadModel`). */
  maxStalenessMs?: number;
  /** In memory: how often writes no read has caught up with are applied in the background (ms; 0: only before reads). */
  followMs?: number;
}

/** The search's read model for this database: in memory on the embedded default, SQL otherwise. */
export function openSearchReadModel(db: Db, options: ReadModelOptions = {}): SearchReadModel & { loaded(): Promise<boolean> } {
  const sql = createSqlReadModel(db);
  if (!(options.memory ?? db.kind === 'pglite')) return { ...sql, loaded: async () => false };
  return createMemoryReadModel(db, sql, options);
}
export { readItemRows, type SearchItemRow } from './itemRows.js';
export { actorCards, actorDirectory, actorRolesOf, actorsExpertIn, actorsNamed, clusterCards, clusterCentroidsById, clusterCentroidVersions, clusterMembers, clusterMembership, itemsOfActors } from './people.js';
