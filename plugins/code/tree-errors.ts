import type { Node } from 'web-tree-sitter';

/**
 * Where tree-sitter recovered from a syntax error: the outermost ERROR nodes and the zero-width
 * MISSING nodes it inserted, in source order. Only subtrees flagged hasError are walked, so a
 * clean tree costs one check.
 */
export function errorRanges(root: Node): [start: number, end: number][] {
  const out: [number, number][] = [];
  if (!root.hasError) return out;
  const stack: Node[] = [root];
  while (stack.length) {
    const n = stack.pop()!;
    if (n.isError || n.isMissing) {
      out.push([n.startIndex, n.endIndex]);
      continue;
    }
    if (!n.hasError) continue;
    const kids = n.children;
    for (let i = kids.length - 1; i >= 0; i--) if (kids[i]) stack.push(kids[i]!);
  }
  return out;
}
