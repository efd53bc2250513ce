import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '@engram/stores';
import { openTestDatabase, testWorkspace } from '@engram/stores/testing';
import { refreshExpertise } from '../src/actors/expertise.js';
import { actorIdOf, insertFixtureItem } from '../src/testing/clusterFixtures.js';
import { hasPrettierData, readJson, type RestItem } from '../src/testing/prettierCorpus.js';

/** The newest pull requests of the real prettier export, as the indexer stores them. */
const SAMPLE = 700;

describe.skipIf(!hasPrettierData())('expertise on the prettier export (skipped: ../shared/data/github-prettier is absent)', () => {
  let db: Db;
  let ws: string;
  const domainsOf = async (login: string): Promise<string[]> =>
    (await db.query<{ expertise_domains: string[] }>('SELECT expertise_domains FROM actors WHERE id = $1', [actorIdOf(ws, login)])).rows[0]?.expertise_domains ?? [];

  beforeAll(async () => {
    db = await openTestDatabase('pglite://memory');
    ws = await testWorkspace(db);
    const prs = readJson<(RestItem & { merged_at?: string | null })[]>('corpus.json')
      .filter((item) => item.type === 'pull_request' && item.user?.login)
      .sort((a, b) => (b.merged_at ?? '').localeCompare(a.merged_at ?? ''))
      .slice(0, SAMPLE);
    for (const item of prs) {
      await insertFixtureItem(db, ws, {
        externalId: item.id,
        type: 'pull_request',
        title: item.title ?? '',
        body: item.body ?? '',
        files: item.files.map((f) => f.filename),
        labels: (item.labels ?? []).map((l) => (typeof l === 'string' ? l : l.name)),
        actors: [{ login: item.user!.login!, role: 'author' }],
      });
    }
    await refreshExpertise(db, ws);
  }, 600_000);
  afterAll(async () => db?.close());

  it('gives every person a handful of topics: no raw paths, no stop-like words', async () => {
    const rows = (await db.query<{ display_name: string; expertise_domains: string[] }>('SELECT display_name, expertise_domains FROM actors WHERE workspace_id = $1', [ws])).rows;
    const people = rows.filter((r) => !/\[bot\]$/.test(r.display_name));
    expect(people.length).toBeGreaterThan(20);
    const all = people.flatMap((r) => r.expertise_domains);
    expect(all.filter((d) => d.includes('/'))).toEqual([]);
    expect(all.filter((d) => /^(potential|preserve|avoid|keep|fix|old|extra|missing|requirement|tests?|format)$/i.test(d))).toEqual([]);
    expect(people.every((r) => r.expertise_domains.length <= 5)).toBe(true);
    expect(people.filter((r) => r.expertise_domains.length > 0).length).toBeGreaterThan(people.length * 0.9);
  });

  it('names the areas people are known for', async () => {
    // konv-suu fixed many CSS/Less/SCSS bugs in this window; anders-kaseorg's changes here are markdown links.
    expect((await domainsOf('konv-suu')).some((d) => /^(CSS|Less|SCSS)/.test(d))).toBe(true);
    expect((await domainsOf('anders-kaseorg')).some((d) => /^Markdown/.test(d))).toBe(true);
  });

  it('prints the domains of the most active people (for a reader to judge)', async () => {
    const rows = (await db.query<{ display_name: string; item_count: number; expertise_domains: string[] }>(
      'SELECT display_name, item_count, expertise_domains FROM actors WHERE workspace_id = $1 ORDER BY item_count DESC, display_name LIMIT 12', [ws])).rows;
    for (const r of rows) console.log(`${r.display_name} (${r.item_count}): ${r.expertise_domains.join(', ')}`);
    expect(rows.length).toBeGreaterThan(0);
  });
});
