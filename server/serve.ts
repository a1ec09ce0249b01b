import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pagesOf } from './app.js';
import { boot, type Booted } from './boot.js';
import type { Logger } from '../service/logger.js';
import type { Settings } from '../service/settings.js';
import { compileInTurns, compileValidators } from '../kernel/validation.js';

export interface Running {
  server: Server;
  port: number;
  booted: Booted;
  /** The pages for a browser, by short name (for the start-up line, service/startup-line.ts). */
  pages: Record<string, string>;
  /** Graceful stop: refuse new work, let in-flight requests finish within the grace period, close resources. */
  stop(reason: string): Promise<void>;
}

/**
 * Boot and listen. Everything `chunkd serve` does except reading arguments and handling signals.
 * A database out of reach at start-up does not stop it: it listens (/health 200, /ready 503) and
 * finishes opening once the database answers. A failure retrying cannot fix (a schema newer than
 * this chunkd) found then stops the server and calls `onFatal` (by default: exit with status 1).
 */
export async function serve(settings: Settings, logger: Logger, onFatal: (e: Error) => void = () => process.exit(1)): Promise<Running> {
  const booted = await boot(settings, logger);
  compileValidators(); // every request schema, before the first request (the allErrors ones once it listens)
  // Koa checks each answer's body against `Response`, and Node loads its fetch implementation on that
  // global's first read (75-85 ms in a CPU profile): paid here, not by the first request's answer.
  void globalThis.Response;
  const server = createServer(booted.app.koa.callback());
  // Node's 5 s default is shorter than a proxy's idle timeout: the proxy would reuse connections chunkd has closed.
  // (headersTimeout needs no change: since Node 18 it counts from a request's first byte, not from the idle time.)
  server.keepAliveTimeout = settings.keepAliveTimeoutMs;
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(settings.port, settings.host, resolve);
    });
  } catch (e) {
    await booted.close();
    const code = (e as { code?: string }).code;
    if (code === 'EADDRINUSE') throw new Error(`Port ${settings.port} on ${settings.host} is in use: stop the other server or choose another with --port.`);
    if (code === 'EACCES') throw new Error(`No permission to listen on port ${settings.port}: choose a port above 1023 with --port.`);
    throw e;
  }
  const { port } = server.address() as AddressInfo; // the bound port, also when --port 0 asked for any
  logger.log('info', 'listening', {
    url: `http://${settings.host}:${port}`,
    port,
    workers: booted.deps.executor.threads,
    plugins: booted.deps.registry.routed().map((p) => p.route),
  });
  // The stores' engines load now, not in the first request that uses them (HandshakeImpl.warm).
  void booted.deps.services.stores?.warm();
  void compileInTurns();

  let stopping: Promise<void> | undefined;
  const stop = (reason: string) =>
    (stopping ??= (async () => {
      booted.deps.draining = true;
      logger.log('info', 'shutting down', { reason, grace_ms: settings.shutdownGraceMs });
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      // Idle keep-alive connections go now; busy ones end with their answer (Connection: close, see draining.ts).
      server.closeIdleConnections();
      const timer = setTimeout(() => {
        logger.log('warning', 'grace period over: closing the connections still open');
        server.closeAllConnections();
      }, settings.shutdownGraceMs);
      await closed;
      clearTimeout(timer);
      await booted.close();
      logger.log('info', 'stopped', { reason });
    })());
  booted.ready.catch((e: Error) => {
    logger.log('error', 'cannot open the database; stopping', { error: e.message });
    void stop('start-up failed').then(() => onFatal(e));
  });
  return { server, port, booted, pages: pagesOf(booted.app.routes), stop };
}
