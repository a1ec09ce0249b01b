/**
 * The worker side of a pooled chunk request (server/pooled/answer.ts is the main-thread side): a
 * large body arrives as bytes and is parsed, validated, limit-checked, chunked and serialized
 * here, exactly as the inline route does it on the event loop, so the main thread only moves
 * buffers. A batch worth splitting comes back as groups, each then run by its own job, as
 * WorkerPool splits one.
 */
import type { OffsetUnit } from '../../kernel/offsets.js';
import { listWeight, split, textWeight } from '../../kernel/pool.js';
import type { Plugin } from '../../kernel/registry.js';
import { asTexts, chunkMany, parseRequest, refineMany, runChunker, runRefinery, type Executor } from '../../kernel/run.js';
import type { Chunk } from '../../kernel/chunk.js';
import type { Job } from '../../kernel/worker.js';
import { checkChunks, checkTexts, type Limits } from '../limits.js';
import { encode, errorData, moved, parseJsonBody, type ErrorData } from './wire.js';

export interface RequestPayload {
  step: 'request';
  source: string;
  body: Uint8Array;
  limits: Limits;
  /** Worker threads of the pool: a batch is split into at most this many groups. */
  threads: number;
}

export interface GroupPayload {
  step: 'group';
  source: string;
  config: Record<string, unknown>;
  unit: OffsetUnit;
  returnType: 'chunks' | 'texts';
  /** The group's texts (a chunker's) or lists of chunks (a refinery's), as JSON bytes. */
  items: Uint8Array;
}

export type JobResult =
  /** The response body: the exact bytes Koa would send for the result. */
  | { bytes: Uint8Array; ignored: string[] }
  | { error: ErrorData; ignored: string[] }
  /** The body is not JSON koa-bodyparser accepts (its strict mode and prototype check). */
  | { invalidJson: string }
  /** A batch worth splitting over the pool's threads: one group job per item (see GroupPayload). */
  | { groups: Uint8Array[]; config: Record<string, unknown>; unit: OffsetUnit; returnType: 'chunks' | 'texts'; ignored: string[] };

const job: Job<RequestPayload | GroupPayload, JobResult> = async (payload, load) => {
  const plugin = await load(payload.source);
  return payload.step === 'request' ? request(plugin, payload) : group(plugin, payload);
};
export default job;

async function request(plugin: Plugin, { body, limits, threads }: RequestPayload) {
  const parsed = parseJsonBody(body);
  if ('invalidJson' in parsed) return moved<JobResult>(parsed);
  const req = parseRequest(plugin, parsed.value);
  try {
    let result;
    try {
      if (plugin.kind === 'chunker') {
        checkTexts(req.input as string | string[], limits);
        result = await runChunker(plugin, req.config, req.input as string | string[], req.unit, splitter(threads));
      } else {
        checkChunks(req.input as unknown[], limits);
        result = await runRefinery(plugin, req.config, req.input as (Chunk | Chunk[])[], splitter(threads));
      }
    } catch (e) {
      if (!(e instanceof Split)) throw e;
      const groups = e.groups.map(encode);
      return moved<JobResult>({ groups, config: req.config, unit: req.unit, returnType: req.returnType, ignored: req.ignored }, groups);
    }
    const bytes = encode(req.returnType === 'texts' ? asTexts(result) : result);
    return moved<JobResult>({ bytes, ignored: req.ignored }, [bytes]);
  } catch (e) {
    return moved<JobResult>({ error: errorData(e), ignored: req.ignored });
  }
}

/** Thrown by the splitter when a batch is worth spreading over the pool: its groups go back to the main thread. */
class Split {
  constructor(readonly groups: unknown[][]) {}
}

/**
 * An executor for runChunker/runRefinery (which check the input as the inline route does) that
 * runs small work here and hands a batch worth splitting back as groups, as WorkerPool would split it.
 */
const splitter = (threads: number): Executor => ({
  threads: 0,
  async chunk(plugin, config, texts, unit) {
    const groups = split(texts, textWeight, threads, plugin.cost(config));
    if (groups && groups.length > 1) throw new Split(groups);
    return chunkMany(plugin, config, texts, unit);
  },
  async refine(plugin, config, lists) {
    const groups = split(lists, listWeight, threads, plugin.cost(config));
    if (groups && groups.length > 1) throw new Split(groups);
    return refineMany(plugin, config, lists);
  },
});

async function group(plugin: Plugin, { config, unit, returnType, items }: GroupPayload) {
  try {
    const parsed: unknown = JSON.parse(new TextDecoder().decode(items));
    const result = plugin.kind === 'chunker' ? await chunkMany(plugin, config, parsed as string[], unit) : await refineMany(plugin, config, parsed as Chunk[][]);
    const bytes = encode(returnType === 'texts' ? asTexts(result) : result);
    return moved<JobResult>({ bytes, ignored: [] }, [bytes]);
  } catch (e) {
    return moved<JobResult>({ error: errorData(e), ignored: [] });
  }
}
