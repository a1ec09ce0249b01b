/**
 * Rewrite the derived tables in README.md, docs/ and the plugin READMEs (`npm run docs`): the
 * routes, plugins, errors, formats, settings and client models, the request examples with the
 * answers of a real run, and each plugin's config table. test/parity.test.ts fails when one is out
 * of step.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { hubCacheDir } from '../kernel/model-files.js';
import { moduleBeside, ROOT } from '../kernel/paths.js';
import { runExamples } from './doc-examples.js';
import { EXAMPLES_FILE, makeExampleAnswers } from '../server/openapi-examples.js';
import { GENERATED } from './docs-examples.js';
import { presetsTable } from './presets-table.js';
import { boot } from '../server/boot.js';
import { configTable, errorsTable, formatsTable, pluginsTable, replaceBetween, routesTable, settingsTable } from './doc-tables.js';
import { silentLogger } from '../service/logger.js';
import { clientModelsTable } from '../kernel/embeddings/known-models.js';
import { resolveSettings } from '../service/settings.js';

/**
 * The page of README.md and docs/ whose markers hold a table, so a table moves with its section:
 * README.md when none has them yet (the run then asks for markers), an error when two have.
 */
export function pageHolding(marker: string): string {
  const pages = [
    join(ROOT, 'README.md'),
    ...readdirSync(join(ROOT, 'docs'))
      .filter((f) => f.endsWith('.md'))
      .map((f) => join(ROOT, 'docs', f)),
  ];
  const holding = pages.filter((f) => readFileSync(f, 'utf8').includes(`<!-- ${marker}:start -->`));
  if (holding.length > 1) throw new Error(`The ${marker} table has markers in ${holding.map((f) => relative(ROOT, f)).join(' and ')}: keep them in one page.`);
  return holding[0] ?? pages[0]!;
}

/** The marker of a file written whole (the OpenAPI response examples), not a table between markers. */
export const WHOLE_FILE = '';

/** A derived table put between its markers, or the whole file's text for WHOLE_FILE. */
export const withTable = (doc: string, marker: string, table: string): string | undefined =>
  marker === WHOLE_FILE ? table : replaceBetween(doc, marker, table);

export async function derivedTables(): Promise<[file: string, marker: string, table: string][]> {
  const dataDir = mkdtempSync(join(tmpdir(), 'chunkd-docs-'));
  // Documented answers come from a fresh server with the defaults: no models beyond the shipped
  // one (an empty Hugging Face cache, no download), no keys, no LLM, whatever this machine holds.
  const saved = { HF_HUB_CACHE: process.env.HF_HUB_CACHE, HF_ENDPOINT: process.env.HF_ENDPOINT, CHUNKD_MODELS_DIR: process.env.CHUNKD_MODELS_DIR };
  process.env.HF_HUB_CACHE = join(dataDir, 'hub');
  delete process.env.HF_ENDPOINT;
  delete process.env.CHUNKD_MODELS_DIR;
  const booted = await boot(resolveSettings({ 'data-dir': dataDir, workers: '0' }, {}), silentLogger);
  try {
    const { registry } = booted.deps;
    const page = (file: string) => join(ROOT, file);
    const examples = await runExamples(booted.app.koa.callback(), GENERATED, [[hubCacheDir(), '~/.cache/huggingface/hub']]);
    const fileOf = new Map(GENERATED.map((e) => [e.name, page(e.file ?? 'README.md')]));
    const answers = await makeExampleAnswers(registry, booted.deps.executor, booted.deps.settings);
    return [
      [EXAMPLES_FILE, WHOLE_FILE, `${JSON.stringify(answers, null, 1)}\n`],
      ...examples.map(([name, block]): [string, string, string] => [fileOf.get(name)!, name, block]),
      [pageHolding('routes'), 'routes', routesTable(booted.app.routes)],
      [pageHolding('plugins'), 'plugins', pluginsTable(registry)],
      [pageHolding('errors'), 'errors', errorsTable()],
      [pageHolding('formats'), 'formats', formatsTable(registry)],
      [pageHolding('settings'), 'settings', settingsTable()],
      [pageHolding('client-models'), 'client-models', clientModelsTable()],
      [pageHolding('presets'), 'presets', presetsTable()],
      ...registry.list().map((p): [string, string, string] => [join(p.source, '..', 'README.md'), 'config', configTable(p.manifest)]),
      ...(await pluginDocTables(registry.list().map((p) => p.source))),
    ];
  } finally {
    await booted.close();
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/**
 * A plugin folder may hold a `docs.ts` whose `docTables()` returns more tables for its README,
 * keyed by marker name (the code plugin's language list), so lists in its data are never copied by hand.
 */
async function pluginDocTables(sources: string[]): Promise<[string, string, string][]> {
  const out: [string, string, string][] = [];
  for (const source of sources) {
    const docs = fileURLToPath(moduleBeside(pathToFileURL(source).href, './docs'));
    if (!existsSync(docs)) continue;
    const { docTables } = (await import(pathToFileURL(docs).href)) as { docTables(): Record<string, string> };
    for (const [marker, table] of Object.entries(docTables())) out.push([join(dirname(source), 'README.md'), marker, table]);
  }
  return out;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  let failed = false;
  for (const [file, name, table] of await derivedTables()) {
    const doc = existsSync(file) ? readFileSync(file, 'utf8') : '';
    const next = withTable(doc, name, table);
    if (next === undefined) {
      console.error(`${file}: add <!-- ${name}:start --> and <!-- ${name}:end --> markers where the table goes.`);
      failed = true;
    } else if (next !== doc) {
      writeFileSync(file, next);
      console.log(`updated ${file}`);
    }
  }
  process.exit(failed ? 1 : 0);
}
