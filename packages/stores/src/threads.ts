/**
 * Starting a worker thread from a module of this repository. Plain JavaScript starts directly;
 * TypeScript (the repo runs on tsx) through a bootstrap that loads it with tsx's `tsImport`, since an
 * inherited `--import tsx` does not apply inside workers on every Node version.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker, type WorkerOptions } from 'node:worker_threads';

export function spawnModuleWorker(url: URL, options: Omit<WorkerOptions, 'eval'> = {}): Worker {
  if (!url.pathname.endsWith('.ts')) return new Worker(url, options);
  const require = createRequire(import.meta.url);
  const manifestPath = require.resolve('tsx/package.json');
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as { exports?: Record<string, { import?: { default?: string } } | string> };
  const entry = manifest.exports?.['./esm/api'];
  const relative = typeof entry === 'object' ? entry.import?.default : undefined;
  if (!relative) throw new Error(`tsx does not export ./esm/api; cannot start the TypeScript worker ${url.pathname}`);
  const api = pathToFileURL(join(dirname(manifestPath), relative)).href;
  const bootstrap = `import(${JSON.stringify(api)}).then((tsx) => tsx.tsImport(${JSON.stringify(url.href)}, { parentURL: ${JSON.stringify(url.href)} }));`;
  return new Worker(bootstrap, { ...options, eval: true });
}
