/**
 * When validators are compiled: `chunkd serve` compiles every stop-at-first-error validator before
 * it listens (compileValidators) and the allErrors ones once it listens, one per turn of the event
 * loop (compileInTurns); a body refused before its turn still gets every problem listed.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Type } from '#typebox';
import { ChunkdError } from '../kernel/errors.js';
import { compileInTurns, compileValidator, compileValidators, uncompiledCounts } from '../kernel/validation.js';

const schema = (n: number) => Type.Object({ [`a${n}`]: Type.String(), [`b${n}`]: Type.Integer() });

test('compileValidators compiles the first mode of every validator; compileInTurns the allErrors mode, yielding between two', async () => {
  const validators = [1, 2, 3].map((n) => compileValidator<Record<string, unknown>>(schema(n)));
  const before = uncompiledCounts();
  assert.ok(before.first >= 3 && before.all >= 3, JSON.stringify(before));

  compileValidators();
  assert.equal(uncompiledCounts().first, 0, 'every stop-at-first-error validator compiled');
  assert.equal(uncompiledCounts().all, before.all, 'no allErrors validator compiled before listening');

  let between = -1;
  const compiled = compileInTurns(); // its first turn is queued now, so this one runs after it
  setImmediate(() => (between = uncompiledCounts().all));
  await compiled;
  assert.equal(uncompiledCounts().all, 0, 'every allErrors validator compiled');
  assert.ok(between > 0 && between < before.all, `a turn of the event loop ran between two compilations (${between} left then, of ${before.all})`);
  assert.deepEqual(validators[0]!({ a1: 'x', b1: 1 }), { a1: 'x', b1: 1 });
});

test('a body refused before its allErrors turn compiles its own and lists every problem', () => {
  const check = compileValidator(schema(4));
  compileValidators();
  assert.ok(uncompiledCounts().all > 0);
  assert.throws(
    () => check({ a4: 1, b4: 'x' }),
    (e: unknown) =>
      e instanceof ChunkdError &&
      JSON.stringify((e.detail as { loc: unknown[] }[]).map((i) => i.loc).sort()) ===
        JSON.stringify([
          ['body', 'a4'],
          ['body', 'b4'],
        ]),
  );
  assert.equal(uncompiledCounts().all, 0, 'its allErrors validator was compiled by the refusal');
});
