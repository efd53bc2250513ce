/**
 * `npm run bench -- <name> [options]`: the one entry to the benchmarks. Without a name it lists them.
 * Each benchmark is a script that reads its own options from the command line; this passes the rest
 * of the arguments on as if the script had been run with `npx tsx`.
 */
import { BENCHMARKS } from './benchmarks.js';

const [name, ...rest] = process.argv.slice(2);
if (!name || name === '--help' || name === '-h') {
  console.log('usage: npm run bench -- <name> [options]\n');
  for (const [key, { about }] of Object.entries(BENCHMARKS)) console.log(`  ${key.padEnd(20)} ${about}`);
  process.exit(0);
}
const benchmark = BENCHMARKS[name];
if (!benchmark) {
  console.error(`unknown benchmark "${name}"; one of: ${Object.keys(BENCHMARKS).join(', ')}`);
  process.exit(2);
}
const script = new URL(benchmark.script, import.meta.url);
process.argv = [process.argv[0]!, script.pathname, ...rest];
await import(script.href);
