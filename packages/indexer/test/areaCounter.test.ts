import { tokenize } from '@engram/text';
import { describe, expect, it } from 'vitest';
import { createAreaCounter, type AreaRows, type ChangePage } from '../src/areas/count.js';

/** The model's rows as (term, area, changes) triples, in the order they are stored. */
const triples = (rows: AreaRows): [string, string, number][] =>
  Array.from(rows.termOf, (t, i) => [rows.termNames[t]!, rows.areaNames[rows.termArea[i]!]!, rows.termChanges[i]!]);

/** The model counted the plain way: nested maps, then every row sorted by term and area. */
function reference(pages: ChangePage[]): { areas: [string, number][]; rows: [string, string, number][] } {
  const changesIn = new Map<string, number>([['', 0]]);
  const termsIn = new Map<string, Map<string, number>>();
  for (const page of pages) {
    page.titles.forEach((title, i) => {
      const terms = new Set(tokenize(title));
      for (const area of ['', ...page.areas[i]!]) {
        changesIn.set(area, (changesIn.get(area) ?? 0) + 1);
        const counts = termsIn.get(area) ?? termsIn.set(area, new Map()).get(area)!;
        for (const t of terms) counts.set(t, (counts.get(t) ?? 0) + 1);
      }
    });
  }
  const byName = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  const areas = [...changesIn].filter(([area, n]) => n >= 2 || area === '').sort((a, b) => byName(a[0], b[0]));
  const rows = areas.flatMap(([area]) => [...(termsIn.get(area) ?? [])].map(([t, n]): [string, string, number] => [t, area, n]));
  rows.sort((a, b) => byName(a[0], b[0]) || byName(a[1], b[1]));
  return { areas, rows };
}

describe('the area counter', () => {
  it('counts changes per area and title terms per area, leaving out areas one change touched, sorted by term then area', () => {
    const counter = createAreaCounter();
    counter.addPage({ titles: ['Fix decorators', 'Fix CSS comments'], areas: [['src/', 'src/a.js'], ['src/', 'src/b.css', 'docs/']] });
    counter.addPage({ titles: ['Decorators again'], areas: [['src/', 'src/a.js']] });
    const rows = counter.finish();
    expect(rows.changes).toBe(3);
    expect(rows.areaNames).toEqual(['', 'src/', 'src/a.js']);
    expect(Array.from(rows.areaChanges)).toEqual([3, 3, 2]);
    expect(triples(rows)).toEqual([
      ['comment', '', 1],
      ['comment', 'src/', 1],
      ['css', '', 1],
      ['css', 'src/', 1],
      ['decor', '', 2],
      ['decor', 'src/', 2],
      ['decor', 'src/a.js', 2],
      ['fix', '', 2],
      ['fix', 'src/', 2],
      ['fix', 'src/a.js', 1],
    ]);
  });

  it('gives the rows the plain nested-map count gives, on many changes with shared and odd names', () => {
    let seed = 7;
    const random = () => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31);
    const words = ['parser', 'Printer', 'ÉCLAIR', 'css', 'json5', 'über', 'a_b', 'fix', 'yaml', 'markdown', 'zed', 'Zed'];
    const dirs = ['src/', 'src/Lang/', 'src/lang/', 'tests/', 'docs/', 'ßeta/', 'a/b/c/'];
    const pages: ChangePage[] = [];
    for (let p = 0; p < 6; p++) {
      const page: ChangePage = { titles: [], areas: [] };
      for (let i = 0; i < 150; i++) {
        page.titles.push(Array.from({ length: 1 + Math.floor(random() * 6) }, () => words[Math.floor(random() * words.length)]).join(' '));
        const dir = dirs[Math.floor(random() * dirs.length)]!;
        page.areas.push(random() < 0.1 ? [] : [dir, `${dir}f${Math.floor(random() * 40)}.js`]);
      }
      pages.push(page);
    }
    const counter = createAreaCounter();
    for (const page of pages) counter.addPage(page);
    const rows = counter.finish();
    const expected = reference(pages);
    expect(rows.areaNames.map((a, i) => [a, rows.areaChanges[i]])).toEqual(expected.areas);
    expect(triples(rows)).toEqual(expected.rows);
    expect(rows.termNames).toEqual([...new Set(expected.rows.map((r) => r[0]))]);
  });

  it('gives the same rows when the pairs outgrow its table many times over', () => {
    // 30k distinct (area, term) pairs: the table starts at 4,096 slots and grows by half each time.
    const pages: ChangePage[] = [];
    for (let p = 0; p < 10; p++) {
      const page: ChangePage = { titles: [], areas: [] };
      for (let i = 0; i < 300; i++) {
        const c = p * 300 + i;
        page.titles.push(Array.from({ length: 5 }, (_, k) => `w${(c * 7 + k * 13) % 997}`).join(' '));
        page.areas.push([`d${c % 150}/`, `d${c % 150}/f${c % 600}.ts`]);
      }
      pages.push(page);
    }
    const counter = createAreaCounter();
    for (const page of pages) counter.addPage(page);
    const rows = counter.finish();
    const expected = reference(pages);
    expect(rows.termOf.length).toBeGreaterThan(10_000);
    expect(rows.areaNames.map((a, i) => [a, rows.areaChanges[i]])).toEqual(expected.areas);
    expect(triples(rows)).toEqual(expected.rows);
  });

  it('keeps the root of an empty workspace', () => {
    const rows = createAreaCounter().finish();
    expect(rows).toMatchObject({ changes: 0, areaNames: [''], termNames: [] });
    expect(Array.from(rows.areaChanges)).toEqual([0]);
    expect(rows.termOf.length).toBe(0);
  });
});
