// The dependency rules of the workspaces, checked by `npm run lint`:
//  1. layers: a workspace imports only workspaces of a lower layer (LAYERS below);
//  2. declared: every @engram/* a workspace imports is in its package.json `dependencies` (imports from
//     tests only may be in `devDependencies`, and so may a published workspace's type-only imports, whose
//     declarations its build copies into dist), with version "*" in a private workspace (the workspace's
//     own copy, whatever its version);
//  3. exports: every path a package.json `exports` names exists;
//  4. no import cycle between the files of one workspace (relative imports, `import type` included:
//     a type-only cycle is still two files that cannot be understood apart);
//  5. tests live in a workspace's `test/` folder: no test file under any `src/` (CONTRIBUTING.md, "Tests");
//  6. bench/ imports the workspaces by name (`@engram/x`, or a subpath its `exports` names), never by a
//     relative path into a workspace's files.
// The root `test/` workspace (end-to-end tests, fake providers) is the top layer: it may import anything,
// and declares what it imports like every other workspace.
// Prints every problem and exits 1 when there is one.
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const root = new URL('..', import.meta.url).pathname;

/** Lowest first. A workspace may import only from a strictly lower layer. */
const LAYERS = [
  ['@engram/contracts', '@engram/text'],
  ['@engram/stores', '@engram/queue', '@engram/sdk', '@engram/mcp'],
  ['@engram/connectors', '@engram/indexer'],
  ['@engram/search'],
  ['@engram/runtime'],
  ['@engram/api', '@engram/worker', '@engram/cli'],
  ['@engram/test'],
];
const layerOf = new Map(LAYERS.flatMap((names, i) => names.map((n) => [n, i])));

