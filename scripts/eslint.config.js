// The plan of the tree, checked on every import (npm run lint; npm test runs it first). It lives with
// the other tooling, so every ESLint call names it: eslint --config scripts/eslint.config.js.
// Floors read bottom up: kernel → plugins | wire → service → server | cli (wire stands on the kernel alone). A plugin stands on
// kernel/index.ts alone; no import circle anywhere. Tests may import anything.
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import tseslint from 'typescript-eslint';
import importX, { createNodeResolver } from 'eslint-plugin-import-x';

const plugins = readdirSync(new URL('../plugins/', import.meta.url), { withFileTypes: true })
  .filter((e) => e.isDirectory())
  .map((e) => e.name);

const koa = { regex: '^(koa|@koa/.+|koa-.+)$', message: 'HTTP lives in server/: take what the route read as arguments.' };
const typebox = { regex: '^typebox(/.*)?$', message: "import '#typebox' (package.json imports): the build gives it as one module, loaded far faster." };

/** A zone: files under `target` must not import files under any of `from` (paths from the root). */
const zone = (target, from, message, except) => ({ target, from, message, ...(except ? { except } : {}) });

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'bench/.cache/**', '**/*.js', '**/*.mjs', '**/*.cjs'] },
  {
    files: ['**/*.ts', '**/*.tsx'],
    languageOptions: { parser: tseslint.parser, parserOptions: { ecmaVersion: 'latest', sourceType: 'module' } },
    plugins: { 'import-x': importX, '@typescript-eslint': tseslint.plugin },
    settings: {
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts', '.tsx'] },
      'import-x/extensions': ['.ts', '.tsx', '.js'],
      'import-x/resolver-next': [createNodeResolver({ extensions: ['.ts', '.tsx', '.js', '.json', '.node'], extensionAlias: { '.js': ['.ts', '.tsx', '.js'] } })],
    },
    rules: {
      'no-restricted-imports': ['error', { patterns: [typebox] }],
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
      'import-x/no-self-import': 'error',
      'import-x/no-duplicates': 'error',
      'no-debugger': 'error',
      'no-dupe-keys': 'error',
      'no-unreachable': 'error',
      'no-constant-condition': ['error', { checkLoops: false }],
    },
  },
  {
    files: ['kernel/**/*.ts', 'plugins/**/*.ts', 'wire/**/*.ts', 'service/**/*.ts', 'server/**/*.ts', 'cli/**/*.ts'],
    ignores: ['**/*.test.ts'],
    rules: {
      'import-x/no-restricted-paths': [
        'error',
        {
          // Zones are paths from the package root, wherever ESLint runs from (the rule's default is the process's directory).
          basePath: fileURLToPath(new URL('..', import.meta.url)),
          zones: [
            zone('./kernel', ['./plugins', './wire', './service', './server', './cli'], 'the kernel stands on nothing of ours'),
            zone('./plugins', ['./wire', './service', './server', './cli'], 'a plugin stands on kernel/index.ts alone'),
            zone('./plugins', ['./kernel'], 'a plugin imports the kernel through kernel/index.ts only', ['./index.ts']),
            ...plugins.map((p) => zone(`./plugins/${p}`, ['./plugins'], 'a plugin imports no other plugin: shared code lives in the kernel', [`./${p}`])),
            zone('./wire', ['./plugins', './service', './server', './cli'], 'the wire (request and response schemas) stands on the kernel only'),
            zone('./service', ['./server', './cli'], 'service/ is what chunkd does, with no HTTP and no CLI'),
            zone('./server', ['./cli'], 'server/ and cli/ are two surfaces side by side'),
            zone('./cli', ['./server'], 'cli/ starts the server through server/serve.ts only', ['./serve.ts']),
          ],
        },
      ],
    },
  },
  {
    files: ['kernel/**/*.ts', 'plugins/**/*.ts', 'wire/**/*.ts', 'service/**/*.ts', 'cli/**/*.ts'],
    ignores: ['**/*.test.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [koa, typebox] }] },
  },
);
