import type { Server } from 'node:http';
import { createLogger, createRuntime, loadConfigOrExit, onShutdownSignal, runMain, startJobs } from '@engram/runtime';
import { closeAppLimits, createApp } from './app.js';
import { trackConnections } from './http/draining.js';
import { listen } from './http/server.js';
import { allRoutes } from './routes/index.js';

/**
 * `npm start`: the api. With no REDIS_URL (the embedded default) it also runs every job handler
 * in-process, so one process serves and indexes.
 */
runMain(async () => {
  const config = loadConfigOrExit(process.env);
  const logger = createLogger({ level: config.logLevel, name: 'engram-api' });
  const runtime = await createRuntime(config, logger);
  const jobs = config.role === 'all' ? await startJobs(runtime) : null;
  const app = createApp(runtime, allRoutes(runtime));
  // A client that trickles its headers or body cannot hold a connection open for long (http/server.ts).
  const server: Server = await listen(app, config.http, config.port, config.host);
  const connections = trackConnections(server);
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const base = `http://localhost:${port}`;
  logger.info({ port, database: runtime.db.kind, vectors: runtime.vectors.kind, queue: runtime.queue.kind, role: config.role }, 'engram listening');
  if (runtime.admin.created && runtime.admin.token) {
    process.stdout.write(
      [
        '',
        `Engram is running at ${base} (data in ${config.dataDir})`,
        `Admin token (saved to ${config.dataDir}/admin-token): ${runtime.admin.token}`,
        'Try:',
        `  curl -s -X POST ${base}/admin/workspaces -H "Authorization: Bearer ${runtime.admin.token}" -H 'content-type: application/json' -d '{"name":"my-team"}'`,
        '',
      ].join('\n'),
    );
  }

  onShutdownSignal(logger, config.shutdownTimeoutMs + 5_000, async () => {
    // Readiness fails first, then HTTP stops taking requests, then workers drain, then stores close.
    runtime.markDraining();
    // Every response from now on says `Connection: close`: a keep-alive connection closes after its
    // in-flight request; new connections are refused; one idle for a short grace is closed. Requests
    // still running at half the deadline are cut, so workers and stores have the other half.
    app.locals.draining = true;
    await connections.drain({ idleGraceMs: Math.min(1_000, config.http.keepAliveTimeoutMs), cutAfterMs: Math.floor(config.shutdownTimeoutMs / 2) });
    logger.info('http closed');
    await jobs?.stop();
    await closeAppLimits(app);
    await runtime.close();
  });
});