/** `import ... from 'x'`, `export ... from "x"`, `import 'x'`, `import("x")`: the specifier, single- or double-quoted. */
const IMPORT = /(?:^|[\s;])(?:import|export)\s+(?:type\s+)?(?:[^'";]*?\sfrom\s+)?(['"])([^'"]+)\1|import\(\s*(['"])([^'"]+)\3\s*\)/g;

/** A test file by its name: `x.test.ts`, `x.spec.mts`, ... */
const TEST_NAME = /\.(test|spec)\.[cm]?[jt]sx?$/;

/** Every file under `dir` whose name reads as a test, node_modules skipped. */
function testNamedFiles(dir) {
  if (!existsSync(dir)) return [];
  const out = [];
  for (const f of readdirSync(dir)) {
    const full = join(dir, f);
    if (f === 'node_modules') continue;
    if (statSync(full).isDirectory()) out.push(...testNamedFiles(full));
    else if (TEST_NAME.test(f)) out.push(full);
  }
  return out;
}

function tsFiles(dir) {
  if (!existsSync(dir)) return [];
  const out = [];
  for (const f of readdirSync(dir)) {
    const full = join(dir, f);
    if (f === 'node_modules') continue;
    if (statSync(full).isDirectory()) out.push(...tsFiles(full));
    else if (f.endsWith('.ts') && !f.endsWith('.d.ts')) out.push(full);
  }
  return out;
}

const isTestFile = (file) => /\.test\.ts$/.test(file) || /\/(test|testing)\//.test(file);

function importsOf(file) {
  const text = readFileSync(file, 'utf8');
  const out = [];
  for (const m of text.matchAll(IMPORT)) out.push(m[2] ?? m[4]);
  return out.filter(Boolean);
}

const TYPE_IMPORT = /(?:^|[\s;])(?:import|export)\s+type\s+[^'";]*?\sfrom\s+(['"])([^'"]+)\1/g;

/** Specifiers a file imports only as types (`import type`, `export type ... from`): erased from its JS. */
function typeOnlyImportsOf(file) {
  const text = readFileSync(file, 'utf8');
  const count = (specs) => specs.reduce((m, s) => m.set(s, (m.get(s) ?? 0) + 1), new Map());
  const all = count(importsOf(file));
  const types = count([...text.matchAll(TYPE_IMPORT)].map((m) => m[2]));
  return new Set([...types].filter(([spec, n]) => all.get(spec) === n).map(([spec]) => spec));
}

/** `./x.js` -> the .ts file it names inside the workspace, or null (a package or an asset). */
function resolveRelative(from, spec) {
  if (!spec.startsWith('.')) return null;
  const base = resolve(dirname(from), spec);
  for (const candidate of [base.replace(/\.js$/, '.ts'), `${base}.ts`, join(base, 'index.ts')]) {
    if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  }
  return null;
}

const workspaces = [];
for (const dir of ['packages', 'services']) {
  for (const d of readdirSync(join(root, dir))) {
    const pkgFile = join(root, dir, d, 'package.json');
    if (!existsSync(pkgFile)) continue;
    const wsDir = join(root, dir, d);
    workspaces.push({ dir: wsDir, pkg: JSON.parse(readFileSync(pkgFile, 'utf8')), files: [...tsFiles(join(wsDir, 'src')), ...tsFiles(join(wsDir, 'test'))] });
  }
}
// The root test/ workspace has no src/: every file in it is scanned.
const rootTest = join(root, 'test');
workspaces.push({ dir: rootTest, pkg: JSON.parse(readFileSync(join(rootTest, 'package.json'), 'utf8')), files: tsFiles(rootTest) });

/** The workspace directory a file lies in, or null. */
const workspaceOf = (file) => workspaces.find((w) => file.startsWith(`${w.dir}/`)) ?? null;

const problems = [];
const rel = (p) => relative(root, p);

for (const { dir, pkg, files } of workspaces) {
  const name = pkg.name;
  const layer = layerOf.get(name);
  if (layer === undefined) problems.push(`${name}: not in a layer; add it to LAYERS in scripts/check-deps.mjs`);
  const deps = new Set(Object.keys(pkg.dependencies ?? {}));
  const devDeps = new Set(Object.keys(pkg.devDependencies ?? {}));

  // 1 and 2: workspace imports. A published workspace (the SDK) may take a sibling it imports only as types
  // from devDependencies: its build emits those declarations into its dist (packages/sdk/scripts/build.mjs).
  for (const file of files) {
    const typeOnly = pkg.private ? new Set() : typeOnlyImportsOf(file);
    for (const spec of importsOf(file)) {
      const m = /^(@engram\/[a-z-]+)/.exec(spec);
      if (!m || m[1] === name) continue;
      const dep = m[1];
      const test = isTestFile(file);
      if (!test && layer !== undefined && layerOf.has(dep) && layerOf.get(dep) >= layer) {
        problems.push(`${rel(file)}: ${name} (layer ${layer}) imports ${dep} (layer ${layerOf.get(dep)}); imports go down the layers only`);
      }
      if (!deps.has(dep) && !((test || typeOnly.has(spec)) && devDeps.has(dep))) {
        problems.push(`${rel(file)}: imports ${dep}, which ${name}'s package.json does not declare (add "${dep}": "*" to ${test ? 'devDependencies' : 'dependencies'})`);
      }
    }
  }

  // 2, versions: a private workspace takes its siblings as they are.
  if (pkg.private) {
    for (const [dep, version] of Object.entries({ ...pkg.dependencies, ...pkg.devDependencies })) {
      if (dep.startsWith('@engram/') && version !== '*') problems.push(`${rel(join(dir, 'package.json'))}: ${dep} is "${version}"; a private workspace declares its siblings as "*"`);
    }
  }

  // 3: exports exist.
  const exportsField = typeof pkg.exports === 'string' ? { '.': pkg.exports } : (pkg.exports ?? {});
  for (const [subpath, target] of Object.entries(exportsField)) {
    // A conditional export names its source first (`development`); a build output (`dist/`) exists only after a build.
    const path = typeof target === 'string' ? target : (target?.development ?? target?.import ?? target?.default);
    if (typeof path === 'string' && !existsSync(join(dir, path))) problems.push(`${name}: exports "${subpath}" -> ${path}, which does not exist`);
  }

  // 4: no cycle between the workspace's own files.
  const graph = new Map(files.map((f) => [f, importsOf(f).map((s) => resolveRelative(f, s)).filter((t) => t && t.startsWith(dir))]));
  const state = new Map(); // 1 = on the current path, 2 = done
  const stack = [];
  const reported = new Set();
  const visit = (f) => {
    state.set(f, 1);
    stack.push(f);
    for (const t of graph.get(f) ?? []) {
      if (state.get(t) === 1) {
        const cycle = [...stack.slice(stack.indexOf(t)), t].map(rel);
        const key = [...cycle].sort().join();
        if (!reported.has(key)) {
          reported.add(key);
          problems.push(`import cycle: ${cycle.join(' -> ')}`);
        }
      } else if (!state.has(t)) visit(t);
    }
    stack.pop();
    state.set(f, 2);
  };
  for (const f of graph.keys()) if (!state.has(f)) visit(f);

  // 5: no test beside the code.
  for (const file of testNamedFiles(join(dir, 'src'))) {
    problems.push(`${rel(file)}: a test under src/; move it to ${rel(join(dir, 'test'))}/ (tests live in the package's test/ folder)`);
  }
}

// 6: the evaluation and benchmarks import the workspaces by name.
for (const file of tsFiles(join(root, 'bench'))) {
  for (const spec of importsOf(file)) {
    const target = resolveRelative(file, spec);
    const owner = target && workspaceOf(target);
    if (owner) problems.push(`${rel(file)}: imports ${spec}, a file of ${owner.pkg.name}; import it by name ("${owner.pkg.name}" or a subpath its package.json exports)`);
  }
}

if (problems.length) {
  console.error(problems.join('\n'));
  console.error(`dependency check: ${problems.length} problem(s)`);
  process.exit(1);
}
console.log(`dependency check: ${workspaces.length} workspaces; layers, declared dependencies, exports, file cycles, test locations and imports by name ok`);
