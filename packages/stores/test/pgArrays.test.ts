import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pgNumberArray, pgTextArray } from '../src/readModels/search/pgArrays.js';
import type { Db } from '../src/index.js';
import { databaseBackends, openTestDatabase } from '../src/testing/index.js';

describe.each(databaseBackends())('arrays read as text on $name', ({ url }) => {
  let db: Db;
  beforeAll(async () => {
    db = await openTestDatabase(url);
  });
  afterAll(async () => {
    await db?.close();
  });

  // The search snapshots read item ids, roles and similarities grouped as array text: every element
  // must come back as it went in, whatever the database had to quote.
  it('gives back every text element, quoted or not', async () => {
    const values = ['plain', 'ws_1:github:pr:prettier/prettier#12', 'with space', 'comma,inside', '{braces}', 'quote"d', 'back\\slash', '', 'NULL', 'ünïcode', ' lead', 'a"b\\c,d'];
    const text = (await db.query<{ t: string }>('SELECT $1::text[]::text AS t', [values])).rows[0]!.t;
    expect(pgTextArray(text)).toEqual(values);
    expect(pgTextArray('{}')).toEqual([]);
    expect(pgTextArray((await db.query<{ t: string }>("SELECT ARRAY['only']::text AS t")).rows[0]!.t)).toEqual(['only']);
  });

  it('gives back numbers as the database wrote them', async () => {
    const text = (await db.query<{ t: string }>('SELECT ARRAY[0.1::float8, 1, -2.5e-7, 0.8765432101234567]::text AS t')).rows[0]!.t;
    expect(pgNumberArray(text).map(Number)).toEqual([0.1, 1, -2.5e-7, 0.8765432101234567]);
    expect(pgNumberArray('{}')).toEqual([]);
  });
});
