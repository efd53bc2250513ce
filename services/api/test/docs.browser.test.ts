/**
 * The API reference at `/docs`, opened in headless Chromium (playwright-core with the system's chromium):
 * Redoc renders the query and operator operations from /v1/openapi.json under the page's CSP, and every
 * request the page makes stays on this server (no CDN).
 */
import { existsSync } from 'node:fs';
import { chromium as playwright, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFullServer, type FullServer } from './support/fullServer.js';

const CANDIDATES = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'].filter((p): p is string => !!p);
const executablePath = CANDIDATES.find((p) => existsSync(p));
if (!executablePath && process.env.CI === 'true') {
  throw new Error(`CI=true but no chromium binary was found (looked at ${CANDIDATES.join(', ')}): .ci/run installs Debian's chromium`);
}
const title = 'API reference at /docs in headless Chromium';

describe.skipIf(!executablePath)(executablePath ? title : `${title} (skipped: no chromium binary; apt-get install chromium, or set CHROMIUM_PATH)`, () => {
  let server: FullServer;
  let browser: Browser;

  beforeAll(async () => {
    server = await startFullServer();
    browser = await playwright.launch({ executablePath, headless: true, args: ['--no-sandbox'] });
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('renders the query and admin operations from the OpenAPI document, loading nothing from another host', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const origin = new URL(server.base).origin;
    const elsewhere: string[] = [];
    const errors: string[] = [];
    page.on('request', (req) => {
      const url = req.url();
      if (!url.startsWith(origin) && !url.startsWith('data:') && !url.startsWith('blob:')) elsewhere.push(url);
    });
    page.on('pageerror', (err) => errors.push(err.message));
    page.on('console', (msg) => {
      if (msg.type() === 'error' && /Content Security Policy/i.test(msg.text()) && !/cdn\.redoc\.ly/.test(msg.text())) errors.push(msg.text());
    });
    // The browser's own /favicon.ico probe is a 404; any other failed response is the page's fault.
    page.on('response', (res) => {
      if (res.status() >= 400 && !res.url().endsWith('/favicon.ico')) errors.push(`${res.status()} ${res.url()}`);
    });
    await page.goto(`${server.base}/docs`);
    await expect.poll(async () => (await page.textContent('body')) ?? '').toContain('Import a GitHub export file');
    const text = (await page.textContent('body')) ?? '';
    for (const summary of ['Semantic search', 'Fetch content items by id', 'Find similar content', 'Create an API key', 'Connect a provider', 'Prometheus metrics']) {
      expect(text).toContain(summary);
    }
    expect(text).toContain('adminToken');
    expect(errors).toEqual([]);
    // Redoc's "API docs by Redocly" badge points at its CDN; the CSP blocks it, and nothing else leaves.
    expect(elsewhere.filter((u) => !u.startsWith('https://cdn.redoc.ly/'))).toEqual([]);
    await page.close();
  });
});
