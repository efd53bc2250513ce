import { createServer } from 'node:http';
import { createLogger, createRuntime, loadConfigOrExit, onShutdownSignal, runMain, startJobs } from '@engram/runtime';

/**
 * `npm run worker`: the distributed worker. Takes jobs from BullMQ (REDIS_URL is required), serves
 * `/healthz` and `/readyz` on PORT for the orchestrator, and drains running jobs on SIGTERM.
 */
runMain(async () => {
  const config = loadConfigOrExit({ ...process.env, ENGRAM_ROLE: 'worker' });
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

  onShutdownSignal(logger, config.shutdownTimeoutMs + 5_000, async () => {
    runtime.markDraining();
    await jobs.stop();
    await runtime.close();
    health.close();
  });
});
