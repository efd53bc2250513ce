import { createHash } from 'node:crypto';

/** A deployment as the fake stores it; the server renders v6 list items and v13 objects from it. */
export interface FakeVercelDeployment {
  uid: string; name: string; url: string; projectId: string;
  created: number; buildingAt: number; ready: number | null;
  state: 'READY' | 'ERROR' | 'CANCELED' | 'BUILDING' | 'QUEUED';
  target: 'production' | null;
  creator: { uid: string; username: string; email: string; githubLogin: string };
  meta: Record<string, string>;
  inspectorUrl: string;
  errorCode: string | null; errorMessage: string | null;
}
/** One build log line (`/v3/deployments/:id/events`). */
export interface FakeVercelEvent { type: 'command' | 'stdout' | 'stderr' | 'delimiter'; created: number; text: string }

export interface FakeVercelFixture {
  project: { id: string; name: string; teamSlug: string };
  deployments: FakeVercelDeployment[];
  events: Record<string, FakeVercelEvent[]>;
}

const id = (kind: string, n: number | string, length = 24) => createHash('sha1').update(`${kind}:${n}`).digest('base64url').replace(/[-_]/g, 'x').slice(0, length);

type Failure = 'vendor' | 'typescript' | 'oom' | 'lint';
/** sha, branch, commit message, author login, author name, production?, final state, failure kind. */
type Row = [string, string, string, string, string, boolean, 'READY' | 'ERROR' | 'CANCELED', Failure?];

const ROWS: Row[] = [
  ['b35943fa92110ec69dafb08fb98bbe37545a35d9', 'main', "Fix unstable comment between a tagged template's tag and quasi (#19345)", 'sarath-francis', 'Sarath Francis', true, 'READY'],
  ['351e399362b087291f92c39ce5c37d679a5d7f3c', 'main', 'YAML: Preserve order of anchor and tag (#19599)', 'fisker-cheung', 'fisker Cheung', true, 'READY'],
  ['4716e5f575bbc70940dcfccc9d868fb8cf0408c2', 'main', 'Improve error message (#19671)', 'fisker-cheung', 'fisker Cheung', true, 'CANCELED'],
  ['e4a98f27eac5f36ddde3d19ef0a1ceb0d8cb5ec7', 'main', 'Add `glimmer` to the list of parsers in docs (#19660)', 'lazizbek-ergashev', 'Lazizbek Ergashev', true, 'READY'],
  ['9d0c3b1e5f7a2c4e6b8d0f1a3c5e7b9d1f3a5c7e', 'playground-vendor-parsers', 'Playground: copy vendor parsers on every build', 'ana-souza', 'Ana Souza', false, 'ERROR', 'vendor'],
  ['1f3a5c7e9b0d2f4a6c8e0b2d4f6a8c0e2b4d6f8a', 'playground-vendor-parsers', 'Playground: set VENDOR_PARSERS for preview builds', 'ana-souza', 'Ana Souza', false, 'ERROR', 'vendor'],
  ['7c2e4a6c8e0a2c4e6a8c0e2a4c6e8a0c2e4a6c8e', 'playground-vendor-parsers', 'Playground: vendor step runs in all environments', 'ana-souza', 'Ana Souza', false, 'READY'],
  ['57f6882d2b00e8e277d0e819fb8dc81948f738c4', 'main', 'Minor tweak to build script (#19686)', 'fisker-cheung', 'fisker Cheung', true, 'READY'],
  ['53334538ac577ddf65f1c3eacb3e80ae37e2e31f', 'main', 'Fix comment moved before `:` in property signature (#19630)', 'konv-suu', 'Konv Suu', true, 'READY'],
  ['8e05b371abe74a5e4e2c84121dd2fef01f564aec', 'main', 'Fix SCSS compound comparison line breaks (#19687)', 'aland-omed', 'Aland Omed', true, 'READY'],
  ['a4c6e8a0c2e4a6c8e0a2c4e6a8c0e2a4c6e8a0c2', 'property-signature-same-line', 'Keep comment on the same line in property signature', 'konv-suu', 'Konv Suu', false, 'ERROR', 'typescript'],
  ['c6e8a0c2e4a6c8e0a2c4e6a8c0e2a4c6e8a0c2e4', 'property-signature-same-line', 'Fix type of printComment options', 'konv-suu', 'Konv Suu', false, 'READY'],
  ['f5927d519907a628c5d46cc1a42ebc84e6873a7a', 'main', 'Keep comment on the same line in property signature (#19688)', 'konv-suu', 'Konv Suu', true, 'READY'],
  ['c29d444f83c781eeb4d64368e107a6858d35bfc8', 'main', 'docs: add lefthook integration to pre-commit guide (#19191)', 'i-afaqrashid', 'Afaq Rashid', true, 'READY'],
  ['3cfbdbddbc09e6e63b90de78dcbb4d73198244b0', 'main', 'Extract `printCssDeclaration` (#19690)', 'fisker-cheung', 'fisker Cheung', true, 'READY'],
  ['e8a0c2e4a6c8e0a2c4e6a8c0e2a4c6e8a0c2e4a6', 'daemon-ast-cache', 'Editor daemon: cap the AST cache at 200 entries', 'ben-okafor', 'Ben Okafor', false, 'ERROR', 'oom'],
  ['0a2c4e6a8c0e2a4c6e8a0c2e4a6c8e0a2c4e6a8c', 'daemon-ast-cache', 'Editor daemon: evict on file close', 'ben-okafor', 'Ben Okafor', false, 'READY'],
  ['3653a8caaca96a9d36044d3538921aa5668e7e28', 'main', 'docs: fix helix editor configuration link (#19691)', 'signalw', 'Signal W', true, 'READY'],
  ['d45e610e7e62695d1f8d6f5d4a633fb999161a65', 'main', 'Tweak renovate config (#19694)', 'fisker-cheung', 'fisker Cheung', true, 'CANCELED'],
  ['2c4e6a8c0e2a4c6e8a0c2e4a6c8e0a2c4e6a8c0e', 'oxc-parser-spike', 'Spike: try oxc parser in the playground', 'eli-cohen', 'Eli Cohen', false, 'ERROR', 'lint'],
  ['b2117a8065190f59714c47f63827832537d291b9', 'main', 'Remove `please-upgrade-node` (#19697)', 'fisker-cheung', 'fisker Cheung', true, 'READY'],
  ['4e6a8c0e2a4c6e8a0c2e4a6c8e0a2c4e6a8c0e2a', 'oxc-parser-spike', 'Spike: oxc parser behind a flag', 'eli-cohen', 'Eli Cohen', false, 'READY'],
  ['4f84a934201322ca87750e2b9b25baf296da6560', 'main', 'Update meriyah to v7.2 (#19702)', 'fisker-cheung', 'fisker Cheung', true, 'ERROR', 'vendor'],
  ['6a8c0e2a4c6e8a0c2e4a6c8e0a2c4e6a8c0e2a4c', 'main', 'Playground: fix vendor path for meriyah 7', 'fisker-cheung', 'fisker Cheung', true, 'READY'],
  ['8c0e2a4c6e8a0c2e4a6c8e0a2c4e6a8c0e2a4c6e', 'release-3.6', 'Release 3.6.0', 'dora-lindqvist', 'Dora Lindqvist', false, 'READY'],
];

