import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { rejectsWith } from '../../test/helpers/env.js';
import { processWith } from '../../test/helpers/chefs.js';

const utf8 = (s: string) => new TextEncoder().encode(s);

describe('text chef', () => {
  const cases: [string, string | Uint8Array, string][] = [
    ['a text is kept as it is', 'a\r\nb  ', 'a\r\nb  '],
    ['source code bytes are decoded as UTF-8', utf8('def f():\n    return "🦛"\n'), 'def f():\n    return "🦛"\n'],
    ['a UTF-8 BOM is dropped', new Uint8Array([0xef, 0xbb, 0xbf, 0x41]), 'A'],
    ['an empty file is an empty text', new Uint8Array(), ''],
  ];
  for (const [name, input, text] of cases) {
    test(name, async () => {
      const doc = await processWith('text', input);
      assert.equal(doc.text, text);
      assert.deepEqual(Object.values(doc.structure).flat(), []);
    });
  }

  test('bytes that are not UTF-8 → 422 saying to save as UTF-8', async () => {
    await rejectsWith(processWith('text', new Uint8Array([0xff, 0xfe, 0x41])), 422, /not valid UTF-8/);
  });
});
