/**
 * The pool's side of a chef run (see runChef): the same chef, run in a worker so a slow file
 * holds that worker, never the event loop. Its errors cross back as ChunkdErrors.
 */
import type { Job } from '../worker.js';
import { codePointCount, type Processed } from './document.js';
import { processHere, type ChefPayload } from './run.js';

const job: Job<ChefPayload, Processed> = async ({ source, config, doc, limits }, plugin) => {
  const out = await processHere(await plugin(source), config, doc, limits);
  // Counted here, off the event loop: a large non-Latin-1 text would otherwise be scanned there.
  return { value: { ...out, codePoints: codePointCount(out.text) } };
};
export default job;
