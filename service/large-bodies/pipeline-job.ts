/**
 * The worker side of a pooled pipeline run (service/large-bodies/pipeline-answer.ts is the main-thread
 * side): a large body arrives as bytes and is parsed and checked here, then run through the
 * pipeline's steps by the document runner (kernel/engine/runner.ts) when it fits one worker, or handed back as its documents for the runner on
 * the main thread to spread over the pool (or stream).
 */
import type { Kind } from '../../kernel/plugin.js';
import type { Plugin } from '../../kernel/registry.js';
import { isBlank } from '../../kernel/engine/index.js';
import type { Job } from '../../kernel/engine/index.js';
import { checkTexts } from '../limits.js';
import { checkExecute } from '../../wire/body-check.js';
import { pipelineRecipe, writes } from '../pipelines/execute.js';
import { checkSlugRun, flattens, type SlugRunBody } from '../pipelines/slug-run.js';
import type { PipelineRecord } from '../storage/store.js';
import { answerHere, errorData, moved, namesFile, prepared, type ErrorData, type PooledPayload, type PooledResult } from './shared.js';
import { parseJsonBody } from '../../wire/strict-json.js';

export interface PipelinePayload extends PooledPayload {
  /** The pipeline, or the 404 its id gets: answered once the body is known to be JSON, as inline. */
  pipeline: PipelineRecord | { notFound: ErrorData };
  /** The source of each plugin the steps name, keyed `kind:name`; a plugin this server lacks is absent. */
  sources: Record<string, string>;
  /** A slug run: its body may say `nested`, and a list of texts answers one flat list (service/pipelines/slug-run.ts). */
  slug?: boolean;
}

const job: Job<PipelinePayload, PooledResult> = async (payload, load) => {
  const { body, pipeline, sources, limits } = payload;
  const parsed = parseJsonBody(body);
  if ('invalidJson' in parsed) return moved<PooledResult>(parsed);
  if (payload.documentInput && namesFile(parsed.value)) return moved<PooledResult>({ file: parsed.value });
  if ('notFound' in pipeline) return moved<PooledResult>({ error: pipeline.notFound, ignored: [] });
  let ignored: string[] = [];
  try {
    const onIgnored = (keys: string[]) => (ignored = keys);
    const req = payload.slug ? checkSlugRun(parsed.value, onIgnored) : checkExecute(parsed.value, onIgnored);
    const flat = payload.slug === true && flattens(req as SlugRunBody);
    checkTexts(req.text, limits);
    const texts = Array.isArray(req.text) ? req.text : [req.text];
    const list = Array.isArray(req.text);
    const registry = await pluginsOf(sources, load);
    const ready = {
      unit: req.offset_unit,
      returnType: req.return_type,
      list,
      flat,
      ...(req.document === undefined ? {} : { document: req.document }),
      ...(req.metadata === undefined ? {} : { metadata: req.metadata }),
    };
    // A write step writes through the store connections, which live on the main thread: its runner runs these documents.
    if (writes(pipeline)) return prepared(ready, texts, ignored);
    const recipe = await pipelineRecipe(pipeline, req.offset_unit, req.return_type, { registry }, !texts.every(isBlank));
    // A process step is the recipe's first step: the runner runs its chef with the rest, here or where the main thread's runner places it.
    return (await answerHere(payload, recipe, texts, list, ignored, flat)) ?? prepared(ready, texts, ignored);
  } catch (e) {
    return moved<PooledResult>({ error: errorData(e), ignored });
  }
};
export default job;

async function pluginsOf(sources: Record<string, string>, load: (source: string) => Promise<Plugin>) {
  const plugins = new Map(await Promise.all(Object.entries(sources).map(async ([key, source]) => [key, await load(source)] as const)));
  return { find: (kind: Kind, name: string) => plugins.get(`${kind}:${name}`) };
}
