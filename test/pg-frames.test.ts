/** The test engine's framing (test/helpers/pg-frames.ts): PGlite is handed whole PostgreSQL messages, however TCP cuts them. */
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import type { Socket } from 'node:net';
import { test } from 'node:test';
import { WholeMessages } from './helpers/pg-frames.js';

/** An untyped (startup-phase) message: int32 length including itself, then the body. */
function untyped(code: number, body = Buffer.alloc(0)): Buffer {
  const head = Buffer.alloc(8);
  head.writeInt32BE(8 + body.length, 0);
  head.writeInt32BE(code, 4);
  return Buffer.concat([head, body]);
}

/** A typed message: one type byte, int32 length including itself but not the type, then the body. */
function typed(type: string, body: Buffer): Buffer {
  const head = Buffer.alloc(5);
  head.write(type, 0, 'latin1');
  head.writeInt32BE(4 + body.length, 1);
  return Buffer.concat([head, body]);
}

test('reads cut inside messages are held until each message is whole; reads holding several pass at once', async () => {
  const socket = new EventEmitter();
  const framed = new WholeMessages(socket as unknown as Socket);
  const seen: Buffer[] = [];
  framed.on('data', (d: Buffer) => seen.push(Buffer.from(d)));

  const ssl = untyped(80877103);
  const startup = untyped(196608, Buffer.from('user\0postgres\0\0'));
  const bind = typed('B', Buffer.alloc(200_000, 7));
  const sync = typed('S', Buffer.alloc(0));
  const query = typed('Q', Buffer.from('SELECT 1\0'));

  const reads = [
    ssl.subarray(0, 3),
    ssl.subarray(3),
    startup,
    bind.subarray(0, 65_536),
    bind.subarray(65_536, 131_072),
    Buffer.concat([bind.subarray(131_072), sync, query.subarray(0, 2)]),
    query.subarray(2),
  ];
  for (const r of reads) {
    socket.emit('data', r);
    // One read at a time, as TCP delivers them: 'data' events reach a listener on a later tick.
    await new Promise(setImmediate);
  }

  assert.deepEqual(seen, [ssl, startup, Buffer.concat([bind, sync]), query]);
});
