/**
 * `npx tsx bench/scale/encoder-alone.ts <corpus file> [--n 1000]`: the bundled encoder's own throughput on the
 * first `n` items of a generated corpus file, as the scale benchmark measures it before its offline run. For
 * measuring it again on an idle machine when the benchmark's own measurement ran under other load.
 */
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import type { SourceCommit, SourcePull } from './generate.js';
import { encoderThroughput } from './run.js';

const { values, positionals } = parseArgs({ allowPositionals: true, options: { n: { type: 'string', default: '1000' } } });
const file = positionals[0];
if (!file) throw new Error('usage: encoder-alone.ts <corpus file> [--n 1000]');
const items = JSON.parse(await readFile(file, 'utf8')) as (SourcePull | SourceCommit)[];
console.log(JSON.stringify(await encoderThroughput(items.slice(0, Number(values.n)))));
process.exit(0);
