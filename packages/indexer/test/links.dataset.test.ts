// Recovered links on real history: a few hundred prettier/prettier pull requests and commits from
// ../shared/data/github-prettier, normalised by the GitHub connector and indexed in shuffled order,
// scored against links.json. Prints precision and recall per link kind.
import { existsSync, readFileSync } from 'node:fs';
import { normalizeGitHubObject } from '@engram/connectors';
import type { SourceEvent } from '@engram/contracts';
import { listWorkspaceEdges, stageEvents, type Db } from '@engram/stores';
import { testWorkspace } from '@engram/stores/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { itemIdOf } from '../src/index.js';
import { openHarness, type Harness } from './helpers.js';

const DATA = new URL('../../../../shared/data/github-prettier/', import.meta.url).pathname;
const REPO = 'prettier/prettier';
const WINDOW_PRS = 60;

interface CorpusObject { id: string; type: string; number?: number; sha?: string }
interface Link { type: string; source: string; target: string; relation?: string; target_in_corpus?: boolean }

/** Deterministic shuffle (mulberry32) so arrival order is mixed but the run is repeatable. */
function shuffle<T>(list: T[], seed: number): T[] {
  let s = seed >>> 0;
  const rand = () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const out = [...list];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

const score = (predicted: Set<string>, truth: Set<string>) => {
  const hits = [...predicted].filter((p) => truth.has(p)).length;
  return { predicted: predicted.size, truth: truth.size, hits, precision: predicted.size ? hits / predicted.size : 1, recall: truth.size ? hits / truth.size : 1 };
};

describe.skipIf(!existsSync(`${DATA}corpus.json`))('links recovered on prettier history (needs ../shared/data/github-prettier)', () => {
  let h: Harness;
  let db: Db;
  let ws: string;
  const corpusIdOfItem = new Map<string, string>();
  let selected: Set<string>;
  let links: Link[];
  /** A change is a PR with its squash commit(s); a commit no PR claims is its own change. */
  const changeOf = new Map<string, string>();

  beforeAll(async () => {
    h = await openHarness();
    db = h.db;
    ws = await testWorkspace(db, 'prettier');
    const corpus = JSON.parse(readFileSync(`${DATA}corpus.json`, 'utf8')) as CorpusObject[];
    links = JSON.parse(readFileSync(`${DATA}links.json`, 'utf8')) as Link[];
    const byId = new Map(corpus.map((o) => [o.id, o]));
    const partners = new Map<string, string[]>();
    for (const l of links.filter((x) => x.type === 'commit_pr')) {
      partners.set(l.source, [...(partners.get(l.source) ?? []), l.target]);
      partners.set(l.target, [...(partners.get(l.target) ?? []), l.source]);
      changeOf.set(l.source, l.target);
    }
    const seeds = new Set<string>();
    for (const l of links) {
      if (l.type === 'reverts' || l.type === 'reapplies' || l.relation === 'revert') [l.source, l.target].forEach((id) => seeds.add(id));
      if (l.type === 'fixes_issue') seeds.add(l.source);
    }
    corpus.filter((o) => o.type === 'pull_request').slice(0, WINDOW_PRS).forEach((o) => seeds.add(o.id));
    selected = new Set([...seeds].filter((id) => byId.has(id)));
    for (const id of [...selected]) for (const p of partners.get(id) ?? []) if (byId.has(p)) selected.add(p);

    const events: SourceEvent[] = [];
    for (const id of selected) {
      const event = normalizeGitHubObject(byId.get(id), REPO);
      corpusIdOfItem.set(itemIdOf(ws, event), id);
      events.push(event);
    }
    const { ids } = await stageEvents(db, { workspaceId: ws, events: shuffle(events, 7) });
    const started = performance.now();
    // As the worker runs index.event jobs: many at once, gathered into batches, so links form both
    // between items of one batch and across batches.
    const outcomes = await Promise.all(ids.map((id) => h.indexer.indexEvent(id)));
    expect(outcomes.filter((o) => o.status !== 'indexed')).toEqual([]);
    console.log(`indexed ${ids.length} events in ${Math.round(performance.now() - started)} ms`);
  });
  afterAll(async () => {
    await h?.db.close();
  });

  const change = (id: string) => changeOf.get(id) ?? id;
  const inSubset = (l: Link) => selected.has(l.source) && selected.has(l.target);

  it('recovers commit-PR links', async () => {
    const edges = await listWorkspaceEdges(db, ws, ['commit_pr']);
    const pair = (a: string, b: string) => [a, b].sort().join(' ');
    const predicted = new Set(edges.map((e) => pair(corpusIdOfItem.get(e.sourceId)!, corpusIdOfItem.get(e.targetId)!)));
    const truth = new Set(links.filter((l) => l.type === 'commit_pr' && inSubset(l)).map((l) => pair(l.source, l.target)));
    const s = score(predicted, truth);
    console.log(`commit_pr over ${selected.size} items: precision ${s.precision.toFixed(3)} recall ${s.recall.toFixed(3)} (${s.hits}/${s.predicted} predicted, ${s.truth} true)`);
    expect(s.truth).toBeGreaterThan(50);
    expect(s.precision).toBeGreaterThanOrEqual(0.99);
    expect(s.recall).toBeGreaterThanOrEqual(0.99);
  });

  it('recovers reverts, counted per change (a PR with its squash commit)', async () => {
    const edges = await listWorkspaceEdges(db, ws, ['reverts']);
    const predicted = new Set(
      edges.map((e) => `${change(corpusIdOfItem.get(e.sourceId)!)} ${change(corpusIdOfItem.get(e.targetId)!)}`).filter((p) => p.split(' ')[0] !== p.split(' ')[1]),
    );
    const truth = new Set(
      links.filter((l) => (l.type === 'reverts' || l.relation === 'revert') && inSubset(l)).map((l) => `${change(l.source)} ${change(l.target)}`),
    );
    const s = score(predicted, truth);
    const missed = [...truth].filter((t) => !predicted.has(t));
    const extra = [...predicted].filter((p) => !truth.has(p));
    console.log(`reverts: precision ${s.precision.toFixed(3)} recall ${s.recall.toFixed(3)} (${s.hits}/${s.predicted} predicted, ${s.truth} true) missed ${missed.join(', ')} extra ${extra.join(', ')}`);
    expect(s.truth).toBeGreaterThan(10);
    expect(s.precision).toBeGreaterThanOrEqual(0.9);
    expect(s.recall).toBeGreaterThanOrEqual(0.9);
  });

  it('recovers reverts exactly: a commit reverts a commit, a pull request reverts a pull request', async () => {
    const edges = await listWorkspaceEdges(db, ws, ['reverts']);
    const predicted = new Set(edges.map((e) => `${corpusIdOfItem.get(e.sourceId)!} ${corpusIdOfItem.get(e.targetId)!}`));
    const truth = new Set(links.filter((l) => (l.type === 'reverts' || l.relation === 'revert') && inSubset(l)).map((l) => `${l.source} ${l.target}`));
    const level = (id: string) => id.slice(0, id.indexOf(':'));
    const crossLevel = [...predicted].filter((p) => level(p.split(' ')[0]!) !== level(p.split(' ')[1]!));
    const s = score(predicted, truth);
    const missed = [...truth].filter((t) => !predicted.has(t));
    const extra = [...predicted].filter((p) => !truth.has(p));
    console.log(`reverts exact: precision ${s.precision.toFixed(3)} recall ${s.recall.toFixed(3)} (${s.hits}/${s.predicted} predicted, ${s.truth} true) missed ${missed.join(', ')} extra ${extra.join(', ')}`);
    expect(crossLevel).toEqual([]);
    expect(s.truth).toBeGreaterThan(20);
    expect(s.precision).toBeGreaterThanOrEqual(0.9);
    expect(s.recall).toBeGreaterThanOrEqual(0.9);
  });

  it('recovers fixes references (the fixed issues are not in the corpus, so refs are scored, not edges)', async () => {
    const refs = await db.query<{ item_id: string; key: string }>("SELECT item_id, key FROM item_refs WHERE workspace_id = $1 AND relation = 'fixes'", [ws]);
    const prefix = `gh:${REPO}#`;
    const predicted = new Set(
      refs.rows.filter((r) => r.key.startsWith(prefix)).map((r) => `${change(corpusIdOfItem.get(r.item_id)!)} issue:${r.key.slice(prefix.length)}`),
    );
    const truth = new Set(links.filter((l) => l.type === 'fixes_issue' && selected.has(l.source)).map((l) => `${change(l.source)} ${l.target}`));
    const s = score(predicted, truth);
    const missed = [...truth].filter((t) => !predicted.has(t));
    console.log(`fixes: precision ${s.precision.toFixed(3)} recall ${s.recall.toFixed(3)} (${s.hits}/${s.predicted} predicted, ${s.truth} true) missed ${missed.join(', ')}`);
    expect(s.truth).toBeGreaterThan(10);
    expect(s.recall).toBeGreaterThanOrEqual(0.9);
  });
});
