/**
 * A multipart upload is read up to the file limit plus framing, counted over the whole body: a
 * preamble, a text field or a tail after the closing boundary that never ends is cut off with a
 * 413 once the count passes the limit. Judged by the bytes the server pulled from the client.
 */
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { Readable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { uploadLimit } from '../service/files/admission.js';
import { startApp, type TestApp } from './helpers/app.js';

const B = 'XyZboundary';
const FILE_LIMIT = 64 * 1024;
/** What the client would send at most: far past the limit, so a server reading it all is seen. */
const SEND_MAX = 256 * 1024 * 1024;
/** Socket buffers between the client and the server (both sides, loopback) hold at most about this. */
const IN_FLIGHT = 32 * 1024 * 1024;

/**
 * POST `head`, then `filler` repeated until the server answers (or SEND_MAX is sent), chunked;
 * answers the status, the body and how many bytes the server pulled from the request stream.
 */
function endless(app: TestApp, head: string, filler: string): Promise<{ status: number; body: any; pulled: number }> {
  // status 0: the connection was closed before the answer could be read.
  const piece = Buffer.from(filler.repeat(Math.ceil(65536 / filler.length)));
  let pulled = 0;
  let answered = false;
  const body = new Readable({
    read() {
      if (answered || pulled >= SEND_MAX) return void this.push(null);
      const chunk = pulled === 0 ? Buffer.concat([Buffer.from(head), piece]) : piece;
      pulled += chunk.length;
      this.push(chunk);
    },
  });
  return new Promise((resolve, reject) => {
    const req = request(
      `${app.url}/v1/files`,
      { method: 'POST', headers: { 'content-type': `multipart/form-data; boundary=${B}`, 'transfer-encoding': 'chunked' } },
      (res) => {
        answered = true;
        const at = pulled;
        const parts: Buffer[] = [];
        res.on('data', (b: Buffer) => parts.push(b));
        res.on('end', () => {
          req.destroy();
          resolve({ status: res.statusCode!, body: JSON.parse(Buffer.concat(parts).toString() || 'null'), pulled: at });
        });
      },
    );
    // A server that stops reading and closes may reach the client as EPIPE or ECONNRESET before its
    // answer does (the client is still writing): the connection was cut off, which is what is judged.
    req.on('error', (e: NodeJS.ErrnoException) => {
      if (answered) return;
      if (e.code === 'EPIPE' || e.code === 'ECONNRESET') resolve({ status: 0, body: null, pulled });
      else reject(e);
    });
    body.pipe(req);
  });
}

const filePart = `--${B}\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\nContent-Type: text/plain\r\n\r\nhello\r\n`;

describe('multipart bodies are never read past their limit', () => {
  let app: TestApp;
  before(async () => (app = await startApp({ 'max-file-bytes': String(FILE_LIMIT) })));
  after(() => app.close());

  const cases: [string, string, string][] = [
    ['data after the closing boundary', `${filePart}--${B}--\r\n`, 'tail '],
    ['a preamble before the first part', '', 'preamble '],
    ['a text field', `--${B}\r\nContent-Disposition: form-data; name="purpose"\r\n\r\n`, 'field '],
    ['a part other than file', `--${B}\r\nContent-Disposition: form-data; name="other"; filename="b.txt"\r\n\r\n`, 'other '],
  ];
  for (const [what, head, filler] of cases) {
    test(`endless ${what} → 413 naming the limit, the rest never read`, async () => {
      const res = await endless(app, head, filler);
      if (what === 'a part other than file' || res.status === 0) {
        // Refused as soon as the part is seen, before any count (or the answer lost to the cut connection): still never read to the end.
        assert.ok([0, 413, 422].includes(res.status), JSON.stringify(res.body));
      } else {
        assert.equal(res.status, 413, JSON.stringify(res.body));
        assert.equal(res.body.code, 'TOO_LARGE');
        assert.match(res.body.detail, /--max-file-bytes/);
      }
      assert.ok(res.pulled <= uploadLimit(FILE_LIMIT) + IN_FLIGHT, `the server pulled ${res.pulled} bytes; the limit is ${uploadLimit(FILE_LIMIT)}`);
      assert.ok(res.pulled < SEND_MAX);
    });
  }

  test('a body within the limit with small fields around the file is still read whole', async () => {
    const body = `preamble\r\n--${B}\r\nContent-Disposition: form-data; name="purpose"\r\n\r\nchunking\r\n${filePart}--${B}--\r\nepilogue`;
    const res = await fetch(`${app.url}/v1/files`, { method: 'POST', body, headers: { 'content-type': `multipart/form-data; boundary=${B}` } });
    assert.equal(res.status, 201, await res.text());
  });

  test('the server answers the next request after cutting one off', async () => {
    await endless(app, `${filePart}--${B}--\r\n`, 'tail ');
    assert.equal((await app.request('GET', '/health')).status, 200);
  });
});
