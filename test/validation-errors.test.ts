/**
 * A 422 lists at most MAX_ISSUES problems and counts the rest, however many a body holds, and is
 * built in time linear in the errors (the 30,000-bad-chunks body took ~30 s and answered 3.2 MB).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { FULL_REPORT_MAX_VALUES, MAX_ISSUES } from '../kernel/validation.js';
import { startApp, type TestApp } from './helpers/app.js';

let app: TestApp;
before(async () => (app = await startApp()));
after(async () => app.close());

const CHUNK = { text: 'a', start_index: 0, end_index: 1, token_count: 1 };

describe('validation errors are capped, with a count of the rest', () => {
  test('a small body with many bad values: MAX_ISSUES listed, then one entry counting the others', async () => {
    const res = await app.post('/v1/refine/overlap', { chunks: Array.from({ length: 1000 }, () => 1) });
    assert.equal(res.status, 422);
    assert.equal(res.body.detail.length, MAX_ISSUES + 1);
    assert.deepEqual(
      res.body.detail.slice(0, MAX_ISSUES).map((d: { loc: unknown[] }) => d.loc),
      Array.from({ length: MAX_ISSUES }, (_, i) => ['body', 'chunks', i]),
    );
    const last = res.body.detail.at(-1);
    assert.equal(last.type, 'too_many_errors');
    assert.match(last.msg, new RegExp(`^${(1000 - MAX_ISSUES).toLocaleString('en')} more problems were found`));
  });

  test(`a body of more than ${FULL_REPORT_MAX_VALUES} values is not searched for every problem: the first one, and a note`, async () => {
    const res = await app.post('/v1/refine/overlap', { chunks: Array.from({ length: 30_000 }, () => 1) });
    assert.equal(res.status, 422);
    assert.ok(JSON.stringify(res.body).length < 2_000, `${JSON.stringify(res.body).length} bytes`);
    assert.deepEqual(res.body.detail[0].loc, ['body', 'chunks', 0]);
    assert.equal(res.body.detail.at(-1).type, 'too_many_errors');
    assert.match(res.body.detail.at(-1).msg, /Only the first problem is listed/);
  });

  test('each failed union is explained on its own item: a chunk missing a field next to a number gets both issues', async () => {
    const res = await app.post('/v1/refine/overlap', { chunks: [{ ...CHUNK, start_index: undefined }, 7, CHUNK] });
    assert.equal(res.status, 422);
    assert.deepEqual(
      res.body.detail.map((d: { loc: unknown[]; type: string }) => [d.loc, d.type]),
      [
        [['body', 'chunks', 0, 'start_index'], 'missing'],
        [['body', 'chunks', 1], 'anyOf'],
      ],
    );
  });

  test('the value shown in a message is a short preview, whatever its size or depth', async () => {
    const res = await app.post('/v1/chunk/token', { text: 'abc', chunk_size: { a: 'x'.repeat(100_000), b: Array.from({ length: 10_000 }, () => [1]) } });
    assert.equal(res.status, 422);
    const msg: string = res.body.detail[0].msg;
    assert.ok(msg.length < 200, msg);
    assert.match(msg, /\(got \{"a":"xxx/);
  });
});
