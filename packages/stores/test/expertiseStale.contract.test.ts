import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../src/db.js';
import { clearStaleExpertise, listStaleExpertise, markExpertiseStale, workspacesWithStaleExpertise } from '../src/repositories/expertise.js';
import { databaseBackends, openTestDatabase, testWorkspace } from '../src/testing/index.js';

describe.each(databaseBackends())('actors marked for an expertise pass on $name', ({ url }) => {
  let db: Db;
  beforeAll(async () => {
    db = await openTestDatabase(url);
  });
  afterAll(async () => db?.close());

  it('clears what a pass read, but keeps a mark a write renewed meanwhile', async () => {
    const ws = await testWorkspace(db);
    const actor = (name: string) => `act_${ws}_${name}`;
    await db.query(
      "INSERT INTO actors (id, workspace_id, display_name, item_count) SELECT $1 || '_' || n, $2, n, 1 FROM unnest(ARRAY['ann', 'bob', 'cy']) AS n",
      [`act_${ws}`, ws],
    );
    await db.transaction((tx) => markExpertiseStale(tx, ws, [actor('bob'), actor('ann'), actor('ann')]));
    expect(await workspacesWithStaleExpertise(db)).toContain(ws);

    const read = await listStaleExpertise(db, ws);
    expect(read.map((r) => r.actorId).sort()).toEqual([actor('ann'), actor('bob')]);
    expect(read.every((r) => r.itemCount === 1)).toBe(true);

    // Written while the pass ran: ann again, cy for the first time.
    await db.transaction((tx) => markExpertiseStale(tx, ws, [actor('ann'), actor('cy')]));
    await clearStaleExpertise(db, read);
    expect((await listStaleExpertise(db, ws)).map((r) => r.actorId).sort()).toEqual([actor('ann'), actor('cy')]);

    await clearStaleExpertise(db, await listStaleExpertise(db, ws));
    expect(await listStaleExpertise(db, ws)).toEqual([]);
    expect(await workspacesWithStaleExpertise(db)).not.toContain(ws);
  });
});
