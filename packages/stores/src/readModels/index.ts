export * from './similar.js';
export * from './enrichment.js';
export * from './graph.js';
export * from './contents.js';
export * from './search/index.js';
