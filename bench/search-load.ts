/**
 * `npm run bench -- search-load --url http://127.0.0.1:3000 --workspace ws_... --key egk_...
 *   [--mode fast|balanced] [--connections 16] [--duration 20] [--data ../shared/data/github-prettier]`
 *
 * Search load against a running Engram (the scale benchmark's load phase, alone): autocannon with
 * `--connections` clients over the dataset's release-note queries, after a short warm-up. Prints
 * requests/s, client-side and server-side (`latency.total`) percentiles and the load average, so a change
 * can be measured against the same index before and after (or against a second server side by side).
 */
import { readFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { searchLoad, warmUp } from './scale/load.js';

const { values: args } = parseArgs({
  options: {
    url: { type: 'string', default: 'http://127.0.0.1:3000' },
    workspace: { type: 'string' },
    key: { type: 'string' },
    mode: { type: 'string', default: 'fast' },
    connections: { type: 'string', default: '16' },
    duration: { type: 'string', default: '20' },
    data: { type: 'string', default: '../shared/data/github-prettier' },
  },
});
if (!args.workspace || !args.key) throw new Error('--workspace and --key are required');
const queries = (JSON.parse(await readFile(join(resolve(args.data), 'queries.json'), 'utf8')) as { query: string }[]).map((q) => q.query);
const access = { url: args.url, workspaceId: args.workspace, key: args.key };
await warmUp(access, args.mode, queries, 10);
const load = loadavg().map((x) => x.toFixed(2)).join(' ');
const result = await searchLoad(access, { mode: args.mode, queries, connections: Number(args.connections), durationS: Number(args.duration) });
console.log(JSON.stringify({ ...result, loadStart: load, loadEnd: loadavg().map((x) => x.toFixed(2)).join(' ') }));
