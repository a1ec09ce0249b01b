import { randomUUID } from 'node:crypto';
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite/vector';
import { PGLiteSocketHandler } from '@electric-sql/pglite-socket';
import type { Engine } from './handshake-suite.js';
import { WholeMessages } from './pg-frames.js';
import { ROOT } from '../../kernel/paths.js';

const VERSION = (JSON.parse(readFileSync(join(ROOT, 'node_modules/@electric-sql/pglite/package.json'), 'utf8')) as { version: string }).version;
/** A just-made database's files, kept for every later test process of this PGlite version. */
const SNAPSHOT = join(ROOT, 'node_modules/.cache', `chunkd-pglite-${VERSION}.tar`);

/**
 * A database as PGlite makes it, from the snapshot of one it made before when there is one: making
 * one runs initdb in WebAssembly (~4.5 s of CPU), loading the snapshot ~1 s. The first process to
 * need one writes the snapshot (whole, then renamed: a reader never sees half of it).
 */
async function freshDatabase(): Promise<PGlite> {
  let snapshot: Buffer | undefined;
  try {
    snapshot = readFileSync(SNAPSHOT);
  } catch {
    // none yet
  }
  if (snapshot) {
    try {
      return await PGlite.create({ extensions: { vector }, loadDataDir: new Blob([snapshot]) });
    } catch {
      // unreadable: made again below, and the snapshot replaced
    }
  }
  const db = await PGlite.create({ extensions: { vector } });
  const dump = Buffer.from(await (await db.dumpDataDir('none')).arrayBuffer());
  const part = `${SNAPSHOT}.${randomUUID()}`;
  writeFileSync(part, dump);
  renameSync(part, SNAPSHOT);
  return db;
}

/**
 * A real PostgreSQL engine with the pgvector extension (PGlite, in this process), served over the
 * PostgreSQL wire protocol on 127.0.0.1 at a free port. PGlite runs one session: each connection
 * holds it until it closes (the next one waits), so connect with a pool of 1. pglite-socket's
 * handler speaks the protocol, fed whole messages (see WholeMessages) rather than TCP reads.
 */
export async function pgliteEngine(): Promise<Engine & { url: string }> {
  const db = await freshDatabase();
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
