/**
 * Upload admission (--max-upload-bytes-in-flight): every upload reserves its body before a byte of
 * it is read, over all uploads in flight; past the cap it is a 503 with Retry-After, answered
 * without reading the body (a chunked body is cut off as it passes the cap). The reservation is
 * given back on every way out: an answer, an error, a client that leaves. Judged by statuses, the
 * bytes the admission holds and the bytes the clients sent, never by time.
 */
import assert from 'node:assert/strict';
import { request, type ClientRequest, type IncomingMessage } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { UploadAdmission, uploadLimit } from '../service/files/admission.js';
import { AUTO_UPLOADS_IN_FLIGHT } from '../service/files/service.js';
import type { FileStore } from '../service/files/store.js';
import { resolveSettings } from '../service/settings.js';
import { startApp, type TestApp } from './helpers/app.js';

const B = 'AdmissionBoundary';
const FILE_BYTES = 256 * 1024;
const head = (filename = 'a.txt', type = 'text/plain') =>
  Buffer.from(`--${B}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\nContent-Type: ${type}\r\n\r\n`);
const tail = Buffer.from(`\r\n--${B}--\r\n`);
/** A whole multipart body holding one text file of `bytes` bytes. */
const bodyOf = (bytes: number, filename?: string, type?: string) => Buffer.concat([head(filename, type), Buffer.alloc(bytes, 'word '), tail]);
const BODY = bodyOf(FILE_BYTES);

interface Answer {
  status: number;
  headers: IncomingMessage['headers'];
  body: any;
}

/** One upload on its own connection, sent as the test says: the answer resolves whenever the server gives it. */
class RawUpload {
  readonly req: ClientRequest;
  readonly answer: Promise<Answer>;
  sent = 0;
  constructor(app: TestApp, headers: Record<string, string | number>) {
    this.req = request(`${app.url}/v1/files`, { method: 'POST', agent: false, headers: { 'content-type': `multipart/form-data; boundary=${B}`, ...headers } });
    this.answer = new Promise((resolve, reject) => {
      this.req.on('response', (res) => {
        const parts: Buffer[] = [];
        res.on('data', (b: Buffer) => parts.push(b));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: JSON.parse(Buffer.concat(parts).toString() || 'null') }));
      });
      // A connection the server cut (after its answer, or a client that left on purpose) is what the test judges, not an error.
      this.req.on('error', (e: NodeJS.ErrnoException) =>
        ['ECONNRESET', 'EPIPE'].includes(e.code ?? '') ? resolve({ status: 0, headers: {}, body: null }) : reject(e),
      );
    });
    this.req.flushHeaders();
  }
  write(bytes: Buffer): void {
    this.sent += bytes.length;
    this.req.write(bytes);
  }
  end(bytes?: Buffer): void {
    if (bytes) this.sent += bytes.length;
    this.req.end(bytes);
  }
}

/** With a Content-Length of the whole body, of which only `first` bytes are sent now. */
function started(app: TestApp, body: Buffer, first: number): RawUpload {
  const u = new RawUpload(app, { 'content-length': body.length });
  if (first > 0) u.write(body.subarray(0, first));
  return u;
}

const admissionOf = (app: TestApp) => app.booted.deps.services.uploads;

/** Waits until the admission holds `bytes` (an upload is read, stored or given up on its own schedule); fails after many looks rather than hang. */
async function held(app: TestApp, bytes: number): Promise<void> {
  const admission = admissionOf(app);
  for (let look = 0; look < 6000 && admission.held !== bytes; look++) await new Promise((r) => setTimeout(r, 5));
  assert.equal(admission.held, bytes, `the admission holds ${admission.held} bytes, expected ${bytes}`);
}

