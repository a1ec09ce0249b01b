import { Duplex } from 'node:stream';
import type { Socket } from 'node:net';

/** Request codes a client sends before (or instead of) its startup message; the startup message follows them. */
const PRE_STARTUP = new Set([80877103 /* SSLRequest */, 80877104 /* GSSENCRequest */]);

/**
 * A socket whose 'data' events hold whole PostgreSQL frontend messages only. pglite-socket 0.0.13
 * hands each TCP read (at most 64 KiB) to PGlite as if it were complete messages; a message longer
 * than one read (a Bind of a few hundred vectors) is then cut, and PGlite's WASM engine aborts with
 * `RuntimeError: unreachable`. Bytes are held here until the message they belong to is complete.
 */
export class WholeMessages extends Duplex {
  private pending: Buffer = Buffer.alloc(0);
  private started = false;

  constructor(private readonly socket: Socket) {
    super();
    socket.on('data', (data) => this.receive(data));
    socket.on('end', () => this.push(null));
    socket.on('close', () => this.destroy());
    socket.on('error', (e) => this.destroy(e));
  }

  /** The length of the complete messages at the head of `pending`. */
  private completeLength(): number {
    let at = 0;
    for (;;) {
      const typed = this.started ? 1 : 0;
      if (this.pending.length < at + typed + 4) return at;
      const length = this.pending.readInt32BE(at + typed);
      if (this.pending.length < at + typed + length) return at;
      if (!this.started && !PRE_STARTUP.has(this.pending.readInt32BE(at + 4))) this.started = true;
      at += typed + length;
    }
  }

  private receive(data: Buffer) {
    this.pending = this.pending.length ? Buffer.concat([this.pending, data]) : data;
    const n = this.completeLength();
    if (!n) return;
    this.push(this.pending.subarray(0, n));
    this.pending = this.pending.subarray(n);
  }

  override _read() {}

  override _write(chunk: Buffer, _encoding: BufferEncoding, done: (e?: Error | null) => void) {
    this.socket.write(chunk, done);
  }

  override _final(done: () => void) {
    this.socket.end(done);
  }

  override _destroy(e: Error | null, done: (e: Error | null) => void) {
    this.socket.destroy();
    done(e);
  }
}
