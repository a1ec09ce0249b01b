/**
 * The floors of the tree: kernel → plugins → service → server | cli. Every import of every .ts file
 * under these folders is read and checked against the floor it may stand on, so an import that runs
 * back up (or a Koa import in service/) fails here, whichever file adds it.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { test } from 'node:test';
import { ROOT } from '../kernel/paths.js';

const FLOORS = ['kernel', 'plugins', 'service', 'server', 'cli'] as const;
type Floor = (typeof FLOORS)[number];

/** What each floor must not import: a folder of ours, or an npm package (by name, or a name pattern). */
const FORBIDDEN: Record<Floor, { folders: Floor[]; packages?: RegExp }> = {
  kernel: { folders: ['plugins', 'service', 'server', 'cli'], packages: KOA() },
  plugins: { folders: ['service', 'server', 'cli'], packages: KOA() },
  service: { folders: ['server', 'cli'], packages: KOA() },
  server: { folders: ['cli'] },
  cli: { folders: ['server'], packages: KOA() },
};

/** cli/ starts the server for `chunkd serve`: that entry is the one file of server/ it may import. */
const ALLOWED = new Set(['cli -> server/serve.ts']);

function KOA(): RegExp {
  return /^(koa|@koa\/.+|koa-.+)$/;
}

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return e.name === 'node_modules' ? [] : tsFiles(path);
    return e.name.endsWith('.ts') ? [path] : [];
  });
}

/** Every module specifier of a source: static imports and re-exports, side-effect imports, dynamic import() of a literal. */
export function specifiers(source: string): string[] {
  const out: string[] = [];
  const patterns = [/\b(?:import|export)\s[^'"`;]*?\bfrom\s*['"]([^'"]+)['"]/g, /\bimport\s*['"]([^'"]+)['"]/g, /\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)/g];
  for (const p of patterns) for (const m of source.matchAll(p)) out.push(m[1]!);
  return out;
}

const packageName = (spec: string) => (spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!);

/** The violations in one file, as readable lines. */
export function violations(file: string, source: string): string[] {
  const floor = relative(ROOT, file).split(sep)[0] as Floor;
  const rule = FORBIDDEN[floor];
  const found: string[] = [];
  for (const spec of specifiers(source)) {
    const shown = `${relative(ROOT, file)} imports '${spec}'`;
    if (spec.startsWith('.')) {
      const target = relative(ROOT, join(dirname(file), spec)).split(sep).join('/').replace(/\.js$/, '.ts');
      const to = target.split('/')[0] as Floor;
      if (rule.folders.includes(to) && !ALLOWED.has(`${floor} -> ${target}`)) found.push(`${shown}: ${floor}/ must not import ${to}/`);
    } else if (!spec.startsWith('node:') && rule.packages?.test(packageName(spec))) {
      found.push(`${shown}: ${floor}/ must not use ${packageName(spec)} (HTTP lives in server/)`);
    }
  }
  return found;
}

test('every import points down the floors: kernel → plugins → service → server | cli', () => {
  const files = FLOORS.flatMap((f) => tsFiles(join(ROOT, f)));
  assert.ok(files.length > 100, `only ${files.length} .ts files found under ${FLOORS.join(', ')}`);
  assert.deepEqual(files.flatMap((f) => violations(f, readFileSync(f, 'utf8'))), []);
});

test('the check sees each kind of violation', () => {
  const at = (path: string) => join(ROOT, path);
  assert.equal(violations(at('service/x.ts'), "import type { Context } from 'koa';").length, 1);
  assert.equal(violations(at('service/x.ts'), "import Router from '@koa/router';").length, 1);
  assert.equal(violations(at('service/jobs/x.ts'), "import { a } from '../../server/app.js';").length, 1);
  assert.equal(violations(at('kernel/x.ts'), "const m = await import('../plugins/a/index.js');").length, 1);
  assert.equal(violations(at('plugins/a/impl.ts'), "export { b } from '../../service/settings.js';").length, 1);
  assert.equal(violations(at('cli/x.ts'), "import { createApp } from '../server/app.js';").length, 1);
  assert.equal(violations(at('cli/x.ts'), "import { serve } from '../server/serve.js';").length, 0);
  assert.equal(violations(at('server/x.ts'), "import { assemble } from '../service/assembly.js';").length, 0);
  assert.equal(violations(at('service/x.ts'), "import pg from 'pg';").length, 0);
});

/**
 * A plugin stands on kernel/index.ts alone, and never on another plugin: shared code lives in the
 * kernel. A plugin's own files import each other freely; its tests may import more.
 */
export function pluginViolations(file: string, source: string): string[] {
  const rel = relative(ROOT, file).split(sep);
  if (rel[0] !== 'plugins' || rel.length < 3 || file.endsWith('.test.ts')) return [];
  const own = `plugins/${rel[1]}/`;
  const found: string[] = [];
  for (const spec of specifiers(source)) {
    if (!spec.startsWith('.')) continue;
    const target = relative(ROOT, join(dirname(file), spec)).split(sep).join('/').replace(/\.js$/, '.ts');
    if (target.startsWith(own) || target === 'kernel/index.ts') continue;
    found.push(`${relative(ROOT, file)} imports '${spec}': a plugin imports the kernel through kernel/index.ts only, and no other plugin`);
  }
  return found;
}

test('a plugin imports kernel/index.ts and its own files only', () => {
  const files = tsFiles(join(ROOT, 'plugins'));
  assert.deepEqual(files.flatMap((f) => pluginViolations(f, readFileSync(f, 'utf8'))), []);
  const at = (path: string) => join(ROOT, path);
  assert.equal(pluginViolations(at('plugins/a/impl.ts'), "import { x } from '../../kernel/index.js';").length, 0);
  assert.equal(pluginViolations(at('plugins/a/impl.ts'), "import { x } from './helper.js';").length, 0);
  assert.equal(pluginViolations(at('plugins/a/impl.ts'), "import { x } from '../../kernel/chef/decode.js';").length, 1);
  assert.equal(pluginViolations(at('plugins/a/index.ts'), "import { X } from '../b/index.js';").length, 1);
  assert.equal(pluginViolations(at('plugins/a/impl.ts'), "const m = await import('../b/impl.js');").length, 1);
  assert.equal(pluginViolations(at('plugins/a/a.test.ts'), "import { x } from '../../kernel/run.js';").length, 0);
});
