/**
 * Work run one at a time per key (a handshake's writes to one collection): each task starts when the
 * one before it on its key has settled, whether it succeeded or failed; keys with nothing queued are
 * forgotten, so the map holds only keys with work in flight.
 */
export class KeyedQueue {
  private readonly tails = new Map<string, Promise<unknown>>();

  run<T>(key: string, work: () => Promise<T>): Promise<T> {
    const run = (this.tails.get(key) ?? Promise.resolve()).then(work, work);
    const settled = run.catch(() => {});
    this.tails.set(key, settled);
    void settled.then(() => this.tails.get(key) === settled && this.tails.delete(key));
    return run;
  }
}
