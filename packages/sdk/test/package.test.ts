/**
 * The package as npm would publish it: `npm pack` builds dist (prepack: tsc, plus the contract
 * declarations the SDK's types name), then a project outside the monorepo installs the tarball with npm
 * (`--prefer-offline`: zod from the npm cache when its metadata is there, else from the registry; a fresh
 * machine's `npm ci` caches tarballs, not the metadata an install by range needs), type-checks a five-line consumer against the published declarations
 * with strict TypeScript, and runs it in plain node against a server.
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const PACKAGE_DIR = fileURLToPath(new URL('..', import.meta.url));
const TSC = createRequire(import.meta.url).resolve('typescript/bin/tsc');

/** Five lines a user would write, plus a line proving the contract types reached them (not `any`). */
const CONSUMER = `import { createEngramClient, EngramError, type SearchResponse } from '@engram/sdk';
declare const process: { argv: string[] };
const engram = createEngramClient({ baseUrl: process.argv[2]!, apiKey: 'egk_k', workspaceId: 'ws_w' });
const res: SearchResponse = await engram.search({ query: 'config crash', mode: 'fast', limit: 5 });
const first: { title: string; score: number } | undefined = res.data[0];
// @ts-expect-error the request type is the contract's: 'quickest' is not a mode
export const wrong = () => engram.search({ query: 'x', mode: 'quickest' });
console.log(JSON.stringify({ title: first?.title, score: first?.score, kind: res.meta.scoreKind, errorClass: typeof EngramError }));
`;

describe('@engram/sdk as published', () => {
  let dir: string;
  afterAll(async () => dir && rm(dir, { recursive: true, force: true }));

  it('packs built JS and self-contained types; a project outside the repo installs, type-checks and runs it', async () => {
    dir = await mkdtemp(join(tmpdir(), 'engram-sdk-pack-'));
    const { stdout } = await run('npm', ['pack', '--json', '--pack-destination', dir], { cwd: PACKAGE_DIR });
    const [packed] = JSON.parse(stdout.slice(stdout.indexOf('['))) as { filename: string; files: { path: string }[] }[];
    const files = packed!.files.map((f) => f.path).sort();
    expect(files).toEqual(expect.arrayContaining(['dist/index.js', 'dist/index.d.ts', 'dist/transport.js', 'dist/contracts/api.d.ts', 'package.json', 'README.md']));
    expect(files.filter((f) => /^(src|test|scripts)\//.test(f))).toEqual([]);
    const tarball = join(dir, packed!.filename);

    const consumer = join(dir, 'consumer');
    await mkdir(consumer);
    await writeFile(join(consumer, 'package.json'), JSON.stringify({ name: 'consumer', version: '1.0.0', private: true, type: 'module' }));
    await run('npm', ['install', tarball, '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts', '--no-package-lock'], { cwd: consumer });
    const manifest = JSON.parse(await readFile(join(consumer, 'node_modules', '@engram', 'sdk', 'package.json'), 'utf8')) as { private?: boolean; dependencies: Record<string, string> };
    expect(manifest.private).toBeUndefined();
    expect(Object.keys(manifest.dependencies)).toEqual(['zod']);
    const declarations = await readFile(join(consumer, 'node_modules', '@engram', 'sdk', 'dist', 'index.d.ts'), 'utf8');
    expect(declarations).not.toMatch(/@engram\//);

    await writeFile(join(consumer, 'consumer.ts'), CONSUMER);
    await writeFile(join(consumer, 'tsconfig.json'), JSON.stringify({
      compilerOptions: { strict: true, module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', lib: ['es2023', 'dom'], types: [], outDir: 'out', skipLibCheck: false },
      files: ['consumer.ts'],
    }));
    const compiled = await run(process.execPath, [TSC, '-p', '.'], { cwd: consumer }).catch((err: { stdout: string }) => ({ stdout: `tsc failed:\n${err.stdout}` }));
    expect(compiled.stdout).toBe('');

    const server = createServer((req, res) => {
      let body = '';
      req.on('data', (d: Buffer) => (body += d.toString()));
      req.on('end', () => {
        const ok = req.url === '/v1/search' && req.headers.authorization === 'Bearer egk_k' && req.headers['x-workspace-id'] === 'ws_w' && JSON.parse(body).mode === 'fast';
        res.writeHead(ok ? 200 : 400, { 'content-type': 'application/json' });
        res.end(JSON.stringify({
          data: [{ id: 'obs_1', title: 'Fix crash on empty config', url: 'https://example.test/1', snippet: 's', score: 0.5, source: 'github', type: 'pull_request' }],
          meta: { total: 1, limit: 5, offset: 0, took: 3, mode: 'fast', scoreKind: 'fused', paths: { vector: true, entity: true, cluster: true, actor: true } },
          latency: { total: 3, retrieval: 2, rerank: 0 },
          requestId: 'r1',
        }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const result = await run(process.execPath, [join('out', 'consumer.js'), url], { cwd: consumer });
      expect(JSON.parse(result.stdout)).toEqual({ title: 'Fix crash on empty config', score: 0.5, kind: 'fused', errorClass: 'function' });
    } finally {
      server.close();
    }
  });
});
