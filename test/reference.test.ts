/**
 * Golden cases answered by the reference server (test/fixtures/reference-cases.json: requests and
 * the chunks it returned, only where our documented behaviour equals the reference's). Each case
 * must be reproduced exactly: text, offsets, token_count, and context for the overlap refinery.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { startApp, type TestApp } from './helpers/app.js';

interface Case {
  kind: string;
  route: string;
  body: Record<string, unknown>;
  expect: [string, number, number, number, (string | null)?][];
}
const CASES = JSON.parse(readFileSync(new URL('./fixtures/reference-cases.json', import.meta.url), 'utf8')) as Case[];

let app: TestApp;
before(async () => (app = await startApp()));
after(async () => app.close());

for (const kind of new Set(CASES.map((c) => c.kind))) {
  const cases = CASES.filter((c) => c.kind === kind);
  describe(`reference goldens: ${kind}`, () => {
    cases.forEach((c, i) => {
      const { text, chunks, ...config } = c.body;
      test(`case ${i + 1}: ${JSON.stringify(config)}`, async () => {
        const res = await app.post(c.route, c.body);
        assert.equal(res.status, 200, JSON.stringify(res.body));
        const got = (res.body as Record<string, unknown>[]).map((ch) => {
          const row = [ch.text, ch.start_index, ch.end_index, ch.token_count];
          return c.expect[0]!.length > 4 ? [...row, ch.context ?? null] : row;
        });
        assert.deepEqual(got, c.expect);
        if (typeof text === 'string') for (const ch of res.body) assert.equal([...text].slice(ch.start_index, ch.end_index).join(''), ch.text);
        if (Array.isArray(chunks)) assert.equal(res.body.length, chunks.length);
      });
    });
  });
}
