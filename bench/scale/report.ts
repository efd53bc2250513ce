/**
 * The scale report: JSON (everything measured), Markdown (one table across sizes per deployment and
 * embedder, every target of issue 16 with its figure, the load average of every phase) and an SVG chart.
 * Written after every phase, so a partial run leaves a valid partial report.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { lineChartSvg, type Series } from './chart.js';
import type { CorpusManifest } from './corpusFiles.js';
import type { EncoderThroughput, RunResult } from './run.js';

export interface ScaleReport {
  command: string;
  startedAt: string;
  updatedAt: string;
  complete: boolean;
  machine: { cores: number; cpu: string; node: string; memoryBytes: number };
  options: Record<string, unknown>;
  corpora: (Omit<CorpusManifest, 'files'> & { files: { repo: string; items: number; pulls: number; commits: number }[] })[];
  encoder?: EncoderThroughput;
  runs: RunResult[];
}

export interface Target {
  target: string;
  figure: string;
  status: 'met' | 'missed' | 'not measured' | 'met at rest, missed at peak';
  run: string;
}

/**
 * The memory target: met when even the peak stays within 1.5 GB; "at rest" when only the resident set the
 * server settles to after the import does (the peak comes while an import and its re-cluster run).
 */
function memoryStatus(m: NonNullable<RunResult['memory']>): Target['status'] {
  if (m.peakBytes <= 1.5e9) return 'met';
  return m.settledBytes !== undefined && m.settledBytes <= 1.5e9 ? 'met at rest, missed at peak' : 'missed';
}

const mb = (bytes: number) => Math.round(bytes / 1e6);
/** MB of 2^20 bytes, as `/metrics`' parts are given. */
const mib = (bytes: number | undefined) => (bytes === undefined ? undefined : bytes / 2 ** 20);
const fmt = (n: number | undefined, digits = 1) => (n === undefined || !Number.isFinite(n) ? '-' : n.toFixed(digits));
const label = (r: RunResult) => `${r.deployment}/${r.embedder}/${r.size}`;

