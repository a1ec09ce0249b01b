/**
 * The scratch collections of evaluation through a store (`eval-…`): named with the time they were
 * made, and removed at start when a crash (kill -9) left them. On a store on this machine's disk
 * every one made before the sweep is removed (this process holds the data directory: no other
 * evaluates there); on a
 * shared store only those older than STALE_MS, so an evaluation another replica runs is left alone.
 */
import { randomUUID } from 'node:crypto';
import type { Stores } from '../stores/stores.js';

/** A scratch collection older than this on a shared store was left by a crash. */
export const STALE_MS = 6 * 3600_000;

const NAMED = /^eval-([0-9a-z]{9})-[0-9a-f]{12}$/;
/** Scratch names of earlier versions (no time): removed from local stores only. */
const OLD = /^eval-[0-9a-f]{20}$/;

/** A fresh scratch collection name (kernel/handshake.ts CollectionName): its time of making, base 36, and 48 random bits. */
export const scratchCollection = (now = Date.now()): string => `eval-${now.toString(36).padStart(9, '0')}-${randomUUID().replaceAll('-', '').slice(0, 12)}`;

/** Whether `name` is a scratch collection left behind, on a local store or a shared one. */
export function isLeftScratch(name: string, local: boolean, now: number): boolean {
  if (OLD.test(name)) return local;
  const m = NAMED.exec(name);
  if (!m) return false;
  // Local: any made before this sweep began (one this process makes meanwhile is live); shared: only old ones.
  const age = now - parseInt(m[1]!, 36);
  return local ? age > 0 : age > STALE_MS;
}

type Logger = { log(level: 'info' | 'warning', msg: string, fields?: Record<string, unknown>): void };

/** Remove the scratch collections crashes left (at start, in the background): each store listed once, each removal logged. */
export async function sweepScratch(stores: Pick<Stores, 'list' | 'dropCollection' | 'checkWritable'>, logger: Logger, now = Date.now()): Promise<number> {
  let removed = 0;
  for (const listing of await stores.list()) {
    if (listing.error) continue;
    try {
      stores.checkWritable(listing.name);
    } catch {
      continue; // a replica set's local store: not this replica's to clean
    }
    for (const c of listing.collections) {
      if (!isLeftScratch(c.name, listing.local, now)) continue;
      try {
        await stores.dropCollection(listing.name, c.name, []);
        removed++;
        logger.log('info', 'scratch collection left by a stopped evaluation removed', { store: listing.name, collection: c.name });
      } catch (e) {
        logger.log('warning', 'scratch collection left by a stopped evaluation not removed', {
          store: listing.name,
          collection: c.name,
          error: (e as Error).message,
        });
      }
    }
  }
  return removed;
}
