import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite/vector';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import type { Engine } from './handshake-suite.js';

/**
 * A real PostgreSQL engine with the pgvector extension (PGlite, in this process), served over the
 * PostgreSQL wire protocol on 127.0.0.1 at a free port. It takes one client connection at a time:
 * connect with a pool of 1.
 */
export async function pgliteEngine(): Promise<Engine & { url: string }> {
  const db = await PGlite.create({ extensions: { vector } });
  const server = new PGLiteSocketServer({ db, host: '127.0.0.1', port: 0 });
  await server.start();
  const url = `postgres://postgres:postgres@${server.getServerConn()}/postgres`;
  return {
    url,
    config: { url, pool_size: 1 },
    async stop() {
      await server.stop();
      await db.close();
    },
  };
}
