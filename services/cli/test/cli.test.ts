/**
 * The `engram` bin against the real api and fake providers: version, exit codes, admin token errors,
 * tokens from env and stdin, provider checks and duplicates at `connect`, and `import` refusing bad input
 * before it uploads anything.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeGitHub, type FakeGitHub } from '../../../test/fakes/github/index.js';
import { linearFixture, startFakeLinear, type FakeLinear } from '../../../test/fakes/linear/index.js';
import { startFakeVercel, vercelFixture, type FakeVercel } from '../../../test/fakes/vercel/index.js';
import { engram, startAdminServer, type AdminServer } from './support.js';

const REPO = 'acme/widgets';
const GH_TOKEN = 'ghp_fake_good_token';

describe('engram CLI', () => {
  let server: AdminServer;
  let github: FakeGitHub;
  let linear: FakeLinear;
  let vercel: FakeVercel;
  let workspaceId: string;
  const vercelProject = vercelFixture().project.id;
  const env = () => ({ ENGRAM_URL: server.url, ENGRAM_ADMIN_TOKEN: server.adminToken });

  beforeAll(async () => {
    server = await startAdminServer();
    github = await startFakeGitHub({ repo: REPO, items: [], token: GH_TOKEN });
    linear = await startFakeLinear({ apiKey: 'lin_api_good', data: linearFixture() });
    vercel = await startFakeVercel({ token: 'vercel_good', deployments: vercelFixture().deployments, events: vercelFixture().events });
    const created = await engram(['workspace', 'create', '--name', 'cli-test', '--json'], env());
    expect(created.code).toBe(0);
    workspaceId = String(created.json.id);
  });
  afterAll(async () => {
    await Promise.all([github?.close(), linear?.close(), vercel?.close()]);
    await server?.close();
  });

  it('prints its version and exits 0; a usage error exits 2', async () => {
    const v = await engram(['--version']);
    expect(v).toMatchObject({ code: 0, stdout: '0.1.0\n' });
    const bad = await engram(['connect', 'github', '--workspace', 'ws_x']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/required option '--repo/);
  });

  it('says a wrong admin token is wrong (and where it came from), exit 4; an unreachable server exits 3', async () => {
    const wrong = await engram(['status'], { ENGRAM_URL: server.url, ENGRAM_ADMIN_TOKEN: 'not-the-token' });
    expect(wrong.code).toBe(4);
    expect(wrong.stderr).toMatch(/invalid admin token/);
    expect(wrong.stderr).toContain('$ENGRAM_ADMIN_TOKEN');
    const none = await engram(['status'], { ENGRAM_URL: server.url }, undefined, tmpdir());
    expect(none.code).toBe(4);
    expect(none.stderr).toMatch(/no admin token/);
    const down = await engram(['workspace', 'create', '--name', 'x'], { ENGRAM_URL: 'http://127.0.0.1:9', ENGRAM_ADMIN_TOKEN: 'x' });
    expect(down.code).toBe(3);
    expect(down.stderr).toMatch(/cannot reach the Engram server/);
  });

  it('refuses a GitHub token the provider rejects, saving nothing (exit 2)', async () => {
    const out = await engram(['connect', 'github', '--workspace', workspaceId, '--repo', REPO, '--base-url', github.url, '--json'], { ...env(), GITHUB_TOKEN: 'ghp_wrong' });
    expect(out.code).toBe(2);
    expect(out.stderr).toMatch(/GitHub rejected the token: bad credentials .*Bad credentials/);
    expect(out.stderr).not.toContain('ghp_wrong');
    const missing = await engram(['connect', 'github', '--workspace', workspaceId, '--repo', 'acme/nope', '--base-url', github.url], { ...env(), GITHUB_TOKEN: GH_TOKEN });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/repository acme\/nope was not found, or the token cannot see it/);
    const list = await engram(['status', '--json'], env());
    expect(list.json.connections).toEqual([]);
  });

  it('takes the token from $GITHUB_TOKEN, checks it, then refuses a second connection to the same repository', async () => {
    const first = await engram(['connect', 'github', '--workspace', workspaceId, '--repo', REPO, '--base-url', github.url, '--json'], { ...env(), GITHUB_TOKEN: GH_TOKEN });
    expect(first.code).toBe(0);
    expect(first.json).toMatchObject({ provider: 'github', config: { repo: REPO } });
    expect(JSON.stringify(first.json)).not.toContain(GH_TOKEN);
    const again = await engram(['connect', 'github', '--workspace', workspaceId, '--repo', 'ACME/widgets', '--base-url', github.url], { ...env(), ENGRAM_GITHUB_TOKEN: GH_TOKEN });
    expect(again.code).toBe(2);
    expect(again.stderr).toContain(`already has a github connection to the same source: ${String(first.json.id)}`);
  });

  it('reads a Vercel token from stdin, and names bad Linear and Vercel credentials', async () => {
    const ok = await engram(['connect', 'vercel', '--workspace', workspaceId, '--project', vercelProject, '--base-url', vercel.url, '--token-stdin', '--json'], env(), 'vercel_good\n');
    expect(ok.code).toBe(0);
    expect(ok.json).toMatchObject({ provider: 'vercel', config: { projectId: vercelProject } });
    const empty = await engram(['connect', 'vercel', '--workspace', workspaceId, '--project', 'prj_other', '--base-url', vercel.url, '--token-stdin'], env(), '');
    expect(empty.code).toBe(2);
    expect(empty.stderr).toMatch(/nothing on stdin/);
    const badVercel = await engram(['connect', 'vercel', '--workspace', workspaceId, '--project', 'prj_other', '--base-url', vercel.url], { ...env(), VERCEL_TOKEN: 'vercel_bad' });
    expect(badVercel.code).toBe(2);
    expect(badVercel.stderr).toMatch(/Vercel rejected the token: bad credentials/);
    const badLinear = await engram(['connect', 'linear', '--workspace', workspaceId, '--api-url', linear.url], { ...env(), LINEAR_API_KEY: 'lin_api_bad' });
    expect(badLinear.code).toBe(2);
    expect(badLinear.stderr).toMatch(/Linear rejected the token: bad credentials/);
    const noToken = await engram(['connect', 'linear', '--workspace', workspaceId, '--api-url', linear.url], env());
    expect(noToken.code).toBe(2);
    expect(noToken.stderr).toMatch(/no linear token: pipe it with --token-stdin, set ENGRAM_LINEAR_API_KEY or LINEAR_API_KEY/);
  });

  it('import reports an unknown workspace or a malformed --repo before uploading the file (exit 2)', async () => {
    const before = server.paths.filter((p) => p === 'POST /admin/imports').length;
    const file = new URL('../package.json', import.meta.url).pathname;
    const unknown = await engram(['import', 'github', '--workspace', 'ws_does_not_exist', '--repo', REPO, '--file', file], env());
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/workspace ws_does_not_exist not found/);
    expect(unknown.stderr).not.toMatch(/uploading/);
    const malformed = await engram(['import', 'github', '--workspace', workspaceId, '--repo', 'not a repo', '--file', file], env());
    expect(malformed.code).toBe(2);
    expect(malformed.stderr).toMatch(/--repo "not a repo" is not "owner\/name"/);
    expect(server.paths.filter((p) => p === 'POST /admin/imports').length).toBe(before);
  });

  it('import refuses a file that is not JSON as input (exit 2), importing nothing', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'engram-cli-import-'));
    try {
      const file = join(dir, 'export.csv');
      await writeFile(file, 'number,title,state\n1,Crash on empty config,open\n2,Fix the parser,closed\n');
      const res = await engram(['import', 'github', '--workspace', workspaceId, '--repo', REPO, '--file', file], env());
      expect(res.code, res.stderr).toBe(2);
      expect(res.stderr).toMatch(/no entry of the file is JSON .*expected a JSON array or JSON Lines/);
      expect(res.stdout).not.toMatch(/staged|invalid/);
      // Uploaded and refused by the server: no import recorded, no event staged.
      expect(server.paths).toContain('POST /admin/imports');
      const { rows } = await server.runtime.db.query<{ n: number }>(
        'SELECT (SELECT count(*) FROM imports WHERE workspace_id = $1)::int + (SELECT count(*) FROM source_events WHERE workspace_id = $1)::int AS n',
        [workspaceId],
      );
      expect(rows[0]!.n).toBe(0);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
