/**
 * `npm run bench -- <name> [options]`: the one entry to the benchmarks. Without a name it lists them.
 * Each benchmark is a script that reads its own options from the command line; this passes the rest
 * of the arguments on as if the script had been run with `npx tsx`.
 */
const BENCHMARKS: Record<string, { script: string; about: string }> = {
  scale: { script: './scale/main.ts', about: 'generated 10k/30k/100k corpora through the real server: ingestion, search under load, memory, disk' },
  eval: { script: './eval/main.ts', about: 'relevance evaluation on the prettier dataset (same as `npm run eval`)' },
  questions: { script: './eval/questions.ts', about: 'relevance on the natural-question set (bugs, people, how-tos, what changed)' },
  'release-note-prior': { script: './eval/releaseNotePrior.ts', about: "the reranker's release-note prior on both question sets, in-process on an index copy" },
  backfill: { script: './backfill.ts', about: 'a GitHub backfill against the fake GitHub server' },
  soak: { script: './soak.ts', about: 'a steady mixed request rate for 10 minutes while ingestion runs: errors, p99, memory over time' },
  clusters: { script: './clusters.ts', about: 'clustering quality and speed' },
  embeddings: { script: './embeddings.ts', about: 'offline embedding throughput' },
  'query-embedding': { script: './query-embedding.ts', about: 'query embedding latency' },
  'recluster-index': { script: './recluster-index.ts', about: 're-cluster of an existing index' },
  'related-fixes': { script: './related-fixes.ts', about: 'related: fixes edges on an index' },
  'related-graph': { script: './related-graph.ts', about: 'related: the graph against links.json' },
  'relink-index': { script: './relink-index.ts', about: 're-derive the links of an existing index' },
  'search-latency': { script: './search-latency.ts', about: 'per-path search latency on an index' },
  'train-reranker': { script: './train-reranker.ts', about: 'train the reranker' },
  'tune-fusion': { script: './tune-fusion.ts', about: 'tune the fusion weights' },
};

const [name, ...rest] = process.argv.slice(2);
if (!name || name === '--help' || name === '-h') {
  console.log('usage: npm run bench -- <name> [options]\n');
  for (const [key, { about }] of Object.entries(BENCHMARKS)) console.log(`  ${key.padEnd(20)} ${about}`);
  process.exit(0);
}
const benchmark = BENCHMARKS[name];
if (!benchmark) {
  console.error(`unknown benchmark "${name}"; one of: ${Object.keys(BENCHMARKS).join(', ')}`);
  process.exit(2);
}
const script = new URL(benchmark.script, import.meta.url);
process.argv = [process.argv[0]!, script.pathname, ...rest];
await import(script.href);
