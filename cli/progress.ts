/**
 * A one-line progress bar for `chunkd chunk` on a terminal's stderr: files done of the total and
 * the throughput in MB/s, redrawn in place (carriage return). Never used when stderr is not a TTY.
 */
import { performance } from 'node:perf_hooks';

const WIDTH = 24;

export class Progress {
  private finished = 0;
  private bytes = 0;
  private readonly started = performance.now();

  constructor(
    private readonly out: { write(s: string): unknown },
    private readonly total: number,
    private readonly sizes: readonly number[],
    private readonly unit = 'files',
  ) {
    this.draw();
  }

  /** Document `index` is finished. */
  done(index: number): void {
    this.finished++;
    this.bytes += this.sizes[index] ?? 0;
    this.draw();
  }

  /** Wipe the bar (before a message on the same stream); the next draw brings it back. */
  clear(): void {
    this.out.write('\r\x1b[K');
  }

  finish(): void {
    this.draw();
    this.out.write('\n');
  }

  /** The bar's text: `[#####-----] 3/10 files  4.2 MB/s`. */
  line(elapsedMs = performance.now() - this.started): string {
    const filled = this.total ? Math.round((WIDTH * this.finished) / this.total) : WIDTH;
    const rate = elapsedMs > 0 ? this.bytes / 1e6 / (elapsedMs / 1000) : 0;
    return `[${'#'.repeat(filled)}${'-'.repeat(WIDTH - filled)}] ${this.finished}/${this.total} ${this.unit}  ${rate.toFixed(1)} MB/s`;
  }

  private draw(): void {
    this.out.write(`\r\x1b[K${this.line()}`);
  }
}