/** Each target of issue 16 against the embedded runs (the targets are for the embedded default). */
export function evaluateTargets(report: ScaleReport): Target[] {
  const embedded = report.runs.filter((r) => r.deployment === 'embedded' && !r.error);
  const largest = (rs: RunResult[]) => rs.filter((r) => r.search.fast?.['16']).sort((a, b) => b.size - a.size || (a.embedder === 'offline' ? -1 : 1))[0];
  const status = (ok: boolean): Target['status'] => (ok ? 'met' : 'missed');
  const none = (target: string, why: string): Target => ({ target, figure: why, status: 'not measured', run: '-' });
  const out: Target[] = [];

  const big = largest(embedded);
  const c16 = big?.search.fast?.['16'];
  const t1 = '16 concurrent clients, `fast` (at 100k): >= 150 requests/s, 0 errors, client-side p95 <= 250 ms';
  out.push(big && c16
    ? { target: t1, figure: `${c16.requestsPerS} req/s, ${c16.errors + c16.non2xx + c16.timeouts} errors, p95 ${c16.client.p95} ms (at ${big.size} items)`, status: status(c16.requestsPerS >= 150 && c16.errors + c16.non2xx + c16.timeouts === 0 && c16.client.p95 <= 250), run: label(big) }
    : none(t1, 'no embedded run with search'));

  const tenK = embedded.filter((r) => r.size >= 9000 && r.size <= 12000 && r.search.fast?.['1']).sort((a) => (a.embedder === 'offline' ? -1 : 1))[0];
  const t2 = 'At 9-10k items, one client: `fast` p50 <= 40 ms, `balanced` p50 <= 80 ms (server-side)';
  out.push(tenK
    ? { target: t2, figure: `fast p50 ${tenK.search.fast!['1']!.server.p50} ms, balanced p50 ${fmt(tenK.search.balanced?.['1']?.server.p50)} ms`, status: status(tenK.search.fast!['1']!.server.p50 <= 40 && (tenK.search.balanced?.['1']?.server.p50 ?? Infinity) <= 80), run: label(tenK) }
    : none(t2, 'no embedded run at 9-12k items'));

  const hundredK = embedded.filter((r) => r.size >= 100_000 && r.search.fast?.['1']).sort((a) => (a.embedder === 'offline' ? -1 : 1))[0];
  const t3 = 'One client at 100k: `fast` p50 <= 30 ms, p95 <= 80 ms; `balanced` p50 <= 60 ms, p95 <= 150 ms (server-side)';
  if (hundredK) {
    const f = hundredK.search.fast!['1']!.server;
    const b = hundredK.search.balanced?.['1']?.server;
    out.push({ target: t3, figure: `fast p50 ${f.p50} / p95 ${f.p95} ms; balanced p50 ${fmt(b?.p50)} / p95 ${fmt(b?.p95)} ms`, status: status(f.p50 <= 30 && f.p95 <= 80 && (b?.p50 ?? Infinity) <= 60 && (b?.p95 ?? Infinity) <= 150), run: label(hundredK) });
  } else if (big?.search.fast?.['1']) {
    const f = big.search.fast['1'].server;
    const b = big.search.balanced?.['1']?.server;
    out.push({ target: t3, figure: `not run at 100k; at ${big.size}: fast p50 ${f.p50} / p95 ${f.p95} ms; balanced p50 ${fmt(b?.p50)} / p95 ${fmt(b?.p95)} ms`, status: 'not measured', run: label(big) });
  } else out.push(none(t3, 'no embedded run'));

  const during = embedded.filter((r) => r.duringImport && r.search.fast?.['16']).sort((a, b) => b.size - a.size)[0];
  const t4 = 'During an import and a re-cluster: search p95 <= 2x its idle p95, and `/healthz` always answers within 1 s';
  if (during) {
    const idle = during.search.fast!['16']!.client.p95;
    const busy = during.duringImport!.load.client.p95;
    const h = during.duringImport!.healthz;
    const unfinished = during.duringImport!.finished ? '' : `; ${unfinishedImport(during.duringImport!)}`;
    out.push({ target: t4, figure: `fast x16 client p95 ${busy} ms vs idle ${idle} ms (${fmt(busy / idle, 2)}x); /healthz max ${h.max} ms, ${h.over1s} over 1 s, ${h.failed} failed of ${h.samples}${unfinished}`, status: status(busy <= 2 * idle && h.over1s === 0 && h.failed === 0), run: label(during) });
  } else out.push(none(t4, 'no embedded run reached the import phase'));

  const fastIngest = embedded.filter((r) => r.embedder === 'fast' && r.ingest).sort((a, b) => b.size - a.size)[0];
  const t5 = 'Ingestion with the fast embedding provider: >= 400 items/s';
  out.push(fastIngest ? { target: t5, figure: `${fastIngest.ingest!.itemsPerS} items/s (${fastIngest.size} items in ${fastIngest.ingest!.seconds} s)`, status: status(fastIngest.ingest!.itemsPerS >= 400), run: label(fastIngest) } : none(t5, 'no embedded run with the fast provider'));

  const offlineIngest = embedded.filter((r) => r.embedder === 'offline' && r.ingest).sort((a, b) => b.size - a.size)[0];
  const t6 = "Ingestion with the bundled encoder: >= 80% of the encoder's own throughput in the same run";
  const encoder = report.encoder;
  out.push(offlineIngest && encoder
    ? { target: t6, figure: `${offlineIngest.ingest!.itemsPerS} items/s = ${fmt((100 * offlineIngest.ingest!.itemsPerS) / encoder.itemsPerS, 0)}% of the encoder's ${encoder.itemsPerS} items/s on the same texts`, status: status(offlineIngest.ingest!.itemsPerS >= 0.8 * encoder.itemsPerS), run: label(offlineIngest) }
    : none(t6, 'no embedded run with the bundled encoder'));

  const t7 = '100k items imported with the bundled encoder in under 45 minutes (idle machine)';
  const offline100k = embedded.find((r) => r.embedder === 'offline' && r.size >= 100_000 && r.ingest);
  out.push(offline100k
    ? { target: t7, figure: `${fmt(offline100k.ingest!.seconds / 60)} min`, status: status(offline100k.ingest!.seconds < 45 * 60), run: label(offline100k) }
    : offlineIngest ? { target: t7, figure: `not run at 100k; at ${offlineIngest.ingest!.itemsPerS} items/s 100k would take ${fmt(100_000 / offlineIngest.ingest!.itemsPerS / 60, 0)} min`, status: 'not measured', run: label(offlineIngest) } : none(t7, 'no run with the bundled encoder'));

  const memRun = embedded.filter((r) => r.memory).sort((a, b) => b.size - a.size || (a.embedder === 'offline' ? -1 : 1))[0];
  const t8 = 'Resident memory of the embedded server at 100k items <= 1.5 GB';
  out.push(memRun
    ? {
        target: t8,
        figure: `${mb(memRun.memory!.afterImportBytes)} MB after the import${memRun.memory!.settledBytes !== undefined ? `, ${mb(memRun.memory!.settledBytes)} MB at rest (${memRun.memory!.settledAfterS} s later, once it stopped falling)` : ''}${memRun.memory!.afterSearchBytes ? `, ${mb(memRun.memory!.afterSearchBytes)} MB after the idle search phases` : ''}, peak ${mb(memRun.memory!.peakBytes)} MB (at ${memRun.size} items${memRun.memory!.peakPhase ? `, during ${memRun.memory!.peakPhase}` : ''})`,
        status: memRun.size < 100_000 ? 'not measured' : memoryStatus(memRun.memory!),
        run: label(memRun),
      }
    : none(t8, 'no embedded run'));

  const t9 = 'From 10k to 100k items, `fast` p50 grows by at most 2x';
  const small = embedded.filter((r) => r.search.fast?.['1']).sort((a, b) => a.size - b.size)[0];
  out.push(hundredK && small && small.size < hundredK.size
    ? { target: t9, figure: `${small.search.fast!['1']!.server.p50} -> ${hundredK.search.fast!['1']!.server.p50} ms (${fmt(hundredK.search.fast!['1']!.server.p50 / small.search.fast!['1']!.server.p50, 2)}x)`, status: status(hundredK.search.fast!['1']!.server.p50 <= 2 * small.search.fast!['1']!.server.p50), run: `${label(small)} -> ${label(hundredK)}` }
    : none(t9, 'needs embedded runs at 10k and 100k'));

  const totals = embedded.filter((r) => r.totals).sort((a, b) => b.size - a.size)[0];
  const t10 = '`meta.total` stays truthful: a filter (`observationTypes: ["commit"]`) never raises it';
  out.push(totals
    ? { target: t10, figure: `raised on ${totals.totals!.raised.length} of ${totals.totals!.checked} queries${totals.totals!.raised[0] ? ` (e.g. ${totals.totals!.raised[0].unfiltered} -> ${totals.totals!.raised[0].filtered})` : ''}`, status: status(totals.totals!.raised.length === 0), run: label(totals) }
    : none(t10, 'no embedded run'));

  out.push(none('Rankings do not move (paired CI of the eval difference contains 0)', 'measured by `npm run eval`, not by this benchmark'));
  return out;
}

