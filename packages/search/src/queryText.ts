/**
 * The topic of a question: the words that say what to look for, without the frame a person or an agent
 * puts around them. "What do we know about the cache" asks about the cache; "know" matched "if we know
 * there's a hardline" first, and the frame words count against every item in term coverage. "Who works
 * on the CLI" asks about the CLI ("works" matched "Skip uploading coverage work in fork"). Only a leading
 * frame goes, and only when words are left; the second stage's models (a hosted cross-encoder, an LLM)
 * still read the question as asked.
 */
import { lexemes } from '@engram/text';

const SUBJECT = String.raw`(?:we|you|i|they|the team|our team|people|anyone|someone)`;
const FRAMES: readonly RegExp[] = [
  // what do we know about X / what have we decided on X / what did the team say about X
  new RegExp(String.raw`^(?:what|which)\s+(?:do|did|does|have|has|had)\s+${SUBJECT}\s+(?:know|knew|have|had|say|said|decide|decided|do|did|write|wrote|learn|learned|learnt)(?:\s+(?:about|on|regarding|for|with))?\s+`, 'i'),
  // what is known / what is there about X
  /^what(?:'s|\s+is|\s+was)\s+(?:known|there|new)(?:\s+(?:about|on|regarding|for|with))?\s+/i,
  // tell me (everything) about X, show me X, find X, search for X
  /^(?:please\s+)?(?:tell|show|give)\s+me(?:\s+(?:everything|anything|all|more))?(?:\s+(?:about|on|regarding|for))?\s+/i,
  /^(?:please\s+)?(?:find|search(?:\s+for)?|look\s+up|look\s+for)\s+/i,
  // who works on X / who knows about X / who is working on X / who owns X
  /^who(?:'s|\s+is|\s+was)?\s+(?:works?|worked|working|knows?|knew|owns?|owned|maintains?|maintained|wrote|changed|touched|reviews?|reviewed|responsible\s+for|the\s+expert\s+(?:on|in|for))(?:\s+(?:on|about|with|in))?\s+/i,
  // how / why / when / where do we X
  new RegExp(String.raw`^(?:how|why|when|where)\s+(?:do|did|does|is|are|was|were|have|has|had|can|should|would)\s+(?:${SUBJECT}\s+)?`, 'i'),
  /^how\s+to\s+/i,
  // is there anything about X / do we have X / are there X
  /^(?:is|are)\s+there(?:\s+(?:any|anything|something))?(?:\s+(?:about|on|regarding|for))?\s+/i,
  /^(?:do|did)\s+(?:we|you)\s+(?:have|know|use)(?:\s+(?:any|anything))?(?:\s+(?:about|on|regarding|for))?\s+/i,
  // what changed in X / what has changed with X / changes to X
  /^what(?:'s|\s+has|\s+have)?\s+changed\s+(?:in|with|to|about|for|on|around)\s+/i,
  /^(?:the\s+)?changes\s+(?:to|in|of)\s+/i,
  // anything / history / context about X
  /^(?:anything|everything|history|context|background|info(?:rmation)?|details)\s+(?:about|on|regarding|for|of)\s+/i,
];

export function topicOf(question: string): string {
  let topic = withoutTimeWindows(question.trim());
  for (let changed = true; changed; ) {
    changed = false;
    for (const frame of FRAMES) {
      const rest = topic.replace(frame, '');
      if (rest !== topic && lexemes(rest).length > 0) {
        topic = rest;
        changed = true;
      }
    }
  }
  return topic.replace(/\s*\?+\s*$/, '').trim() || question.trim();
}

/**
 * What a question asks for, from its wording alone: people ("who knows ..."), how to do something ("how
 * do we ..."), what changed in a time or an area ("what changed in X since 3.5", "css changes this
 * year"), or a bug told by its symptom ("X vanishes after formatting", "the braces get split onto the next
 * line", "the setting is ignored", "still puts a semicolon"). Several may hold, or none (a
 * release-note line, a keyword). The learned reranker reads them as features beside each candidate's
 * signals (`rank/features.ts`), never as a rule: the model learns what each is worth.
 */
export interface QuestionIntent {
  people: boolean;
  howTo: boolean;
  change: boolean;
  bug: boolean;
}

const PEOPLE_INTENT = /^\s*(?:who|whom)\b|\b(?:who|whom)\s+(?:knows?|works?|worked|owns?|maintains?|wrote|built|handles?|looks?\s+after|should|do\s+i|can\s+i|to\s+ask|is\s+the)\b|\b(?:experts?|owners?|maintainers?)\s+(?:of|on|for|in)\b/i;
const HOWTO_INTENT = /^\s*how\b(?!\s+(?:come|many|much|often|long|old)\b)|\b(?:steps|guide|instructions|tutorial)\s+(?:to|for)\b|\bhow[-\s]to\b/i;
const CHANGE_INTENT = /\bwhat(?:'s|\s+has|\s+have)?\s+changed\b|\bchanges?\s+(?:to|in|of|since|during|between|from)\b|\bchanges\s*\??\s*$|\bwhat'?s\s+new\b/i;
const BUG_INTENT =
  /\b(?:bugs?|broken|breaks?|crash(?:es|ed)?|errors?|exceptions?|fails?|failing|failed|wrong(?:ly)?|incorrect(?:ly)?|invalid|vanish(?:es)?|disappears?|lost|loses|missing|mangled|garbled|throws?|thrown|stuck|instead\s+of|doesn'?t|does\s+not|don'?t|can'?t|cannot|won'?t|twice|duplicated?|strange(?:ly)?|squashed|squeezed|stripped|dropped|removed|turned\s+into|becomes?|comes?\s+out|ends?\s+up|keeps?\s+(?:adding|appearing|moving)|no\s+longer|unstable|(?:gets?|got|is|are)\s+(?:split|reordered|moved|merged|glued|wrapped|expanded|collapsed|ignored|lower-?cased|upper-?cased|indented)|split\s+(?:across|over|onto|into)|reordered|misaligned|too\s+(?:far|early|late|much|long|wide)|drops|dropping|leaves?\s+\S+(?:\s+\S+)?\s+behind|(?:still|anyway)\s+(?:puts?|adds?|re-?formats?|breaks?|prints?|changes?)|changes\s+the\s+(?:casing|case|order|meaning)|sticks?\s+to|is\s+undefined|different\s+output|doubled|differently|moves?\s+(?:to|right|left|up|down)|gets?\s+an?\s+(?:empty|extra|blank)|extra\s+(?:blank|empty|line|space|indent))\b/i;

export function intentOf(question: string): QuestionIntent {
  const people = PEOPLE_INTENT.test(question);
  const howTo = !people && HOWTO_INTENT.test(question);
  const change = !people && !howTo && (CHANGE_INTENT.test(question) || timeWindowsOf(question).some((w) => !w.soft));
  const bug = !people && !howTo && !change && BUG_INTENT.test(question);
  return { people, howTo, change, bug };
}

/**
 * Words that say something is wrong without saying what: "decorators bug", "crash when formatting
 * tables", "wrong output for comments". They tell the intent (a bug, `intentOf`), not the topic: as
 * content terms they match whatever happens to carry them ("bug" in a test fixture's name, "error" in
 * any error message), and a fix's title rarely repeats them ("Fix ...", "Preserve ...", "Handle ...").
 * Retrieval weighs them INTENT_TERM_WEIGHT of a content word when the question has content words
 * besides; alone ("crash") they are the topic and count in full.
 */
const INTENT_WORDS = [
  'bug', 'bugs', 'buggy', 'broken', 'crash', 'crashes', 'crashed', 'crashing', 'error', 'errors', 'wrong', 'wrongly',
  'incorrect', 'incorrectly', 'lost', 'lose', 'loses', 'fail', 'fails', 'failed', 'failing', 'failure', 'issue', 'issues', 'problem', 'problems',
  'weird', 'strange', 'strangely', 'glitch', 'regression', 'mangled', 'garbled', 'messed',
];
export const INTENT_TERMS: ReadonlySet<string> = new Set(INTENT_WORDS.flatMap((w) => lexemes(w)));
export const INTENT_TERM_WEIGHT = 0.3;

/**
 * The weight of each of a question's lexical terms (1 unless listed): intent words (INTENT_TERMS) get
 * INTENT_TERM_WEIGHT when another term is not one; none when every term is.
 */
export function termWeightsOf(terms: readonly string[]): Map<string, number> {
  const weights = new Map<string, number>();
  if (!terms.some((t) => !INTENT_TERMS.has(t))) return weights;
  for (const t of terms) if (INTENT_TERMS.has(t)) weights.set(t, INTENT_TERM_WEIGHT);
  return weights;
}

/** One end of a time window, before it is resolved against a workspace. */
export type WindowBound =
  /** The date of the workspace's release of that version (`3.5`, `v3`). */
  | { version: string }
  /** 1 January of a year; `relativeYear` counts from the workspace's newest item's year (0 this year, -1 last year). */
  | { year: number }
  | { relativeYear: number }
  /** This long before the workspace's newest item. */
  | { back: number; unit: 'day' | 'week' | 'month' | 'year' };

/**
 * A time window a question names: "since 3.5", "between 3.5 and 3.7", "in 2024", "this year", "in the last
 * three months", "last month". `phrase` is the words that named it (they are not what to look for, so the
 * topic drops them). A soft window ("recently", "lately") names no bounds: a prior, not a filter.
 */
export interface TimeWindow {
  phrase: string;
  from?: WindowBound;
  to?: WindowBound;
  soft?: boolean;
}

const VERSION_WORD = String.raw`v?(\d+\.\d+(?:\.\d+)?|(?<=v)\d+)`;
const YEAR_WORD = String.raw`((?:19|20)\d\d)`;
const NUMBER_WORDS: Readonly<Record<string, number>> = {
  a: 1, an: 1, one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9, ten: 10, eleven: 11, twelve: 12, few: 3, couple: 2,
};
const UNIT = String.raw`(days?|weeks?|months?|quarters?|years?)`;

const unitOf = (word: string): { n: number; unit: 'day' | 'week' | 'month' | 'year' } => {
  const base = word.replace(/s$/, '');
  return base === 'quarter' ? { n: 3, unit: 'month' } : { n: 1, unit: base as 'day' | 'week' | 'month' | 'year' };
};

const WINDOW_PATTERNS: readonly { re: RegExp; make: (m: RegExpExecArray) => Omit<TimeWindow, 'phrase'> }[] = [
  { re: new RegExp(String.raw`\bbetween\s+(?:version\s+|release\s+)?${VERSION_WORD}\s+and\s+(?:version\s+|release\s+)?${VERSION_WORD}`, 'i'), make: (m) => ({ from: { version: m[1]! }, to: { version: m[2]! } }) },
  { re: new RegExp(String.raw`\bbetween\s+${YEAR_WORD}\s+and\s+${YEAR_WORD}`, 'i'), make: (m) => ({ from: { year: Number(m[1]) }, to: { year: Number(m[2]) + 1 } }) },
  { re: new RegExp(String.raw`\b(?:since|after|from)\s+(?:version\s+|release\s+)?${VERSION_WORD}(?![\d.])`, 'i'), make: (m) => ({ from: { version: m[1]! } }) },
  { re: new RegExp(String.raw`\bbefore\s+(?:version\s+|release\s+)?${VERSION_WORD}(?![\d.])`, 'i'), make: (m) => ({ to: { version: m[1]! } }) },
  { re: new RegExp(String.raw`\b(?:since|after)\s+${YEAR_WORD}\b`, 'i'), make: (m) => ({ from: { year: Number(m[1]) + (/after/i.test(m[0]) ? 1 : 0) } }) },
  { re: new RegExp(String.raw`\b(?:in|during|throughout)\s+${YEAR_WORD}\b`, 'i'), make: (m) => ({ from: { year: Number(m[1]) }, to: { year: Number(m[1]) + 1 } }) },
  { re: /\b(?:(?:in|during|over)\s+)?this\s+year\b/i, make: () => ({ from: { relativeYear: 0 } }) },
  {
    re: new RegExp(String.raw`\b(?:(?:in|during|over|within)\s+)?(?:the\s+)?(?:last|past|previous)\s+(\d+|${Object.keys(NUMBER_WORDS).join('|')})\s+${UNIT}\b`, 'i'),
    make: (m) => {
      const { n, unit } = unitOf(m[2]!.toLowerCase());
      const count = /^\d+$/.test(m[1]!) ? Number(m[1]) : NUMBER_WORDS[m[1]!.toLowerCase()]!;
      return { from: { back: count * n, unit } };
    },
  },
  { re: new RegExp(String.raw`\b(?:(?:in|during|over|within)\s+)?the\s+(?:last|past)\s+${UNIT}\b`, 'i'), make: (m) => ({ from: { back: unitOf(m[1]!.toLowerCase()).n, unit: unitOf(m[1]!.toLowerCase()).unit } }) },
  { re: /\b(?:in\s+|during\s+)?last\s+year\b/i, make: () => ({ from: { relativeYear: -1 }, to: { relativeYear: 0 } }) },
  { re: new RegExp(String.raw`\b(?:(?:in|during|over)\s+)?(?:last|past|this)\s+(day|week|month|quarter)\b`, 'i'), make: (m) => ({ from: { back: unitOf(m[1]!.toLowerCase()).n, unit: unitOf(m[1]!.toLowerCase()).unit } }) },
  { re: /\b(?:recently|lately|nowadays|these\s+days|recent\s+(?:changes?|work|updates?|fixes|pull\s+requests|prs|commits))\b/i, make: () => ({ soft: true }) },
];

/** The time windows a question names, first pattern first; a span of text counts once. */
export function timeWindowsOf(question: string): TimeWindow[] {
  const out: TimeWindow[] = [];
  let rest = question;
  for (const { re, make } of WINDOW_PATTERNS) {
    const m = re.exec(rest);
    if (!m) continue;
    out.push({ phrase: m[0], ...make(m) });
    rest = rest.replace(m[0], ' ');
  }
  return out;
}

/**
 * The question without the words that named a time window with bounds ("css changes since 3.5" -> "css
 * changes"); a soft one's words ("recent changes") stay, they may be part of what is asked.
 */
export function withoutTimeWindows(question: string): string {
  let out = question;
  for (const w of timeWindowsOf(question)) if (!w.soft) out = out.replace(w.phrase, ' ');
  out = out.replace(/\s{2,}/g, ' ').trim();
  return lexemes(out).length > 0 ? out : question;
}
