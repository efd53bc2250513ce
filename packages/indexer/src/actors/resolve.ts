import type { ActorRef } from '@engram/contracts';
import {
  addActorIdentities,
  findActorsByIdentities,
  getActors,
  insertActor,
  listActorIdentities,
  mergeActors,
  stableId,
  updateActor,
  type ActorIdentity,
  type Queryable,
} from '@engram/stores';
import { displayNameOf, displayNameScore, identitiesOf, isBotRef } from './identity.js';

const key = (i: ActorIdentity): string => `${i.kind}\u0000${i.value}`;

/**
 * Finds or creates the one actor a provider's ActorRef names. When the ref's identities point at two
 * actors (a GitHub login and a Linear user that share an e-mail), the actors are merged into the
 * oldest id. Returns the actor id and the ids merged away (null when the ref names nobody).
 */
export async function resolveActor(tx: Queryable, workspaceId: string, ref: ActorRef): Promise<{ actorId: string; merged: string[] } | null> {
  const identities = identitiesOf(ref);
  if (identities.length === 0) return null;
  const known = await findActorsByIdentities(tx, workspaceId, identities);
  const owners = [...new Set(identities.map((i) => known.get(key(i))).filter((id): id is string => id !== undefined))].sort();
  const bot = isBotRef(ref);
  const candidate = displayNameOf(ref);
  let actorId = owners[0];
  if (actorId === undefined) {
    const first = identities[0]!;
    actorId = stableId('act', workspaceId, first.kind, first.value);
    await insertActor(tx, { id: actorId, workspaceId, displayName: candidate, isBot: bot });
  }
  const merged = owners.slice(1);
  if (merged.length > 0) {
    const names = (await getActors(tx, owners)).map((a) => a.displayName);
    await mergeActors(tx, actorId, merged);
    for (const name of names) await improveDisplayName(tx, actorId, name, false);
  }
  await addActorIdentities(tx, workspaceId, actorId, identities);
  await improveDisplayName(tx, actorId, candidate, bot);
  return { actorId, merged };
}

/** Keeps the best name seen (a full name over a one-word name over a login). */
async function improveDisplayName(tx: Queryable, actorId: string, candidate: string, isBot: boolean): Promise<void> {
  const [actor] = await getActors(tx, [actorId]);
  if (!actor) return;
  const logins = new Set((await listActorIdentities(tx, actorId)).filter((i) => i.kind.startsWith('login:')).map((i) => i.value));
  const better = displayNameScore(candidate, logins) > displayNameScore(actor.displayName, logins);
  if (better || (isBot && !actor.isBot)) await updateActor(tx, actorId, { ...(better ? { displayName: candidate } : {}), isBot });
}

/**
 * `resolveActor` for the refs of a batch of items, in order. A ref equal to one already resolved in the
 * batch (same identities, name and bot flag) resolves to the same actor without touching the database:
 * resolving it again would change nothing. `mergedInto` maps every actor merged away in the batch to
 * the actor it was merged into (follow it to the survivor).
 */
export async function resolveActors(
  tx: Queryable,
  workspaceId: string,
  refs: readonly ActorRef[],
): Promise<{ resolved: ({ actorId: string } | null)[]; mergedInto: Map<string, string> }> {
  const seen = new Map<string, { actorId: string } | null>();
  const mergedInto = new Map<string, string>();
  const resolved: ({ actorId: string } | null)[] = [];
  for (const ref of refs) {
    const signature = JSON.stringify([identitiesOf(ref), displayNameOf(ref), isBotRef(ref)]);
    let hit = seen.get(signature);
    if (hit === undefined) {
      const r = await resolveActor(tx, workspaceId, ref);
      hit = r ? { actorId: r.actorId } : null;
      if (r) for (const id of r.merged) mergedInto.set(id, r.actorId);
      seen.set(signature, hit);
    }
    resolved.push(hit);
  }
  return { resolved, mergedInto };
}
