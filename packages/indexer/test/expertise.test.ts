import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSearchReadModel, type Db } from '@engram/stores';
import { openTestDatabase, testWorkspace } from '@engram/stores/testing';
import { refreshExpertise } from '../src/actors/expertise.js';
import { actorIdOf, insertFixtureItem, type FixtureItem } from '../src/testing/clusterFixtures.js';

let db: Db;
beforeAll(async () => {
  db = await openTestDatabase('pglite://memory');
});
afterAll(async () => db.close());

const actor = async (workspaceId: string, login: string) =>
  (await db.query<{ expertise: { domain: string; score: number }[]; expertise_domains: string[]; item_count: number }>(
    'SELECT expertise, expertise_domains, item_count FROM actors WHERE id = $1', [actorIdOf(workspaceId, login)])).rows[0]!;

const pr = (n: number, title: string, files: string[], actors: FixtureItem['actors'], labels: string[] = []): FixtureItem => ({
  externalId: `pr:${n}`, type: 'pull_request', title, files, actors, labels,
});

describe('refreshExpertise', () => {
  it('names what each person works on, weighted against the workspace, and skips bots', async () => {
    const ws = await testWorkspace(db);
    const carol = [{ login: 'carol', role: 'author' as const }, { login: 'dave', role: 'reviewer' as const }];
    const dave = [{ login: 'dave', role: 'author' as const }];
    const items = [
      pr(1, 'Fix formatting of CSS custom properties', ['src/language-css/printer-postcss.js', 'tests/format/css/custom-properties/props.css', 'package.json'], carol),
      pr(2, 'Keep comments inside CSS selectors', ['src/language-css/parser-postcss.js', 'tests/format/css/comments/selectors.css', 'package.json'], carol),
      pr(3, 'Fix SCSS map indentation', ['src/language-css/printer-postcss.js', 'tests/format/scss/map/maps.scss', 'package.json'], carol),
      pr(4, 'Fix markdown list numbering', ['src/language-markdown/printer-markdown.js', 'tests/format/markdown/list/numbering.md', 'package.json'], dave),
      pr(5, 'Preserve markdown footnote definitions', ['src/language-markdown/parser-markdown.js', 'tests/format/markdown/footnote/def.md', 'package.json'], dave),
      pr(6, 'Update dependency postcss to v8.4.49', ['package.json', 'yarn.lock'], [{ login: 'renovate[bot]', role: 'author' }], ['dependencies']),
      pr(7, 'Update dependency remark-parse to v7.0.2', ['package.json', 'yarn.lock'], [{ login: 'renovate[bot]', role: 'author' }], ['dependencies']),
    ];
    for (const item of items) await insertFixtureItem(db, ws, item);

    expect(await refreshExpertise(db, ws)).toBe(3);

    const c = await actor(ws, 'carol');
    expect(c.item_count).toBe(3);
    expect(c.expertise_domains.slice(0, 2).some((d) => /^(CSS|SCSS)$/.test(d))).toBe(true);
    expect(c.expertise_domains).not.toContain('Markdown');

    const d = await actor(ws, 'dave');
    expect(d.item_count).toBe(5);
    // `src/language-markdown/**` and `tests/format/markdown/**` read as one topic.
    expect(d.expertise_domains[0]).toBe('Markdown');
    // Reviewing CSS counts, but less than authoring markdown.
    const score = (domain: string) => d.expertise.find((e) => e.domain === domain)?.score ?? 0;
    expect(score('Markdown')).toBeGreaterThan(score('CSS'));

    // Topics, never raw paths, stop-like words or areas everyone touches; a handful at most.
    for (const person of [c, d]) {
      expect(person.expertise_domains.length).toBeGreaterThan(0);
      expect(person.expertise_domains.length).toBeLessThanOrEqual(5);
      expect(person.expertise_domains.filter((x) => x.includes('/') || /^(preserve|fix|potential|tests?|format)$/i.test(x))).toEqual([]);
    }

    const bot = await actor(ws, 'renovate[bot]');
    expect(bot).toMatchObject({ expertise: [], expertise_domains: [], item_count: 2 });

    // Read from the in-memory read model (as the job does on the embedded default): the same people.
    const people = ['carol', 'dave', 'renovate[bot]'];
    const fromSql = await Promise.all(people.map((login) => actor(ws, login)));
    await db.query('UPDATE actors SET expertise = $2, expertise_domains = $3, item_count = 0 WHERE workspace_id = $1', [ws, JSON.stringify([]), []]);
    const read = openSearchReadModel(db);
    expect(await read.loaded()).toBe(true);
    expect(await refreshExpertise(db, ws, undefined, { read })).toBe(3);
    expect(await Promise.all(people.map((login) => actor(ws, login)))).toEqual(fromSql);

    // Read two items at a time (a pass over prolific authors reads their history in pages): the same
    // domains and scores, a person's items spread over several reads.
    await db.query('UPDATE actors SET expertise = $2, expertise_domains = $3, item_count = 0 WHERE workspace_id = $1', [ws, JSON.stringify([]), []]);
    expect(await refreshExpertise(db, ws, undefined, { read, itemsPerRead: 2 })).toBe(3);
    expect(await Promise.all(people.map((login) => actor(ws, login)))).toEqual(fromSql);
    await read.close();
  });

  it('is never empty for someone who authored something, and refreshes only the actors asked for', async () => {
    const ws = await testWorkspace(db);
    await insertFixtureItem(db, ws, { externalId: 'commit:abc', type: 'commit', title: 'Playground performance', actors: [{ login: 'erin', role: 'author' }] });
    await insertFixtureItem(db, ws, pr(8, 'Fix CSS comments', ['src/language-css/printer-postcss.js'], [{ login: 'frank', role: 'author' }]));

    expect(await refreshExpertise(db, ws, [actorIdOf(ws, 'erin')])).toBe(1);
    expect((await actor(ws, 'erin')).expertise_domains).toContain('playground');
    expect((await actor(ws, 'frank')).expertise_domains).toEqual([]);
  });

  it('reads the areas of a real history as topics: finer areas, languages, repeated title words', async () => {
    const ws = await testWorkspace(db);
    const gina = [{ login: 'gina', role: 'author' as const }];
    const others = [{ login: 'hank', role: 'author' as const }];
    const items = [
      pr(20, 'Fix potential crash on decorators before export', ['src/language-js/print/decorators.js', 'tests/format/typescript/decorators/class.ts', 'changelog_unreleased/typescript/20.md'], gina),
      pr(21, 'Preserve comments between decorators and accessors', ['src/language-js/print/decorators.js', 'tests/format/typescript/decorators/comments.ts', 'changelog_unreleased/typescript/21.md'], gina),
      pr(22, 'Preserve parentheses around decorator call expressions', ['src/language-js/needs-parens.js', 'tests/format/typescript/decorators/parens.ts'], gina),
      pr(23, 'Keep yaml comments after block scalars', ['src/language-yaml/print/block.js', 'tests/format/yaml/block-literal/comments.yml'], gina),
      pr(24, 'Fix markdown list numbering', ['src/language-markdown/printer-markdown.js', 'tests/format/markdown/list/a.md'], others),
      pr(25, 'Fix css comments', ['src/language-css/printer-postcss.js', 'tests/format/css/comments/a.css'], others),
      pr(26, 'Fix less mixins', ['src/language-css/printer-postcss.js', 'tests/format/less/mixins/a.less'], others),
      pr(27, 'Fix graphql descriptions', ['src/language-graphql/printer-graphql.js', 'tests/format/graphql/descriptions/a.graphql'], others),
    ];
    for (const item of items) await insertFixtureItem(db, ws, item);
    await refreshExpertise(db, ws);

    const g = await actor(ws, 'gina');
    expect(g.expertise_domains).toContain('TypeScript decorators');
    expect(g.expertise_domains).toContain('YAML');
    expect(g.expertise_domains.filter((x) => /\/|^(potential|preserve|keep|fix)$/i.test(x))).toEqual([]);
    // "decorators" is already said by "TypeScript decorators".
    expect(g.expertise_domains).not.toContain('decorators');
  });
});
