import { createLogger, createRuntime, loadConfigOrExit, onShutdownSignal, runMain, startJobs } from '@engram/runtime';
import { createHealthServer } from './health.js';

/**
 * `npm run worker`: the distributed worker. Takes jobs from BullMQ (REDIS_URL is required), serves
 * `/healthz`, `/readyz` and `/metrics` (admin token) on PORT, and drains running jobs on SIGTERM.
 */
runMain(async () => {
  const config = loadConfigOrExit({ ...process.env, ENGRAM_ROLE: 'worker' });
  const logger = createLogger({ level: config.logLevel, name: 'engram-worker' });
  const runtime = await createRuntime(config, logger);
  // Before the jobs start, so the metrics observe the first job.
  const health = createHealthServer(runtime);
  const jobs = await startJobs(runtime);
  health.listen(config.port, config.host);
  logger.info({ port: config.port, queue: runtime.queue.kind }, 'engram worker started');

  onShutdownSignal(logger, config.shutdownTimeoutMs + 5_000, async () => {
    runtime.markDraining();
    await jobs.stop();
    await runtime.close();
    health.close();
  });
});
