// Small real HTTP servers that behave like the providers Engram talks to.
export * from './github/index.js';
export * from './linear/index.js';
export * from './vercel/index.js';
export * from './openai/index.js';
