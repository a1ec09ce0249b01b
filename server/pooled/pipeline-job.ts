/**
 * The worker side of a pooled pipeline run (server/pooled/pipeline-answer.ts is the main-thread
 * side): a large body arrives as bytes and is parsed, checked, run through the pipeline's steps
 * and serialized here, through the very executePipeline the inline route calls. A batch worth
 * splitting over the pool comes back as groups of texts (JSON bytes); each step then runs on each
 * group in its own job ('group'), and the main thread only counts chunks between steps (the
 * max-chunks check counts the whole batch) and moves bytes.
 */
import type { Chunk } from '../../kernel/chunk.js';
import type { Kind } from '../../kernel/plugin.js';
import type { OffsetUnit } from '../../kernel/offsets.js';
import { textWeight, split } from '../../kernel/pool.js';
import type { Plugin } from '../../kernel/registry.js';
import { asTexts, chunkMany, inline, refineMany } from '../../kernel/run.js';
import type { Job } from '../../kernel/worker.js';
import { checkTexts, type Limits } from '../limits.js';
import { checkExecute } from '../pipelines/body.js';
import { executePipeline, resolveStep } from '../pipelines/execute.js';
import { checkSlugRun, flatRun, flattens, type SlugRunBody } from '../pipelines/slug-run.js';
import type { PipelineRecord } from '../storage/store.js';
import { encode, errorData, moved, parseJsonBody, type ErrorData } from './wire.js';

export interface PipelinePayload {
  step: 'request';
  body: Uint8Array;
  /** The pipeline, or the 404 its id gets: answered once the body is known to be JSON, as inline. */
  pipeline: PipelineRecord | { notFound: ErrorData };
  /** The source of each plugin the steps name, keyed `kind:name`; a plugin this server lacks is absent. */
  sources: Record<string, string>;
  limits: Limits;
  threads: number;
  /** A slug run: its body may say `nested`, and a list of texts answers one flat list (server/pipelines/slug-run.ts). */
  slug?: boolean;
}

/** One step of a split batch, on one group: its texts (a chunk step's) or lists of chunks (a refine step's), as JSON bytes. */
export interface PipelineGroupPayload {
  step: 'group';
  pipeline: PipelineRecord;
  sources: Record<string, string>;
  index: number;
  items: Uint8Array;
  unit: OffsetUnit;
  /** The last step of a `return_type: "texts"` request: answer the chunk texts only. */
  texts: boolean;
  /** The last step of a flat slug run: answer one flat list, this group's first text being this index. */
  document?: number;
}

export type PipelineResult =
  /** The response body: the exact bytes Koa would send for the result. */
  | { bytes: Uint8Array; ignored: string[] }
  | { error: ErrorData; ignored: string[] }
  | { invalidJson: string }
  /** A batch worth splitting over the pool: its texts in groups, in order, for one job per group and step. */
  | { groups: Uint8Array[]; sizes: number[]; flat: boolean; unit: OffsetUnit; returnType: 'chunks' | 'texts'; ignored: string[] }
  /** A group's step done: its lists of chunks (or texts), and how many chunks. */
  | { items: Uint8Array; count: number };

const job: Job<PipelinePayload | PipelineGroupPayload, PipelineResult> = async (payload, load) =>
  payload.step === 'request' ? request(payload, load) : group(payload, load);
export default job;

async function request({ body, pipeline, sources, limits, threads, slug }: PipelinePayload, load: (source: string) => Promise<Plugin>) {
  const parsed = parseJsonBody(body);
  if ('invalidJson' in parsed) return moved<PipelineResult>(parsed);
  if ('notFound' in pipeline) return moved<PipelineResult>({ error: pipeline.notFound, ignored: [] });
  let ignored: string[] = [];
  try {
    const onIgnored = (keys: string[]) => (ignored = keys);
    const req = slug ? checkSlugRun(parsed.value, onIgnored) : checkExecute(parsed.value, onIgnored);
    const flat = slug === true && flattens(req as SlugRunBody);
    // A process step's documents go to the chunk step with their structure: such a batch runs here, whole.
    const groups = Array.isArray(req.text) && !pipeline.steps.some((s) => s.type === 'process') ? split(req.text, textWeight, threads) : undefined;
    if (groups && groups.length > 1) {
      checkTexts(req.text, limits); // executePipeline's first check, before any step
      const bytes = groups.map(encode);
      return moved<PipelineResult>({ groups: bytes, sizes: groups.map((g) => g.length), flat, unit: req.offset_unit, returnType: req.return_type, ignored }, bytes);
    }
    const registry = await pluginsOf(sources, load);
    const result = await executePipeline(pipeline, req.text, req.offset_unit, { registry, executor: inline, settings: limits });
    const answer = req.return_type === 'texts' ? asTexts(result) : result;
    const bytes = encode(flat ? flatRun(answer as Chunk[][] | string[][]) : answer);
    return moved<PipelineResult>({ bytes, ignored }, [bytes]);
  } catch (e) {
    return moved<PipelineResult>({ error: errorData(e), ignored });
  }
}

/** A step on one group, as WorkerPool runs a group of a batch: chunkMany or refineMany, the step resolved as executePipeline resolves it. */
async function group({ pipeline, sources, index, items, unit, texts, document }: PipelineGroupPayload, load: (source: string) => Promise<Plugin>) {
  try {
    const step = pipeline.steps[index]!;
    const { plugin, config } = resolveStep(await pluginsOf(sources, load), pipeline, step, index);
    const input: unknown = JSON.parse(new TextDecoder().decode(items));
    const result = step.type === 'chunk' ? await chunkMany(plugin, config, input as string[], unit) : await refineMany(plugin, config, input as Chunk[][]);
    const count = result.reduce((n, list) => n + list.length, 0);
    const answer = texts ? asTexts(result) : result;
    const bytes = encode(document === undefined ? answer : flatRun(answer as Chunk[][] | string[][], document));
    return moved<PipelineResult>({ items: bytes, count }, [bytes]);
  } catch (e) {
    return moved<PipelineResult>({ error: errorData(e), ignored: [] });
  }
}

async function pluginsOf(sources: Record<string, string>, load: (source: string) => Promise<Plugin>) {
  const plugins = new Map(await Promise.all(Object.entries(sources).map(async ([key, source]) => [key, await load(source)] as const)));
  return { find: (kind: Kind, name: string) => plugins.get(`${kind}:${name}`) };
}
