/**
 * One-dimensional PostgreSQL arrays in their text form (`array_agg(...)::text`): a read of a few
 * thousand grouped rows instead of tens of thousands of rows, which PGlite decodes and posts one by one.
 */

/** The elements of an array of numbers (`{1,2.5,3}`), as written. */
export function pgNumberArray(text: string): string[] {
  return text.length <= 2 ? [] : text.slice(1, -1).split(',');
}

/**
 * The elements of an array of text (`{a,"b c","d\"e"}`): an element is quoted when it holds a comma,
 * a brace, a quote, a backslash or white space, or is empty or NULL-like, and then escapes `"` and `\`
 * with a backslash. NULL elements are not expected (the columns read are NOT NULL) and read as "NULL".
 */
export function pgTextArray(text: string): string[] {
  const out: string[] = [];
  if (text.length <= 2) return out;
  let i = 1;
  const end = text.length - 1;
  while (i < end) {
    if (text.charCodeAt(i) === 34 /* " */) {
      let value = '';
      let from = ++i;
      for (;;) {
        const c = text.charCodeAt(i);
        if (c === 92 /* \ */) {
          value += text.slice(from, i);
          from = ++i;
          i++;
        } else if (c === 34) break;
        else i++;
      }
      out.push(value + text.slice(from, i));
      i += 2; // the closing quote and the comma
    } else {
      let next = text.indexOf(',', i);
      if (next < 0 || next > end) next = end;
      out.push(text.slice(i, next));
      i = next + 1;
    }
  }
  return out;
}
