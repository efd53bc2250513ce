#!/usr/bin/env node
// `npx engram`: runs the TypeScript CLI through tsx's loader (internal packages ship as TypeScript source).
import { register } from 'tsx/esm/api';

register();
await import('../src/main.ts');
