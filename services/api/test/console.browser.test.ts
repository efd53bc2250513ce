/**
 * The search console at `/`, driven end to end in headless Chromium (playwright-core with the system's
 * chromium): the real api in-process on PGlite, a key, fixture items indexed by the real indexer; then a
 * person pastes the key, searches, reads a result, opens its graph, finds similar items, and looks at the
 * admin view. With ENGRAM_CONSOLE_SCREENSHOTS=<dir> each step is saved there as a PNG (kept under
 * bench/results/console/); by default nothing is written.
 */
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { chromium as playwright, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SourceEvent } from '@engram/contracts';
import { createIndexer, recluster, refreshExpertise } from '@engram/indexer';
import { stageAndIndex } from '@engram/indexer/testing';
import { startJobs, type Jobs } from '@engram/runtime';
import { startFakeGitHub, syntheticIssues, type FakeGitHub } from '../../../test/fakes/github/index.js';
import { allEvents, story } from './support/events.js';
import { ADMIN_TOKEN, startFullServer, type FullServer } from './support/fullServer.js';

const CANDIDATES = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'].filter((p): p is string => !!p);
const executablePath = CANDIDATES.find((p) => existsSync(p));
if (!executablePath && process.env.CI === 'true') {
  throw new Error(`CI=true but no chromium binary was found (looked at ${CANDIDATES.join(', ')}): .ci/run installs Debian's chromium`);
}
const GITHUB_TOKEN = 'ghp_console_test_token';
/** The default branch's one commit (the docs walk reads the tree at the branch head). */
const HEAD_COMMIT = {
  type: 'commit', sha: 'd0c5000000000000000000000000000000000001', author: null, committer: null, parents: [],
  commit: { message: 'Add the sync guide', author: { name: 'Zoe', date: '2025-01-05T00:00:00Z' }, committer: { name: 'Zoe', date: '2025-01-05T00:00:00Z' } },
};
const screenshotDir = process.env.ENGRAM_CONSOLE_SCREENSHOTS;
const title = 'search console in headless Chromium';

