/**
 * `npm run bench -- filtered-search --url http://127.0.0.1:3000 --workspace ws_... --key egk_...
 *   [--queries 30] [--mode fast] [--data ../shared/data/github-prettier]`
 *
 * Searches one at a time against a running Engram, unfiltered and under filters (a content type, a date
 * range, a source), and prints the median of each part of the responses' `latency` per filter, with the
 * load average: how much a filter costs each retrieval path. Run it against two servers side by side (a
 * copy of one kept index each) to compare builds.
 */
import { readFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { RUNNING_ENGRAM_OPTIONS } from './scale/load.js';

const { values: args } = parseArgs({
  options: { ...RUNNING_ENGRAM_OPTIONS, queries: { type: 'string', default: '30' } },
});
if (!args.workspace || !args.key) throw new Error('--workspace and --key are required');

const FILTERS: [string, Record<string, unknown> | undefined][] = [
  ['none', undefined],
  ['observationTypes: commit', { observationTypes: ['commit'] }],
  ['dateRange: since 2024', { dateRange: { start: '2024-01-01T00:00:00Z' } }],
  ['sourceTypes: github', { sourceTypes: ['github'] }],
];
// Queries past the first 40 (the scale benchmark's meta.total phase asks those).
const queries = (JSON.parse(await readFile(join(resolve(args.data), 'queries.json'), 'utf8')) as { query: string }[]).map((q) => q.query).slice(40, 40 + Number(args.queries));
const median = (xs: number[]): string => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!.toFixed(1);
const PARTS = ['total', 'embedding', 'search', 'vectorSearch', 'entitySearch', 'clusterSearch'];
console.log(`load ${loadavg().map((l) => l.toFixed(2)).join(' ')}; medians in ms of ${queries.length} ${args.mode} searches a filter (search = the lexical path)`);
console.log(['filter', ...PARTS].join(' | '));
for (const [label, filters] of FILTERS) {
  const parts = new Map<string, number[]>();
  for (const query of queries) {
    const response = await fetch(`${args.url}/v1/search`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${args.key}`, 'x-workspace-id': args.workspace },
      body: JSON.stringify({ query, mode: args.mode, limit: 10, ...(filters ? { filters } : {}) }),
    });
    const body = (await response.json()) as { latency?: Record<string, number> };
    if (!response.ok || !body.latency) throw new Error(`search failed (${response.status}): ${JSON.stringify(body).slice(0, 300)}`);
    for (const part of PARTS) if (typeof body.latency[part] === 'number') (parts.get(part) ?? parts.set(part, []).get(part)!).push(body.latency[part]);
  }
  console.log([label, ...PARTS.map((p) => (parts.get(p) ? median(parts.get(p)!) : '-'))].join(' | '));
}
console.log(`load ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
