/**
 * A least-recently-used map bounded by entry count and by a total weight (bytes): loaded
 * tokenizers and models stay shared between requests without growing without end. A value
 * heavier than the whole budget is handed back but not kept.
 */
export class BoundedCache<V> {
  private readonly entries = new Map<string, { value: V; bytes: number }>();
  private total = 0;

  constructor(
    readonly maxEntries: number,
    readonly maxBytes: number,
  ) {}

  get size(): number {
    return this.entries.size;
  }

  get bytes(): number {
    return this.total;
  }

  get(key: string): V | undefined {
    const e = this.entries.get(key);
    if (!e) return undefined;
    this.entries.delete(key); // most recently used last
    this.entries.set(key, e);
    return e.value;
  }

  set(key: string, value: V, bytes = 0): void {
    this.delete(key);
    this.entries.set(key, { value, bytes });
    this.total += bytes;
    this.evict();
  }

  /** Change the weight of an entry (known once it has loaded). */
  weigh(key: string, bytes: number): void {
    const e = this.entries.get(key);
    if (!e) return;
    this.total += bytes - e.bytes;
    e.bytes = bytes;
    this.evict();
  }

  delete(key: string): void {
    const e = this.entries.get(key);
    if (!e) return;
    this.total -= e.bytes;
    this.entries.delete(key);
  }

  private evict(): void {
    for (const [key] of this.entries) {
      if (this.entries.size <= this.maxEntries && this.total <= this.maxBytes) break;
      this.delete(key);
    }
  }
}
