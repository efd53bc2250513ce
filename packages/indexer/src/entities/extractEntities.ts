import type { SourceRef } from '@engram/contracts';
import { titleKeywords } from './keywords.js';
import { languagesFromFiles, languagesFromWords } from './languages.js';
import { pathAreas } from './paths.js';
import { readProse } from './prose.js';
import { textEntities } from './textEntities.js';
import { scanTextRefs, type TextRef } from './textRefs.js';
import type { EntityCategory, EntityInput, ExtractedEntity } from './types.js';

/**
 * Entities of one item: structured fields at confidence 1 (actors, repository, labels, files and
 * their directory areas, referenced and own keys), then text patterns below 1. Deduplicated by
 * (category, key) keeping the highest confidence; a GitHub number seen both as a pull request and
 * as an issue is kept once, as a pull request.
 */

const ENVIRONMENTS: ReadonlySet<string> = new Set(['production', 'preview', 'staging', 'development']);

const ITEM_KEY = /^(pr|issue|gh|discussion):([^#]+#\d+)$/;

/** Maps a linking key (`pr:o/r#1`, `commit:<sha>`, `linear:ENG-1`, `branch:o/r:name`) to an entity. */
function entityOfKey(key: string, relation?: SourceRef['relation']): { category: EntityCategory; key: string } | null {
  const item = ITEM_KEY.exec(key);
  if (item !== null) {
    const [, kind, ref = ''] = item;
    if (kind === 'discussion') return null;
    const pull = kind === 'pr' || (kind === 'gh' && (relation === 'merged_as' || relation === 'contains'));
    return { category: pull ? 'pull_request' : 'issue', key: ref.toLowerCase() };
  }
  if (key.startsWith('commit:')) return { category: 'commit', key: key.slice('commit:'.length).toLowerCase() };
  if (key.startsWith('linear:')) return { category: 'linear_issue', key: key.slice('linear:'.length).toUpperCase() };
  if (key.startsWith('branch:')) {
    const rest = key.slice('branch:'.length);
    const colon = rest.indexOf(':');
    return { category: 'branch', key: colon === -1 ? rest : rest.slice(colon + 1) };
  }
  return null;
}

function entityOfTextRef(ref: TextRef): { category: EntityCategory; key: string } | null {
  if (!ref.key.startsWith('gh:')) return entityOfKey(ref.key, ref.relation);
  const key = ref.key.slice('gh:'.length);
  const pull = ref.githubKind === 'squash' || ref.githubKind === 'pull_url';
  return { category: pull ? 'pull_request' : 'issue', key };
}

const stringField = (metadata: Record<string, unknown>, name: string): string | null => {
  const value = metadata[name];
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : null;
};

type Emit = (category: EntityCategory, key: string, confidence: number) => void;

/** Collects entities, deduplicated by (category, key) keeping the highest confidence (first seen on a tie). */
function collector(): { emit: Emit; entities: () => ExtractedEntity[] } {
  const found = new Map<string, ExtractedEntity>();
  const emit: Emit = (category, key, confidence) => {
    if (key === '') return;
    const id = `${category}\u0000${key}`;
    const seen = found.get(id);
    if (seen === undefined || seen.confidence < confidence) found.set(id, { key, category, confidence });
  };
  return { emit, entities: () => mergePullRequestsAndIssues([...found.values()]) };
}

function emitFiles(files: readonly string[], emit: Emit): void {
  for (const file of files) {
    emit('file', file, 1);
    for (const area of pathAreas(file)) emit('path', area, 1);
  }
  for (const hit of languagesFromFiles(files)) emit('language', hit.language, hit.confidence);
}

/** Text patterns (refs, prose entities, languages, title keywords), all below confidence 1. */
function emitText(text: { title: string | null; body: string; repo?: string }, emit: Emit): void {
  const title = text.title ?? '';
  const raw = title === '' ? text.body : `${title}\n\n${text.body}`;
  for (const ref of scanTextRefs(raw, { repo: text.repo })) {
    const entity = entityOfTextRef(ref);
    if (entity !== null) emit(entity.category, entity.key, ref.confidence);
  }
  textEntities(title, raw, readProse(raw), emit);
  for (const hit of languagesFromWords(title, 0.8)) emit('language', hit.language, hit.confidence);
  for (const hit of languagesFromWords(text.body, 0.6)) emit('language', hit.language, hit.confidence);
  for (const { keyword, confidence } of titleKeywords(title)) emit('keyword', keyword, confidence);
}

/** Plain text to read entities from: a query, or any title/body pair with the files it touches. */
export interface EntityText {
  title: string | null;
  body: string;
  files?: readonly string[];
  /** `owner/repo` that bare `#123` references resolve against. */
  repo?: string;
}

/**
 * Entities named in plain text, with no item around it (a search query is read as a title): the files'
 * entities at confidence 1, then the text patterns. Used by the query side; the indexer uses
 * `extractEntities`, which adds an item's structured fields.
 */
export function extractTextEntities(text: EntityText): ExtractedEntity[] {
  const { emit, entities } = collector();
  emitFiles(text.files ?? [], emit);
  emitText(text, emit);
  return entities();
}

export function extractEntities(input: EntityInput): ExtractedEntity[] {
  const { emit, entities } = collector();
  for (const actor of input.actors) {
    const key = (actor.login ?? actor.name ?? '').trim().toLowerCase();
    emit('person', key, 1);
  }
  if (input.container !== undefined) {
    if (input.source === 'github') emit('repository', input.container.toLowerCase(), 1);
    if (input.source === 'vercel') emit('service', input.container.toLowerCase(), 1);
  }
  for (const label of input.labels) emit('label', label.trim().toLowerCase(), 1);
  emitFiles(input.files, emit);
  for (const key of input.keys) {
    const entity = entityOfKey(key);
    if (entity !== null) emit(entity.category, entity.key, 1);
  }
  for (const ref of input.refs) {
    const entity = entityOfKey(ref.key, ref.relation);
    if (entity !== null) emit(entity.category, entity.key, ref.confidence);
  }
  for (const name of ['environment', 'target']) {
    const environment = stringField(input.metadata, name)?.toLowerCase();
    if (environment !== undefined && ENVIRONMENTS.has(environment)) emit('environment', environment, 1);
  }
  for (const name of ['branch', 'headBranch', 'baseBranch', 'gitBranch']) {
    const branch = stringField(input.metadata, name);
    if (branch !== null) emit('branch', branch, 1);
  }
  emitText({ title: input.title, body: input.body, repo: input.source === 'github' ? input.container : undefined }, emit);
  return entities();
}

/** `#n` is one GitHub number space: when the same key is both, it is a pull request. */
function mergePullRequestsAndIssues(entities: ExtractedEntity[]): ExtractedEntity[] {
  const pulls = new Map<string, ExtractedEntity>();
  for (const entity of entities) if (entity.category === 'pull_request') pulls.set(entity.key, entity);
  const out: ExtractedEntity[] = [];
  for (const entity of entities) {
    const pull = entity.category === 'issue' ? pulls.get(entity.key) : undefined;
    if (pull === undefined) out.push(entity);
    else pull.confidence = Math.max(pull.confidence, entity.confidence);
  }
  return out;
}