describe('UploadAdmission', () => {
  test('reserves up to the cap, refuses past it with 503 and Retry-After, and gives back once', () => {
    const a = new UploadAdmission(100);
    const r1 = a.admit(60);
    assert.equal(a.held, 60);
    assert.throws(
      () => a.admit(41),
      (e: any) => e.code === 'UNAVAILABLE' && e.status === 503 && e.headers['Retry-After'] === '1' && /--max-upload-bytes-in-flight/.test(e.message),
    );
    assert.equal(a.held, 60, 'a refused upload holds nothing');
    const r2 = a.admit(40);
    assert.equal(a.held, 100);
    r1.release();
    r1.release();
    assert.equal(a.held, 40, 'a second release gives back nothing');
    r2.cover(50);
    assert.equal(a.held, 50);
    assert.throws(
      () => r2.cover(101),
      (e: any) => e.code === 'TOO_LARGE' && e.status === 413,
      'more than the cap, even alone: a 413, not a 503',
    );
    assert.equal(a.held, 50);
    r2.release();
    assert.equal(a.held, 0);
  });

  test('a chunked body (no Content-Length) reserves nothing until it is read', () => {
    const a = new UploadAdmission(10);
    const r = a.admit(0);
    assert.equal(a.held, 0);
    r.cover(4);
    r.cover(3);
    assert.equal(r.bytes, 4);
    r.release();
    assert.equal(a.held, 0);
  });

  test('the default admits 4 uploads of the largest size', async () => {
    const app = await startApp();
    try {
      const expected = AUTO_UPLOADS_IN_FLIGHT * uploadLimit(resolveSettings({}, {}).maxFileBytes);
      assert.equal(admissionOf(app).capacity, expected);
      assert.ok(expected < 256 * 1024 * 1024);
    } finally {
      await app.close();
    }
  });
});

