import { writesReleaseNote } from './releaseNotes.js';

/**
 * What kind of files a change touched, by convention only (no repository's own layout is named): the
 * share that is documentation and the share that is the project's tooling. A "how do we ..." question is
 * usually answered by a doc or a script change, a bug by neither; a change of tests alone (fixtures
 * renamed, a test suite imported) repairs nothing. The learned reranker weighs these beside the
 * question's intent (`features.ts`).
 */

/** Directories where tests and their fixtures live: a `.md` there is a fixture, not documentation. */
const TEST_DIR = /^(?:tests?|__tests__|specs?|fixtures?|__fixtures__|__snapshots__|testdata|e2e)$/i;
const DOC_DIR = /^(?:docs?|documentation|guides?|website|handbook|manual)$/i;
const DOC_FILE = /\.(?:md|mdx|markdown|rst|adoc|txt)$/i;
const TOOLING_DIR = /^(?:scripts?|tools?|tooling|\.github|\.circleci|\.husky|\.devcontainer|\.vscode|ci|build|bin)$/i;
const TOOLING_FILE =
  /^(?:package\.json|package-lock\.json|yarn\.lock|pnpm-lock\.yaml|bun\.lockb?|\.yarnrc(?:\.yml)?|\.npmrc|\.nvmrc|\.node-version|makefile|dockerfile|docker-compose\.ya?ml|tsconfig(?:\.[\w-]+)?\.json|\.eslintrc(?:\.\w+)?|eslint\.config\.\w+|\.prettierrc(?:\.\w+)?|\.editorconfig|\.gitignore|\.gitattributes|renovate\.json|\.pre-commit-config\.yaml|[\w-]+\.config\.[cm]?[jt]s)$/i;

export interface FileKinds {
  /** Share of the files that are documentation (a doc file or anything under a docs directory, not under tests, not a release note). */
  docsShare: number;
  /** Share of the files that are tooling (scripts, CI, package manifests and lockfiles, build and lint configuration). */
  toolingShare: number;
  /** Share of the files that are tests and their fixtures (under a test directory). */
  testShare: number;
}

export function fileKinds(files: readonly string[]): FileKinds {
  if (files.length === 0) return { docsShare: 0, toolingShare: 0, testShare: 0 };
  let docs = 0;
  let tooling = 0;
  let tests = 0;
  for (const file of files) {
    const parts = file.split('/');
    const name = parts[parts.length - 1] ?? '';
    const dirs = parts.slice(0, -1);
    if (writesReleaseNote([file])) continue;
    if (dirs.some((d) => TEST_DIR.test(d))) {
      tests++;
      continue;
    }
    if (dirs.some((d) => DOC_DIR.test(d)) || (DOC_FILE.test(name) && dirs.length <= 1)) docs++;
    else if (dirs.some((d) => TOOLING_DIR.test(d)) || TOOLING_FILE.test(name)) tooling++;
  }
  return { docsShare: docs / files.length, toolingShare: tooling / files.length, testShare: tests / files.length };
}
