/** Writes a generated corpus as one `engram import github --file` file per repository, plus a manifest. */
import { createHash } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { generateCorpus, type GenerateOptions, type SourceItem } from './generate.js';

export interface CorpusFile {
  repo: string;
  file: string;
  items: number;
  pulls: number;
  commits: number;
}

export interface CorpusManifest {
  seed: number;
  count: number;
  copies: number;
  sha256: string;
  files: CorpusFile[];
}

export async function loadSource(datasetDir: string): Promise<SourceItem[]> {
  return JSON.parse(await readFile(join(datasetDir, 'corpus.json'), 'utf8')) as SourceItem[];
}

export async function writeCorpus(source: SourceItem[], options: GenerateOptions, dir: string): Promise<CorpusManifest> {
  await mkdir(dir, { recursive: true });
  const corpus = generateCorpus(source, options);
  const hash = createHash('sha256');
  const files: CorpusFile[] = [];
  for (const { repo, items } of corpus.repos) {
    if (items.length === 0) continue;
    const file = join(dir, `${repo.replace(/[^\w.-]+/g, '_')}.json`);
    const text = JSON.stringify(items);
    hash.update(text);
    await writeFile(file, text);
    const pulls = items.filter((i) => i.type === 'pull_request').length;
    files.push({ repo, file, items: items.length, pulls, commits: items.length - pulls });
  }
  const manifest: CorpusManifest = { seed: corpus.seed, count: corpus.count, copies: corpus.copies, sha256: hash.digest('hex'), files };
  await writeFile(join(dir, 'manifest.json'), JSON.stringify(manifest, null, 2));
  return manifest;
}
