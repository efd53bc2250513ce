import { isDocumentType, type SourceEvent } from '@engram/contracts';
import { stableId, type ItemRow } from '@engram/stores';
import { actorNamesOf } from './actors/identity.js';
import { makeSnippet } from './snippet.js';

/** Deterministic: a redelivered or re-synced event finds the same row. */
export const itemIdOf = (workspaceId: string, event: Pick<SourceEvent, 'type' | 'source' | 'externalId'>): string =>
  stableId(isDocumentType(event.type) ? 'doc' : 'obs', workspaceId, event.source, event.externalId);

export function itemRowOf(input: { workspaceId: string; connectionId: string | null; event: SourceEvent; contentHash: string }): ItemRow {
  const { event } = input;
  return {
    id: itemIdOf(input.workspaceId, event),
    workspaceId: input.workspaceId,
    connectionId: input.connectionId,
    source: event.source,
    type: event.type,
    externalId: event.externalId,
    url: event.url,
    title: event.title,
    content: event.body,
    snippet: makeSnippet(event.body),
    container: event.container ?? null,
    state: event.state ?? null,
    labels: event.labels,
    files: event.files,
    actorNames: actorNamesOf(event.actors),
    metadata: event.metadata,
    occurredAt: new Date(event.occurredAt).toISOString(),
    sourceUpdatedAt: new Date(event.updatedAt).toISOString(),
    contentHash: input.contentHash,
  };
}
