/** Enrichment reads now live in `@engram/stores` (readModels/enrichment.ts); re-exported for the search pipeline. */
export { actorsOf, clustersOf, itemEntities, type ActorContext, type ClusterContext } from '@engram/stores';
