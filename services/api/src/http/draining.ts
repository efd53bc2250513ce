/**
 * Graceful HTTP shutdown under keep-alive load. Once the app is draining, every response carries
 * `Connection: close`, so a keep-alive connection closes right after its in-flight request. The
 * listener stops accepting (new connections are refused), and a connection that stays idle for a short
 * grace is closed by the server; one that was mid-request is left to finish. `server.close()` is not
 * used: it closes idle sockets at once, resetting a request a client sent a moment before.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { Server as NetServer, type Socket } from 'node:net';
import type { RequestHandler } from 'express';

export const closeWhenDraining: RequestHandler = (req, res, next) => {
  if (req.app.locals.draining === true) res.setHeader('Connection', 'close');
  next();
};

interface Tracked {
  inFlight: number;
  lastActive: number;
}

export interface ConnectionDrainer {
  /** Stops accepting, closes connections as they turn idle, cuts what is left at `cutAfterMs`. */
  drain(options: { idleGraceMs: number; cutAfterMs: number }): Promise<void>;
}

export function trackConnections(server: Server): ConnectionDrainer {
  const sockets = new Map<Socket, Tracked>();
  server.on('connection', (socket: Socket) => {
    sockets.set(socket, { inFlight: 0, lastActive: Date.now() });
    socket.once('close', () => sockets.delete(socket));
  });
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const t = sockets.get(req.socket);
    if (!t) return;
    t.inFlight++;
    t.lastActive = Date.now();
    res.once('close', () => {
      t.inFlight--;
      t.lastActive = Date.now();
    });
  });
  return {
    drain({ idleGraceMs, cutAfterMs }) {
      return new Promise<void>((resolve) => {
        const started = Date.now();
        // net.Server's close: stop listening, leave open connections alone; fires once all are closed.
        NetServer.prototype.close.call(server, () => {
          clearInterval(sweep);
          resolve();
        });
        const sweep = setInterval(() => {
          const now = Date.now();
          for (const [socket, t] of sockets) {
            if (now - started >= cutAfterMs) socket.destroy();
            else if (t.inFlight === 0 && now - t.lastActive >= idleGraceMs) socket.end();
          }
        }, Math.max(10, Math.min(100, idleGraceMs / 4)));
      });
    },
  };
}
