/**
 * The fake OpenAI-compatible server in a process of its own, as a remote provider would be: a benchmark
 * that also drives load (autocannon) must not answer the server's embedding calls from its own busy event
 * loop, or the server's latency measures the load generator. Run directly, this file serves the fake and
 * prints its URL on the first line of stdout.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { startFakeOpenAI } from '@engram/test/fakes';

export interface FakeOpenAIProcess {
  url: string;
  close(): Promise<void>;
}

export async function startFakeOpenAIProcess(options: { apiKey: string; dimensions: number }): Promise<FakeOpenAIProcess> {
  const child = spawn(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url), '--serve', '--api-key', options.apiKey, '--dims', String(options.dimensions)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the fake OpenAI server exited with ${code}`)));
    child.stdout.setEncoding('utf8').once('data', (chunk: string) => resolve(chunk.trim().split('\n')[0]!));
  });
  return {
    url,
    close: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({ options: { serve: { type: 'boolean' }, 'api-key': { type: 'string', default: 'bench' }, dims: { type: 'string', default: '1536' } } });
  if (values.serve) {
    const server = await startFakeOpenAI({ apiKey: values['api-key'], defaultDimensions: Number(values.dims) });
    console.log(server.url);
    process.on('SIGTERM', () => void server.close().then(() => process.exit(0)));
  }
}
