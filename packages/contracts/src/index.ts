export * from './sourceEvent.js';
