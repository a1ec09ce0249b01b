/** The WordLevel + BertPreTokenizer fast path gives exactly what @huggingface/tokenizers gives. */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { Tokenizer as HF } from '@huggingface/tokenizers';
import { ROOT } from '../kernel/paths.js';
import { loadHfTokenizer } from '../kernel/tokenizers/hf.js';
import { wordLevelFastPath } from '../kernel/tokenizers/word-level.js';
import { FIXTURES } from './helpers/fixtures.js';

const FILE = join(ROOT, 'plugins/embeddings/models/glove-sif-100d/tokenizer.json');
const json = JSON.parse(readFileSync(FILE, 'utf8'));
const library = new HF(json, { unk_token: json.model.unk_token }) as unknown as { encode(t: string, o?: object): { ids: (number | null)[] } };
const fast = (await loadHfTokenizer(FILE))!;
const libraryIds = (text: string) => library.encode(text, { add_special_tokens: false }).ids.map((id) => id ?? fast.unkId ?? 0);

function checkEnds(text: string): void {
  const ends = fast.ends(text);
  assert.equal(ends.length, fast.count(text));
  for (let k = 0; k < ends.length; k++) {
    assert.ok(k === 0 || ends[k]! >= ends[k - 1]!, 'ends are non-decreasing');
    const c = text.charCodeAt(ends[k]! - 1);
    assert.ok(!(c >= 0xd800 && c <= 0xdbff), 'an end never splits a surrogate pair');
  }
  if (ends.length) assert.equal(ends.at(-1), text.length);
}

describe('WordLevel fast path (the embedded model’s tokenizer.json)', () => {
  const texts = [...Object.values(FIXTURES), 'Hello, World! It’s 3.14 — naïve café.', 'ΟΔΟΣ’Α and İstanbul', 'tabs\tand\u3000ideographic space', ''];
  for (const text of texts) {
    test(`ids and count equal the library: ${JSON.stringify(text.slice(0, 30))}`, () => {
      assert.deepEqual(fast.ids(text), libraryIds(text));
      assert.equal(fast.count(text), libraryIds(text).length);
      checkEnds(text);
    });
  }

  test('property: any text', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit: 'grapheme', maxLength: 60 }), fc.string({ unit: 'binary', maxLength: 60 }), fc.lorem({ maxCount: 12 })), (text) => {
        assert.deepEqual(fast.ids(text), libraryIds(text));
        checkEnds(text);
      }),
      { numRuns: 400 },
    );
  });

  test('a literal added token ("[UNK]") goes to the library, which matches it first', () => {
    for (const text of ['a [UNK] b', 'x[unk]y']) assert.deepEqual(fast.ids(text), libraryIds(text));
  });

  test('other tokenizer.json shapes are left to the library', () => {
    const generic = fast;
    const shapes: [string, object][] = [
      ['WordPiece', { ...json, model: { ...json.model, type: 'WordPiece' } }],
      ['another pre-tokenizer', { ...json, pre_tokenizer: { type: 'Whitespace' } }],
      ['another normalizer', { ...json, normalizer: { type: 'NFKC' } }],
      ['a post-processor', { ...json, post_processor: { type: 'TemplateProcessing' } }],
    ];
    for (const [name, shape] of shapes) assert.equal(wordLevelFastPath(shape, generic), undefined, name);
  });
});
