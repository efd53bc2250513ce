import type { Queryable } from '../db.js';

/**
 * Keeps per-workspace document frequencies in step with one item's terms: +1 for terms it gained,
 * -1 for terms it lost. One statement in term order, so concurrent indexers lock rows in the same order.
 */
export async function applyLexiconChange(tx: Queryable, workspaceId: string, before: readonly string[], after: readonly string[]): Promise<void> {
  await applyLexiconChanges(tx, workspaceId, [{ before, after }]);
}

/** Document frequency of each term (terms absent from the workspace are left out). */
export async function getDocumentFrequencies(db: Queryable, workspaceId: string, terms: readonly string[]): Promise<Map<string, number>> {
  if (terms.length === 0) return new Map();
  const res = await db.query<{ term: string; df: number }>('SELECT term, df FROM lexicon WHERE workspace_id = $1 AND term = ANY($2::text[])', [
    workspaceId,
    [...new Set(terms)],
  ]);
  return new Map(res.rows.map((r) => [r.term, Number(r.df)]));
}

/** Item count and mean lexical length of a workspace: the collection statistics BM25 needs. */
export async function getLexicalStats(db: Queryable, workspaceId: string): Promise<{ documents: number; averageLength: number }> {
  const res = await db.query<{ n: string | number; avg: string | number | null }>(
    'SELECT count(*) AS n, avg(lexical_length) AS avg FROM items WHERE workspace_id = $1',
    [workspaceId],
  );
  const r = res.rows[0];
  return { documents: Number(r?.n ?? 0), averageLength: Number(r?.avg ?? 0) };
}

/**
 * `applyLexiconChange` for many items of one workspace in one statement: the per-item deltas add up.
 */
export async function applyLexiconChanges(tx: Queryable, workspaceId: string, changes: readonly { before: readonly string[]; after: readonly string[] }[]): Promise<void> {
  const delta = new Map<string, number>();
  for (const { before, after } of changes) {
    const old = new Set(before);
    const now = new Set(after);
    for (const t of now) if (!old.has(t)) delta.set(t, (delta.get(t) ?? 0) + 1);
    for (const t of old) if (!now.has(t)) delta.set(t, (delta.get(t) ?? 0) - 1);
  }
  const terms = [...delta.keys()].filter((t) => delta.get(t) !== 0).sort();
  if (terms.length === 0) return;
  await tx.query(
    `INSERT INTO lexicon (workspace_id, term, df)
     SELECT $1, t.term, t.d FROM unnest($2::text[], $3::int[]) AS t(term, d) ORDER BY t.term
     ON CONFLICT (workspace_id, term) DO UPDATE SET df = lexicon.df + EXCLUDED.df`,
    [workspaceId, terms, terms.map((t) => delta.get(t) ?? 0)],
  );
  const removed = terms.filter((t) => (delta.get(t) ?? 0) < 0);
  if (removed.length > 0) await tx.query('DELETE FROM lexicon WHERE workspace_id = $1 AND term = ANY($2::text[]) AND df <= 0', [workspaceId, removed]);
}