const FAILURES: Record<Failure, { code: string; message: string; lines: Array<[FakeVercelEvent['type'], string]> }> = {
  vendor: {
    code: 'BUILD_FAILED', message: 'Command "yarn build:website" exited with 1',
    lines: [
      ['stdout', '$ node ./scripts/build-website.js'], ['stdout', 'Copying playground assets...'],
      ['stderr', "Error: Cannot find module './vendors/parser-babel.js'"],
      ['stderr', 'Require stack:'], ['stderr', '- /vercel/path0/website/playground/worker.js'],
      ['stderr', '    at Module._resolveFilename (node:internal/modules/cjs/loader:1225:15)'],
      ['stderr', '    at Module._load (node:internal/modules/cjs/loader:1051:27)'],
      ['stderr', "  code: 'MODULE_NOT_FOUND',"], ['stderr', 'error Command failed with exit code 1.'],
      ['stderr', 'Error: Command "yarn build:website" exited with 1'],
    ],
  },
  typescript: {
    code: 'BUILD_FAILED', message: 'Command "yarn build:website" exited with 2',
    lines: [
      ['stdout', '$ tsc -p website/tsconfig.json && node ./scripts/build-website.js'],
      ['stderr', "src/language-js/comments/printer-methods.js(48,23): error TS2339: Property 'sameLine' does not exist on type 'CommentOptions'."],
      ['stderr', "src/language-js/print/property.js(112,7): error TS2554: Expected 2 arguments, but got 3."],
      ['stdout', 'Found 2 errors in 2 files.'], ['stderr', 'error Command failed with exit code 2.'],
      ['stderr', 'Error: Command "yarn build:website" exited with 2'],
    ],
  },
  oom: {
    code: 'BUILD_FAILED', message: 'The build ran out of memory',
    lines: [
      ['stdout', '$ node ./scripts/build-website.js'], ['stdout', 'Bundling editor daemon demo...'],
      ['stderr', '<--- Last few GCs --->'],
      ['stderr', '[42:0x5e1c3a0]    88123 ms: Mark-Compact 2040.1 (2083.4) -> 2039.8 (2084.4) MB, 1520.33 / 0.00 ms  (average mu = 0.112)'],
      ['stderr', 'FATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory'],
      ['stderr', 'Error: Command "yarn build:website" exited with SIGABRT'],
    ],
  },
  lint: {
    code: 'BUILD_FAILED', message: 'Command "yarn lint:prettier && yarn build:website" exited with 1',
    lines: [
      ['stdout', '$ prettier . --check'], ['stdout', 'Checking formatting...'],
      ['stderr', '[warn] src/language-js/parse/oxc.js'],
      ['stderr', '[warn] Code style issues found in the above file. Run Prettier with --write to fix.'],
      ['stderr', 'Error: Command "yarn lint:prettier && yarn build:website" exited with 1'],
    ],
  },
};

