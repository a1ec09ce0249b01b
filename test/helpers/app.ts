import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { boot, type Booted } from '../../server/boot.js';
import { silentLogger, type Logger } from '../../service/logger.js';
import { resolveSettings, type Settings } from '../../service/settings.js';
import { DEFAULT_MODEL as NEURAL_DEFAULT_MODEL } from '../../plugins/neural/index.js';
import { tinyHubCache } from './tiny-models.js';

// No trained token-classification model can be downloaded here: unless the environment names a
// Hugging Face cache, a tiny classifier (it splits after '.') answers to the neural chunker's
// default name, for every test that runs all chunkers with their defaults (this module's importers).
process.env.HF_HUB_CACHE ??= tinyHubCache([NEURAL_DEFAULT_MODEL]);

export interface Reply<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

export interface TestApp {
  booted: Booted;
  settings: Settings;
  url: string;
  request<T = any>(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<Reply<T>>;
  post<T = any>(path: string, body: unknown): Promise<Reply<T>>;
  close(): Promise<void>;
}

/**
 * The real app, booted in this process and served from the Koa callback on 127.0.0.1 with a fresh
 * data directory. `body` is sent as JSON unless it is a string (sent as is, for malformed-JSON tests).
 * Work runs inline unless `workers` is given: test/pool.test.ts covers the pool.
 */
export async function startApp(flags: Record<string, string | boolean> = {}, env: NodeJS.ProcessEnv = {}, logger: Logger = silentLogger): Promise<TestApp> {
  const dataDir = mkdtempSync(join(tmpdir(), 'chunkd-test-'));
  const settings = resolveSettings({ 'data-dir': dataDir, workers: '0', ...flags }, env);
  const booted = await boot(settings, logger);
  const server: Server = createServer(booted.app.koa.callback());
  // The test's client (fetch) and this server share one event loop. With a server idle timeout, a
  // stall of that loop (inline work with workers 0, a loaded machine) longer than it lets the
  // server's timer fire before the server has read a request the client already sent on the idle
  // connection (timers run before I/O): the server destroys the connection, the client gets
  // ECONNRESET. Without one, only the client closes idle connections (undici: after 4 s), so a
  // request can never cross the server's close; close() below ends the connections left.
  server.keepAliveTimeout = 0;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  async function request<T>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Reply<T>> {
    const init: RequestInit = { method, headers: { ...headers } };
    if (body !== undefined) {
      init.body = typeof body === 'string' ? body : JSON.stringify(body);
      (init.headers as Record<string, string>)['content-type'] ??= 'application/json';
    }
    const res = await fetch(url + path, init);
    const text = await res.text();
    let parsed: unknown = text;
    if ((res.headers.get('content-type') ?? '').includes('json') && text) parsed = JSON.parse(text);
    return { status: res.status, headers: res.headers, body: parsed as T };
  }

  return {
    booted,
    settings,
    url,
    request,
    post: (path, body) => request('POST', path, body),
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
      await booted.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
