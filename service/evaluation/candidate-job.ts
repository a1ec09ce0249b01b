/** The worker side of a candidate (kernel/engine/placement/worker.ts runs it): chunking and scoring in one task, only the scores back (and a store retriever's compact rows, their buffers moved). */
import type { Job } from '../../kernel/engine/index.js';
import { runCandidate, type CandidateOutcome, type CandidatePayload } from './candidate.js';
import { rowBuffers } from './eval-rows.js';

const job: Job<CandidatePayload, CandidateOutcome> = async (payload, plugin) => {
  const value = await runCandidate(payload, plugin);
  return { value, transfer: value.rows ? rowBuffers(value.rows) : [] };
};
export default job;
