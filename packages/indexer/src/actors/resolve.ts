import type { ActorRef } from '@engram/contracts';
import {
  addActorIdentities,
  findActorsByIdentities,
  getActors,
  insertActor,
  listActorIdentities,
  listActorLogins,
  mergeActors,
  stableId,
  updateActor,
  writeActors,
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
 * `resolveActor` for the refs of a batch of items, in order, to the same rows as resolving them one after
 * another. A ref equal to one already resolved in the batch (same identities, name and bot flag) resolves
 * to the same actor without touching the database. `mergedInto` maps every actor merged away in the batch
 * to the actor it was merged into (follow it to the survivor).
 *
 * The batch is planned in memory from three reads (the identities' actors, those actors' rows and logins)
 * and written in three statements, where resolving ref by ref took four or five statements a person: an
 * import's largest share of statements. A batch in which some ref proves two known actors are one person
 * (a merge: rare, and it moves rows the plan cannot see) is resolved ref by ref instead.
 */
export async function resolveActors(
  tx: Queryable,
  workspaceId: string,
  refs: readonly ActorRef[],
): Promise<{ resolved: ({ actorId: string } | null)[]; mergedInto: Map<string, string> }> {
  const distinct = new Map<string, PlannedRef>();
  const signatures = refs.map((ref) => {
    const identities = identitiesOf(ref);
    const name = displayNameOf(ref);
    const bot = isBotRef(ref);
    const signature = JSON.stringify([identities, name, bot]);
    if (!distinct.has(signature)) distinct.set(signature, { signature, identities, name, bot });
    return signature;
  });
  const plan = await planActors(tx, workspaceId, [...distinct.values()]);
  if (plan === null) return resolveActorsInOrder(tx, workspaceId, refs);
  await writeActors(tx, workspaceId, plan.writes);
  return { resolved: signatures.map((s) => plan.resolved.get(s)!), mergedInto: new Map() };
}

/** A distinct ref of a batch: what resolving it depends on, and the key its equals share. */
interface PlannedRef {
  signature: string;
  identities: ActorIdentity[];
  name: string;
  bot: boolean;
}

/**
 * What resolving `refs` one after another would write, when none of them merges actors (else null):
 * each ref's actor (the one its identities name, or a new one), the identities it adds, and the display
 * names and bot flags as `improveDisplayName` would leave them.
 */
async function planActors(
  tx: Queryable,
  workspaceId: string,
  refs: readonly PlannedRef[],
): Promise<{ resolved: Map<string, { actorId: string } | null>; writes: Parameters<typeof writeActors>[2] } | null> {
  const known = await findActorsByIdentities(tx, workspaceId, refs.flatMap((r) => r.identities));
  const newIdOf = (identities: ActorIdentity[]): string => stableId('act', workspaceId, identities[0]!.kind, identities[0]!.value);
  // A new actor's id may already be taken (a row whose identity moved on): it is then that row, as `insertActor` would leave it.
  const ids = [...new Set([...known.values(), ...refs.filter((r) => r.identities.length > 0).map((r) => newIdOf(r.identities))])];
  const [rows, logins] = await Promise.all([getActors(tx, ids), listActorLogins(tx, ids)]);
  const actors = new Map<string, { displayName: string; isBot: boolean; logins: Set<string>; created: boolean; changed: boolean }>(
    rows.map((a) => [a.id, { displayName: a.displayName, isBot: a.isBot, logins: new Set(logins.get(a.id)), created: false, changed: false }]),
  );
  const resolved = new Map<string, { actorId: string } | null>();
  const identities: { actorId: string; kind: string; value: string }[] = [];
  for (const ref of refs) {
    const { signature } = ref;
    if (ref.identities.length === 0) {
      resolved.set(signature, null);
      continue;
    }
    const owners = new Set(ref.identities.map((i) => known.get(key(i))).filter((id): id is string => id !== undefined));
    if (owners.size > 1) return null;
    const actorId = owners.size === 1 ? [...owners][0]! : newIdOf(ref.identities);
    let actor = actors.get(actorId);
    if (!actor) {
      actor = { displayName: ref.name, isBot: ref.bot, logins: new Set(), created: true, changed: false };
      actors.set(actorId, actor);
    }
    for (const i of ref.identities) {
      if (known.has(key(i))) continue;
      known.set(key(i), actorId);
      identities.push({ actorId, kind: i.kind, value: i.value });
      if (i.kind.startsWith('login:')) actor.logins.add(i.value);
    }
    const better = displayNameScore(ref.name, actor.logins) > displayNameScore(actor.displayName, actor.logins);
    if (better || (ref.bot && !actor.isBot)) {
      if (better) actor.displayName = ref.name;
      actor.isBot ||= ref.bot;
      actor.changed = true;
    }
    resolved.set(signature, { actorId });
  }
  const all = [...actors].sort(([a], [b]) => (a < b ? -1 : 1));
  const row = ([id, a]: (typeof all)[number]) => ({ id, displayName: a.displayName, isBot: a.isBot });
  return {
    resolved,
    writes: { created: all.filter(([, a]) => a.created).map(row), identities, updated: all.filter(([, a]) => !a.created && a.changed).map(row) },
  };
}

/** `resolveActor` ref after ref (a batch that merges actors). */
async function resolveActorsInOrder(
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
