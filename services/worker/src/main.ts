import { createServer } from 'node:http';
import { ConfigError, createLogger, createRuntime, loadConfig, startJobs } from '@engram/runtime';

/**
 * `npm run worker`: the distributed worker. Takes jobs from BullMQ (REDIS_URL is required), serves
 * `/healthz` and `/readyz` on PORT for the orchestrator, and drains running jobs on SIGTERM.
 */
async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig({ ...process.env, ENGRAM_ROLE: 'worker' });
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message);
      process.exit(2);
    }
    throw err;
  }
  const logger = createLogger({ level: config.logLevel, name: 'engram-worker' });
  const runtime = await createRuntime(config, logger);
  const jobs = await startJobs(runtime);
  const health = createServer((req, res) => {
    if (req.url === '/healthz') {
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok"}');
      return;
    }
    if (req.url === '/readyz') {
      void runtime.ready().then((ok) => res.writeHead(ok ? 200 : 503, { 'content-type': 'application/json' }).end(JSON.stringify({ status: ok ? 'ready' : 'unavailable' })));
      return;
    }
    res.writeHead(404).end();
  }).listen(config.port, config.host);
  logger.info({ port: config.port, queue: runtime.queue.kind }, 'engram worker started');

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'worker shutting down: draining running jobs');
    setTimeout(() => process.exit(1), config.shutdownTimeoutMs + 5_000).unref();
    runtime.markDraining();
    await jobs.stop();
    await runtime.close();
    health.close();
    logger.info('worker stopped');
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
