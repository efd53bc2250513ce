/**
 * Words a changed file's path stands for by convention, beyond the words it spells. A workflow file says
 * "ci" without the word (`.github/workflows/prod-test.yml`), a test runner's configuration says "test"
 * (`jest.config.js`), so a question about "flaky tests in CI" meets the changes to the CI setup and the
 * test harness instead of only the changes whose fixtures happen to sit under `tests/`. Only conventions
 * of CI services and test runners are named here, never a repository's own layout.
 */

/** Directories (anywhere in the path) that hold CI configuration. */
const CI_DIRS = /(?:^|\/)(?:\.github\/workflows|\.github\/actions|\.circleci|\.buildkite|\.woodpecker|\.azure-pipelines|\.gitlab\/ci)\//i;
/** CI configuration files (by name, anywhere in the tree). */
const CI_FILES =
  /(?:^|\/)(?:\.travis\.ya?ml|\.gitlab-ci\.ya?ml|azure-pipelines\.ya?ml|\.?appveyor\.ya?ml|jenkinsfile|bitbucket-pipelines\.ya?ml|\.drone\.ya?ml|\.cirrus\.ya?ml|cloudbuild\.ya?ml|\.semaphore\.ya?ml|codefresh\.ya?ml)$/i;

/** A test runner's configuration or setup file. */
const TEST_RUNNER_FILES =
  /(?:^|\/)(?:(?:jest|vitest|playwright|cypress|ava|karma|wdio|web-test-runner|mocha)\.(?:config|conf|setup|workspace)(?:\.[\w-]+)*\.[cm]?[jt]sx?|\.mocharc(?:\.[\w]+)?|\.nycrc(?:\.[\w]+)?|cypress\.json|pytest\.ini|conftest\.py|tox\.ini|noxfile\.py|phpunit\.xml(?:\.dist)?|setuptests\.[cm]?[jt]sx?|test-setup\.[cm]?[jt]sx?)$/i;
/** Test roots, and the directories below one that hold the harness rather than test cases. */
const TEST_HARNESS = /(?:^|\/)(?:tests?|__tests__|specs?|e2e)\/(?:config|setup|support|harness|helpers|utils|runner|mocks|__mocks__)\//i;

/** The area words (`ci`, `test`) a file's path stands for; empty for most files. */
export function pathAreaWords(file: string): string[] {
  const out: string[] = [];
  if (CI_DIRS.test(file) || CI_FILES.test(file)) out.push('ci');
  if (TEST_RUNNER_FILES.test(file) || TEST_HARNESS.test(file)) out.push('test');
  return out;
}
