/** What the operating system says about a run: process trees, resident memory, disk, load. */
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** The 1, 5 and 15 minute load averages, rounded. */
export const loadAverage = (): [number, number, number] => loadavg().map((x) => Math.round(x * 100) / 100) as [number, number, number];

interface ProcInfo {
  pid: number;
  ppid: number;
  name: string;
}

function processes(): ProcInfo[] {
  const out: ProcInfo[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const close = stat.lastIndexOf(')');
      const name = stat.slice(stat.indexOf('(') + 1, close);
      const ppid = Number(stat.slice(close + 2).split(' ')[1]);
      out.push({ pid: Number(entry), ppid, name });
    } catch {
      // the process ended while we looked
    }
  }
  return out;
}

function rssBytes(pid: number): number {
  try {
    const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/**
 * Resident memory of the server a `npm` process started: `npm -> sh -> node (tsx) -> node (server)`.
 * `server` is the largest node process of the tree (the one running Engram, its worker threads
 * included); `tree` sums every process of it (npm and the tsx launcher add ~100 MB).
 */
export function serverMemory(rootPid: number): { server: number; tree: number } {
  const all = processes();
  const children = new Map<number, ProcInfo[]>();
  for (const p of all) children.set(p.ppid, [...(children.get(p.ppid) ?? []), p]);
  const tree: ProcInfo[] = [];
  const stack = all.filter((p) => p.pid === rootPid);
  while (stack.length) {
    const p = stack.pop()!;
    tree.push(p);
    stack.push(...(children.get(p.pid) ?? []));
  }
  const sizes = tree.map((p) => ({ p, rss: rssBytes(p.pid) }));
  const server = Math.max(0, ...sizes.filter((s) => s.p.name.startsWith('node')).map((s) => s.rss));
  return { server, tree: sizes.reduce((sum, s) => sum + s.rss, 0) };
}

/**
 * The resident set once it has stopped falling: sampled every `everyMs` until the last `windowMs` of
 * samples lie within 2% of each other (or `maxMs` passed). V8 gives back the heap an import and its
 * re-cluster grew a minute or two after they end; this is what an idle server then holds.
 */
export async function settledMemory(sampler: { last(): number }, options: { everyMs: number; windowMs: number; maxMs: number }): Promise<{ bytes: number; seconds: number }> {
  const started = performance.now();
  const window = Math.ceil(options.windowMs / options.everyMs) + 1;
  const samples: number[] = [];
  for (;;) {
    samples.push(sampler.last());
    const recent = samples.slice(-window);
    const steady = recent.length === window && Math.max(...recent) - Math.min(...recent) <= 0.02 * Math.max(...recent);
    if (steady || performance.now() - started >= options.maxMs) break;
    await new Promise((resolve) => setTimeout(resolve, options.everyMs));
  }
  return { bytes: samples[samples.length - 1]!, seconds: Math.round((performance.now() - started) / 1000) };
}

export interface MemorySampler {
  peak(): number;
  /** The label that was current when the peak was sampled (`label`): which phase of the run it came in. */
  peakLabel(): string;
  /**
   * The server's own account of its memory (`parts`, asked for as a sample sets a new peak, at most one
   * request at a time) and the resident set it was asked at: what the peak held. Empty without `parts`.
   */
  peakParts(): { bytes: number; parts: Record<string, number> } | undefined;
  last(): number;
  /** Names what the samples from now on are taken during. */
  label(name: string): void;
  stop(): void;
}

/**
 * Samples a tree's memory every `everyMs` until stopped; keeps the peak (and the label current then) and the
 * last value. With `parts`, asks it for the parts of the memory whenever a sample sets a new peak.
 */
export function memorySampler(rootPids: number[], everyMs = 2_000, parts?: () => Promise<Record<string, number>>): MemorySampler {
  let peak = 0;
  let peakLabel = '';
  let current = '';
  let last = 0;
  let atPeak: { bytes: number; parts: Record<string, number> } | undefined;
  let asking = false;
  const askParts = (bytes: number): void => {
    if (!parts || asking) return;
    asking = true;
    parts()
      .then((found) => {
        // A later sample may have set a higher peak meanwhile; this account is kept only while it is the highest asked.
        if (Object.keys(found).length && bytes >= (atPeak?.bytes ?? 0)) atPeak = { bytes, parts: found };
      })
      .catch(() => undefined)
      .finally(() => (asking = false));
  };
  const sample = (): void => {
    last = rootPids.reduce((sum, pid) => sum + serverMemory(pid).server, 0);
    if (last > peak) {
      peak = last;
      peakLabel = current;
      askParts(last);
    }
  };
  sample();
  const timer = setInterval(sample, everyMs);
  return { peak: () => peak, peakLabel: () => peakLabel, peakParts: () => atPeak, last: () => (sample(), last), label: (name) => void (current = name), stop: () => clearInterval(timer) };
}

export async function diskBytes(dir: string): Promise<number> {
  const { stdout } = await run('du', ['-sb', dir]);
  return Number(stdout.split(/\s/)[0]);
}

/**
 * Where a server's memory is, from its `/metrics` (MB): the main thread's V8 heap and its buffers, and
 * each worker thread's heap (`pglite/worker` also its WebAssembly heap). Empty when `/metrics` fails.
 */
export async function memoryParts(url: string, adminToken: string): Promise<Record<string, number>> {
  const res = await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${adminToken}` } }).catch(() => null);
  if (!res?.ok) return {};
  const parts: Record<string, number> = {};
  const add = (part: string, bytes: number): void => {
    parts[part] = Math.round(((parts[part] ?? 0) + bytes / 2 ** 20) * 10) / 10;
  };
  for (const line of (await res.text()).split('\n')) {
    const value = Number(line.slice(line.lastIndexOf(' ') + 1));
    if (line.startsWith('engram_process_nodejs_heap_size_total_bytes')) add('main heap', value);
    else if (line.startsWith('engram_process_nodejs_external_memory_bytes')) add('main external (buffers, typed arrays)', value);
    else if (line.startsWith('engram_thread_memory_bytes{')) {
      const thread = /thread="([^"]+)"/.exec(line)?.[1] ?? '?';
      const kind = /kind="([^"]+)"/.exec(line)?.[1];
      if (kind === 'heap_total') add(`${thread} heap`, value);
      else if (kind === 'external') add(`${thread} external`, value);
      else if (kind === 'wasm') add(`${thread} WebAssembly`, value);
    }
  }
  return parts;
}
