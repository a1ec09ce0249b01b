/**
 * The pool's side of a chef run (see runChef): the same chef, run in a worker so a slow file
 * holds that worker, never the event loop. Its errors cross back as ChunkdErrors.
 */
import type { Job } from '../worker.js';
import type { Processed } from './document.js';
import { processHere, type ChefPayload } from './run.js';

const job: Job<ChefPayload, Processed> = async ({ source, config, doc, limits }, plugin) => ({ value: await processHere(await plugin(source), config, doc, limits) });
export default job;
