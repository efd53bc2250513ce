/**
 * `areaTitleLift`: how much more often the question's words appear in the titles of other changes to
 * the files and directories a candidate changed than in titles at large. It finds the change whose own
 * title shares nothing with the question ("Fix #12345") but whose part of the tree is where such
 * questions land, and it separates two changes with the same words by where they were made.
 *
 * For candidate d and question term t, over the areas A of d known to the area model (@engram/indexer):
 *   P_d(t) = sum_a w_a * c_a(t) / n_a / sum_a w_a,  w_a = log(N / n_a)   (rarer areas say more)
 * where n_a and c_a(t) leave d itself out; then
 *   lift = sum_t idf(t) * log(1 + P_d(t) / (df(t) / N + 1e-4)) / sum_t idf(t)
 * with N the workspace's changes and df(t) how many of their titles hold t. 0 when nothing is known.
 */
import { areasOfFiles, getAreaModelVersion, getAreaSizes, getTermAreas, ROOT_AREA, type AreaCounts, type Db } from '@engram/stores';
import { tokenize } from '@engram/text';

/** Reads a workspace's area model: the counts of the given areas and terms. */
export interface AreaModelReader {
  counts(workspaceId: string, areas: readonly string[], terms: readonly string[]): Promise<AreaCounts>;
}

/** Terms whose areas a cache keeps per workspace, least recently asked first out. */
const CACHED_TERMS = 2_000;

/**
 * The area model, cached per process: it changes only when the re-cluster job rebuilds it, so each
 * search reads one row (the build's time) and only the areas and terms it has not seen since that
 * build (on the embedded default, not even that row until this process writes again). Reading the candidates' areas and the question's terms afresh cost 23 ms a \`balanced\` query
 * on the full prettier index (PGlite, this machine); a rebuild between the version read and the counts
 * read can mix two builds' counts until the next rebuild.
 */
export function createAreaModelCache(db: Db, maxTerms = CACHED_TERMS): AreaModelReader {
  const byWorkspace = new Map<string, { builtAt: number; sizes: Map<string, number>; terms: Map<string, Map<string, number>> }>();
  // The build read last, per workspace: on the embedded default no rebuild can happen without a write of this process.
  const versions = new Map<string, { writes: number; version: ReturnType<typeof getAreaModelVersion> }>();
  const versionOf = (workspaceId: string): ReturnType<typeof getAreaModelVersion> => {
    const writes = db.writeCount(['area_models']);
    const hit = versions.get(workspaceId);
    if (db.kind === 'pglite' && hit?.writes === writes) return hit.version;
    const version = getAreaModelVersion(db, workspaceId);
    versions.set(workspaceId, { writes, version });
    version.catch(() => versions.delete(workspaceId));
    return version;
  };
  return {
    async counts(workspaceId, areas, terms) {
      const out: AreaCounts = { areas: new Map(), terms: new Map() };
      const version = await versionOf(workspaceId);
      if (!version) return out;
      let model = byWorkspace.get(workspaceId);
      if (!model || model.builtAt !== version.builtAt) {
        model = { builtAt: version.builtAt, sizes: new Map([[ROOT_AREA, version.changes]]), terms: new Map() };
        byWorkspace.set(workspaceId, model);
      }
      const unseenAreas = [...new Set(areas)].filter((a) => !model.sizes.has(a));
      if (unseenAreas.length > 0) {
        const found = await getAreaSizes(db, workspaceId, unseenAreas);
        for (const a of unseenAreas) model.sizes.set(a, found.get(a) ?? 0);
      }
      const wanted = [...new Set(terms)];
      const unseenTerms = wanted.filter((t) => !model.terms.has(t));
      if (unseenTerms.length > 0) for (const [t, byArea] of await getTermAreas(db, workspaceId, unseenTerms)) model.terms.set(t, byArea);
      out.areas.set(ROOT_AREA, version.changes);
      for (const a of areas) if ((model.sizes.get(a) ?? 0) > 0) out.areas.set(a, model.sizes.get(a)!);
      for (const t of wanted) {
        const byArea = model.terms.get(t)!;
        // Most recently asked last, so the oldest goes first below.
        model.terms.delete(t);
        model.terms.set(t, byArea);
        for (const [a, n] of byArea) if (out.areas.has(a)) (out.terms.get(a) ?? out.terms.set(a, new Map()).get(a)!).set(t, n);
      }
      for (const t of model.terms.keys()) {
        if (model.terms.size <= maxTerms) break;
        model.terms.delete(t);
      }
      return out;
    },
  };
}

export interface AreaSubject {
  id: string;
  title: string;
  files: readonly string[];
}

const FLOOR = 1e-4;

export async function areaTitleLift(model: AreaModelReader, workspaceId: string, topic: string, subjects: readonly AreaSubject[]): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  const terms = [...new Set(tokenize(topic))];
  const areasOf = new Map(subjects.map((s) => [s.id, areasOfFiles(s.files)]));
  const all = new Set<string>();
  for (const areas of areasOf.values()) for (const a of areas) all.add(a);
  if (terms.length === 0 || all.size === 0) return out;
  const counts = await model.counts(workspaceId, [...all], terms);
  const total = counts.areas.get(ROOT_AREA) ?? 0;
  if (total < 2) return out;
  const df = counts.terms.get(ROOT_AREA) ?? new Map<string, number>();
  const idf = terms.map((t) => Math.log(1 + (total - (df.get(t) ?? 0) + 0.5) / ((df.get(t) ?? 0) + 0.5)));
  const idfSum = idf.reduce((a, b) => a + b, 0);

  for (const s of subjects) {
    const own = new Set(tokenize(s.title));
    const share = new Array<number>(terms.length).fill(0);
    let weights = 0;
    for (const area of areasOf.get(s.id)!) {
      const n = counts.areas.get(area);
      // The model leaves out areas only one change touched; this one is d's own, so others number n - 1.
      if (n === undefined || n < 2) continue;
      const w = Math.log(total / n);
      if (w <= 0) continue;
      weights += w;
      const byTerm = counts.terms.get(area);
      terms.forEach((t, i) => {
        const c = Math.max(0, (byTerm?.get(t) ?? 0) - (own.has(t) ? 1 : 0));
        share[i]! += (w * c) / (n - 1);
      });
    }
    if (weights === 0) continue;
    let lift = 0;
    terms.forEach((t, i) => {
      lift += idf[i]! * Math.log1p(share[i]! / weights / ((df.get(t) ?? 0) / total + FLOOR));
    });
    out.set(s.id, lift / idfSum);
  }
  return out;
}
