import { z } from 'zod';

/**
 * Text Postgres can store. `text` and `jsonb` reject the NUL character (`\u0000`), and a lone UTF-16
 * surrogate has no UTF-8 encoding (it would be stored as U+FFFD or fail), so both are refused at the
 * boundary with a 400 naming the field, never passed down to fail as a 500.
 */
// eslint-disable-next-line no-control-regex
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export const UNSTORABLE_MESSAGE = 'contains a NUL character or a lone UTF-16 surrogate, which cannot be stored';

/** True when the string holds a NUL or a lone surrogate. */
export const isUnstorable = (s: string): boolean => UNSTORABLE.test(s);

/** A string with nothing Postgres cannot store. */
export const StorableString = (): z.ZodString => z.string().refine((s) => !isUnstorable(s), { message: UNSTORABLE_MESSAGE });

/**
 * The path of the first unstorable string inside a JSON-like value (object keys included), or null.
 * Bounded by depth: anything deeper than `maxDepth` is reported as unstorable too, at its path.
 */
export function findUnstorable(value: unknown, maxDepth = 64): (string | number)[] | null {
  // One path, extended and cut back as the walk goes and copied only for the answer: a new path for every
  // value visited was 2% of what an import allocated on the event loop (the events' validation).
  const path: (string | number)[] = [];
  const walk = (v: unknown): boolean => {
    if (typeof v === 'string') return isUnstorable(v);
    if (v === null || typeof v !== 'object') return false;
    if (path.length > maxDepth) return true;
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        path.push(i);
        if (walk(v[i])) return true;
        path.pop();
      }
      return false;
    }
    for (const k of Object.keys(v)) {
      path.push(k);
      if (isUnstorable(k) || walk((v as Record<string, unknown>)[k])) return true;
      path.pop();
    }
    return false;
  };
  return walk(value) ? [...path] : null;
}

/** A zod check that adds one issue at the first unstorable string of a value. */
export function refineStorable(value: unknown, ctx: z.RefinementCtx): void {
  const path = findUnstorable(value);
  if (path) ctx.addIssue({ code: 'custom', path, message: UNSTORABLE_MESSAGE });
}
