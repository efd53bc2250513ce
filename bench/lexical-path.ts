/**
 * `npm run bench -- lexical-path <data dir> [--rounds 4] [--data ../shared/data/github-prettier]`: the
 * lexical path alone, in process, over the in-memory read model of a kept index (the scale benchmark's
 * `--keep-index` leaves one; work on a copy), for every release-note query of the dataset, round after
 * round. Prints ms a query per round, and a digest of the first round's candidates, scores and signals,
 * so that a change meant to be faster can show it returns exactly what it returned before. Each round runs
 * twice, alternated: one query at a time, scored on this thread (the read's `stable` ordinals withheld), and
 * four at a time as the search gate admits them, with long reads scored on the lexical thread as a search
 * beside others scores them (ms a query is then wall time over the round: throughput, not latency).
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { openSearchReadModel, type SearchReadModel } from '@engram/stores';
import { lexemes } from '@engram/text';
import { termWeightsOf, topicOf } from '@engram/search';
import { lexicalPath, type LexicalSignals } from '@engram/search/lexical';
import { openKeptIndex } from './runtime.js';

const { values: args, positionals } = parseArgs({
  allowPositionals: true,
  options: { rounds: { type: 'string', default: '4' }, data: { type: 'string', default: '../shared/data/github-prettier' } },
});
const dir = positionals[0];
if (!dir) throw new Error('usage: npm run bench -- lexical-path <data dir> [--rounds 4]');
const { db, workspaceId } = await openKeptIndex(dir);
const read = openSearchReadModel(db);
const loadStarted = performance.now();
if (!(await read.loaded())) throw new Error('the in-memory read model did not load');
console.log(`read model loaded in ${((performance.now() - loadStarted) / 1000).toFixed(1)} s`);
const queries = (JSON.parse(readFileSync(join(resolve(args.data), 'queries.json'), 'utf8')) as { query: string }[]).map((q) => {
  const terms = lexemes(topicOf(q.query));
  return { terms, weights: termWeightsOf(terms) };
});
const filter = { workspaceId };
// The same model with its reads' ordinals withheld: the path scores them on this thread.
const inline: SearchReadModel = {
  ...read,
  postings: async (f, terms) => {
    const { stable: _, ...rest } = await read.postings(f, terms);
    return rest;
  },
};
const runs = { inline: { read: inline, together: 1, digest: createHash('sha256') }, 'four at a time': { read, together: 4, digest: createHash('sha256') } };
for (let round = 0; round < Number(args.rounds); round++) {
  for (const [name, run] of Object.entries(runs)) {
    const started = performance.now();
    for (let i = 0; i < queries.length; i += run.together) {
      const group = queries.slice(i, i + run.together);
      const results = await Promise.all(group.map((q) => lexicalPath(run.read, filter, q.terms, undefined, q.weights, { offThread: run.together > 1 })));
      if (round > 0) continue;
      for (const result of results) for (const [id, score] of result.scores) run.digest.update(`${id}:${score}:${JSON.stringify((result.signals as LexicalSignals).get(id))};`);
    }
    const ms = performance.now() - started;
    console.log(`round ${round}, ${name}: ${queries.length} queries, ${(ms / queries.length).toFixed(3)} ms a query (load ${loadavg().map((x) => x.toFixed(2)).join(' ')})`);
  }
}
for (const [name, run] of Object.entries(runs)) console.log(`candidates digest, ${name}: ${run.digest.digest('hex').slice(0, 16)}`);
await db.close();
