import { ConfigError, loadConfig, type Config } from './config.js';
import type { Logger } from './logger.js';

/** Parses the environment, or prints every problem and exits 2 (a configuration error, not a crash). */
export function loadConfigOrExit(env: Record<string, string | undefined>): Config {
  try {
    return loadConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message);
      process.exit(2);
    }
    throw err;
  }
}

/**
 * Runs `stop` once on SIGTERM or SIGINT, then exits 0; exits 1 if it overruns the deadline. `stop`
 * carries the service's fixed order (readiness fails first, then HTTP, then workers, then stores).
 */
export function onShutdownSignal(logger: Logger, deadlineMs: number, stop: (signal: string) => Promise<void>): void {
  let stopping = false;
  const handle = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    setTimeout(() => {
      logger.error('shutdown deadline passed; exiting');
      process.exit(1);
    }, deadlineMs).unref();
    stop(signal).then(
      () => {
        logger.info('stopped');
        process.exit(0);
      },
      (err: unknown) => {
        logger.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => handle('SIGTERM'));
  process.on('SIGINT', () => handle('SIGINT'));
}

/** Runs a service's main; an unexpected start-up failure is printed and exits 1. */
export function runMain(main: () => Promise<void>): void {
  main().catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
}
