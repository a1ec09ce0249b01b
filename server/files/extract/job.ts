/**
 * The pool's side of an extraction (see extractText): the same extractor, run in a worker so a
 * slow file holds that worker, never the event loop. Its errors cross back as ChunkdErrors.
 */
import type { Job } from '../../../kernel/worker.js';
import { EXTRACTORS, runExtractor, type ExtractPayload } from './index.js';

const job: Job<ExtractPayload, string> = async ({ format, bytes, limits }) => {
  const extractor = EXTRACTORS.find((e) => e.format === format);
  if (!extractor) throw new Error(`No extractor for the format '${format}'.`);
  return { value: await runExtractor(extractor, bytes, limits) };
};
export default job;
