import { createServer, type AddressInfo, type Socket } from 'node:net';
import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite/vector';
import { PGLiteSocketHandler } from '@electric-sql/pglite-socket';
import type { Engine } from './handshake-suite.js';
import { WholeMessages } from './pg-frames.js';

/**
 * A real PostgreSQL engine with the pgvector extension (PGlite, in this process), served over the
 * PostgreSQL wire protocol on 127.0.0.1 at a free port. PGlite runs one session: each connection
 * holds it until it closes (the next one waits), so connect with a pool of 1. pglite-socket's
 * handler speaks the protocol, fed whole messages (see WholeMessages) rather than TCP reads.
 */
export async function pgliteEngine(): Promise<Engine & { url: string }> {
  const db = await PGlite.create({ extensions: { vector } });
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    // The handler needs only a socket's stream surface, which WholeMessages gives.
    void new PGLiteSocketHandler({ db, closeOnDetach: true }).attach(new WholeMessages(socket) as unknown as Socket).catch(() => socket.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `postgres://postgres:postgres@127.0.0.1:${(server.address() as AddressInfo).port}/postgres`;
  return {
    url,
    config: { url, pool_size: 1 },
    async stop() {
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => server.close(resolve));
      await db.close();
    },
  };
}
