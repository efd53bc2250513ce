/**
 * Learning-to-rank features of a fused candidate for a query. A feature is computed from the
 * candidate, the query and the candidate list it belongs to (its fused rank, its age relative to the
 * newest candidate), so one call computes the features of the whole list.
 *
 * Bump FEATURE_VERSION whenever a feature is added, removed, reordered or computed differently: a
 * model records the version it was trained on and refuses features of another version.
 */
import { tokenize } from '@engram/text';
import { intentOf, timeWindowsOf, topicOf } from '../queryText.js';
import type { Candidate } from './types.js';

export const FEATURE_VERSION = 'ltr-features-v8';

export const FEATURE_NAMES = [
  'pathLexical',
  'pathVector',
  'pathEntity',
  'pathCluster',
  'pathActor',
  'logBm25',
  'logBm25Title',
  'logBm25Body',
  'logBm25Paths',
  'titleCoverageSignal',
  'idfCovered',
  'proximity',
  'titleIdfCovered',
  'cosine',
  'logEntityMatches',
  'logCommitsFolded',
  'queryTitleCoverage',
  'titleQueryPrecision',
  'queryTitleJaccard',
  'queryTitleBigrams',
  'phraseInTitle',
  'logQueryTerms',
  'logTitleTerms',
  'logBodyLength',
  'typePullRequest',
  'typeCommit',
  'typeIssue',
  'typeOther',
  'isBot',
  'isMergedPr',
  'releaseNote',
  'logRecencyDays',
  'logDaysBehindNewest',
  'fused',
  'fusedShareOfBest',
  'fusedGapToBest',
  'logFusedRank',
  'coverageTimesPr',
  'fusedTimesCoverage',
  'areaTitleLift',
  // v6: what the question asks for (`intentOf`), alone and beside the candidate signals it makes matter.
  'docsShare',
  'toolingShare',
  'logFileCount',
  'intentPeople',
  'intentHowTo',
  'intentChange',
  'intentBug',
  'howToTimesDocs',
  'howToTimesTooling',
  'howToTimesReleaseNote',
  'howToTimesCosine',
  'bugTimesReleaseNote',
  'bugTimesCosine',
  'bugTimesTitleCoverage',
  'changeTimesReleaseNote',
  'changeTimesRecency',
  'changeTimesBm25Paths',
  'peopleTimesActor',
  'peopleTimesBm25Paths',
  'recentPrior',
  // v7: the candidate's title says it repairs something (`repairsByTitle`), alone and for bug questions.
  'repairTitle',
  'bugTimesRepairTitle',
  // v8: a change of tests alone, and a sweeping change (many files), beside a bug question: neither is
  // usually the fix of one symptom.
  'testShare',
  'bugTimesTestShare',
  'bugTimesLogFileCount',
  // v8: the kind of fault the question reports and the kind of repair the title names agree (`symptomMatch`).
  'symptomTitleMatch',
] as const;

export type FeatureName = (typeof FEATURE_NAMES)[number];

const log1p = (x: number): number => Math.log1p(Math.max(0, x));
const DAY_MS = 86_400_000;
/** Half-life-like scales (days behind the newest candidate) of the change-window and "recently" priors. */
const CHANGE_RECENCY_DAYS = 180;
const RECENT_DAYS = 90;

/** Lower-cased words with punctuation collapsed, for the exact phrase test (no stemming). */
const phraseForm = (text: string): string =>
  ` ${text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim()} `;

/**
 * A change whose title says it repairs behaviour: a conventional `fix:` / `fix(area):` type, or a title
 * (after an optional `Area:` prefix) that leads with a repairing verb ("Fix", "Don't", "Avoid",
 * "Preserve", "Keep", "Prevent", "Restore"), or that names a fault ("bug", "crash", "regression",
 * "broken", "missing", "incorrectly"). Commit and PR titles are written this way across projects, so
 * it is a signal for any team, not one repository's habit; the model learns what it is worth.
 */
const REPAIR_LEAD =
  /^(?:[\w.-]+(?:\([^)]*\))?!?:\s*)?(?:fix(?:e[sd])?|bug\s?fix(?:es)?|hotfix(?:es)?|resolve[sd]?|correct(?:s|ed)?|prevent(?:s|ed)?|avoid(?:s|ed)?|don'?t|do\s+not|doesn'?t|stop(?:s|ped)?\s+\w+ing|preserve[sd]?|keeps?|restore[sd]?|repair(?:s|ed)?)\b/i;
const REPAIR_WORD = /\b(?:bugs?|fix(?:e[sd])?|bugfix(?:es)?|crash(?:es|ing)?|regressions?|broken|incorrect(?:ly)?|wrong(?:ly)?|missing)\b/i;

const repairsByTitle = (title: string): boolean => REPAIR_LEAD.test(title) || REPAIR_WORD.test(title);