describe.skipIf(!executablePath)(executablePath ? title : `${title} (skipped: no chromium binary at ${CANDIDATES.join(', ')}; apt-get install chromium, or set CHROMIUM_PATH)`, () => {
  let server: FullServer;
  let browser: Browser;
  let page: Page;
  let tenant: { workspaceId: string; key: string };
  let jobs: Jobs | null = null;
  let github: FakeGitHub;
  const pageErrors: string[] = [];

  const exactly = (text: string): RegExp => new RegExp(`^${text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`);
  /** The result whose title is exactly `text` (the fix commit's title starts with the fix PR's). */
  const resultTitled = (text: string) => page.locator('#results .result').filter({ has: page.locator('.title', { hasText: exactly(text) }) });

  const shot = async (name: string): Promise<void> => {
    if (!screenshotDir) return;
    await mkdir(screenshotDir, { recursive: true });
    await page.screenshot({ path: join(screenshotDir, `${name}.png`), fullPage: true });
  };

  beforeAll(async () => {
    github = await startFakeGitHub({ repo: 'acme/widgets', items: [...syntheticIssues(3, { firstNumber: 500 }), HEAD_COMMIT], docs: [{ path: 'docs/sync.md', content: '# Sync\n\nHow widgets syncs.' }], token: GITHUB_TOKEN });
    server = await startFullServer();
    tenant = await server.tenant();
    const { db, vectors, embedder } = server.runtime;
    const indexer = createIndexer({ db, vectors, embedder });
    await stageAndIndex(db, indexer, tenant.workspaceId, allEvents().map((e) => SourceEvent.parse(e)));
    await recluster(db, vectors, tenant.workspaceId);
    await refreshExpertise(db, tenant.workspaceId);
    browser = await playwright.launch({ executablePath, headless: true, args: ['--no-sandbox'] });
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.on('pageerror', (err) => pageErrors.push(err.message));
    page.on('dialog', (dialog) => {
      pageErrors.push(`dialog opened: ${dialog.message()}`);
      void dialog.dismiss();
    });
  });
  afterAll(async () => {
    await jobs?.stop();
    await browser?.close();
    await server?.close();
    await github?.close();
  });

  it('serves the console at / with its scripts, under a Content-Security-Policy', async () => {
    const res = await fetch(`${server.base}/`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(await res.text()).toContain('<script type="module" src="console.js">');
    expect((await fetch(`${server.base}/graph.js`)).headers.get('content-type')).toMatch(/javascript/);
  });

  it('a pasted key is kept across reloads; a search shows highlighted results, clusters and people', async () => {
    await page.goto(`${server.base}/`);
    await page.fill('#api-key', tenant.key);
    await page.fill('#workspace-id', tenant.workspaceId);
    await page.click('#credentials button[type=submit]');
    await page.reload();
    expect(await page.inputValue('#api-key')).toBe(tenant.key);
    expect(await page.inputValue('#workspace-id')).toBe(tenant.workspaceId);

    await page.fill('#query', 'empty config crash');
    await page.selectOption('#mode', 'fast');
    await page.click('#search-form button[type=submit]');
    await page.waitForSelector('#results .result');
    const titles = await page.locator('#results .result .title').allTextContents();
    expect(titles).toContain(story.fixPr.title);
    const marks = await page.locator('#results .result mark').allTextContents();
    expect(marks.map((m) => m.toLowerCase())).toEqual(expect.arrayContaining(['crash']));
    expect(await page.textContent('#status')).toMatch(/of \d+ · fast/);
    expect(await page.locator('#clusters li strong').count()).toBeGreaterThan(0);
    expect(await page.locator('#people li strong').count()).toBeGreaterThan(0);
    await shot('1-search');
  });

  it('shows markup in an item as text: the issue titled with a <script> tag runs nothing', async () => {
    const htmlTitle = story.htmlIssue.title!;
    const result = page.locator('#results .result', { hasText: 'Tooltip renders' });
    await expect.poll(() => result.count()).toBeGreaterThan(0);
    expect(await result.locator('.title').textContent()).toBe(htmlTitle);
    expect(await page.locator('#results script').count()).toBe(0);
    expect(pageErrors).toEqual([]);
  });

  it('shows a balanced score against the first result (a calibrated probability reads as broken on its own), a fast score as it is', async () => {
    const firstScore = () => page.locator('#results .result .score').first().textContent();
    expect(await firstScore()).toMatch(/^ · score 0\.\d{3}$/);
    await page.selectOption('#mode', 'balanced');
    await page.click('#search-form button[type=submit]');
    await expect.poll(firstScore).toMatch(/^ · match 100% of the top \(p [\d.e-]+\)$/);
    const scores = await page.locator('#results .result .score').allTextContents();
    const percents = scores.map((t) => Number(/match (\d+)%/.exec(t)?.[1]));
    expect(percents.every((p) => p >= 0 && p <= 100)).toBe(true);
    expect(percents).toEqual([...percents].sort((a, b) => b - a));
    expect(await page.locator('#results .result .score').first().getAttribute('title')).toContain('calibrated probability');
    await page.selectOption('#mode', 'fast');
    await page.click('#search-form button[type=submit]');
    await expect.poll(firstScore).toMatch(/^ · score /);
  });

  it('filters narrow the search: only Linear', async () => {
    await page.click('#filters summary');
    await page.check('input[name=source][value=linear]');
    await page.click('#search-form button[type=submit]');
    const titles = () => page.locator('#results .result .title').allTextContents();
    await expect.poll(titles).toEqual([story.linearIssue.title]);
    expect(await page.locator('#results .result .meta').allTextContents()).toEqual([expect.stringContaining('linear')]);
    await page.uncheck('input[name=source][value=linear]');
    await page.click('#search-form button[type=submit]');
    await expect.poll(titles).toContain(story.fixPr.title);
  });

  it("opens a result's full content", async () => {
    await resultTitled(story.fixPr.title!).locator('button.open').click();
    await page.waitForSelector('#panel[data-kind=content] pre.content');
    expect(await page.textContent('#panel-title')).toBe(story.fixPr.title);
    expect(await page.textContent('#panel pre.content')).toContain('Treat an empty config file as the default configuration.');
    await shot('2-content');
  });

  it('draws its related graph as SVG: the fix links to the issue it fixes; a node opens its content', async () => {
    await page.locator('#panel .actions button.graph').click();
    await page.waitForSelector('#panel[data-kind=graph] svg.graph .node');
    const nodes = await page.locator('svg.graph .node').count();
    expect(nodes).toBeGreaterThanOrEqual(3);
    expect(await page.locator('svg.graph .node.root').count()).toBe(1);
    expect(await page.locator('svg.graph .edge[data-type=fixes]').count()).toBeGreaterThan(0);
    expect(await page.textContent('#panel .edges-list')).toContain(`—fixes→ ${story.crashIssue.title}`);
    // The layout spreads the nodes out: no two share a position.
    const positions = await page.locator('svg.graph .node').evaluateAll((els) => els.map((e) => e.getAttribute('transform')));
    expect(new Set(positions).size).toBe(positions.length);
    await shot('3-graph');
    await page.locator('svg.graph .node', { hasText: 'Crash when the config file' }).locator('circle').click();
    await expect.poll(() => page.textContent('#panel-title')).toBe(story.crashIssue.title);
    expect(await page.textContent('#panel pre.content')).toContain('empty widgets.config.json');
  });

  it('finds items similar to a result', async () => {
    await resultTitled(story.fixPr.title!).locator('button.similar').click();
    await page.waitForSelector('#panel[data-kind=similar] .similar-item');
    expect(await page.textContent('#panel-title')).toBe(`Similar to: ${story.fixPr.title}`);
    const similar = await page.locator('#panel .similar-item .title').allTextContents();
    expect(similar).not.toContain(story.fixPr.title);
    // The nearest items to the empty-config fix are about the config, not the parser PRs around them.
    expect(similar.slice(0, 3).filter((t) => /config/i.test(t)), similar.join(' | ')).not.toEqual([]);
    expect(similar.slice(0, 3).filter((t) => /^Parser:/.test(t)), similar.join(' | ')).toEqual([]);
    await shot('4-similar');
  });

  it('says what is wrong with a revoked or wrong key instead of showing nothing', async () => {
    await page.fill('#api-key', 'egk_wrong');
    await page.click('#credentials button[type=submit]');
    await page.click('#search-form button[type=submit]');
    await page.waitForSelector('#status.error');
    expect(await page.textContent('#status')).toMatch(/^UNAUTHORIZED: /);
    await page.fill('#api-key', tenant.key);
    await page.click('#credentials button[type=submit]');
  });

  it('the admin view shows workspaces, connections with their sync streams, queues and an import being watched', async () => {
    const sha = 'c0ffee0000000000000000000000000000000001';
    const content = JSON.stringify([{
      type: 'commit', id: `commit:${sha}`, sha, html_url: `https://github.com/acme/imported/commit/${sha}`,
      commit: { message: 'Imported commit from the console test', author: { name: 'Zoe', date: '2024-01-01T00:00:00Z' }, committer: { name: 'Zoe', date: '2024-01-01T00:00:00Z' } },
    }]);
    jobs = await startJobs(server.runtime);
    const imported = await fetch(`${server.base}/admin/imports`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ workspaceId: tenant.workspaceId, provider: 'github', repo: 'acme/imported', content }),
    });
    expect(imported.status).toBe(202);
    const { importId } = (await imported.json()) as { importId: string };
    const connection = await fetch(`${server.base}/admin/connections`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ workspaceId: tenant.workspaceId, provider: 'github', config: { repo: 'acme/widgets', baseUrl: github.url }, token: GITHUB_TOKEN }),
    });
    expect(connection.status).toBe(201);
    const { id: connectionId } = (await connection.json()) as { id: string };
    const backfill = await fetch(`${server.base}/admin/connections/${connectionId}/backfill`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(backfill.status).toBe(202);

    await page.click('.tab[data-view=admin]');
    await page.fill('#admin-token', 'wrong-token');
    await page.click('#admin-credentials button[type=submit]');
    await page.waitForSelector('#admin-status.error');
    expect(await page.textContent('#admin-status')).toContain('UNAUTHORIZED');

    await page.fill('#admin-token', ADMIN_TOKEN);
    await page.click('#admin-credentials button[type=submit]');
    await page.waitForSelector(`#admin-connections .connection[data-id="${connectionId}"]`);
    expect(await page.textContent('#admin-workspaces')).toContain(tenant.workspaceId);
    expect(await page.textContent(`#admin-connections .connection[data-id="${connectionId}"] h3`)).toBe('github · acme/widgets');
    expect(await page.textContent('#admin-server')).toContain('pglite');
    // The backfill through the fake GitHub: each stream's row reaches done, the issues stream with its 3 items.
    const rows = () =>
      page.locator(`#admin-connections .connection[data-id="${connectionId}"] tbody tr`).evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent?.trim() ?? '')));
    // Every stream row (there is one per GitHub stream once the walk starts) reaches done.
    await expect.poll(async () => (await rows()).filter((r) => r.length > 1).map((r) => `${r[0]}:${r[2]}:${r[6]}`).join(','), { timeout: 90_000, interval: 1_000 }).toMatch(/^(\w+:done:,)+\w+:done:$/);
    const issues = (await rows()).find((r) => r[0] === 'issues');
    expect(issues?.slice(1, 3)).toEqual(['backfill', 'done']);
    expect(issues?.[4]).toMatch(/^3\b/);

    await page.fill('#import-id', importId);
    await page.click('#import-form button[type=submit]');
    await page.waitForSelector(`#admin-imports td:text-is("${importId}")`);
    await expect.poll(async () => page.textContent('#admin-imports'), { timeout: 30_000, interval: 1_000 }).toMatch(/1\/1 \(100%\)/);
    await shot('5-admin');
    expect(pageErrors).toEqual([]);
  }, 180_000);
});
