/**
 * The worker side of a pooled plugin request (service/large-bodies/answer.ts is the main-thread side): a
 * large body arrives as bytes and is parsed, validated and limit-checked here, so the main thread
 * never parses it. A chef's text always goes back as its documents (the main thread's runner
 * places a chef: kernel/engine/runner.ts). Other work that fits one worker is run here through the document runner
 * (kernel/engine/runner.ts) and answered as bytes; a batch worth spreading over the pool, or a stream
 * (NDJSON), comes back as its documents, for the runner on the main thread to hand to workers.
 */
import type { Chunk } from '../../kernel/chunk.js';
import type { Plugin } from '../../kernel/registry.js';
import { chunkLists, parseRequest } from '../../kernel/request.js';
import type { Job } from '../../kernel/engine/index.js';
import { checkChunks, checkTexts } from '../limits.js';
import { answerHere, namesFile, prepared, type PooledPayload, type PooledResult } from './shared.js';
import { errorData, moved } from './shared.js';
import { parseJsonBody } from '../../wire/strict-json.js';

export interface RequestPayload extends PooledPayload {
  source: string;
}

const job: Job<RequestPayload, PooledResult> = async (payload, load) => {
  const plugin: Plugin = await load(payload.source);
  const parsed = parseJsonBody(payload.body);
  if ('invalidJson' in parsed) return moved<PooledResult>(parsed);
  if (payload.documentInput && namesFile(parsed.value)) return moved<PooledResult>({ file: parsed.value });
  const req = parseRequest(plugin, parsed.value);
  try {
    let docs: (string | Chunk[])[];
    let list: boolean;
    if (plugin.kind === 'chunker' || plugin.kind === 'chef') {
      const input = req.input as string | string[];
      checkTexts(input, payload.limits);
      docs = Array.isArray(input) ? input : [input];
      list = Array.isArray(input);
    } else {
      const input = req.input as (Chunk | Chunk[])[];
      checkChunks(input, payload.limits);
      const lists = chunkLists(input);
      docs = lists.lists;
      list = lists.nested;
    }
    const recipe = { steps: [{ plugin, config: req.config }], unit: req.unit, returnType: req.returnType };
    const ready = { config: req.config, unit: req.unit, returnType: req.returnType, list };
    // A chef's text goes back as bytes: the main thread's runner places the chef (the extraction pool, under --max-extract-ms, for an offLoop one).
    if (plugin.kind === 'chef') return prepared(ready, docs, req.ignored);
    return (await answerHere(payload, recipe, docs, list, req.ignored)) ?? prepared(ready, docs, req.ignored);
  } catch (e) {
    return moved<PooledResult>({ error: errorData(e), ignored: req.ignored });
  }
};
export default job;
