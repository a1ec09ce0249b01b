/**
 * Connection fields are refused by an allowlist (service/stores/refuse.ts): a key a body's schema
 * does not name is refused with the connection message, whatever its spelling, script or depth;
 * where the schema leaves an object open, keys are compared folded, at any depth.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { discover } from '../kernel/discovery.js';
import { checkWriteStep } from '../service/pipelines/write-step.js';
import { connectionFieldIssues, fold } from '../service/stores/refuse.js';
import type { Issue } from '../kernel/errors.js';
import { EvaluateRequest } from '../wire/evaluation.js';
import { StoreSearch } from '../wire/stores.js';

const registry = await discover();
const CONNECTION = /a request names a store connection .* never a URL, host, path or credential/;
/** Nested `depth` objects deep under `key`, holding a URL. */
const deep = (depth: number, key = 'a'): Record<string, unknown> => (depth === 0 ? { url: 'http://169.254.169.254/' } : { [key]: deep(depth - 1, key) });

const refusedAt = (issues: Issue[], loc: (string | number)[]) =>
  assert.ok(
    issues.some((i) => JSON.stringify(i.loc) === JSON.stringify(loc) && CONNECTION.test(i.msg) && i.type === 'connection_field'),
    `${JSON.stringify(loc)} in ${JSON.stringify(issues)}`,
  );

const search = { collection: 'docs', query: 'x', k: 5 };

test('a search body: every key its schema does not name is refused, spelled however, nested however deep', () => {
  for (const key of ['api-key', 'database-url', 'connection-string', 'base_url', 'ｕｒｌ', 'urі', 'Ρassword', 'anything']) {
    const issues = connectionFieldIssues({ ...search, [key]: 'http://10.0.0.1/' }, StoreSearch, registry);
    refusedAt(issues, ['body', key]);
    assert.ok(!JSON.stringify(issues).includes('10.0.0.1'), 'the value is never echoed');
  }
  refusedAt(connectionFieldIssues({ ...search, filter: { document: 'd', ...deep(6) } }, StoreSearch, registry), ['body', 'filter', 'a']);
  assert.deepEqual(connectionFieldIssues({ ...search, filter: { document: 'd' } }, StoreSearch, registry), []);
});

test('a write step: a key of neither a step nor the write config is refused, at any depth', () => {
  for (const config of [
    { collection: 'docs', 'api-key': 'x' },
    { collection: 'docs', ｈｏｓｔ: 'x' },
    { collection: 'docs', opts: deep(7) },
  ]) {
    const issues: Issue[] = [];
    const at = (...rest: (string | number)[]) => ['body', 'steps', 1, ...rest];
    assert.equal(checkWriteStep({ type: 'write', store: 'default', config }, at, undefined, issues), undefined);
    refusedAt(issues, at('config', Object.keys(config)[1]!));
  }
});

test("an evaluation through a store: the body's own keys are held to its schema; a question's own keys are compared folded, at any depth", () => {
  const body = {
    documents: [{ id: 'd', text: 'x' }],
    questions: [{ question: 'q', references: [], note: 'kept', extra: { inner: deep(8, 'b') } }],
    candidates: [[{ type: 'chunk', chunker: 'token', config: { chunk_size: 8, 'Base-URL': 'http://x/' } }]],
    retriever: 'store:default',
    'api-key': null,
  };
  const issues = connectionFieldIssues(body, EvaluateRequest, registry);
  refusedAt(issues, ['body', 'api-key']);
  refusedAt(issues, ['body', 'candidates', 0, 0, 'config', 'Base-URL']);
  refusedAt(issues, ['body', 'questions', 0, 'extra', 'inner', ...Array(8).fill('b'), 'url']);
  assert.equal(issues.length, 3, JSON.stringify(issues));
});

test('fold: compatibility forms, case, separators and look-alike letters read as the Latin key', () => {
  for (const [key, folded] of [
    ['API-Key', 'apikey'],
    ['ｕｒｌ', 'url'],
    ['urі', 'uri'],
    ['раsswоrd', 'password'],
    ['database_URL', 'databaseurl'],
  ] as const)
    assert.equal(fold(key), folded, key);
});
