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

/** Which build of a workspace's area model is current, and how many changes it counted; null before the first. */
export async function getAreaModelVersion(db: Queryable, workspaceId: string): Promise<{ builtAt: number; changes: number } | null> {
  const res = await db.query<{ built_at: Date | string; changes: number }>('SELECT built_at, changes FROM areas WHERE workspace_id = $1 AND area = $2', [
    workspaceId,
    ROOT_AREA,
  ]);
  const row = res.rows[0];
  return row ? { builtAt: new Date(row.built_at).getTime(), changes: Number(row.changes) } : null;
}

/** Changes touching each of the given areas; areas the model leaves out (one change or none) are absent. */
export async function getAreaSizes(db: Queryable, workspaceId: string, areas: readonly string[]): Promise<Map<string, number>> {
  if (areas.length === 0) return new Map();
  const res = await db.query<{ area: string; changes: number }>('SELECT area, changes FROM areas WHERE workspace_id = $1 AND area = ANY($2::text[])', [
    workspaceId,
    [...new Set(areas)],
  ]);
  return new Map(res.rows.map((r) => [r.area, Number(r.changes)]));
}

/** For each term, every area whose changes' titles hold it, with how many do (the root among them). */
export async function getTermAreas(db: Queryable, workspaceId: string, terms: readonly string[]): Promise<Map<string, Map<string, number>>> {
  const out = new Map<string, Map<string, number>>(terms.map((t) => [t, new Map()]));
  if (terms.length === 0) return out;
  const res = await db.query<{ term: string; area: string; changes: number }>(
    'SELECT term, area, changes FROM area_terms WHERE workspace_id = $1 AND term = ANY($2::text[])',
    [workspaceId, [...new Set(terms)]],
  );
  for (const r of res.rows) out.get(r.term)?.set(r.area, Number(r.changes));
  return out;
}

export interface AreaCounts {
  /** Changes touching each requested area that the model holds (the root among them). */
  areas: Map<string, number>;
  /** Per area, changes whose title has each requested term (absent = 0). */
  terms: Map<string, Map<string, number>>;
}

/** The model's counts for the given areas and terms, read afresh; the root area is always read. */
export async function getAreaCounts(db: Queryable, workspaceId: string, areas: readonly string[], terms: readonly string[]): Promise<AreaCounts> {
  const sizes = await getAreaSizes(db, workspaceId, [ROOT_AREA, ...areas]);
  const out: AreaCounts = { areas: sizes, terms: new Map() };
  for (const [term, byArea] of await getTermAreas(db, workspaceId, terms)) {
    for (const [area, n] of byArea) {
      if (!sizes.has(area)) continue;
      (out.terms.get(area) ?? out.terms.set(area, new Map()).get(area)!).set(term, n);
    }
  }
  return out;
}
