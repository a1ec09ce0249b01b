/**
 * Concurrent store searches, bounded (--max-concurrent-searches): a search of a large k holds its
 * hits, and the store its scan, in memory. Past the cap a search waits its turn; past a queue of
 * QUEUE_FACTOR × the cap it is refused with a 503 to retry, as the extraction queue refuses.
 */
import { ChunkdError } from '../../kernel/errors.js';
import { settingPairText } from '../settings.js';

export const QUEUE_FACTOR = 8;

export class SearchGate {
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly cap: number) {}

  /** Searches running now (what tests look at). */
  get active(): number {
    return this.running;
  }

  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.running >= this.cap) {
      if (this.waiting.length >= this.cap * QUEUE_FACTOR)
        throw new ChunkdError(
          'UNAVAILABLE',
          `${this.running} store searches are running and ${this.waiting.length} waiting, the most this server takes (${settingPairText('maxConcurrentSearches')}): retry in a moment, or ask for a smaller k.`,
          { 'Retry-After': '1' },
        );
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    } else this.running++;
    try {
      return await work();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.running--;
    }
  }
}
