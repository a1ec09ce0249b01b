/** The worker side of scoring (kernel/worker.ts runs it): scoreCandidate off the main thread. */
import type { Job } from '../../kernel/worker.js';
import { scoreCandidate, type KScores, type ScorePayload } from './score.js';

const job: Job<ScorePayload, KScores[]> = async (payload) => ({ value: scoreCandidate(payload) });
export default job;
