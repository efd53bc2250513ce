import type { ActorRef, ItemType, SourceRef } from '@engram/contracts';

export const ENTITY_CATEGORIES = [
  'person',
  'repository',
  'pull_request',
  'issue',
  'linear_issue',
  'commit',
  'branch',
  'file',
  'path',
  'endpoint',
  'environment',
  'env_var',
  'label',
  'service',
  'package',
  'language',
  'keyword',
] as const;
export type EntityCategory = (typeof ENTITY_CATEGORIES)[number];

/** The fields of a normalised source event that entity extraction reads. */
export interface EntityInput {
  source: 'github' | 'linear' | 'vercel';
  type: ItemType;
  title: string | null;
  body: string;
  files: string[];
  labels: string[];
  container?: string;
  actors: ActorRef[];
  keys: string[];
  refs: SourceRef[];
  metadata: Record<string, unknown>;
}

/**
 * A thing an item is about or points at. `key` is canonical within its category (lower-case login,
 * `owner/repo#123`, full or short sha, path as written, ...). `confidence` is 1 for structured
 * provider fields and lower for text patterns, by how often the pattern is right.
 */
export interface ExtractedEntity {
  key: string;
  category: EntityCategory;
  confidence: number;
}

/** Context for resolving text references: `#123` needs the repository it was written in. */
export interface TextRefContext {
  /** `owner/repo` the text belongs to. */
  repo?: string;
  /** Known Linear team keys (`ENG`); when given, only these teams' issue keys are accepted. */
  linearTeams?: string[];
}
