/**
 * Whether a change wrote a release note: it touched a changelog, or added an entry to one of the
 * directories changelog tools and conventions collect entries from (changesets' `.changeset/`,
 * towncrier's `newsfragments/` and `changelog.d/`, reno's `releasenotes/`, changie's `.changes/`,
 * GitLab's `changelogs/unreleased/`, a `changelog-entries/` or `changelog_unreleased/`). Such a change is
 * one its authors meant users to know about, which is what a question about a behaviour usually asks
 * for; a dependency bump or a refactor beside it is not. Conventions only: no repository's own layout is
 * named here (`docs/ranking.md`, "The release-note prior", measures what it is worth).
 */

/** A changelog file anywhere in the tree: `CHANGELOG.md`, `packages/x/CHANGES.rst`, `HISTORY`, `NEWS.txt`, `RELEASE_NOTES.md`. */
const CHANGELOG_FILE = /^(?:changelog|changes|history|news|release[-_]?notes)(?:\.(?:md|markdown|mdx|rst|txt|adoc))?$/i;

/** Directories whose files are one change's entry each; towncrier's name entries `123.feature`, so any file counts. */
const FRAGMENT_DIRECTORY = /^(?:changelog\.d|newsfragments)$/i;

/**
 * Directories whose text files are one change's entry each (`changes/` also names code, so only documents
 * count): `changelog` or `changelogs`, alone or with suffix words (`changelog-entries`, `changelog_unreleased`),
 * and the tools' own directories.
 */
const ENTRY_DIRECTORY = /^(?:changelogs?(?:[-_][a-z]+)*|\.changeset|\.changes|changes|release[-_]?notes|unreleased)$/i;
const ENTRY_DOCUMENT = /\.(?:md|markdown|mdx|rst|txt|adoc|ya?ml)$/i;

/** Files in an entry directory that are not entries: its README, the tool's configuration, a template. */
const NOT_AN_ENTRY = /^(?:readme(?:\.[a-z]+)?|config\.json|_?template(?:\.[a-z]+)?|\.gitkeep)$/i;

export function writesReleaseNote(files: readonly string[]): boolean {
  for (const file of files) {
    const parts = file.split('/');
    const name = parts[parts.length - 1] ?? '';
    if (CHANGELOG_FILE.test(name)) return true;
    if (NOT_AN_ENTRY.test(name)) continue;
    const dirs = parts.slice(0, -1);
    if (dirs.some((dir) => FRAGMENT_DIRECTORY.test(dir))) return true;
    if (ENTRY_DOCUMENT.test(name) && dirs.some((dir) => ENTRY_DIRECTORY.test(dir))) return true;
  }
  return false;
}
