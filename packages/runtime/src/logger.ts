import pino, { type Logger } from 'pino';

export type { Logger };

/** Keys whose values never reach a log line, wherever they appear. */
export const REDACT_PATHS = [
  'token',
  '*.token',
  'apiKey',
  '*.apiKey',
  'key',
  '*.key',
  'password',
  '*.password',
  'secret',
  '*.secret',
  'webhookSecret',
  '*.webhookSecret',
  'authorization',
  '*.authorization',
  'req.headers.authorization',
  'req.headers["x-hub-signature-256"]',
  'headers.authorization',
  'credentials',
  '*.credentials',
];

export function createLogger(options: { level?: string; name?: string; destination?: pino.DestinationStream } = {}): Logger {
  return pino(
    {
      name: options.name ?? 'engram',
      level: options.level ?? 'info',
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      formatters: { level: (label) => ({ level: label }) },
      hooks: {
        // Large values are truncated so one huge body never floods the log.
        logMethod(args, method) {
          method.apply(
            this,
            args.map((a) => (typeof a === 'string' && a.length > 2000 ? `${a.slice(0, 2000)}…[${a.length - 2000} more chars]` : a)) as Parameters<typeof method>,
          );
        },
      },
    },
    options.destination,
  );
}
