#!/usr/bin/env node
// `engram` (package bin): runs the TypeScript CLI through tsx's loader, as the internal packages ship as
// TypeScript source. Resolution adds the `development` condition, which maps @engram/sdk to its source.
import { register as registerHooks } from 'node:module';
import { register } from 'tsx/esm/api';

const addCondition = `export async function resolve(specifier, context, next) {
  return next(specifier, { ...context, conditions: [...new Set([...(context.conditions ?? []), 'development'])] });
}`;
registerHooks(`data:text/javascript,${encodeURIComponent(addCondition)}`);
register();
await import('../src/main.ts');
