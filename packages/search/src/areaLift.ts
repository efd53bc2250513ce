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
import { areasOfFiles, getAreaCounts, ROOT_AREA, type Queryable } from '@engram/stores';
import { tokenize } from '@engram/text';

export interface AreaSubject {
  id: string;
  title: string;
  files: readonly string[];
}

const FLOOR = 1e-4;

export async function areaTitleLift(db: Queryable, workspaceId: string, topic: string, subjects: readonly AreaSubject[]): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  const terms = [...new Set(tokenize(topic))];
  const areasOf = new Map(subjects.map((s) => [s.id, areasOfFiles(s.files)]));
  const all = new Set<string>();
  for (const areas of areasOf.values()) for (const a of areas) all.add(a);
  if (terms.length === 0 || all.size === 0) return out;
  const counts = await getAreaCounts(db, workspaceId, [...all], terms);
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
