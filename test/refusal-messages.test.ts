/**
 * A refusal names what the client sent and the setting behind it: a chef's 413 for a JSON `text`
 * speaks of that text (not of files to upload), a `__proto__` key in an evaluate body is named,
 * and evaluation's 413 for a candidate's chunks does not suggest NDJSON (which streams progress there).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { processWith as runChef } from './helpers/run.js';
import { discover } from '../kernel/discovery.js';
import { LIMIT_NAMES } from '../service/limits.js';
import { rejectsWith } from './helpers/env.js';
import { startApp, type TestApp } from './helpers/app.js';

describe('a chef given a JSON text', () => {
  test('past the text limit: a 413 about the JSON text, naming the setting, not files to upload', async () => {
    const chef = (await discover()).get('chef', 'markdown');
    const refused = runChef(chef, {}, { text: '# a heading\n' }, { limits: { maxTextChars: 5 }, limitNames: LIMIT_NAMES });
    await rejectsWith(
      refused,
      413,
      /^The JSON text makes more text characters than this server processes \(5, limit --max-text-chars, CHUNKD_MAX_TEXT_CHARS\): send a shorter text, or split it over several requests\.$/,
    );
  });

  test('the same limit for a file still speaks of the file', async () => {
    const chef = (await discover()).get('chef', 'markdown');
    const refused = runChef(chef, {}, { bytes: new TextEncoder().encode('# a heading\n'), filename: 'a.md' }, { limits: { maxTextChars: 5 } });
    await rejectsWith(refused, 413, /^The file has more text characters .*upload them one by one\.$/);
  });
});

describe('POST /v1/evaluate refusals', () => {
  let app: TestApp;
  const text = 'cats sleep dogs walk birds sing. '.repeat(40);
  const body = {
    documents: [{ id: 'pets', text }],
    questions: [{ question: 'dogs', references: [{ document: 'pets', start_index: 11, end_index: 15 }] }],
    candidates: [[{ type: 'chunk', chunker: 'token', config: { tokenizer: 'character', chunk_size: 4 } }]],
    k: 1,
  };
  before(async () => (app = await startApp({ 'max-output-bytes': '2000' })));
  after(() => app.close());

  test('a __proto__ key → 422 naming the key', async () => {
    const res = await fetch(`${app.url}/v1/evaluate`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: `{"__proto__": {"admin": true}, ${JSON.stringify(body).slice(1)}`,
    });
    const answer = (await res.json()) as { detail: { loc: string[]; msg: string }[] };
    assert.equal(res.status, 422);
    assert.deepEqual(answer.detail[0]!.loc, ['body', '__proto__']);
    assert.match(answer.detail[0]!.msg, /"__proto__" key/);
  });

  test("a candidate's chunks past --max-output-bytes → 413 naming the setting, without suggesting NDJSON", async () => {
    const res = await app.post('/v1/evaluate', body);
    assert.equal(res.status, 413, JSON.stringify(res.body));
    assert.match(
      res.body.detail,
      /^A candidate's chunks would take .* bytes of JSON; the limit is 2,000\. Evaluate fewer or shorter documents, or candidates with larger chunks, or raise --max-output-bytes \(CHUNKD_MAX_OUTPUT_BYTES\)\.$/,
    );
    assert.doesNotMatch(res.body.detail, /ndjson/i);
  });
});
