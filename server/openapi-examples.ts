/**
 * Response examples for the OpenAPI document, made by running each plugin on its own example
 * body (the manifest's first example) through the route's code path: Swagger UI and ReDoc then
 * show a real answer, which cannot drift from what the server does. Run once per app, when the
 * document is first asked for, never at start-up.
 */
import type { Chunk } from '../kernel/chunk.js';
import type { Plugin, Registry } from '../kernel/registry.js';
import { asTexts, parseRequest, runChunker, runRefinery, type Executor } from '../kernel/run.js';
import type { ResponseDef, RouteDef } from './route.js';

/** Longest a plugin's example may take: a slow model load leaves its route without an example, not the docs waiting. */
const EXAMPLE_BUDGET_MS = 20_000;

const made = new WeakMap<Registry, Promise<Map<string, unknown>>>();

/**
 * Each plugin's example answer, by `kind:name`, made once per registry; a plugin that cannot
 * answer (a missing extra, a remote service) has none.
 */
export function exampleAnswers(registry: Registry, executor: Executor): Promise<Map<string, unknown>> {
  let answers = made.get(registry);
  if (!answers) made.set(registry, (answers = run(registry, executor)));
  return answers;
}

/** The first chunker's example answer: what a pipeline whose chunk step is that chunker answers. */
export const firstChunkerAnswer = async (registry: Registry, executor: Executor): Promise<unknown> =>
  [...(await exampleAnswers(registry, executor)).entries()].find(([key]) => key.startsWith('chunker:'))?.[1];

async function run(registry: Registry, executor: Executor): Promise<Map<string, unknown>> {
  const out = new Map<string, unknown>();
  let chunks: Chunk[] | undefined; // a refinery's example body holds its config only: it refines a chunker's example answer
  for (const plugin of [...registry.list('chunker'), ...registry.list('refinery')]) {
    // A plugin that calls a remote service (slumber's LLM) is not called to write the docs.
    if (plugin.manifest.network) continue;
    const body = { ...(plugin.kind === 'refinery' && chunks ? { chunks } : {}), ...structuredClone(plugin.manifest.examples?.[0] ?? {}) };
    try {
      const answer = await withinBudget(answerOf(plugin, body, executor));
      if (answer === undefined) continue;
      out.set(`${plugin.kind}:${plugin.name}`, answer);
      if (!chunks && plugin.kind === 'chunker' && Array.isArray(answer) && answer.length > 1 && typeof answer[0] === 'object') chunks = answer as Chunk[];
    } catch {
      // no example for this route: its schema still documents the answer
    }
  }
  return out;
}

async function answerOf(plugin: Plugin, body: Record<string, unknown>, executor: Executor): Promise<unknown> {
  if (plugin.kind === 'refinery' && !('chunks' in body)) return undefined;
  const req = parseRequest(plugin, body);
  const result =
    plugin.kind === 'chunker'
      ? await runChunker(plugin, req.config, req.input as string | string[], req.unit, executor)
      : await runRefinery(plugin, req.config, req.input as (Chunk | Chunk[])[], executor);
  return req.returnType === 'texts' ? asTexts(result) : result;
}

function withinBudget<T>(work: Promise<T>): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), EXAMPLE_BUDGET_MS).unref()));
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

/** Every route's response examples, made by their `example()` (server/route.ts); one that fails is left out. */
export async function responseExamples(routes: readonly RouteDef[]): Promise<Map<ResponseDef, unknown>> {
  const out = new Map<ResponseDef, unknown>();
  for (const route of routes) {
    for (const res of Object.values(route.responses)) {
      if (!res.example) continue;
      const value = await res.example().catch(() => undefined);
      if (value !== undefined) out.set(res, value);
    }
  }
  return out;
}
