// Dependency direction is one way: services -> packages -> contracts. Fails on a cycle or an upward import.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const pkgs = new Map();
for (const dir of ['packages', 'services']) {
  for (const d of readdirSync(join(root, dir))) {
    const src = join(root, dir, d, 'src');
    try { statSync(src); } catch { continue; }
    const name = JSON.parse(readFileSync(join(root, dir, d, 'package.json'), 'utf8')).name;
    const imports = new Set();
    const walk = (p) => {
      for (const f of readdirSync(p)) {
        const full = join(p, f);
        if (statSync(full).isDirectory()) walk(full);
        else if (f.endsWith('.ts') && !f.endsWith('.test.ts')) {
          for (const m of readFileSync(full, 'utf8').matchAll(/from\s+'(@engram\/[a-z-]+)/g)) imports.add(m[1]);
        }
      }
    };
    walk(src);
    pkgs.set(name, { dir, imports });
  }
}
const problems = [];
for (const [name, { dir, imports }] of pkgs) {
  for (const dep of imports) {
    if (dep === name) continue;
    const target = pkgs.get(dep);
    if (!target) continue;
    if (dir === 'packages' && target.dir === 'services') problems.push(`${name} imports service ${dep}`);
    if (dir === 'services' && target.dir === 'services') problems.push(`${name} imports service ${dep}`);
    if (name === '@engram/contracts') problems.push(`contracts imports ${dep}`);
  }
}
// cycle check between packages
const visiting = new Set(), done = new Set();
const visit = (n, path) => {
  if (done.has(n)) return;
  if (visiting.has(n)) { problems.push(`cycle: ${[...path, n].join(' -> ')}`); return; }
  visiting.add(n);
  for (const d of pkgs.get(n)?.imports ?? []) if (d !== n && pkgs.has(d)) visit(d, [...path, n]);
  visiting.delete(n); done.add(n);
};
for (const n of pkgs.keys()) visit(n, []);
if (problems.length) { console.error(problems.join('\n')); process.exit(1); }
console.log(`dependency check: ${pkgs.size} workspaces, no cycles, direction services -> packages -> contracts`);
