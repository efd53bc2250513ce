/**
 * Porter stemmer (M. F. Porter, 1980), the classic five-step version. It maps inflected forms onto
 * one stem: `quotes`/`quote` -> `quot`, `parenthesized`/`parenthesize` -> `parenthes`,
 * `methods` -> `method`, `preserving`/`preserve` -> `preserv`. Input must be lower-case a-z.
 */

const isVowelAt = (w: string, i: number): boolean => {
  const c = w.charCodeAt(i);
  // a e i o u
  if (c === 97 || c === 101 || c === 105 || c === 111 || c === 117) return true;
  // y is a vowel after a consonant
  if (c === 121) return i > 0 && !isVowelAt(w, i - 1);
  return false;
};

/** Porter's m: the number of vowel-consonant sequences in `stem`. */
const measure = (stem: string): number => {
  let m = 0;
  let prevVowel = false;
  for (let i = 0; i < stem.length; i++) {
    const vowel = isVowelAt(stem, i);
    if (prevVowel && !vowel) m++;
    prevVowel = vowel;
  }
  return m;
};

const hasVowel = (stem: string): boolean => {
  for (let i = 0; i < stem.length; i++) if (isVowelAt(stem, i)) return true;
  return false;
};

const endsDoubleConsonant = (w: string): boolean => {
  const n = w.length;
  return n >= 2 && w[n - 1] === w[n - 2] && !isVowelAt(w, n - 1);
};

/** *o: ends consonant-vowel-consonant, the last not w, x or y. */
const endsCvc = (w: string): boolean => {
  const n = w.length;
  if (n < 3) return false;
  if (isVowelAt(w, n - 3) || !isVowelAt(w, n - 2) || isVowelAt(w, n - 1)) return false;
  const last = w[n - 1];
  return last !== 'w' && last !== 'x' && last !== 'y';
};

const STEP2: ReadonlyArray<readonly [string, string]> = [
  ['ational', 'ate'], ['tional', 'tion'], ['enci', 'ence'], ['anci', 'ance'], ['izer', 'ize'],
  ['bli', 'ble'], ['alli', 'al'], ['entli', 'ent'], ['eli', 'e'], ['ousli', 'ous'],
  ['ization', 'ize'], ['ation', 'ate'], ['ator', 'ate'], ['alism', 'al'], ['iveness', 'ive'],
  ['fulness', 'ful'], ['ousness', 'ous'], ['aliti', 'al'], ['iviti', 'ive'], ['biliti', 'ble'],
  ['logi', 'log'],
];
const STEP3: ReadonlyArray<readonly [string, string]> = [
  ['icate', 'ic'], ['ative', ''], ['alize', 'al'], ['iciti', 'ic'], ['ical', 'ic'], ['ful', ''], ['ness', ''],
];
const STEP4 = [
  'al', 'ance', 'ence', 'er', 'ic', 'able', 'ible', 'ant', 'ement', 'ment', 'ent', 'ion', 'ou',
  'ism', 'ate', 'iti', 'ous', 'ive', 'ize',
];

/** Replaces the first matching suffix when the remaining stem has m > minMeasure. */
const replaceSuffix = (w: string, table: ReadonlyArray<readonly [string, string]>, minMeasure: number): string => {
  for (const [suffix, replacement] of table) {
    if (w.endsWith(suffix)) {
      const stem = w.slice(0, -suffix.length);
      return measure(stem) > minMeasure ? stem + replacement : w;
    }
  }
  return w;
};

const step1ab = (word: string): string => {
  let w = word;
  if (w.endsWith('sses') || w.endsWith('ies')) w = w.slice(0, -2);
  else if (w.endsWith('s') && !w.endsWith('ss')) w = w.slice(0, -1);

  if (w.endsWith('eed')) {
    return measure(w.slice(0, -3)) > 0 ? w.slice(0, -1) : w;
  }
  const suffix = w.endsWith('ed') ? 2 : w.endsWith('ing') ? 3 : 0;
  if (suffix === 0) return w;
  const stem = w.slice(0, -suffix);
  if (!hasVowel(stem)) return w;
  if (stem.endsWith('at') || stem.endsWith('bl') || stem.endsWith('iz')) return stem + 'e';
  // Porter undoubles `hopp` -> `hop`; not below three letters, so `added` stays with `add`.
  if (endsDoubleConsonant(stem) && !/[lsz]$/.test(stem) && stem.length > 3) return stem.slice(0, -1);
  if (measure(stem) === 1 && endsCvc(stem)) return stem + 'e';
  return stem;
};

const step4 = (w: string): string => {
  // Longest suffix first so `ement` wins over `ment` and `ent`.
  let best = '';
  for (const suffix of STEP4) if (suffix.length > best.length && w.endsWith(suffix)) best = suffix;
  if (best === '') return w;
  const stem = w.slice(0, -best.length);
  if (measure(stem) <= 1) return w;
  if (best === 'ion' && !/[st]$/.test(stem)) return w;
  return stem;
};

const step5 = (w: string): string => {
  let out = w;
  if (out.endsWith('e')) {
    const stem = out.slice(0, -1);
    const m = measure(stem);
    if (m > 1 || (m === 1 && !endsCvc(stem))) out = stem;
  }
  if (out.endsWith('ll') && measure(out) > 1) out = out.slice(0, -1);
  return out;
};

export function stem(word: string): string {
  if (word.length < 3) return word;
  let w = step1ab(word);
  if (w.endsWith('y') && hasVowel(w.slice(0, -1))) w = w.slice(0, -1) + 'i';
  w = replaceSuffix(w, STEP2, 0);
  w = replaceSuffix(w, STEP3, 0);
  w = step4(w);
  return step5(w);
}
