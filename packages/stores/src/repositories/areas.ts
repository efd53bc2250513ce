import type { Db, Queryable } from '../db.js';

/** The whole workspace, as an area: its `changes` is the number of changes, its terms their title frequencies. */
export const ROOT_AREA = '';

/**
 * The areas a change touches: each file path and every directory above it, directories with a trailing
 * slash (`src/language-js/print/key.js` -> `src/`, `src/language-js/`, `src/language-js/print/`, the file).
 */
export function areasOfFiles(files: readonly string[]): Set<string> {
  const out = new Set<string>();
  for (const file of files) {
    const parts = file.split('/').filter(Boolean);
    if (parts.length === 0) continue;
    for (let depth = 1; depth < parts.length; depth++) out.add(`${parts.slice(0, depth).join('/')}/`);
    out.add(parts.join('/'));
  }
  return out;
}

export interface AreaModelRows {
  /** [area, changes touching it], the root area included. */
  areas: [string, number][];
  /** [term, area, changes touching the area whose title has the term]. */
  terms: [string, string, number][];
}

const CHUNK = 10_000;

/** Replaces a workspace's area model in one transaction: readers see the old model or the new one. */
export async function replaceAreaModel(db: Db, workspaceId: string, rows: AreaModelRows): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.query('DELETE FROM area_terms WHERE workspace_id = $1', [workspaceId]);
    await tx.query('DELETE FROM areas WHERE workspace_id = $1', [workspaceId]);
    for (let i = 0; i < rows.areas.length; i += CHUNK) {
      const chunk = rows.areas.slice(i, i + CHUNK);
      await tx.query('INSERT INTO areas (workspace_id, area, changes) SELECT $1, a, n FROM unnest($2::text[], $3::int[]) AS t(a, n)', [
        workspaceId,
        chunk.map((r) => r[0]),
        chunk.map((r) => r[1]),
      ]);
    }
    for (let i = 0; i < rows.terms.length; i += CHUNK) {
      const chunk = rows.terms.slice(i, i + CHUNK);
      await tx.query('INSERT INTO area_terms (workspace_id, term, area, changes) SELECT $1, t, a, n FROM unnest($2::text[], $3::text[], $4::int[]) AS x(t, a, n)', [
        workspaceId,
        chunk.map((r) => r[0]),
        chunk.map((r) => r[1]),
        chunk.map((r) => r[2]),
      ]);
    }
  });
}

export interface AreaCounts {
  /** Changes touching each requested area that the model holds (the root among them). */
  areas: Map<string, number>;
  /** Per area, changes whose title has each requested term (absent = 0). */
  terms: Map<string, Map<string, number>>;
}

/** The model's counts for the given areas and terms; the root area is always read. */
export async function getAreaCounts(db: Queryable, workspaceId: string, areas: readonly string[], terms: readonly string[]): Promise<AreaCounts> {
  const wanted = [...new Set([ROOT_AREA, ...areas])];
  const out: AreaCounts = { areas: new Map(), terms: new Map() };
  const a = await db.query<{ area: string; changes: number }>('SELECT area, changes FROM areas WHERE workspace_id = $1 AND area = ANY($2::text[])', [workspaceId, wanted]);
  for (const r of a.rows) out.areas.set(r.area, Number(r.changes));
  if (terms.length === 0 || out.areas.size === 0) return out;
  // A hash join against the areas: `area = ANY(array)` compares each row with every element (measured
  // 18.5 -> 12.9 ms on PGlite for five terms and ~450 areas of the full prettier index).
  const t = await db.query<{ term: string; area: string; changes: number }>(
    'SELECT t.term, t.area, t.changes FROM unnest($3::text[]) AS a(area) JOIN area_terms t ON t.workspace_id = $1 AND t.area = a.area AND t.term = ANY($2::text[])',
    [workspaceId, [...new Set(terms)], [...out.areas.keys()]],
  );
  for (const r of t.rows) {
    const byTerm = out.terms.get(r.area) ?? out.terms.set(r.area, new Map()).get(r.area)!;
    byTerm.set(r.term, Number(r.changes));
  }
  return out;
}
