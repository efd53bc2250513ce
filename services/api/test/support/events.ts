/**
 * A small team history for conformance tests, shaped as the GitHub, Linear and Vercel connectors
 * normalise it: a crash report, the PR that fixes it, its commits, the Linear issue and the deployment
 * that track it, a config guide, an issue whose title carries raw HTML, and a run of parser PRs so
 * searches have several pages.
 */
import type { SourceEventInput } from '@engram/contracts';

const REPO = 'acme/widgets';
const SHA_FIX = 'a1b2c3d4e5f60718293a4b5c6d7e8f9012345678';
const SHA_TEST = 'b2c3d4e5f60718293a4b5c6d7e8f901234567890';
const day = (n: number): string => new Date(Date.UTC(2024, 0, 1) + n * 86_400_000).toISOString();

const gh = (type: 'pull_request' | 'issue', n: number, title: string, body: string, at: number, login: string, extra: Partial<SourceEventInput> = {}): SourceEventInput => ({
  source: 'github',
  type,
  externalId: `github:${REPO}:${type}:${n}`,
  url: `https://github.com/${REPO}/${type === 'pull_request' ? 'pull' : 'issues'}/${n}`,
  title,
  body,
  occurredAt: day(at),
  updatedAt: day(at + 1),
  keys: [`${type === 'pull_request' ? 'pr' : 'issue'}:${REPO}#${n}`],
  actors: [{ role: 'author', provider: 'github', login }],
  container: REPO,
  state: 'closed',
  ...extra,
});

const commit = (sha: string, title: string, body: string, at: number): SourceEventInput => ({
  source: 'github',
  type: 'commit',
  externalId: `github:${REPO}:commit:${sha}`,
  url: `https://github.com/${REPO}/commit/${sha}`,
  title,
  body,
  occurredAt: day(at),
  updatedAt: day(at),
  keys: [`commit:${sha}`],
  actors: [{ role: 'author', provider: 'github', login: 'alice' }],
  files: ['src/config/load.ts'],
  container: REPO,
});

/** Named events the tests refer to. */
export const story = {
  crashIssue: gh('issue', 9, 'Crash when the config file is empty', 'Running widgets with an empty widgets.config.json throws TypeError: cannot read properties of undefined.', 1, 'bob', {
    labels: ['bug'],
  }),
  fixPr: gh('pull_request', 10, 'Fix crash on empty config file', 'Treat an empty config file as the default configuration.\n\nFixes #9', 3, 'alice', {
    refs: [
      { key: `issue:${REPO}#9`, relation: 'fixes', confidence: 1 },
      { key: `commit:${SHA_FIX}`, relation: 'merged_as', confidence: 1 },
      { key: `commit:${SHA_TEST}`, relation: 'contains', confidence: 1 },
    ],
    files: ['src/config/load.ts', 'test/config.test.ts'],
    labels: ['bug'],
  }),
  fixCommit: commit(SHA_FIX, 'Fix crash on empty config file (#10)', 'Treat an empty config file as the default configuration.', 4),
  testCommit: commit(SHA_TEST, 'Add a test for empty config files', 'Covers the empty config crash.', 3),
  linearIssue: {
    source: 'linear',
    type: 'issue',
    externalId: 'linear:issue:ENG-42',
    url: 'https://linear.app/acme/issue/ENG-42/empty-config-crash',
    title: 'Empty config crash in widgets',
    body: 'Customer report: widgets crashes on an empty config. Fixed by https://github.com/acme/widgets/pull/10',
    occurredAt: day(2),
    updatedAt: day(5),
    keys: ['linear:ENG-42'],
    refs: [{ key: `pr:${REPO}#10`, relation: 'attachment', confidence: 1 }],
    actors: [{ role: 'creator', provider: 'linear', login: 'carol', name: 'Carol Diaz' }],
    container: 'ENG',
    state: 'Done',
  } satisfies SourceEventInput,
  deployment: {
    source: 'vercel',
    type: 'deployment',
    externalId: 'vercel:deployment:dpl_123',
    url: 'https://widgets-abc.vercel.app',
    title: 'Deployment of widgets (production)',
    body: 'Production deployment READY for commit a1b2c3d: Fix crash on empty config file.',
    occurredAt: day(5),
    updatedAt: day(5),
    keys: ['deployment:dpl_123'],
    refs: [{ key: `commit:${SHA_FIX}`, relation: 'built_from', confidence: 1 }],
    actors: [{ role: 'creator', provider: 'vercel', login: 'alice' }],
    container: 'widgets',
    state: 'READY',
  } satisfies SourceEventInput,
  guide: {
    source: 'github',
    type: 'document',
    externalId: `github:${REPO}:doc:docs/configuration.md`,
    url: `https://github.com/${REPO}/blob/main/docs/configuration.md`,
    title: 'Configuration guide',
    body: '# Configuration\n\nwidgets reads widgets.config.json from the project root. An empty file means the default configuration.',
    occurredAt: day(6),
    updatedAt: day(6),
    container: REPO,
  } satisfies SourceEventInput,
  htmlIssue: gh('issue', 11, 'Tooltip renders <script>alert(1)</script> crash text', 'The tooltip shows <b>raw</b> HTML & crashes the crash reporter.', 7, 'dave'),
};

/** Twenty-four parser pull requests: enough results for three pages of a limit-10 search. */
export const parserPrs: SourceEventInput[] = Array.from({ length: 24 }, (_, i) =>
  gh('pull_request', 100 + i, `Parser: handle ${['comments', 'decorators', 'JSX', 'template literals', 'generics', 'unions'][i % 6]} in the parser (${i + 1})`,
    `Improves the parser for ${['comments', 'decorators', 'JSX', 'template literals', 'generics', 'unions'][i % 6]}. Parser tests added.`, 10 + i, i % 2 ? 'erin' : 'frank', { labels: ['parser'] }),
);

export const allEvents = (): SourceEventInput[] => [...Object.values(story), ...parserPrs];

/** Item id of a named story event, given the ids `index(allEvents())` returned. */
export const idOf = (ids: readonly string[], name: keyof typeof story): string => {
  const id = ids[Object.keys(story).indexOf(name)];
  if (!id) throw new Error(`no id for ${name}`);
  return id;
};
