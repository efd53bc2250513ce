import { titleKeywords } from '../entities/keywords.js';
import type { TopicalEntity } from './features.js';

/**
 * Cluster labels. `keywords` is class-based TF-IDF (the share of a cluster's members carrying a term,
 * times log(1 + A / f) where A is the average number of terms per cluster and f the term's frequency
 * over all clusters) on the members' keyword/path/language/package/label entities and title keywords.
 * `topic` is the top keywords when they are shared by enough members, otherwise the most central
 * member's title, shortened. `summary` is the most central titles.
 */
const LABEL_CATEGORIES: ReadonlySet<string> = new Set(['keyword', 'path', 'language', 'package', 'label']);
export const KEYWORDS_PER_CLUSTER = 8;
const TOPIC_MAX_CHARS = 60;
const TOPIC_TERMS = 3;
/**
 * Below this a cluster is one or two changes (a squash commit and its pull request are two members),
 * and its central title reads better than its keywords.
 */
const KEYWORD_TOPIC_MIN_MEMBERS = 6;
/** `v17`, `v8` and the like: what changed, not what it is about. */
const VERSION_LIKE = /^v?\d+(?:\.\d+)*$/;

export interface ClusterLabels {
  topic: string;
  summary: string;
  keywords: string[];
}

export interface LabelMember {
  title: string;
  /** Terms from `itemTerms`, each once. */
  terms: readonly string[];
  /** Similarity to the cluster centroid. */
  centrality: number;
}

export function itemTerms(title: string, entities: readonly TopicalEntity[]): Set<string> {
  const terms = new Set<string>();
  for (const e of entities) if (LABEL_CATEGORIES.has(e.category)) terms.add(e.key.toLowerCase());
  for (const k of titleKeywords(title)) terms.add(k.keyword);
  for (const term of terms) if (VERSION_LIKE.test(term)) terms.delete(term);
  return terms;
}

export const shorten = (text: string, max = TOPIC_MAX_CHARS): string => {
  const clean = text.replace(/\s*\(#\d+\)\s*$/, '').replace(/\s+/g, ' ').trim();
  if (clean.length <= max) return clean;
  const cut = clean.slice(0, max - 1);
  const space = cut.lastIndexOf(' ');
  return `${space > max / 2 ? cut.slice(0, space) : cut}…`;
};

/** Labels of a cluster with one member, from that member alone. */
export function itemLabels(title: string, entities: readonly TopicalEntity[]): ClusterLabels {
  const ranked = [...entities]
    .filter((e) => LABEL_CATEGORIES.has(e.category))
    .sort((a, b) => b.idf * b.confidence - a.idf * a.confidence)
    .map((e) => e.key.toLowerCase());
  const keywords = [...new Set([...titleKeywords(title).map((k) => k.keyword), ...ranked])].slice(0, KEYWORDS_PER_CLUSTER);
  return { topic: shorten(title) || keywords.slice(0, 3).join(', '), summary: shorten(title, 200), keywords };
}

/** Labels of every cluster, scored against each other (the "documents" of c-TF-IDF are clusters). */
export function clusterLabels(clusters: ReadonlyMap<string, readonly LabelMember[]>): Map<string, ClusterLabels> {
  const frequency = new Map<string, number>();
  let totalTerms = 0;
  for (const members of clusters.values()) {
    for (const m of members) {
      for (const term of m.terms) frequency.set(term, (frequency.get(term) ?? 0) + 1);
      totalTerms += m.terms.length;
    }
  }
  const averageTerms = clusters.size === 0 ? 1 : totalTerms / clusters.size;
  const out = new Map<string, ClusterLabels>();
  for (const [id, members] of clusters) {
    const counts = new Map<string, number>();
    for (const m of members) for (const term of m.terms) counts.set(term, (counts.get(term) ?? 0) + 1);
    const scored = [...counts].map(([term, count]) => ({
      term,
      share: count / members.length,
      score: (count / members.length) * Math.log(1 + averageTerms / (frequency.get(term) ?? 1)),
    }));
    scored.sort((a, b) => b.score - a.score || a.term.localeCompare(b.term));
    const keywords = dropCoveredPaths(scored.map((s) => s.term)).slice(0, KEYWORDS_PER_CLUSTER);
    const central = [...members].sort((a, b) => b.centrality - a.centrality).filter((m) => m.title !== '');
    const shared = topicTerms(scored.filter((s) => s.share >= 0.5 && keywords.includes(s.term)).map((s) => s.term));
    // Keywords make the topic when the cluster's most central title says the first of them too
    // (`oxc-parser`, `docs`); otherwise that title reads better than words no member leads with.
    const centralTitle = central[0]?.title ?? '';
    const named = shared.find((term) => !term.includes('/'));
    const said = named !== undefined && plain(centralTitle).includes(plain(named));
    const topic = members.length >= KEYWORD_TOPIC_MIN_MEMBERS && said ? shared.join(', ') : shorten(centralTitle) || keywords.slice(0, TOPIC_TERMS).join(', ');
    // Distinct titles: a pull request and its squash commit ("Title (#n)") read the same once shortened.
    const summary = [...new Set(central.map((m) => shorten(m.title, 120)))].slice(0, 2).join('; ');
    out.set(id, { topic, summary, keywords });
  }
  return out;
}

/**
 * The words of a keyword topic: names before paths (`docs` reads better than `website/versioned_docs`),
 * without a term another one already says (`compiler` after `@angular/compiler`) or a nested path.
 */
const plain = (text: string): string => ` ${text.toLowerCase().replace(/[^a-z0-9]+/g, ' ').trim()} `;

function topicTerms(ranked: string[]): string[] {
  const words = plain;
  const ordered = [...ranked.filter((t) => !t.includes('/')), ...ranked.filter((t) => t.includes('/'))];
  const chosen: string[] = [];
  for (const term of ordered) {
    if (chosen.length >= TOPIC_TERMS) break;
    const said = chosen.some((c) => words(c).includes(words(term)) || words(term).includes(words(c)) || c.startsWith(`${term}/`) || term.startsWith(`${c}/`));
    if (!said) chosen.push(term);
  }
  return chosen;
}

/** `tests/format/js` makes `tests/format` (ranked lower) redundant in a short keyword list. */
function dropCoveredPaths(terms: string[]): string[] {
  return terms.filter((term, i) => !terms.slice(0, i).some((earlier) => earlier.startsWith(`${term}/`)));
}
