/**
 * A server of the build validates with the validators the build compiled (dist/kernel/validators,
 * linked into the tests' tree): compiling every validator a booted server makes, as `chunkd serve`
 * does before it listens, loads no Ajv compiler. This file runs in a process of its own, so nothing
 * else has loaded Ajv.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { compileValidators, uncompiledCounts } from '../kernel/validation.js';
import { boot } from '../server/boot.js';
import { silentLogger } from '../service/logger.js';
import { resolveSettings } from '../service/settings.js';

const required = createRequire(import.meta.url).cache;
const compilerLoaded = () => Object.keys(required).some((file) => /[\\/]node_modules[\\/](ajv[\\/]dist[\\/]core|@fastify[\\/]ajv-compiler[\\/])/.test(file));
const built = existsSync(new URL('../kernel/validators/', import.meta.url));

test(
  'a booted server compiles its validators without Ajv: each is the one the build compiled',
  { skip: !built && 'dist/ is not built (npm test builds it)' },
  async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'chunkd-validators-used-'));
    const booted = await boot(resolveSettings({ 'data-dir': dataDir, workers: '0' }, {}), silentLogger);
    try {
      assert.ok(uncompiledCounts().first >= 40, `validators made at start-up (${uncompiledCounts().first})`);
      compileValidators();
      assert.equal(uncompiledCounts().first, 0);
      assert.equal(compilerLoaded(), false, "Ajv's compiler was loaded: a validator the build made was compiled again");
    } finally {
      await booted.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  },
);
