/**
 * How a job waits for a write step's store that did not take a batch's writes (a StoreWait): the
 * batch is scheduled again after a growing pause, and other jobs run meanwhile. It ends, its
 * documents failed with the reason, when the store answered the same error SAME_FAILURES times in
 * a row (it will never take these writes: a table-name collision, a dimension it cannot index) or
 * when it could not be reached for --job-store-wait-s in all.
 */
import type { StoreWait } from '../stores/write-batch.js';
import { settingPairText } from '../settings.js';

/** Tries of a store answering the same error before the batch's documents fail. */
export const SAME_FAILURES = 3;

const FIRST_PAUSE_MS = 1_000;
const MAX_PAUSE_MS = 30_000;

/** A batch's wait so far (kept by the consumer; on PostgreSQL carried in the queued message). */
export interface WaitState {
  /** When the store first did not take this batch (ms since the epoch). */
  since: number;
  tries: number;
  /** The store's reason at the last try, and how many tries in a row gave it. */
  reason: string;
  same: number;
}

export type WaitStep = { state: WaitState; pauseMs: number } | { fail: { code: string; detail: string } };

/** After a StoreWait at `now`: the pause before the next try, or the error each document of the batch gets. */
export function nextTry(prev: WaitState | undefined, wait: StoreWait, now: number, limitS: number): WaitStep {
  const answered = wait.unreachable === undefined;
  const reason = answered ? wait.reason : `unreachable: ${wait.unreachable}`;
  const same = prev && prev.reason === reason ? prev.same + 1 : 1;
  const state: WaitState = { since: prev?.since ?? now, tries: (prev?.tries ?? 0) + 1, reason, same };
  if (answered && same >= SAME_FAILURES)
    return {
      fail: {
        code: 'UPSTREAM',
        detail: `The store '${wait.store}' failed this document's write the same way ${same} times: ${wait.reason}. It was given up so the job could end: fix what the store refuses (the server log has the details), then submit the document again.`,
      },
    };
  const waited = now - state.since;
  const pauseMs = Math.min(MAX_PAUSE_MS, FIRST_PAUSE_MS * 2 ** Math.min(10, state.tries - 1));
  if (waited + pauseMs > limitS * 1000)
    return {
      fail: {
        code: 'UNAVAILABLE',
        detail: `The store '${wait.store}' did not take this document's write for ${Math.round(waited / 1000)} s (${state.tries} tries; last: ${wait.unreachable ?? wait.reason}), the longest a job waits (${settingPairText('jobStoreWaitS')}): submit the document again once the store is back.`,
      },
    };
  return { state, pauseMs };
}
