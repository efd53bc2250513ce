import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packFields, parseTsvector, type Db } from '../src/index.js';
import { databaseBackends, openTestDatabase } from '../src/testing/index.js';

describe.each(databaseBackends())('a tsvector read as text on $name', ({ url }) => {
  let db: Db;
  beforeAll(async () => {
    db = await openTestDatabase(url);
  });
  afterAll(async () => {
    await db?.close();
  });

  // What the in-memory read model loads each item's terms from: it must give the rows `unnest` gives.
  it('gives the terms, per-field frequencies and positions that unnest gives', async () => {
    const vectors = [
      // Quotes and backslashes inside lexemes, weights A-D, a lexeme without positions.
      `$$'it''s':1A,4 'a\\\\b':2B,3C 'plain' 'ünïcode':7D '''':9A$$::tsvector`,
      `setweight(to_tsvector('simple', 'Fix decorators before export'), 'A') || setweight(to_tsvector('simple', 'decorators keep comments; v3.0.1 src/printer-estree.js foo@bar.com'), 'B') || setweight(to_tsvector('simple', 'tests/format/js decorators'), 'C') || to_tsvector('simple', 'new expression')`,
      // More than 255 occurrences of one term in a field: the packed frequency saturates, the positions stay.
      `setweight(to_tsvector('simple', repeat('word ', 300)), 'B')`,
      `''::tsvector`,
    ];
    for (const v of vectors) {
      const text = (await db.query<{ t: string }>(`SELECT (${v})::text AS t`)).rows[0]!.t;
      const rows = (await db.query<{ lexeme: string; positions: number[] | null; weights: string[] | null }>(`SELECT lexeme, positions, weights FROM unnest(${v})`)).rows;
      const expected = rows.map((r) => ({ term: r.lexeme, fields: packFields(r.weights ?? []), positions: (r.positions ?? []).map(Number) }));
      expect(parseTsvector(text), text.slice(0, 80)).toEqual(expected);
    }
  });

  it('rejects text that is not a tsvector', () => {
    expect(() => parseTsvector("'open")).toThrow(/unterminated/);
    expect(() => parseTsvector('bare')).toThrow(/quoted lexeme/);
    expect(() => parseTsvector("'a':x")).toThrow(/position/);
  });
});
