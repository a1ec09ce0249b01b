import type { ChunkContext } from '../../kernel/index.js';

export interface Budget {
  left: number;
}

/**
 * LLM questions are counted per request: the kernel passes one context object to every text of a
 * request, and the budget hangs off it (a WeakMap, so it goes when the request does). A direct
 * call without a context gets a budget of its own.
 */
const budgets = new WeakMap<ChunkContext, Budget>();

export function budgetFor(context: ChunkContext | undefined, max: number): Budget {
  if (!context) return { left: max };
  let b = budgets.get(context);
  if (!b) budgets.set(context, (b = { left: max }));
  return b;
}
