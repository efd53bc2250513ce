/**
 * The package as npm would publish it: `npm pack` builds dist with tsc (prepack), and plain node, outside
 * the monorepo and without tsx, imports the tarball's JS and calls a server with it.
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const PACKAGE_DIR = fileURLToPath(new URL('..', import.meta.url));

describe('@engram/sdk as published', () => {
  let dir: string;
  afterAll(async () => dir && rm(dir, { recursive: true, force: true }));

  it('packs built JS and types, and runs from the tarball in plain node', async () => {
    dir = await mkdtemp(join(tmpdir(), 'engram-sdk-pack-'));
    const { stdout } = await run('npm', ['pack', '--json', '--pack-destination', dir], { cwd: PACKAGE_DIR });
    const [packed] = JSON.parse(stdout.slice(stdout.indexOf('['))) as { filename: string; files: { path: string }[] }[];
    const files = packed!.files.map((f) => f.path).sort();
    expect(files).toEqual(expect.arrayContaining(['dist/index.js', 'dist/index.d.ts', 'dist/transport.js', 'package.json', 'README.md']));
    expect(files.filter((f) => f.startsWith('src/') || f.startsWith('test/'))).toEqual([]);

    const consumer = join(dir, 'consumer');
    await mkdir(join(consumer, 'node_modules', '@engram', 'sdk'), { recursive: true });
    await run('tar', ['-xzf', join(dir, packed!.filename), '-C', join(consumer, 'node_modules', '@engram', 'sdk'), '--strip-components=1']);
    const manifest = JSON.parse(await readFile(join(consumer, 'node_modules', '@engram', 'sdk', 'package.json'), 'utf8')) as Record<string, unknown>;
    expect(manifest.private).toBeUndefined();
    expect(manifest.dependencies).toMatchObject({ '@engram/contracts': expect.any(String), zod: expect.any(String) });

    const server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ items: [], missing: ['obs_x'], requestId: `seen ${req.headers.authorization} ${req.headers['x-workspace-id']}` }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const script = `import { createEngramClient, EngramError } from '@engram/sdk';
const c = createEngramClient({ baseUrl: process.argv[2], apiKey: 'egk_k', workspaceId: 'ws_w' });
const out = await c.contents(['obs_x']);
console.log(JSON.stringify({ out, errorClass: typeof EngramError }));`;
      await writeFile(join(consumer, 'check.mjs'), script);
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const result = await run(process.execPath, ['check.mjs', url], { cwd: consumer });
      expect(JSON.parse(result.stdout)).toEqual({ out: { items: [], missing: ['obs_x'], requestId: 'seen Bearer egk_k ws_w' }, errorClass: 'function' });
    } finally {
      server.close();
    }
  });
});
