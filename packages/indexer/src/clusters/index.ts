export { assignCluster, assignClusters, DEFAULT_ASSIGN_THRESHOLD, type AssignInput, type AssignOptions, type Assignment, type BatchItem } from './assign.js';
export { recluster, DEFAULT_PARTITION, type ReclusterOptions, type ReclusterResult } from './recluster.js';
export { invalidateCentroids } from './centroidCache.js';
export { DEFAULT_FEATURE_SPACE, TOPICAL_CATEGORIES, topicFeature, type FeatureSpace, type TopicalEntity, type TopicalCategory } from './features.js';
export { clusterLabels, itemTerms, type ClusterLabels } from './labels.js';
