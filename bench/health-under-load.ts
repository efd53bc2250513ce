/**
 * `/healthz` while 16 clients search: `npx tsx bench/health-under-load.ts --url URL --workspace ID --key KEY
 * [--mode fast] [--connections 16] [--duration 20]` against a running Engram loaded with the prettier
 * dataset (its release-note lines are the queries). Prints search requests/s and client latency, and
 * `/healthz` latency sampled every 250 ms: the target is that it always answers within 1 s.
 */
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { healthSampler, searchLoad, warmUp } from './scale/load.js';

const { values } = parseArgs({
  options: {
    url: { type: 'string' },
    workspace: { type: 'string' },
    key: { type: 'string' },
    mode: { type: 'string', default: 'fast' },
    connections: { type: 'string', default: '16' },
    duration: { type: 'string', default: '20' },
    data: { type: 'string', default: new URL('../../shared/data/github-prettier/', import.meta.url).pathname },
  },
});
if (!values.url || !values.workspace || !values.key) throw new Error('--url, --workspace and --key are required');
const access = { url: values.url, workspaceId: values.workspace, key: values.key };
const queries = (JSON.parse(readFileSync(`${values.data.replace(/\/?$/, '/')}queries.json`, 'utf8')) as { query: string }[]).map((q) => q.query);
const load = () => loadavg().map((x) => x.toFixed(2)).join(' ');

console.log(`load at start ${load()}`);
await warmUp(access, values.mode, queries);
const health = healthSampler(values.url);
const result = await searchLoad(access, { mode: values.mode, queries, connections: Number(values.connections), durationS: Number(values.duration) });
const h = await health.stop();
console.log(`${values.mode} x${values.connections}: ${result.requestsPerS} req/s, client p50 ${result.client.p50} / p95 ${result.client.p95} ms, server p50 ${result.server.p50} ms, errors ${result.errors}`);
console.log(`/healthz: ${h.samples} samples, p50 ${h.p50} / p99 ${h.p99} / max ${h.max} ms, ${h.over1s} over 1 s, ${h.failed} failed`);
console.log(`load at end ${load()}`);
