/**
 * Response examples for the OpenAPI document, made by running each plugin on its own example
 * body (the manifest's first example) through the route's code path: Swagger UI and ReDoc then
 * show a real answer. `npm run docs` runs them and commits the answers (server/openapi-examples.json);
 * test/openapi.test.ts checks each against the route's answer, so they cannot drift from the code.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../kernel/paths.js';
import type { Chunk } from '../kernel/chunk.js';
import type { Plugin, Registry } from '../kernel/registry.js';
import { parseRequest } from '../kernel/request.js';
import type { Executor } from '../kernel/engine/index.js';
import { runnerOf, type Limits } from '../service/limits.js';
import { chunkerDocuments, refineryDocuments } from '../service/document-runs/documents.js';
import type { ResponseDef, RouteDef } from './route.js';

/** Where `npm run docs` writes the answers; test/parity.test.ts fails when it is out of step. */
export const EXAMPLES_FILE = join(ROOT, 'server', 'openapi-examples.json');

let stored: Map<string, unknown> | undefined;

/**
 * Each plugin's example answer, by `kind:name`, as `npm run docs` recorded it: serving the docs
 * never runs a plugin (no model load, no download, no wait). A plugin that had no answer then
 * (a missing extra, a model not shipped, a remote service, a plugin added later) has none.
 */
export function exampleAnswers(registry: Registry): Map<string, unknown> {
  stored ??= existsSync(EXAMPLES_FILE) ? new Map(Object.entries(JSON.parse(readFileSync(EXAMPLES_FILE, 'utf8')) as Record<string, unknown>)) : new Map();
  const known = new Set(registry.list().map((p) => `${p.kind}:${p.name}`));
  return new Map([...stored].filter(([key]) => known.has(key)));
}

/** The first chunker's example answer: what a pipeline whose chunk step is that chunker answers. */
export const firstChunkerAnswer = (registry: Registry): unknown => [...exampleAnswers(registry).entries()].find(([key]) => key.startsWith('chunker:'))?.[1];

/** Run each plugin on its example body, as `npm run docs` does to write EXAMPLES_FILE. */
export async function makeExampleAnswers(registry: Registry, executor: Executor, limits: Limits): Promise<Record<string, unknown>> {
  return Object.fromEntries(await run(registry, executor, limits));
}

async function run(registry: Registry, executor: Executor, limits: Limits): Promise<Map<string, unknown>> {
  const out = new Map<string, unknown>();
  let chunks: Chunk[] | undefined; // a refinery's example body holds its config only: it refines a chunker's example answer
  for (const plugin of [...registry.list('chunker'), ...registry.list('refinery'), ...registry.list('chef')]) {
    // A plugin that calls a remote service (slumber's LLM) is not called to write the docs.
    if (plugin.manifest.network) continue;
    const body = { ...(plugin.kind === 'refinery' && chunks ? { chunks } : {}), ...structuredClone(plugin.manifest.examples?.[0] ?? {}) };
    try {
      const answer = await answerOf(plugin, body, executor, limits);
      if (answer === undefined) continue;
      out.set(`${plugin.kind}:${plugin.name}`, answer);
      if (!chunks && plugin.kind === 'chunker' && Array.isArray(answer) && answer.length > 1 && typeof answer[0] === 'object') chunks = answer as Chunk[];
    } catch {
      // no example for this route: its schema still documents the answer
    }
  }
  return out;
}

/** A plugin's answer to its example body, made as its route makes it: through the document runner (kernel/engine/runner.ts). */
async function answerOf(plugin: Plugin, body: Record<string, unknown>, executor: Executor, limits: Limits): Promise<unknown> {
  if (plugin.kind === 'refinery' && !('chunks' in body)) return undefined;
  const req = parseRequest(plugin, body);
  if (plugin.kind === 'chef') {
    const recipe = { steps: [{ plugin, config: req.config }], unit: req.unit, returnType: 'chunks' as const };
    const parts = await runnerOf(executor, limits).answer(recipe, [req.input as string], { list: false });
    return JSON.parse(Buffer.concat(parts).toString('utf8'));
  }
  const docs = plugin.kind === 'chunker' ? await chunkerDocuments(plugin, req, executor, limits) : await refineryDocuments(plugin, req, executor, limits);
  const parts = await docs.runner.answer(docs.recipe, docs.docs, { list: docs.list });
  return JSON.parse(Buffer.concat(parts).toString('utf8'));
}

/** Every route's response examples, made by their `example()` (server/route.ts); one that fails is left out. */
export async function responseExamples(routes: readonly RouteDef[]): Promise<Map<ResponseDef, unknown>> {
  const out = new Map<ResponseDef, unknown>();
  for (const route of routes) {
    for (const res of Object.values(route.responses)) {
      if (!res.example) continue;
      const value = await Promise.resolve()
        .then(res.example)
        .catch(() => undefined);
      if (value !== undefined) out.set(res, value);
    }
  }
  return out;
}
