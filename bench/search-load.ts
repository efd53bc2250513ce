/**
 * `npm run bench -- search-load --url http://127.0.0.1:3000 --workspace ws_... --key egk_...
 *   [--mode fast|balanced] [--connections 16] [--duration 20] [--data ../shared/data/github-prettier]
 *   [--import-file corpus.json --import-repo owner/name --admin-token T]`
 *
 * Search load against a running Engram (the scale benchmark's load phase, alone): autocannon with
 * `--connections` clients over the dataset's release-note queries, after a short warm-up. Prints
 * requests/s, client-side and server-side (`latency.total`) percentiles and the load average, so a change
 * can be measured against the same index before and after (or against a second server side by side).
 * With `--import-file`, every query is asked once first, then an `engram import github --wait` of that file
 * runs under the load, which lasts until the import has been indexed and its re-cluster has run (at least
 * `--duration`), and `/healthz` is sampled every 250 ms.
 */
import { readFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { engramCli } from './eval/service.js';
import { healthSampler, importSettled, RUNNING_ENGRAM_OPTIONS, searchLoad, warmUp } from './scale/load.js';

const { values: args } = parseArgs({
  options: {
    ...RUNNING_ENGRAM_OPTIONS,
    connections: { type: 'string', default: '16' },
    duration: { type: 'string', default: '20' },
    'import-file': { type: 'string' },
    'import-repo': { type: 'string' },
    'admin-token': { type: 'string' },
  },
});
if (!args.workspace || !args.key) throw new Error('--workspace and --key are required');
const queries = (JSON.parse(await readFile(join(resolve(args.data), 'queries.json'), 'utf8')) as { query: string }[]).map((q) => q.query);
const access = { url: args.url, workspaceId: args.workspace, key: args.key };
// Under an import, every query is asked once first, as the scale benchmark's idle phases have asked them
// before its import phase: a query asked for the first time is embedded by the provider, which an import's
// batches keep busy, and a fresh server's first seconds of load measured that wait (1.3-1.7 s searches).
await warmUp(access, args.mode, queries, args['import-file'] ? queries.length : 10);
const load = loadavg().map((x) => x.toFixed(2)).join(' ');
let importDoneAt = 0;
let importSeconds: number | undefined;
const health = args['import-file'] ? healthSampler(args.url) : null;
if (args['import-file']) {
  if (!args['import-repo'] || !args['admin-token']) throw new Error('--import-file needs --import-repo and --admin-token');
  const t0 = performance.now();
  void engramCli({ url: args.url, adminToken: args['admin-token'] }, process.cwd(), [
    'import', 'github', '--workspace', args.workspace, '--repo', args['import-repo'], '--file', resolve(args['import-file']), '--wait', '--poll-ms', '1000',
  ]).finally(() => {
    importDoneAt = performance.now();
    importSeconds = Math.round((performance.now() - t0) / 100) / 10;
  });
}
const result = await searchLoad(access, {
  mode: args.mode, queries, connections: Number(args.connections), durationS: Number(args.duration), until: async () => !args['import-file'] || importSettled({ url: args.url, adminToken: args['admin-token']! }, importDoneAt), maxDurationS: 1800,
});
console.log(JSON.stringify({ ...result, ...(health ? { importSeconds, healthz: await health.stop() } : {}), loadStart: load, loadEnd: loadavg().map((x) => x.toFixed(2)).join(' ') }));
