// What a search query pays to be embedded offline: one new text at a time, straight to the worker pool
// (the runtime's `queryEmbedder`) against through the coalescing embedder index jobs use (which waits up
// to 8 ms for other texts to share a batch). No cache: every text is new, as most queries are.
// Run: npx tsx bench/query-embedding.ts [--n 40]
import { parseArgs } from 'node:util';
import { createCoalescingEmbedder, createOfflineEmbedder } from '@engram/indexer/embeddings';

const { values } = parseArgs({ options: { n: { type: 'string', default: '40' } } });
const n = Number(values.n);
const base = await createOfflineEmbedder({ threads: 2 });
const coalescing = createCoalescingEmbedder(base);
for (let i = 0; i < 5; i++) await base.embed([`warm-up query ${i}`]);
for (const round of [1, 2]) {
  for (const [name, embedder] of [['direct (queryEmbedder)', base], ['coalescing (index jobs)', coalescing]] as const) {
    const started = performance.now();
    for (let i = 0; i < n; i++) await embedder.embed([`Fix comments printed in round ${round} query ${i} of ${name} unions`]);
    console.log(`round ${round}, ${name}: ${((performance.now() - started) / n).toFixed(1)} ms per query`);
  }
}
await coalescing.close();
