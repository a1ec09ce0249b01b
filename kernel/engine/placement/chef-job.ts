/**
 * The pool's side of a chef run (see runChef): the same chef, run in a worker so a slow file
 * holds that worker, never the event loop. Its errors cross back as ChunkdErrors.
 */
import type { Job } from './worker.js';
import { allSpans, codePointCount, emptyStructure, type Processed } from '../../chef/document.js';
import { processHere, type ChefPayload } from '../steps/process.js';

const job: Job<ChefPayload, Processed> = async ({ source, config, doc, limits, structureJson }, plugin) => {
  const out = await processHere(await plugin(source), config, doc, limits);
  // Counted here, off the event loop: a large non-Latin-1 text would otherwise be scanned there.
  const value: Processed = { ...out, codePoints: codePointCount(out.text) };
  if (!structureJson) return { value };
  // Stringified here too, for a caller that stores it: up to --max-structure-spans spans per kind, never rebuilt and stringified on the event loop.
  const json = allSpans(out.structure).length ? new TextEncoder().encode(JSON.stringify(out.structure)) : undefined;
  return { value: { ...value, structure: emptyStructure(), ...(json ? { structureJson: json } : {}) }, transfer: json ? [json.buffer as ArrayBuffer] : [] };
};
export default job;
