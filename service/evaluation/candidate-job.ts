/** The worker side of a candidate (kernel/worker.ts runs it): chunking and scoring in one task, only the scores back. */
import type { Job } from '../../kernel/worker.js';
import { runCandidate, type CandidateOutcome, type CandidatePayload } from './candidate.js';

const job: Job<CandidatePayload, CandidateOutcome> = async (payload, plugin) => ({ value: await runCandidate(payload, plugin) });
export default job;
