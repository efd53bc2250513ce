import { createHash } from 'node:crypto';

/** In-memory Linear workspace the fake serves. Field names follow Linear's GraphQL schema. */
export interface FakeLinearUser { id: string; name: string; displayName: string; email: string }
export interface FakeLinearTeam { id: string; key: string; name: string }
export interface FakeLinearState { id: string; name: string; type: string; color: string; teamId: string }
export interface FakeLinearLabel { id: string; name: string; color: string }
export interface FakeLinearProject {
  id: string; name: string; slugId: string; description: string; content: string | null;
  state: string; statusName: string; statusType: string; leadId: string | null; creatorId: string;
  teamIds: string[]; progress: number; createdAt: string; updatedAt: string;
  startedAt: string | null; targetDate: string | null; completedAt: string | null;
}
export interface FakeLinearIssue {
  id: string; number: number; teamId: string; title: string; description: string | null; stateId: string;
  assigneeId: string | null; creatorId: string; labelIds: string[]; projectId: string | null; priority: number;
  createdAt: string; updatedAt: string; completedAt: string | null; canceledAt: string | null;
}
export interface FakeLinearAttachment {
  id: string; issueId: string; title: string; subtitle: string | null; url: string; sourceType: string | null;
  createdAt: string; updatedAt: string;
}
export interface FakeLinearComment {
  id: string; issueId: string | null; userId: string; body: string; createdAt: string; updatedAt: string;
}
export interface FakeLinearData {
  /** Workspace url key: `https://linear.app/<workspace>/issue/...`. */
  workspace: string;
  teams: FakeLinearTeam[]; users: FakeLinearUser[]; states: FakeLinearState[]; labels: FakeLinearLabel[];
  projects: FakeLinearProject[]; issues: FakeLinearIssue[]; attachments: FakeLinearAttachment[]; comments: FakeLinearComment[];
}

