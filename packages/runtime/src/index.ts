export * from './config.js';
export * from './logger.js';
export * from './runtime.js';
export * from './secrets.js';
export * from './jobs/index.js';
export * from './process.js';
export * from './metrics.js';
