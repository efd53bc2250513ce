/**
 * Tool results as compact text sized for a model's context: titles, urls, ids and short snippets, with
 * hard caps, and a line saying how to get more. No scores (they mean different things per mode) and no
 * HTML highlights: the order is the ranking.
 */
import type { z } from 'zod';
import type { ContentsResponseA, FindSimilarResponseA, RelatedResponse, SearchResponseA } from '@engram/contracts';

export const CAPS = {
  snippetChars: 280,
  /** Per item in `contents`, unless the caller asks for less. */
  contentChars: 6_000,
  /** All items of one `contents` call together. */
  contentsTotalChars: 40_000,
} as const;

const oneLine = (s: string): string => s.replace(/\s+/g, ' ').trim();
export function clip(s: string, max: number): string {
  const t = oneLine(s);
  return t.length <= max ? t : `${t.slice(0, max - 1).trimEnd()}…`;
}
const day = (iso: string | undefined): string => (iso ? iso.slice(0, 10) : '');
const kind = (r: { source: string; type: string; occurredAt?: string | undefined }): string => [`${r.source} ${r.type}`, day(r.occurredAt)].filter(Boolean).join(', ');

export function formatSearch(query: string, out: z.infer<typeof SearchResponseA>): string {
  const { total, offset, mode } = out.meta;
  if (out.data.length === 0) return total > 0 ? `No results at offset ${offset} (${total} in all) for "${query}".` : `No results for "${query}". Try other words, fewer filters, or mode "balanced".`;
  const lines = [`${total} results for "${query}" (mode ${mode}); showing ${offset + 1}-${offset + out.data.length}.`];
  out.data.forEach((r, i) => {
    lines.push(`${offset + i + 1}. ${oneLine(r.title)} [${kind(r)}] id=${r.id}`, `   ${r.url}`);
    if (r.snippet) lines.push(`   ${clip(r.snippet, CAPS.snippetChars)}`);
  });
  const clusters = out.context?.clusters?.slice(0, 3).map((c) => c.topic) ?? [];
  const people = out.context?.relevantActors?.slice(0, 5).map((a) => (a.expertiseDomains.length ? `${a.displayName} (${a.expertiseDomains.slice(0, 2).join(', ')})` : a.displayName)) ?? [];
  if (clusters.length) lines.push(`Topics: ${clusters.join('; ')}`);
  if (people.length) lines.push(`People: ${people.join('; ')}`);
  if (offset + out.data.length < total) lines.push(`More: call search again with offset ${offset + out.data.length}.`);
  lines.push('Read one in full with contents(ids); follow its links with related(id).');
  return lines.join('\n');
}

export function formatContents(out: z.infer<typeof ContentsResponseA>, maxChars: number): string {
  const lines: string[] = [];
  let budget: number = CAPS.contentsTotalChars;
  for (const item of out.items) {
    const text = (item.content ?? item.snippet ?? '').trim();
    const room = Math.max(Math.min(maxChars, budget), 0);
    const body = text.length <= room ? text : `${text.slice(0, room).trimEnd()}\n[… ${text.length - room} more characters not shown]`;
    budget -= Math.min(text.length, room);
    lines.push(`## ${oneLine(item.title ?? item.id)} [${kind(item)}] id=${item.id}`, item.url, body, '');
  }
  if (out.missing.length) lines.push(`Not found in this workspace: ${out.missing.join(', ')}`);
  return lines.join('\n').trim() || 'Nothing found.';
}

export function formatSimilar(out: z.infer<typeof FindSimilarResponseA>): string {
  if (out.similar.length === 0) return `Nothing similar to "${oneLine(out.source.title)}" (id=${out.source.id}) above the threshold. Lower threshold to see looser matches.`;
  const lines = [`${out.similar.length} items similar to "${oneLine(out.source.title)}" (id=${out.source.id}), closest first:`];
  out.similar.forEach((s, i) => {
    const why = [s.score >= 0.9 ? 'near duplicate' : s.score >= 0.75 ? 'highly related' : s.score >= 0.6 ? 'moderately related' : 'loosely related', s.sameCluster ? 'same topic cluster' : ''].filter(Boolean).join(', ');
    lines.push(`${i + 1}. ${oneLine(s.title)} [${kind(s)}; ${why}] id=${s.id}`, `   ${s.url}`);
    if (s.snippet) lines.push(`   ${clip(s.snippet, CAPS.snippetChars)}`);
  });
  return lines.join('\n');
}

export function formatRelated(out: z.infer<typeof RelatedResponse>): string {
  const { root, nodes, edges } = out.data;
  const title = new Map(nodes.map((n) => [n.id, n]));
  const label = (id: string) => {
    const n = title.get(id);
    return n ? `${oneLine(n.title)} [${n.source} ${n.type}] id=${n.id}` : id;
  };
  if (edges.length === 0) return `"${oneLine(root.title)}" (id=${root.id}) has no recorded links to other items.`;
  const lines = [`Links around "${oneLine(root.title)}" (id=${root.id}), ${nodes.length} items, ${edges.length} links (depth ${out.meta.depth}):`];
  for (const e of edges) lines.push(`- ${label(e.source)} --${e.type}--> ${label(e.target)}`);
  const urls = nodes.filter((n) => !n.isRoot).map((n) => `${n.id}: ${n.url}`);
  if (urls.length) lines.push('URLs:', ...urls.map((u) => `  ${u}`));
  return lines.join('\n');
}
