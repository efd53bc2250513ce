/**
 * What a result shows under its title. The item's stored snippet is a preview of its body; a change with
 * no description (a squash-merged pull request with an empty body, a one-line commit) has none, and
 * there the files it changed say most about it: code first, then tests, then docs and changelog
 * entries, then test snapshots, cut to the snippet's length.
 */
import { writesReleaseNote } from './rank/releaseNotes.js';

const PREVIEW_LENGTH = 300;
const TEST_FILE = /(?:^|\/)(?:tests?|__tests__|specs?|fixtures?|e2e)\/|\.(?:test|spec)\.[a-z0-9]+$/i;
/** Generated test output says nothing a reader needs: last. */
const SNAPSHOT_FILE = /(?:^|\/)__snapshots__\/|\.snap$/i;
const DOC_FILE = /\.(?:md|markdown|mdx|rst|txt|adoc)$/i;

function order(file: string): number {
  if (SNAPSHOT_FILE.test(file)) return 3;
  if (writesReleaseNote([file]) || DOC_FILE.test(file)) return 2;
  return TEST_FILE.test(file) ? 1 : 0;
}

export function previewOf(snippet: string, files: readonly string[], length = PREVIEW_LENGTH): string {
  if (snippet.trim() !== '' || files.length === 0) return snippet;
  // Each file's rank worked out once (a pull request can touch thousands), not at every comparison.
  const sorted = files.map((file, i) => ({ file, i, rank: order(file) })).sort((a, b) => a.rank - b.rank || a.i - b.i).map((x) => x.file);
  const shown: string[] = [];
  const rest = (n: number): string => (n === 0 ? '' : ` and ${n} more file${n === 1 ? '' : 's'}`);
  const text = (list: readonly string[], left: number): string => `Changed ${list.join(', ')}${rest(left)}`;
  for (const file of sorted) {
    if (shown.length > 0 && text([...shown, file], sorted.length - shown.length - 1).length > length) break;
    shown.push(file);
  }
  return text(shown, sorted.length - shown.length).slice(0, length);
}
