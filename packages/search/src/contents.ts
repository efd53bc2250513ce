/** Batch fetch of content items by id: partial success, never leaking another workspace's items. */
import type { ContentItem } from '@engram/contracts';
import { contentRows, type ContentRow, type Queryable } from '@engram/stores';
import { previewOf } from './preview.js';

export interface ContentsResult {
  /** Found items, in the order their ids were first requested. */
  items: ContentItem[];
  /** Requested ids with no item in this workspace (unknown, other workspace, or not a doc_/obs_ id), once each. */
  missing: string[];
}

const CONTENT_ID = /^(doc|obs)_[A-Za-z0-9_-]+$/;

/** Metadata: the provider metadata plus the item's container, state, labels, files and actors when set. */
function metadataOf(row: ContentRow): Record<string, unknown> {
  const out: Record<string, unknown> = { ...(row.metadata ?? {}) };
  if (row.container) out.container = row.container;
  if (row.state) out.state = row.state;
  if (row.labels.length) out.labels = row.labels;
  if (row.files.length) out.files = row.files;
  if (row.actor_names.length) out.actors = row.actor_names;
  return out;
}

export function toContentItem(row: ContentRow): ContentItem {
  return {
    id: row.id,
    title: row.title,
    url: row.url,
    snippet: previewOf(row.snippet, row.files),
    // `content` only on observations: documents are read through their snippet and URL.
    ...(row.id.startsWith('obs_') ? { content: row.content } : {}),
    source: row.source,
    type: row.type,
    occurredAt: new Date(row.occurred_at).toISOString(),
    metadata: metadataOf(row),
  };
}

export async function getContents(db: Queryable, workspaceId: string, ids: readonly string[]): Promise<ContentsResult> {
  const unique = [...new Set(ids)];
  const wellFormed = unique.filter((id) => CONTENT_ID.test(id));
  const found = new Map<string, ContentItem>();
  if (wellFormed.length > 0) {
    for (const row of await contentRows(db, workspaceId, wellFormed)) found.set(row.id, toContentItem(row));
  }
  const items: ContentItem[] = [];
  const missing: string[] = [];
  for (const id of unique) {
    const item = found.get(id);
    if (item) items.push(item);
    else missing.push(id);
  }
  return { items, missing };
}
