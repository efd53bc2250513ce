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
