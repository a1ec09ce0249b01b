/**
 * The validators compiled when dist/ is built (dist/kernel/validators/, scripts/validators.mjs):
 * one for every schema a server makes at start-up, in both modes, each answering as the validator
 * compiled at run time answers (valid or not, the same errors, the same defaults filled in).
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import type AjvCompilerFactory from '@fastify/ajv-compiler';
import { ROOT } from '../kernel/paths.js';
import { compilerOptions, madeSchemas, validatorKey } from '../kernel/validation.js';
import { boot } from '../server/boot.js';
import { silentLogger } from '../service/logger.js';
import { resolveSettings } from '../service/settings.js';

type Validate = ((data: unknown) => boolean) & { errors?: unknown[] | null };
const BUILT = join(ROOT, 'dist/kernel/validators');
const require = createRequire(import.meta.url);

/** Values every validator is tried on: most are refused, some pass and get their defaults. */
const SAMPLES: unknown[] = [
  {},
  [],
  null,
  'text',
  7,
  true,
  { text: 7 },
  { text: 'a' },
  { name: '' },
  { chunks: [{}] },
  { steps: [{ type: 'nope' }] },
  { a: 1, b: [1, 'x'] },
];

test(
  'every schema a server makes at start-up has a built validator in each mode, answering as one compiled now',
  { skip: !existsSync(BUILT) && 'dist/ is not built (npm test builds it)' },
  async () => {
    const built = (key: string): Validate | undefined => (existsSync(join(BUILT, `${key}.cjs`)) ? (require(join(BUILT, `${key}.cjs`)) as Validate) : undefined);
    const factory = (require('@fastify/ajv-compiler') as typeof AjvCompilerFactory)();
    const dataDir = mkdtempSync(join(tmpdir(), 'chunkd-validators-test-'));
    const booted = await boot(resolveSettings({ 'data-dir': dataDir, workers: '0' }, {}), silentLogger);
    try {
      const schemas = madeSchemas();
      assert.ok(schemas.length >= 40, `a server makes its validators at start-up (${schemas.length})`);
      let compared = 0;
      for (const allErrors of [false, true]) {
        const compile = factory({}, { customOptions: compilerOptions(allErrors) }) as (route: { schema: unknown }) => Validate;
        for (const schema of schemas) {
          const key = validatorKey(allErrors, schema);
          const ours = built(key);
          assert.ok(ours, `no built validator for ${key}: ${JSON.stringify(schema).slice(0, 200)}`);
          const fresh = compile({ schema });
          for (const sample of SAMPLES) {
            const [a, b] = [structuredClone(sample), structuredClone(sample)];
            assert.equal(ours(a), fresh(b), `${key} on ${JSON.stringify(sample)}`);
            assert.equal(JSON.stringify(ours.errors ?? null), JSON.stringify(fresh.errors ?? null), `${key}'s errors on ${JSON.stringify(sample)}`);
            assert.deepEqual(a, b, `${key}'s defaults on ${JSON.stringify(sample)}`);
            compared++;
          }
        }
      }
      assert.equal(compared, schemas.length * 2 * SAMPLES.length);
    } finally {
      await booted.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  },
);