function runTable(runs: RunResult[]): string[] {
  const lines = [
    '| items | import s | items/s | re-cluster s / at rest s | fast p50 / p95 server, 1 client | balanced p50 / p95 server, 1 client | fast x16 req/s | fast x16 client p50 / p95 / p99 | balanced x16 req/s | balanced x16 client p50 / p95 / p99 | errors | during import: req/s, client p95, /healthz max | RSS after import / at rest / after searches / peak MB | disk KB/item |',
    '| ---: | ---: | ---: | ---: | --- | --- | ---: | --- | ---: | --- | ---: | --- | --- | ---: |',
  ];
  for (const r of [...runs].sort((a, b) => a.size - b.size)) {
    const f1 = r.search.fast?.['1'];
    const b1 = r.search.balanced?.['1'];
    const f16 = r.search.fast?.['16'];
    const b16 = r.search.balanced?.['16'];
    const errors = Object.values(r.search).flatMap((m) => Object.values(m)).reduce((sum, l) => sum + l.errors + l.non2xx + l.timeouts, 0);
    const d = r.duringImport;
    lines.push(`| ${r.size}${r.error ? ' (failed)' : ''} | ${fmt(r.ingest?.seconds)} | ${fmt(r.ingest?.itemsPerS)} | ${fmt(r.ingest?.reclusterSeconds)}${r.ingest?.settleSeconds !== undefined ? ` / ${fmt(r.ingest.settleSeconds)}` : ''} | ${f1 ? `${f1.server.p50} / ${f1.server.p95}` : '-'} | ${b1 ? `${b1.server.p50} / ${b1.server.p95}` : '-'} | ${fmt(f16?.requestsPerS)} | ${f16 ? `${f16.client.p50} / ${f16.client.p95} / ${f16.client.p99}` : '-'} | ${fmt(b16?.requestsPerS)} | ${b16 ? `${b16.client.p50} / ${b16.client.p95} / ${b16.client.p99}` : '-'} | ${errors} | ${d ? `${d.load.requestsPerS}, ${d.load.client.p95} ms, ${d.healthz.max} ms${d.finished ? '' : ` (${unfinishedImport(d)})`}` : '-'} | ${r.memory ? `${mb(r.memory.afterImportBytes)} / ${r.memory.settledBytes !== undefined ? mb(r.memory.settledBytes) : '-'} / ${r.memory.afterSearchBytes ? mb(r.memory.afterSearchBytes) : '-'} / ${mb(r.memory.peakBytes)}` : '-'} | ${r.disk ? fmt(r.disk.bytesPerItem / 1024) : '-'} |`);
  }
  return lines;
}

