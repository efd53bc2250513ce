import type { LexicalFields } from '@engram/stores';
import { lexemes } from '@engram/text';

/**
 * The weighted lexical fields of an item with the shared tokenizer (the one queries use): title (A),
 * body (B), file paths and labels (C). Passed pre-tokenised so Postgres only splits on spaces.
 * A huge body (a build log) is cut so the tsvector stays under Postgres' 1 MB limit.
 */
export const MAX_BODY_TOKENS = 60_000;

export function lexicalFields(item: { title: string | null; body: string; files: readonly string[]; labels: readonly string[] }): LexicalFields {
  const title = lexemes(item.title ?? '');
  const body = lexemes(item.body).slice(0, MAX_BODY_TOKENS);
  const other: string[] = [];
  for (const file of item.files) other.push(...lexemes(file));
  for (const label of item.labels) other.push(...lexemes(label));
  return { title: title.join(' '), body: body.join(' '), other: other.join(' '), length: title.length + body.length + other.length };
}