/**
 * Kinds of fault as a user reports them, beside the words a fix's title uses for the same fault: a
 * crash is reported as "throws a TypeError" and fixed as "Fix crash on ..."; something printed twice is
 * "duplicated"; a space or a line that is lost is "preserved" or "kept"; output that changes on every run
 * is an "idempotence" fix; two forms laid out differently are made "consistent". Plain English of bug
 * reports and commit titles, not one project's words.
 */
const SYMPTOMS: readonly { said: RegExp; fixed: RegExp }[] = [
  {
    said: /\b(?:crash(?:es|ed|ing)?|throws?|thrown|exceptions?|\w*error|fails?|failing|failed|stack\s*trace|cannot\s+read|undefined\s+is\s+not)\b/i,
    fixed: /\b(?:crash(?:es|ed|ing)?|throws?|thrown|exceptions?|\w*errors?|fail(?:s|ed|ing|ure)?)\b/i,
  },
  { said: /\b(?:twice|doubled?|duplicated?|repeated|two\s+copies)\b/i, fixed: /\b(?:duplicat\w*|twice|double\w*|repeated)\b/i },
  {
    said: /\b(?:lost|loses?|losing|dropped|drops|removed|removes|stripped|strips|squashed|squeezed|vanish(?:es|ed)?|disappears?|disappeared|eaten|deleted|gone|missing)\b/i,
    fixed: /\b(?:preserv\w*|keeps?|kept|retain\w*|restor\w*|missing|lost|los(?:es|ing)|(?:don'?t|do\s+not|avoid|stop)\s+(?:remov\w*|drop\w*|strip\w*|delet\w*|collaps\w*))\b/i,
  },
  {
    said: /\b(?:adds?|added|inserts?|inserted|extra|keeps?\s+(?:adding|appearing)|appears?|appearing|unwanted|unnecessary)\b/i,
    fixed: /\b(?:extra|unexpected|unnecessary|redundant|superfluous|unwanted|(?:don'?t|do\s+not|avoid|stop|prevent)\s+(?:add\w*|insert\w*|print\w*))\b/i,
  },
  {
    said: /\b(?:every\s+time|each\s+time|second\s+(?:run|time|pass)|different\s+output|keeps?\s+changing|not\s+stable|unstable|idempoten\w*)\b/i,
    fixed: /\b(?:idempoten\w*|unstable|stabl\w*|drift\w*|second\s+format\w*)\b/i,
  },
  { said: /\b(?:differently|different\s+(?:from|than)|inconsistent\w*|not\s+the\s+same)\b/i, fixed: /\b(?:inconsisten\w*|consisten\w*|same\s+as|align\w*|unif\w*)\b/i },
];

/** Whether the fault a question reports and the repair a title names are of one kind (SYMPTOMS). */
export function symptomMatch(question: string, title: string): boolean {
  return SYMPTOMS.some((s) => s.said.test(question) && s.fixed.test(title));
}

/** The part of a release-note line after a `Area:` prefix (`TypeScript: Support x` -> `Support x`). */
const withoutAreaPrefix = (query: string): string => query.replace(/^[^:]{1,40}:\s+/, '');

function bigrams(tokens: readonly string[]): Set<string> {
  const out = new Set<string>();
  for (let i = 1; i < tokens.length; i++) out.add(`${tokens[i - 1]} ${tokens[i]}`);
  return out;
}

interface QueryView {
  terms: Set<string>;
  bigrams: Set<string>;
  phrases: string[];
  logTerms: number;
}

function viewQuery(query: string): QueryView {
  const tokens = tokenize(query);
  const phrases = [phraseForm(query), phraseForm(withoutAreaPrefix(query))].filter((p) => p.trim().split(' ').length >= 2);
  return { terms: new Set(tokens), bigrams: bigrams(tokens), phrases, logTerms: log1p(new Set(tokens).size) };
}

function titleMatch(q: QueryView, title: string) {
  const tokens = tokenize(title);
  const terms = new Set(tokens);
  let shared = 0;
  for (const t of q.terms) if (terms.has(t)) shared++;
  const titleBigrams = bigrams(tokens);
  let sharedBigrams = 0;
  for (const b of q.bigrams) if (titleBigrams.has(b)) sharedBigrams++;
  const form = phraseForm(title);
  const union = q.terms.size + terms.size - shared;
  return {
    coverage: q.terms.size === 0 ? 0 : shared / q.terms.size,
    precision: terms.size === 0 ? 0 : shared / terms.size,
    jaccard: union === 0 ? 0 : shared / union,
    bigrams: q.bigrams.size === 0 ? 0 : sharedBigrams / q.bigrams.size,
    phrase: q.phrases.some((p) => form.includes(p)) ? 1 : 0,
    logTerms: log1p(terms.size),
  };
}

/** Feature vectors (in FEATURE_NAMES order) of every candidate of one query's list. */
export function computeFeatures(query: string, candidates: readonly Candidate[]): number[][] {
  const q = viewQuery(topicOf(query));
  const intent = intentOf(query);
  const [people, howTo, change, bug] = [intent.people, intent.howTo, intent.change, intent.bug].map((x) => (x ? 1 : 0)) as [number, number, number, number];
  const recent = timeWindowsOf(query).some((w) => w.soft) ? 1 : 0;
  const best = candidates.reduce((m, c) => Math.max(m, c.fused), 0);
  const newest = candidates.reduce((m, c) => Math.max(m, Date.parse(c.occurredAt) || 0), 0);
  // Rank by fused score (ties by list position), 1-based.
  const order = candidates.map((c, i) => ({ i, fused: c.fused })).sort((a, b) => b.fused - a.fused || a.i - b.i);
  const rank = new Array<number>(candidates.length);
  order.forEach((o, r) => (rank[o.i] = r + 1));

  return candidates.map((c, i) => {
    const s = (name: string): number => {
      const v = c.signals[name];
      return typeof v === 'number' && Number.isFinite(v) ? v : 0;
    };
    const t = titleMatch(q, c.title);
    const occurred = Date.parse(c.occurredAt) || newest;
    const isPr = c.type === 'pull_request' ? 1 : 0;
    const daysBehind = (newest - occurred) / DAY_MS;
    const releaseNote = s('releaseNote') > 0 ? 1 : 0;
    const repair = repairsByTitle(c.title) ? 1 : 0;
    const features: Record<FeatureName, number> = {
      pathLexical: c.paths.lexical,
      pathVector: c.paths.vector,
      pathEntity: c.paths.entity,
      pathCluster: c.paths.cluster,
      pathActor: c.paths.actor,
      logBm25: log1p(s('bm25')),
      logBm25Title: log1p(s('bm25Title')),
      logBm25Body: log1p(s('bm25Body')),
      logBm25Paths: log1p(s('bm25Paths')),
      titleCoverageSignal: s('titleCoverage'),
      idfCovered: s('idfCovered'),
      proximity: s('proximity'),
      titleIdfCovered: s('titleIdfCovered'),
      cosine: s('cosine'),
      logEntityMatches: log1p(s('entityMatches')),
      logCommitsFolded: log1p(s('commitsFolded')),
      queryTitleCoverage: t.coverage,
      titleQueryPrecision: t.precision,
      queryTitleJaccard: t.jaccard,
      queryTitleBigrams: t.bigrams,
      phraseInTitle: t.phrase,
      logQueryTerms: q.logTerms,
      logTitleTerms: t.logTerms,
      logBodyLength: log1p(s('bodyLength')),
      typePullRequest: isPr,
      typeCommit: c.type === 'commit' ? 1 : 0,
      typeIssue: c.type === 'issue' ? 1 : 0,
      typeOther: ['pull_request', 'commit', 'issue'].includes(c.type) ? 0 : 1,
      isBot: s('isBot') > 0 ? 1 : 0,
      isMergedPr: s('isMergedPr') > 0 ? 1 : 0,
      releaseNote,
      logRecencyDays: log1p(s('recencyDays')),
      logDaysBehindNewest: log1p(daysBehind),
      fused: c.fused,
      fusedShareOfBest: best > 0 ? c.fused / best : 0,
      fusedGapToBest: best - c.fused,
      logFusedRank: Math.log(rank[i] ?? candidates.length),
      coverageTimesPr: t.coverage * isPr,
      fusedTimesCoverage: c.fused * t.coverage,
      areaTitleLift: s('areaTitleLift'),
      docsShare: s('docsShare'),
      toolingShare: s('toolingShare'),
      logFileCount: log1p(s('fileCount')),
      intentPeople: people,
      intentHowTo: howTo,
      intentChange: change,
      intentBug: bug,
      howToTimesDocs: howTo * s('docsShare'),
      howToTimesTooling: howTo * s('toolingShare'),
      howToTimesReleaseNote: howTo * releaseNote,
      howToTimesCosine: howTo * s('cosine'),
      bugTimesReleaseNote: bug * releaseNote,
      bugTimesCosine: bug * s('cosine'),
      bugTimesTitleCoverage: bug * t.coverage,
      changeTimesReleaseNote: change * releaseNote,
      changeTimesRecency: change * Math.exp(-daysBehind / CHANGE_RECENCY_DAYS),
      changeTimesBm25Paths: change * log1p(s('bm25Paths')),
      peopleTimesActor: people * c.paths.actor,
      peopleTimesBm25Paths: people * log1p(s('bm25Paths')),
      recentPrior: recent * Math.exp(-daysBehind / RECENT_DAYS),
      repairTitle: repair,
      bugTimesRepairTitle: bug * repair,
      testShare: s('testShare'),
      bugTimesTestShare: bug * s('testShare'),
      bugTimesLogFileCount: bug * log1p(s('fileCount')),
      symptomTitleMatch: symptomMatch(query, c.title) ? 1 : 0,
    };
    return FEATURE_NAMES.map((name) => features[name]);
  });
}
