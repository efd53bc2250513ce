import { describe, expect, it } from 'vitest';
import { mergeNewest, type ActorItem } from '../src/paths/actor.js';

/** Small deterministic generator (mulberry32), so a failure names its seed. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const newestFirst = (a: ActorItem, b: ActorItem): number =>
  b.occurredAt - a.occurredAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : a.role < b.role ? -1 : a.role > b.role ? 1 : 0);

describe("the actor path's newest rows of several people", () => {
  it('are the newest of all their rows, as sorting every row would give, ties by item id then role', () => {
    for (let seed = 1; seed <= 50; seed++) {
      const rand = random(seed);
      const roles = ['author', 'reviewer', 'commenter'];
      // Few distinct dates, so ties on the date (and on the item, across people) are common.
      const lists = Array.from({ length: 1 + Math.floor(rand() * 6) }, (_, a) =>
        Array.from({ length: Math.floor(rand() * 60) }, (): ActorItem => ({
          id: `item_${Math.floor(rand() * 40)}`,
          actor_id: `actor_${a}`,
          role: roles[Math.floor(rand() * roles.length)]!,
          occurredAt: Math.floor(rand() * 10),
        })).sort(newestFirst),
      );
      const limit = Math.floor(rand() * 80);
      const expected = lists.flat().sort(newestFirst).slice(0, limit);
      expect(mergeNewest(lists, limit), `seed ${seed}`).toEqual(expected);
    }
  });
});
