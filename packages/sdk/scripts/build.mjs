// Builds the publishable SDK into dist/: its JS and declarations (tsc), plus the declarations of the
// @engram/contracts types it names, which are emitted into dist/contracts/ and referenced relatively. The
// SDK imports contracts for types only, so the tarball needs no @engram package at all: only zod (whose
// types the contract declarations name).
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const dir = fileURLToPath(new URL('..', import.meta.url));
const dist = join(dir, 'dist');
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');

rmSync(dist, { recursive: true, force: true });
for (const project of ['tsconfig.build.json', 'tsconfig.contracts.json']) {
  execFileSync(process.execPath, [tsc, '-p', project], { cwd: dir, stdio: 'inherit' });
}

const files = (d) => readdirSync(d, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(join(d, e.name)) : [join(d, e.name)]));
for (const file of files(dist)) {
  if (!file.endsWith('.d.ts') || file.startsWith(join(dist, 'contracts'))) continue;
  const text = readFileSync(file, 'utf8');
  writeFileSync(file, text.replaceAll(/(['"])@engram\/contracts\1/g, "'./contracts/index.js'"));
}
const left = files(dist).filter((f) => !f.endsWith('.map') && /['"]@engram\//.test(readFileSync(f, 'utf8')));
if (left.length) {
  console.error(`dist still names an @engram package (not installable outside the monorepo): ${left.join(', ')}`);
  process.exit(1);
}