/** Deterministic UUID-shaped id, so assertions can name objects. */
export const fakeLinearId = (kind: string, n: number | string): string => {
  const h = createHash('sha1').update(`${kind}:${n}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
};

const at = (hoursAfterStart: number): string => new Date(Date.UTC(2026, 5, 1, 9) + hoursAfterStart * 3_600_000).toISOString();

const PEOPLE: Array<[string, string, string]> = [
  ['ana', 'Ana Souza', 'ana@acme.dev'],
  ['ben', 'Ben Okafor', 'ben@acme.dev'],
  ['chen', 'Chen Wei', 'chen@acme.dev'],
  ['dora', 'Dora Lindqvist', 'dora@acme.dev'],
  ['eli', 'Eli Cohen', 'eli@acme.dev'],
];
const STATES: Array<[string, string, string]> = [
  ['Backlog', 'backlog', '#bec2c8'], ['Todo', 'unstarted', '#e2e2e2'], ['In Progress', 'started', '#f2c94c'],
  ['In Review', 'started', '#5e6ad2'], ['Done', 'completed', '#5e6ad2'], ['Canceled', 'canceled', '#95a2b3'],
];
const LABELS: Array<[string, string]> = [['Bug', '#eb5757'], ['Feature', '#bb87fc'], ['Performance', '#4ea7fc'], ['Docs', '#0f783c'], ['Regression', '#f2994a']];

/** title, description, state index, assignee index or -1, label indexes, project index or -1, PR URLs. */
type IssueRow = [string, string, number, number, number[], number, string[]];
const PR = (n: number) => `https://github.com/prettier/prettier/pull/${n}`;
const ISSUES: IssueRow[] = [
  ['Formatter drops comment in TypeScript property signature', 'Reported by a customer: a trailing `// note` after `foo:` in an interface moves before the colon.\n\nRepro in the playground, see upstream fix.', 4, 2, [0, 4], 0, [PR(19630)]],
  ['Keep comment on the same line in property signature', 'Follow-up to ENG-1: the comment should stay on the same line, not move to the next.', 4, 2, [0], 0, [PR(19688)]],
  ['SCSS compound comparisons break lines badly', '`@if $a == 1 and $b == 2` is split in the middle of the comparison.', 4, 3, [0], 0, [PR(19687)]],
  ['Upgrade meriyah parser to v7.2', 'Needed for the new decorators syntax. Check bundle size after upgrade.', 4, 0, [2], 1, [PR(19702)]],
  ['Remove please-upgrade-node from the CLI', 'We only support Node 20+ now, the check is dead weight at startup.', 4, 0, [2], 1, [PR(19697)]],
  ['YAML: anchor and tag order is not preserved', '`&anchor !!tag value` is printed as `!!tag &anchor value`, which changes meaning for some parsers.', 4, 4, [0], 0, [PR(19599)]],
  ['Improve error message for invalid config files', 'Users get `Unexpected token` without the file path. Include the path and the line.', 4, 1, [1], -1, [PR(19671)]],
  ['Unstable formatting between tagged template tag and quasi', 'Formatting twice gives a different result when a comment sits between the tag and the template.', 4, 2, [0, 4], 0, [PR(19345)]],
  ['Document glimmer parser in the options page', 'The parser list in docs/options.md is missing glimmer.', 4, 3, [3], -1, [PR(19660)]],
  ['Extract printCssDeclaration helper', 'Pure refactor to make the CSS printer testable.', 4, 4, [], 0, [PR(19690)]],
  ['Nested ternaries lost indentation in 3.1', 'Regression since the nested ternary change. Customers on 3.1 see flat chains.', 4, 1, [0, 4], 0, [PR(9559), PR(15000)]],
  ['Playground build fails on preview deployments', 'Vercel preview for the playground errors with `Cannot find module ./vendors/parser-babel.js`.', 2, 0, [0], 1, []],
  ['Switch default trailingComma to all', 'Breaking change, needs a changelog entry and a blog post.', 4, 1, [1], 1, [PR(11479)]],
  ['Markdown: inline code line breaks with proseWrap=preserve', 'Line breaks inside inline code are joined even with `--prose-wrap=preserve`.', 4, 3, [0], 0, [PR(11373)]],
  ['Cache parsed config across files in the CLI', 'Profiling shows 18% of CLI time resolving the same .prettierrc for every file.', 2, 4, [2], 1, []],
  ['Add benchmark for large TypeScript files', 'We need numbers before and after the printer refactor. Use the 5k-line checker.ts fixture.', 1, 2, [2], 1, []],
  ['Flaky test: format-on-save integration', 'Fails about 1 in 20 runs on CI with a timeout waiting for the file watcher.', 3, 0, [0], -1, []],
  ['Support destructuring private fields proposal', 'Stage 2 proposal `const { #x: x } = this`. Babel already parses it.', 5, -1, [1], -1, []],
  ['Docs: pre-commit guide should mention lefthook', 'Several users asked how to use lefthook. Add a section next to husky.', 4, 3, [3], -1, [PR(19191)]],
  ['Helix editor link in docs is broken', '404 on the editor integration page.', 4, 3, [3], -1, [PR(19691)]],
  ['Renovate opens too many PRs for dev dependencies', 'Group dev dependency updates weekly.', 4, 4, [], 1, [PR(19694)]],
  ['Build script: minor cleanups', 'Small things noticed while reviewing the release build.', 4, 4, [], 1, [PR(19686)]],
  ['Range formatting ignores MDX blocks', 'Formatting a range inside an MDX file reformats the whole JSX block.', 1, -1, [0], 0, []],
  ['CLI: --config and --no-config together should error', 'Currently the last flag wins silently.', 4, 1, [0], -1, [PR(12221)]],
  ['Print HTML5 doctype in lowercase', 'Matches what browsers and the spec examples use.', 4, 2, [1], 0, [PR(7391)]],
  ['Investigate memory growth in editor daemon', 'The daemon grows to 1.2 GB after a day of use. Heap snapshot attached.', 2, 1, [2, 0], 1, []],
  ['Playground: doc explorer panel', 'Show the Doc IR next to the output in the playground.', 3, 0, [1], 1, [PR(10183)]],
  ['Decorated function pattern support', 'Angular users hit odd breaks with decorated functions.', 4, 2, [1], 0, [PR(10714)]],
  ['Parenthesis missing for optional function as return type', '`(() => void) | undefined` loses its parentheses in return position.', 4, 4, [0, 4], 0, [PR(11004)]],
  ['Binary operators: break before, not after', 'Long-standing request from the style committee.', 0, -1, [1], 0, []],
  ['Stabilize comments around break/continue with no semi', 'Comments jump lines when semi: false.', 4, 2, [0], 0, [PR(7161)]],
  ['Release checklist for 3.6', 'Changelog, blog post, npm publish, playground deploy.', 2, 3, [3], 1, []],
  ['Plugin search should be opt-out', 'Add `--no-plugin-search` for environments with huge node_modules.', 4, 0, [1, 2], 1, [PR(10274)]],
  ['Scss maps with function arguments on different lines', 'Map values calling functions with multi-line arguments are collapsed.', 4, 3, [0], 0, [PR(9184)]],
  ['Onboarding doc for new maintainers', 'Where the tests live, how to cut a release, who owns which printer.', 1, 3, [3], -1, []],
  ['Typo in CONTRIBUTING', 'Small typo in the tests section.', 5, -1, [3], -1, []],
  ['Printer: consistent print* parameter order', 'Every print function should take (path, options, print).', 4, 4, [], 0, [PR(10402)]],
  ['Editor daemon crashes on Windows paths with spaces', 'Reported in the support channel, repro on Windows 11.', 1, 1, [0], -1, []],
  ['Evaluate oxc parser for speed', 'Spike: parse time of oxc vs babel on our benchmark corpus.', 0, 4, [2], 1, []],
  ['Playground deploys should block on failed tests', 'Two broken deployments reached production last month.', 0, 0, [1], 1, []],
];

const COMMENTS: Array<[number, number, string]> = [
  [1, 2, 'Reproduced on main. The comment is attached to the key node instead of the type annotation.'],
  [1, 0, 'Upstream PR https://github.com/prettier/prettier/pull/19630 fixes it, we should pick it up in the next bump.'],
  [2, 2, 'Same root cause as ENG-1, separate fix for the same-line case.'],
  [4, 0, 'Bundle size went up by 3 KB gzip, acceptable.'],
  [11, 1, 'Confirmed regression from the 3.1 release. Bisected to the nested ternary change.'],
  [11, 4, 'Customers on the enterprise plan are asking for an ETA.'],
  [11, 1, 'Fix merged upstream, see https://github.com/prettier/prettier/pull/15000.'],
  [12, 0, 'The preview build fails with:\n```\nError: Cannot find module \'./vendors/parser-babel.js\'\n```\nLooks like the vendor copy step is skipped on preview.'],
  [12, 3, 'Production build is fine, only preview. Maybe the env var for the vendor step is production-only?'],
  [12, 0, 'Yes, `VENDOR_PARSERS` is only set for production. Moving it to all environments.'],
  [15, 4, 'Cache keyed by directory works, 1.4x faster on the monorepo benchmark.'],
  [17, 0, 'Added a retry in the watcher helper, still flaky. Will try a longer debounce.'],
  [17, 2, 'It only fails on the macOS runners.'],
  [23, 3, 'MDX v2 changed the AST for flow expressions, that is why range detection misses them.'],
  [26, 1, 'Heap snapshot shows the AST cache never evicts. Capping at 200 entries.'],
  [26, 4, 'Capping fixed the growth in my overnight test.'],
  [30, 0, 'This would change most files in every repo. Needs an RFC first.'],
  [32, 3, 'Blog post draft is in Notion, needs review from ENG-13 owner.'],
  [38, 1, 'Windows path with spaces is not quoted when spawning the worker.'],
  [39, 4, 'oxc is 6x faster on parse, but its comment attachment differs from babel.'],
  [40, 0, 'Linking the two broken deployments: both were from main without running the integration suite.'],
  [40, 3, 'We can make the Vercel deploy depend on the CI check via the GitHub integration.'],
];

/** A fresh copy of the workspace: team ENG, 40 issues, 2 projects, comments and GitHub PR attachments. */
export function linearFixture(): FakeLinearData {
  const team: FakeLinearTeam = { id: fakeLinearId('team', 'ENG'), key: 'ENG', name: 'Engineering' };
  const users = PEOPLE.map(([handle, name, email]) => ({ id: fakeLinearId('user', handle), name, displayName: handle, email }));
  const states = STATES.map(([name, type, color]) => ({ id: fakeLinearId('state', name), name, type, color, teamId: team.id }));
  const labels = LABELS.map(([name, color]) => ({ id: fakeLinearId('label', name), name, color }));
  const u = (i: number) => users[i]!.id;
  const projects: FakeLinearProject[] = [
    {
      id: fakeLinearId('project', 'formatting-quality'), name: 'Formatting quality Q3', slugId: 'a1b2c3d4e5f6',
      description: 'Fix the formatting regressions customers hit most.',
      content: '# Goal\nNo known formatting regressions open for more than two weeks.\n\n# Scope\nComments, ternaries, SCSS, YAML.',
      state: 'started', statusName: 'In Progress', statusType: 'started', leadId: u(2), creatorId: u(1), teamIds: [team.id],
      progress: 0.7, createdAt: at(-240), updatedAt: at(600), startedAt: at(-200), targetDate: '2026-09-30', completedAt: null,
    },
    {
      id: fakeLinearId('project', 'playground-and-tooling'), name: 'Playground and release tooling', slugId: 'f6e5d4c3b2a1',
      description: 'Make the playground deploys reliable and the release boring.',
      content: 'Preview deployments must build like production. Releases follow the checklist.',
      state: 'planned', statusName: 'Planned', statusType: 'planned', leadId: u(0), creatorId: u(3), teamIds: [team.id],
      progress: 0.3, createdAt: at(-230), updatedAt: at(590), startedAt: null, targetDate: '2026-10-15', completedAt: null,
    },
  ];
  const issues: FakeLinearIssue[] = [];
  const attachments: FakeLinearAttachment[] = [];
  ISSUES.forEach(([title, description, stateIdx, assigneeIdx, labelIdxs, projectIdx, prs], i) => {
    const n = i + 1;
    const createdAt = at(i * 14);
    const state = states[stateIdx]!;
    const updatedAt = at(i * 14 + 3 + (n % 7) * 5);
    const id = fakeLinearId('issue', n);
    issues.push({
      id, number: n, teamId: team.id, title, description, stateId: state.id,
      assigneeId: assigneeIdx >= 0 ? u(assigneeIdx) : null, creatorId: u(n % users.length),
      labelIds: labelIdxs.map((l) => labels[l]!.id), projectId: projectIdx >= 0 ? projects[projectIdx]!.id : null,
      priority: (n % 4) + 1, createdAt, updatedAt,
      completedAt: state.type === 'completed' ? updatedAt : null, canceledAt: state.type === 'canceled' ? updatedAt : null,
    });
    prs.forEach((url, k) => {
      const number = url.split('/').pop();
      attachments.push({
        id: fakeLinearId('attachment', `${n}-${k}`), issueId: id, title: `prettier/prettier#${number}`, subtitle: 'Merged',
        url, sourceType: 'github', createdAt: at(i * 14 + 2), updatedAt: at(i * 14 + 2),
      });
    });
  });
  attachments.push({
    id: fakeLinearId('attachment', 'slack-12'), issueId: fakeLinearId('issue', 12), title: 'Thread in #playground',
    subtitle: null, url: 'https://acme.slack.com/archives/C024BE91L/p1719830000000100', sourceType: 'slack',
    createdAt: at(11 * 14 + 1), updatedAt: at(11 * 14 + 1),
  });
  const comments = COMMENTS.map(([issueNumber, userIdx, body], k) => {
    const issue = issues[issueNumber - 1]!;
    const createdAt = new Date(Date.parse(issue.createdAt) + (k % 5 + 1) * 3_600_000).toISOString();
    return { id: fakeLinearId('comment', k), issueId: issue.id, userId: u(userIdx), body, createdAt, updatedAt: createdAt };
  });
  return { workspace: 'acme', teams: [team], users, states, labels, projects, issues, attachments, comments };
}
