export * from './sourceEvent.js';
export * from './api.js';
export * from './jobs.js';
export * from './errors.js';
export * from './text.js';
export * from './automation.js';
