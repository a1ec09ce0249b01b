/**
 * What a worker thread loads: its entry imports the kernel's validation module (through the
 * registry) and compiles no validator, so Ajv, ~0.1 s of CPU to load, stays unloaded until the
 * first compile. This file runs in a process of its own, as every test file does.
 */
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { test } from 'node:test';
import { Type } from '#typebox';

const required = createRequire(import.meta.url).cache;
const ajvLoaded = () => Object.keys(required).some((file) => /[\\/]node_modules[\\/](ajv|@fastify[\\/]ajv-compiler)[\\/]/.test(file));

test("the worker's entry loads no Ajv; the first validator used loads it", async () => {
  await import('../kernel/engine/placement/worker.js');
  assert.equal(ajvLoaded(), false, 'Ajv was loaded with the worker entry');
  const { compileValidator } = await import('../kernel/validation.js');
  assert.deepEqual(compileValidator(Type.Object({ a: Type.String() }))({ a: 'x' }), { a: 'x' });
  assert.equal(ajvLoaded(), true, 'the check sees Ajv once a validator is compiled');
});
