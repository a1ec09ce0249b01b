/** README.md is a front page and docs/ its reference: the shape issue 34 asks for, kept. */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { ROOT } from '../kernel/paths.js';

const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
const pages = readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md'));

test('README.md is a front page: at most 250 lines', () => {
  const lines = readme.split('\n').length - (readme.endsWith('\n') ? 1 : 0);
  assert.ok(lines <= 250, `README.md has ${lines} lines: move a section into docs/ and link it from the map`);
});

test("the README's map links every page of docs/", () => {
  const map = readme.slice(readme.indexOf('## Documentation'));
  for (const page of pages) assert.ok(map.includes(`](docs/${page})`), `the map in README.md has no line for docs/${page}`);
});

test('every page of docs/ opens with what the reader can do after reading it', () => {
  for (const page of pages) {
    const text = readFileSync(join(ROOT, 'docs', page), 'utf8');
    assert.match(text, /^# .+\n\nAfter reading this page you /, `docs/${page} should open with "After reading this page you …"`);
  }
});
