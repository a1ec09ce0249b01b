/** The one-line `message` every error body carries beside `detail` (kernel/errors.ts summary). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ChunkdError, summary, type Issue } from '../kernel/errors.js';

const issue = (loc: (string | number)[], msg: string, type = 'value_error'): Issue => ({ loc, msg, type });

test('a string detail is its own message', () => {
  assert.equal(summary('Unknown tokenizer.'), 'Unknown tokenizer.');
  assert.deepEqual(new ChunkdError('BAD_REQUEST', 'Unknown tokenizer.').toJSON(), {
    detail: 'Unknown tokenizer.',
    code: 'BAD_REQUEST',
    message: 'Unknown tokenizer.',
  });
});

test('a list: the first problem with its field (body/query dropped), and how many others follow', () => {
  assert.equal(summary([issue(['body', 'text'], 'Expected string')]), 'text: Expected string');
  assert.equal(
    summary([
      issue(['body', 'steps', 1, 'config', 'chunk_size'], 'chunk_size must be >= 1 (got 0)'),
      issue(['body', 'name'], 'x'),
      issue(['body', 'steps'], 'y'),
    ]),
    'steps.1.config.chunk_size must be >= 1 (got 0) (and 2 more problems)',
  );
  assert.equal(summary([issue(['query', 'limit'], 'limit must be <= 100'), issue(['query', 'cursor'], 'bad')]), 'limit must be <= 100 (and 1 more problem)');
  assert.equal(
    summary([issue(['body'], 'The body is not a valid JSON object: send one, e.g. {"text": "..."}.', 'json_invalid')]),
    'The body is not a valid JSON object: send one, e.g. {"text": "..."}.',
  );
  assert.equal(summary([issue(['body', 'delim', 3], 'Expected string')]), 'delim.3: Expected string');
});

test('a list cut short (too_many_errors) says more problems follow instead of a count', () => {
  const detail = [
    issue(['body', 'a'], 'a is bad'),
    issue(['body', 'b'], 'b is bad'),
    issue(['body'], '7 more problems were found and not listed', 'too_many_errors'),
  ];
  assert.equal(summary(detail), 'a is bad (and more problems: see detail)');
  assert.equal(summary([]), 'The request is invalid.');
});