describe('POST /v1/files is admitted before its body is read', () => {
  const ADMITTED = 3;
  let app: TestApp;
  before(async () => (app = await startApp({ 'max-file-bytes': String(1024 * 1024), 'max-upload-bytes-in-flight': String(ADMITTED * BODY.length) })));
  after(() => app.close());

  test(`with room for ${ADMITTED} bodies, ${ADMITTED} of 8 concurrent uploads are read and stored, 5 are 503 with Retry-After before a byte is read`, async () => {
    const first = 1024;
    const admitted: RawUpload[] = [];
    for (let i = 0; i < ADMITTED; i++) {
      admitted.push(started(app, BODY, first));
      await held(app, (i + 1) * BODY.length);
    }
    // These send their headers and nothing more: a server that read (or waited for) their body would never answer.
    const refused = Array.from({ length: 5 }, () => started(app, BODY, 0));
    const answers = await Promise.all(refused.map((u) => u.answer));
    for (const a of answers) {
      assert.equal(a.status, 503, JSON.stringify(a.body));
      assert.equal(a.body.code, 'UNAVAILABLE');
      assert.match(a.body.detail, /--max-upload-bytes-in-flight/);
      assert.equal(a.headers['retry-after'], '1');
      assert.equal(a.headers.connection, 'close');
    }
    assert.deepEqual(
      refused.map((u) => u.sent),
      [0, 0, 0, 0, 0],
    );
    for (const u of refused) u.req.destroy();
    await held(app, ADMITTED * BODY.length);
    for (const u of admitted) u.end(BODY.subarray(first));
    const stored = await Promise.all(admitted.map((u) => u.answer));
    assert.deepEqual(
      stored.map((a) => a.status),
      [201, 201, 201],
      JSON.stringify(stored.map((a) => a.body)),
    );
    assert.deepEqual(
      stored.map((a) => a.body.size),
      [FILE_BYTES, FILE_BYTES, FILE_BYTES],
    );
    await held(app, 0);
    // The room is back: the next upload is read.
    const next = started(app, BODY, 0);
    next.end(BODY);
    assert.equal((await next.answer).status, 201);
    await held(app, 0);
  });

  test('a chunked body is cut off with 503 as it passes the cap, and what it held is given back', async () => {
    const holder = started(app, BODY, 1024);
    await held(app, BODY.length);
    const room = ADMITTED * BODY.length - BODY.length;
    const chunked = new RawUpload(app, { 'transfer-encoding': 'chunked' });
    chunked.write(head());
    const piece = Buffer.alloc(16 * 1024, 'chunk ');
    let answered: Answer | undefined;
    void chunked.answer.then((a) => (answered = a));
    // Sends until answered, at most 4 × the room: the server must refuse well before that.
    while (!answered && chunked.sent < 4 * room) {
      chunked.write(piece);
      await new Promise((r) => setImmediate(r));
    }
    const a = await chunked.answer;
    assert.equal(a.status, 503, JSON.stringify(a.body));
    assert.equal(a.headers['retry-after'], '1');
    assert.ok(chunked.sent > room, `cut off after ${chunked.sent} bytes, within the room of ${room}`);
    chunked.req.destroy();
    await held(app, BODY.length);
    holder.end(BODY.subarray(1024));
    assert.equal((await holder.answer).status, 201);
    await held(app, 0);
  });

  test('an upload larger than the cap alone is a 413 naming the setting, not a 503', async () => {
    const big = bodyOf(ADMITTED * BODY.length);
    const u = started(app, big, 0);
    const a = await u.answer;
    u.req.destroy();
    assert.equal(a.status, 413, JSON.stringify(a.body));
    assert.match(a.body.detail, /--max-upload-bytes-in-flight/);
    assert.equal(u.sent, 0);
    await held(app, 0);
  });

  test('no reservation is leaked by clients that leave, or by uploads that fail', async () => {
    // Clients that leave part-way through their body, all at once.
    const leaving = Array.from({ length: ADMITTED }, () => started(app, BODY, 64 * 1024));
    await held(app, ADMITTED * BODY.length);
    for (const u of leaving) u.req.destroy();
    await Promise.all(leaving.map((u) => u.answer));
    await held(app, 0);
    // A client that leaves after its whole body is sent (its upload is extracted and stored, or not, with nobody to answer).
    const files = async () => (await app.booted.deps.services.files.usage()).count;
    const stored = await files();
    const gone = started(app, BODY, 0);
    gone.end(BODY);
    // Held while it is read and stored; a fast server may store it before a look sees it held.
    for (let look = 0; look < 6000 && admissionOf(app).held !== BODY.length && (await files()) === stored; look++) await new Promise((r) => setTimeout(r, 5));
    assert.ok(admissionOf(app).held === BODY.length || (await files()) === stored + 1, 'the upload was admitted');
    gone.req.destroy();
    await held(app, 0);
    // Uploads refused on the way: a file past --max-file-bytes, a malformed body, a file no chef reads.
    const failing: [Buffer, number][] = [
      [bodyOf(1024 * 1024 + 1), 413],
      [Buffer.concat([head(), Buffer.from('no closing boundary')]), 422],
      [bodyOf(1000, 'picture.png', 'image/png'), 415],
    ];
    for (const [body, status] of failing) {
      const u = started(app, body, 0);
      u.end(body);
      const a = await u.answer;
      assert.ok(a.status === status || a.status === 0, `${a.status} ${JSON.stringify(a.body)}`);
      await held(app, 0);
    }
    // Every byte of the cap is free: as many uploads as it holds are stored at once.
    const full = Array.from({ length: ADMITTED }, () => started(app, BODY, 0));
    for (const u of full) u.end(BODY);
    assert.deepEqual(
      (await Promise.all(full.map((u) => u.answer))).map((a) => a.status),
      [201, 201, 201],
    );
    await held(app, 0);
  });
});

describe('refused uploads that send their whole body at once are answered', () => {
  let app: TestApp;
  // Larger than the socket buffers between client and server hold, so the client is still writing when it is answered.
  const BIG = bodyOf(8 * 1024 * 1024 - 1024);
  before(async () => (app = await startApp({ 'max-file-bytes': String(8 * 1024 * 1024), 'max-upload-bytes-in-flight': String(BIG.length) })));
  after(() => app.close());

  test('each of 6 uploads sent whole, without waiting, past a held reservation gets its 503 and Retry-After', async () => {
    const holder = started(app, BIG, 1024);
    await held(app, BIG.length);
    // Each client writes its whole body at once (as fetch does): the server answers first, closes its side, and reads what is still coming.
    const refused = Array.from({ length: 6 }, () => {
      const u = started(app, BIG, 0);
      u.end(BIG);
      return u;
    });
    const answers = await Promise.all(refused.map((u) => u.answer));
    assert.deepEqual(
      answers.map((a) => a.status),
      [503, 503, 503, 503, 503, 503],
    );
    assert.ok(answers.every((a) => a.headers['retry-after'] === '1'));
    holder.end(BIG.subarray(1024));
    assert.equal((await holder.answer).status, 201);
    await held(app, 0);
  });
});
