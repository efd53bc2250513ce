import { getActors, listActorIdentities, listItemActors, type Db } from '@engram/stores';
import { testWorkspace } from '@engram/stores/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ActorRef, SourceEventInput } from '@engram/contracts';
import { itemIdOf, resolveActor, resolveActors } from '../src/index.js';
import { commit, linearIssue, openHarness, pullRequest, sha, stageAndIndex, type Harness } from './helpers.js';

let h: Harness;
let db: Db;
beforeAll(async () => {
  h = await openHarness();
  db = h.db;
});
afterAll(async () => {
  await h.db.close();
});

const idOf = (ws: string, e: SourceEventInput) => itemIdOf(ws, { type: e.type, source: e.source, externalId: e.externalId });
const actorsOf = async (ws: string) =>
  (await db.query<{ id: string; display_name: string; is_bot: boolean; item_count: number }>(
    'SELECT id, display_name, is_bot, item_count FROM actors WHERE workspace_id = $1 ORDER BY display_name',
    [ws],
  )).rows;

describe('actors', () => {
  it('a GitHub login and a Linear user with the same e-mail are one actor', async () => {
    const ws = await testWorkspace(db);
    const pr = pullRequest(1, { actors: [{ role: 'author', provider: 'github', login: 'MonaL', email: 'mona@acme.dev' }] });
    const issue = linearIssue('ENG-1', { actors: [{ role: 'creator', provider: 'linear', login: 'usr_9f2', name: 'Mona Lisa', email: 'Mona@acme.dev' }] });
    const out = await stageAndIndex(h, ws, pr);
    await stageAndIndex(h, ws, issue);
    const actors = await actorsOf(ws);
    expect(actors).toHaveLength(1);
    expect(actors[0]).toMatchObject({ display_name: 'Mona Lisa', item_count: 2, is_bot: false });
    expect(out.actorIds).toEqual([actors[0]!.id]);
    expect((await listItemActors(db, idOf(ws, issue))).map((a) => a.role)).toEqual(['creator']);
  });

  it('a GitHub login and a Linear user with the same full name are one actor', async () => {
    const ws = await testWorkspace(db);
    await stageAndIndex(h, ws, pullRequest(2, { actors: [{ role: 'author', provider: 'github', login: 'jdoe', name: 'Jane Doe' }] }));
    await stageAndIndex(h, ws, linearIssue('ENG-2', { actors: [{ role: 'assignee', provider: 'linear', login: 'usr_1', name: 'Jane  Doe' }] }));
    expect(await actorsOf(ws)).toHaveLength(1);
  });

  it('merges two known actors when a later event proves they are one person', async () => {
    const ws = await testWorkspace(db);
    const pr = pullRequest(3, { actors: [{ role: 'author', provider: 'github', login: 'kim' }] });
    const issue = linearIssue('ENG-3', { actors: [{ role: 'creator', provider: 'linear', login: 'usr_k', email: 'kim@acme.dev' }] });
    await stageAndIndex(h, ws, pr);
    await stageAndIndex(h, ws, issue);
    expect(await actorsOf(ws)).toHaveLength(2);

    const c = commit(sha('abc123'), { actors: [{ role: 'author', provider: 'github', login: 'kim', name: 'Kim Lee', email: 'kim@acme.dev' }] });
    const out = await stageAndIndex(h, ws, c);
    const actors = await actorsOf(ws);
    expect(actors).toHaveLength(1);
    expect(actors[0]).toMatchObject({ display_name: 'Kim Lee', item_count: 3 });
    expect(out.actorIds).toEqual([actors[0]!.id]);
    for (const item of [pr, issue, c]) expect((await listItemActors(db, idOf(ws, item))).map((a) => a.actorId)).toEqual([actors[0]!.id]);
    expect((await listActorIdentities(db, actors[0]!.id)).map((i) => i.kind).sort()).toEqual(['email', 'login:github', 'login:linear', 'name']);
  });

  it('keeps bots as actors, flagged, and lists every actor name on the item', async () => {
    const ws = await testWorkspace(db);
    const pr = pullRequest(4, {
      actors: [
        { role: 'author', provider: 'github', login: 'renovate[bot]' },
        { role: 'merger', provider: 'github', login: 'Octocat', name: 'The Octocat' },
      ],
    });
    const out = await stageAndIndex(h, ws, pr);
    const bots = (await getActors(db, out.actorIds)).filter((a) => a.isBot).map((a) => a.displayName);
    expect(bots).toEqual(['renovate[bot]']);
    const names = await db.query<{ actor_names: string[] }>('SELECT actor_names FROM items WHERE id = $1', [idOf(ws, pr)]);
    expect(names.rows[0]?.actor_names).toEqual(['octocat', 'renovate[bot]', 'the octocat']);
  });

  it('flags as bots the accounts the provider says are automation or whose name says "bot", not a person named Talbot', async () => {
    const ws = await testWorkspace(db);
    const pr = pullRequest(5, {
      actors: [
        { role: 'author', provider: 'github', login: 'stepsecurity-bot', name: 'StepSecurity Bot' },
        { role: 'reviewer', provider: 'github', login: 'acme-release', bot: true },
        { role: 'assignee', provider: 'github', login: 'ci-bot' },
        { role: 'merger', provider: 'github', login: 'jtalbot', name: 'Jo Talbot' },
      ],
    });
    const c = commit(sha('def456'), { actors: [{ role: 'author', provider: 'github', name: 'StepSecurity Bot' }] });
    const out = await stageAndIndex(h, ws, pr);
    await stageAndIndex(h, ws, c);
    const actors = await getActors(db, out.actorIds);
    expect(actors.filter((a) => a.isBot).map((a) => a.displayName).sort()).toEqual(['StepSecurity Bot', 'acme-release', 'ci-bot']);
    expect(actors.filter((a) => !a.isBot).map((a) => a.displayName)).toEqual(['Jo Talbot']);
    // The bot's items stay searchable by its name.
    const names = await db.query<{ actor_names: string[] }>('SELECT actor_names FROM items WHERE id = $1', [idOf(ws, c)]);
    expect(names.rows[0]?.actor_names).toEqual(['stepsecurity bot']);
  });
  /** Every actor of a workspace as its identities, name and flag (ids differ across workspaces). */
  const people = async (ws: string) =>
    (await db.query<{ person: string }>(
      `SELECT a.display_name || '|' || a.is_bot || '|' || string_agg(i.kind || '=' || i.value, ',' ORDER BY i.kind, i.value) AS person
       FROM actors a JOIN actor_identities i ON i.actor_id = a.id WHERE a.workspace_id = $1 GROUP BY a.id ORDER BY 1`,
      [ws],
    )).rows.map((r) => r.person);

  it('resolves a batch of people to the same actors, identities, names and flags as resolving them one by one', async () => {
    const earlier: ActorRef[] = [
      { role: 'author', provider: 'github', login: 'sam' },
      { role: 'author', provider: 'linear', login: 'usr_r', email: 'rae@acme.dev' },
      // (A full name, so the merge below names its survivor the same whichever of the two ids sorts first.)
      { role: 'author', provider: 'github', login: 'kim', name: 'Kim Lee' },
      { role: 'author', provider: 'linear', login: 'usr_k', email: 'kim@acme.dev' },
    ];
    const withoutMerge: ActorRef[] = [
      { role: 'author', provider: 'github', login: 'sam', name: 'Sam Poe' }, // a stored login gets a full name
      { role: 'author', provider: 'github', login: 'new1' },
      { role: 'reviewer', provider: 'github', login: 'NEW1', name: 'Ada' }, // the batch's own new actor named
      { role: 'merger', provider: 'github', login: 'new1', name: 'Ada Byron', email: 'ada@acme.dev' },
      { role: 'author', provider: 'github', email: 'rae@acme.dev', name: 'Rae Z' }, // joins a stored actor by e-mail
      { role: 'reviewer', provider: 'github', login: 'sam', bot: true }, // a flag raised, the name kept
      { role: 'author', provider: 'github', name: 'alex' }, // a one-word name: an actor of its own
      { role: 'author', provider: 'github' }, // nobody
      { role: 'author', provider: 'github', login: 'sam', name: 'Sam Poe' },
    ];
    const withMerge: ActorRef[] = [...withoutMerge, { role: 'author', provider: 'github', login: 'kim', email: 'kim@acme.dev' }];
    for (const batch of [withoutMerge, withMerge]) {
      const [batched, oneByOne] = [await testWorkspace(db), await testWorkspace(db)];
      for (const ws of [batched, oneByOne]) await db.transaction((tx) => resolveActors(tx, ws, earlier));
      const out = await db.transaction((tx) => resolveActors(tx, batched, batch));
      const single = await db.transaction(async (tx) => {
        const ids: (string | null)[] = [];
        for (const ref of batch) ids.push((await resolveActor(tx, oneByOne, ref))?.actorId ?? null);
        return ids;
      });
      expect(await people(batched)).toEqual(await people(oneByOne));
      // The same refs share an actor, and nobody is null, in both.
      const shape = (ids: (string | null)[]) => ids.map((id) => (id === null ? -1 : ids.indexOf(id)));
      expect(shape(out.resolved.map((r) => r?.actorId ?? null))).toEqual(shape(single));
      expect(out.mergedInto.size).toBe(batch === withMerge ? 1 : 0);
    }
  });
});
