/**
 * A value now, or a promise of it: what the runner's inner steps return, so that work which is
 * synchronous (a small text, a built plugin, a chunker that answers at once: most requests) runs
 * through them without an async frame or a turn of the microtask queue at each level, and work
 * that is not continues as a promise.
 */
export type Maybe<T> = T | Promise<T>;

export const isThenable = <T>(x: Maybe<T>): x is Promise<T> => typeof (x as { then?: unknown } | null)?.then === 'function';
