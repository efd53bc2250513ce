/** Drives a connector stream page by page, as a sync worker does (structural types: no package import). */

interface WalkPage<E> { events: E[]; next: Record<string, unknown> | null }
interface WalkStream<E> { fetchPage(cursor: Record<string, unknown> | null, options?: { since?: string }): Promise<WalkPage<E>> }

export interface Walk<E> {
  events: E[];
  pages: number;
  /** The cursor after each page, JSON round-tripped as a checkpoint store would keep it. */
  checkpoints: (Record<string, unknown> | null)[];
}

export async function walkStream<E>(stream: WalkStream<E>, opts: { from?: Record<string, unknown> | null; since?: string; maxPages?: number } = {}): Promise<Walk<E>> {
  const out: Walk<E> = { events: [], pages: 0, checkpoints: [] };
  let cursor = opts.from ?? null;
  do {
    const page = await stream.fetchPage(cursor, opts.since ? { since: opts.since } : {});
    out.events.push(...page.events);
    out.pages++;
    cursor = page.next ? (JSON.parse(JSON.stringify(page.next)) as Record<string, unknown>) : null;
    out.checkpoints.push(cursor);
  } while (cursor && out.pages < (opts.maxPages ?? 10_000));
  return out;
}