export function renderMarkdown(report: ScaleReport, svgName: string): string {
  const lines = [
    '# Scale benchmark',
    '',
    `Command: \`${report.command}\``,
    '',
    `${report.complete ? 'Complete' : '**Partial** (the run stopped or is still going)'}; started ${report.startedAt}, updated ${report.updatedAt}. Machine: ${report.machine.cores} cores (${report.machine.cpu}), ${mb(report.machine.memoryBytes)} MB RAM, Node ${report.machine.node}; other agents share it, so see the load average of each phase below.`,
    '',
    'Corpus: generated by `bench/scale/generate.ts` from the prettier dataset: pull requests with their commits and lone commits, copy after copy of the source in a seeded order, spread over synthetic repositories (`scale-org/*`) and a five-year window; copy 0 keeps the real text, later copies recombine real titles, bodies, file lists and authors; pull request <-> commit links, `#N` references and reverted SHAs point inside the same copy.',
    '',
    ...report.corpora.map((c) => `- ${c.count} items (seed ${c.seed}, ${c.copies} copies of the source): ${c.files.map((f) => `${f.repo} ${f.items}`).join(', ')}`),
    '',
    'Ingestion is end to end: from the first `engram import github --wait` (one per repository, all at once) to the last one returning (every item indexed, searchable). The idle search phases start once the index is at rest: the import\'s re-cluster and every job it left (expertise passes) done ("at rest s", from the import\'s end). Search latency: server-side is the response\'s `latency.total`, client-side is autocannon\'s response time; real release-note queries from `queries.json`, `limit` 10. "During import" is 16 clients on `fast` while a further import of recombined items runs and until its re-cluster has finished, with `/healthz` sampled every 250 ms. RSS is VmRSS of the server node process (both processes summed on the distributed deployment), sampled every 2 s: once the import and its re-cluster are done, after the idle search phases (the server in use), and the peak over the run. Disk: the data dir (embedded) or `pg_database_size` (distributed; Redis not counted).',
    '',
  ];
  const e = report.encoder;
  if (e) lines.push(`Offline encoder alone, same run: ${e.itemsPerS} items/s, ${e.textsPerS} texts/s (${e.items} corpus items = ${e.texts} texts, each item's chunks as the indexer embeds them: title and body; in ${e.seconds} s, default threads; load ${e.loadStart.join(' ')} -> ${e.loadEnd.join(' ')}).`, '');
  lines.push('## Targets (issue 16; embedded default)', '', '| target | measured | status | run |', '| --- | --- | --- | --- |');
  for (const t of evaluateTargets(report)) lines.push(`| ${t.target} | ${t.figure} | ${t.status} | ${t.run} |`);
  lines.push('', `![latency and ingestion vs size](${svgName})`, '');
  const groups = new Map<string, RunResult[]>();
  for (const r of report.runs) groups.set(`${r.deployment} deployment, ${r.embedder === 'fast' ? 'fast embedding provider (fake OpenAI-compatible server)' : 'bundled offline encoder'}`, [...(groups.get(`${r.deployment} deployment, ${r.embedder === 'fast' ? 'fast embedding provider (fake OpenAI-compatible server)' : 'bundled offline encoder'}`) ?? []), r]);
  for (const [name, runs] of groups) {
    lines.push(`## ${name}`, '', 'Latencies in ms.', '', ...runTable(runs), '');
    for (const r of runs) if (r.error) lines.push(`- ${label(r)} failed: ${r.error}`);
  }
  const timed = report.runs.filter((r) => Object.values(r.search).some((m) => m?.['1']?.paths));
  if (timed.length) {
    lines.push(
      "## Where a search's time goes",
      '',
      "One client, p50 in ms of each part of the response's `latency`: the wait for the search gate, retrieval (the paths side by side, then fusion), the second stage, the page's enrichment; and each path's own time inside retrieval (`search` is the lexical path; the query's embedding comes before the vector and cluster paths).",
      '',
      '| run | mode | total | queue | retrieval | rerank | enrich | embedding | lexical | vector | entity | cluster | actor |',
      '| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    );
    for (const r of timed) {
      for (const [mode, byConnections] of Object.entries(r.search)) {
        const one = byConnections?.['1'];
        if (!one?.paths) continue;
        const { stages, paths } = one;
        lines.push(
          `| ${label(r)} | ${mode} | ${fmt(one.server.p50)} | ${[stages.queue, stages.retrieval, stages.rerank, stages.enrich, paths.embedding, paths.search, paths.vectorSearch, paths.entitySearch, paths.clusterSearch, paths.actorSearch].map((x) => fmt(x.p50)).join(' | ')} |`,
        );
      }
    }
    lines.push('');
  }
  const withParts = report.runs.filter((r) => r.memoryParts && Object.keys(r.memoryParts.afterImport).length);
  if (withParts.length) {
    lines.push('## Where the memory is', '', "MB, from the server's `/metrics` (api process on the distributed deployment): V8 heaps as committed (`heap_size_total`), buffers and typed arrays outside them (external), and the embedded database's WebAssembly heap, once the import has settled / after the idle search phases / as the run's peak was sampled (asked for as the sample set the peak, so within a second or two of it); the last two rows are the resident set (VmRSS) less all of them, and the resident set itself (MB of 2^20 bytes, as the parts).", '');
    lines.push('| run | part | after import | after searches | at the peak |', '| --- | --- | ---: | ---: | ---: |');
    for (const r of withParts) {
      const { afterImport, afterSearch = {}, atPeak = {} } = r.memoryParts!;
      for (const part of [...new Set([...Object.keys(afterImport), ...Object.keys(afterSearch), ...Object.keys(atPeak)])]) lines.push(`| ${label(r)} | ${part} | ${fmt(afterImport[part])} | ${fmt(afterSearch[part])} | ${fmt(atPeak[part])} |`);
      // What the resident set holds beyond every part the isolates account for: code, allocator and V8 pages kept after collection.
      const rest = (rssBytes: number | undefined, parts: Record<string, number>) =>
        rssBytes === undefined || Object.keys(parts).length === 0 ? undefined : rssBytes / 2 ** 20 - Object.values(parts).reduce((a, b) => a + b, 0);
      lines.push(`| ${label(r)} | resident, in none of the above | ${fmt(rest(r.memory?.afterImportBytes, afterImport))} | ${fmt(rest(r.memory?.afterSearchBytes, afterSearch))} | ${fmt(rest(r.memoryParts!.atPeakBytes, atPeak))} |`);
      lines.push(`| ${label(r)} | resident set | ${fmt(mib(r.memory?.afterImportBytes))} | ${fmt(mib(r.memory?.afterSearchBytes))} | ${fmt(mib(r.memoryParts!.atPeakBytes))} |`);
    }
    lines.push('');
  }
  lines.push('## Phases and load average', '', '| run | phase | s | load at start (1/5/15 min) | load at end |', '| --- | --- | ---: | --- | --- |');
  for (const r of report.runs) for (const p of r.phases) lines.push(`| ${label(r)} | ${p.name} | ${p.seconds} | ${p.loadStart.join(' ')} | ${p.loadEnd.join(' ')} |`);
  lines.push('');
  return `${lines.join('\n')}\n`;
}

export function renderChart(report: ScaleReport): string {
  const byRun = new Map<string, RunResult[]>();
  for (const r of report.runs) byRun.set(`${r.deployment}/${r.embedder}`, [...(byRun.get(`${r.deployment}/${r.embedder}`) ?? []), r]);
  const series = (pick: (r: RunResult) => number | undefined): Series[] =>
    [...byRun].map(([name, runs]) => ({ label: name, points: runs.flatMap((r) => { const y = pick(r); return y === undefined ? [] : [{ x: r.size, y }]; }) }));
  return lineChartSvg('Engram at scale', [
    { title: 'fast, 1 client: server p50 (ms)', yLabel: 'ms', series: series((r) => r.search.fast?.['1']?.server.p50) },
    { title: 'fast, 16 clients: client p95 (ms)', yLabel: 'ms', series: series((r) => r.search.fast?.['16']?.client.p95) },
    { title: 'ingestion (items/s)', yLabel: 'items/s', series: series((r) => r.ingest?.itemsPerS) },
  ]);
}

export async function writeReport(report: ScaleReport, outDir: string, name: string): Promise<void> {
  report.updatedAt = new Date().toISOString();
  await writeFile(join(outDir, `${name}.json`), `${JSON.stringify({ ...report, targets: evaluateTargets(report) }, null, 2)}\n`);
  await writeFile(join(outDir, `${name}.svg`), renderChart(report));
  await writeFile(join(outDir, `${name}.md`), renderMarkdown(report, `${name}.svg`));
}

/**
 * What was left when the search load stopped: the import (its `engram import --wait` had not returned), or
 * only the re-cluster after it (the import returned before the load ended).
 */
function unfinishedImport(d: { items: number; importSeconds: number; load: { durationS: number } }): string {
  return d.importSeconds < d.load.durationS - 1
    ? `the import of ${d.items} items took ${d.importSeconds} s; its re-cluster had not finished after ${d.load.durationS} s`
    : `the import of ${d.items} items and its re-cluster had not finished after ${d.load.durationS} s`;
}