/** 25 deployments of `prettier-playground` over a week, newest last, with build logs. */
export function vercelFixture(): FakeVercelFixture {
  const project = { id: 'prj_Pl4yGr0undPr3tt13rW3bs1t3', name: 'prettier-playground', teamSlug: 'acme' };
  const start = Date.UTC(2026, 6, 19, 2, 30);
  const deployments: FakeVercelDeployment[] = [];
  const events: Record<string, FakeVercelEvent[]> = {};
  ROWS.forEach(([sha, ref, message, login, name, production, state, failure], i) => {
    const uid = `dpl_${id('dpl', i)}`;
    const created = start + i * 6 * 3_600_000 + (i % 3) * 61_000;
    const buildingAt = created + 4_000;
    const slug = id('url', i, 9).toLowerCase();
    const creator = { uid: id('user', login, 24), username: login, email: `${login.split('-')[0]}@acme.dev`, githubLogin: login };
    const lines: Array<[FakeVercelEvent['type'], string]> = [
      ['stdout', 'Running build in Washington, D.C., USA (East) – iad1'],
      ['stdout', 'Build machine configuration: 2 cores, 8 GB'],
      ['stdout', `Cloning github.com/prettier/prettier (Branch: ${ref}, Commit: ${sha.slice(0, 7)})`],
      ['stdout', 'Cloning completed: 1.204s'], ['stdout', 'Restored build cache from previous deployment'],
      ['command', 'Running "vercel build"'], ['stdout', 'Vercel CLI 41.1.4'], ['command', 'Running "install" command: `yarn install --immutable`...'],
      ['stdout', '➤ YN0000: · Yarn 4.9.1'], ['stdout', '➤ YN0000: └ Completed in 9s 311ms'], ['command', 'Running "yarn build:website"'],
    ];
    if (state === 'ERROR') lines.push(...FAILURES[failure!].lines);
    else if (state === 'CANCELED') lines.push(['stdout', '$ node ./scripts/build-website.js'], ['stderr', 'The Deployment has been canceled as a result of a newer Git commit on the same branch.']);
    else lines.push(['stdout', '$ node ./scripts/build-website.js'], ['stdout', 'Playground bundle: 1.84 MB (412 KB gzip)'], ['stdout', 'Build Completed in /vercel/output [48s]'], ['stdout', 'Deploying outputs...'], ['stdout', 'Deployment completed']);
    const ready = buildingAt + (lines.length + 40) * 1_000;
    events[uid] = lines.map(([type, text], k) => ({ type, created: buildingAt + k * 1_000, text }));
    deployments.push({
      uid, name: project.name, url: `${project.name}-${slug}-${project.teamSlug}.vercel.app`, projectId: project.id,
      created, buildingAt, ready, state, target: production ? 'production' : null, creator,
      meta: {
        githubCommitSha: sha, githubCommitRef: ref, githubCommitMessage: message, githubCommitAuthorLogin: login,
        githubCommitAuthorName: name, githubCommitOrg: 'prettier', githubCommitRepo: 'prettier', githubOrg: 'prettier',
        githubRepo: 'prettier', githubRepoOwnerType: 'Organization', githubDeployment: '1',
      },
      inspectorUrl: `https://vercel.com/${project.teamSlug}/${project.name}/${uid.slice(4)}`,
      errorCode: state === 'ERROR' ? FAILURES[failure!].code : null,
      errorMessage: state === 'ERROR' ? FAILURES[failure!].message : null,
    });
  });
  return { project, deployments, events };
}
