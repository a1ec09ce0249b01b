/**
 * The job body splitters against JSON.parse: any body, cut into chunks anywhere, gives the same
 * fields and documents as parsing it whole; a body JSON.parse refuses is refused, one it takes is
 * taken. (The splitter never holds more than one document of the body.)
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { JsonJobSplitter, NdjsonJobSplitter, type JobPiece } from '../wire/job-split.js';

function split(splitter: JsonJobSplitter | NdjsonJobSplitter, bytes: Buffer, cuts: number[]): JobPiece[] {
  const out: JobPiece[] = [];
  let at = 0;
  for (const c of [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b)) {
    out.push(...splitter.write(bytes.subarray(at, c)));
    at = c;
  }
  out.push(...splitter.write(bytes.subarray(at)), ...splitter.end());
  return out;
}

const text = fc.string({ unit: fc.constantFrom('a', ' ', '"', '\\', '{', '}', '[', ']', ',', ':', '\n', 'é', '日', '🙂') });
const body = fc.record({
  steps: fc.array(fc.record({ type: fc.constant('chunk'), chunker: fc.constantFrom('token', 'recursive') }), { maxLength: 2 }),
  documents: fc.array(fc.record({ id: fc.option(text, { nil: undefined }), text }, { requiredKeys: ['text'] }), { maxLength: 6 }),
  extra: fc.option(fc.jsonValue(), { nil: undefined }),
});

test('JSON: chunked anywhere, the same fields and documents as JSON.parse gives', () => {
  fc.assert(
    fc.property(body, fc.constantFrom(0, 2), fc.array(fc.nat(), { maxLength: 8 }), (b, indent, cuts) => {
      const bytes = Buffer.from(JSON.stringify(b, null, indent));
      fc.pre(!bytes.includes('"__proto__"')); // refused on purpose, as the small-body reader refuses it
      const pieces = split(new JsonJobSplitter(), bytes, cuts);
      assert.deepEqual(
        pieces.filter((p) => p.kind === 'error'),
        [],
      );
      const parsed = JSON.parse(bytes.toString());
      assert.deepEqual(
        pieces.filter((p) => p.kind === 'document').map((p) => (p as { value: unknown }).value),
        parsed.documents,
      );
      const fields = Object.fromEntries(pieces.filter((p) => p.kind === 'field').map((p) => [(p as { key: string }).key, (p as { value: unknown }).value]));
      delete parsed.documents;
      assert.deepEqual(fields, parsed);
    }),
    { numRuns: 300 },
  );
});

test('JSON: a body with one byte removed or changed is refused exactly when JSON.parse refuses it', () => {
  fc.assert(
    fc.property(body, fc.nat(), fc.constantFrom('', ',', '}', ']', '"', ':', 'x', '{'), fc.array(fc.nat(), { maxLength: 4 }), (b, at, by, cuts) => {
      const good = JSON.stringify(b);
      const i = at % good.length;
      const bad = good.slice(0, i) + by + good.slice(i + 1);
      let valid = true;
      let value: any;
      try {
        value = JSON.parse(bad);
      } catch {
        valid = false;
      }
      // Shapes the splitter refuses on purpose although they are JSON: not an object, a repeated key, a key named __proto__.
      if (valid && (value === null || typeof value !== 'object' || Array.isArray(value) || /"__proto__"/.test(bad))) return;
      if (valid && new Set(Object.keys(value)).size !== (bad.match(/^\{|,"/g) ?? []).length) return;
      const errors = split(new JsonJobSplitter(), Buffer.from(bad), cuts).filter((p) => p.kind === 'error');
      assert.equal(errors.length === 0, valid, `${bad} → ${JSON.stringify(errors)}`);
    }),
    { numRuns: 500 },
  );
});

test('JSON: no documents list, a field that is not one, empty bodies and data after the end', () => {
  const errors = (s: string) => split(new JsonJobSplitter(), Buffer.from(s), []).filter((p) => p.kind === 'error').length;
  assert.equal(errors('{"documents": []}'), 0);
  assert.equal(errors('\uFEFF{"documents": []}'), 0);
  assert.equal(errors(''), 1);
  assert.equal(errors('[]'), 1);
  assert.equal(errors('{"documents": []} x'), 1);
  assert.equal(errors('{"documents": [], "documents": []}'), 1);
  assert.equal(errors('{"__proto__": {}, "documents": []}'), 1);
  assert.equal(errors('{"documents": [{"text": "a", "__proto__": {"x": 1}}]}'), 1);
});

test('NDJSON: lines cut anywhere; the first is the header, each later one a document, bad lines reported by number', () => {
  fc.assert(
    fc.property(body, fc.array(fc.nat(), { maxLength: 8 }), (b, cuts) => {
      const lines = [JSON.stringify({ steps: b.steps }), ...b.documents.map((d) => JSON.stringify(d))];
      const pieces = split(new NdjsonJobSplitter(), Buffer.from(`${lines.join('\n')}\n\nnot json\n`), cuts);
      const plain = (v: unknown) => JSON.parse(JSON.stringify(v));
      assert.deepEqual(pieces[0], { kind: 'header', value: plain({ steps: b.steps }), loc: ['body', 1] });
      assert.deepEqual(
        pieces.filter((p) => p.kind === 'document').map((p) => (p as { value: unknown }).value),
        plain(b.documents),
      );
      assert.deepEqual(
        pieces.filter((p) => p.kind === 'error').map((p) => p.loc),
        [['body', lines.length + 2]],
      );
    }),
    { numRuns: 200 },
  );
});
