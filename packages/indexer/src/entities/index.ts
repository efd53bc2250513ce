export { extractEntities, extractTextEntities, type EntityText } from './extractEntities.js';
export { extractTextRefs, scanTextRefs, normalizeTitleKey, squashMergeNumber, NOT_LINEAR_TEAMS } from './textRefs.js';
export type { GithubRefKind, TextRef } from './textRefs.js';
export { pathAreas, classifyPath } from './paths.js';
export { ENTITY_CATEGORIES } from './types.js';
export type { EntityCategory, EntityInput, ExtractedEntity, TextRefContext } from './types.js';
