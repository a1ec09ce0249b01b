/** "Did you mean" for names typed by humans: the closest known name within a small edit distance. */
export function closest(input: string, known: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Math.max(2, Math.floor(input.length / 3)) + 1;
  const a = input.toLowerCase();
  for (const name of known) {
    const b = name.toLowerCase();
    // A truncated name ("cl100k" for "cl100k_base") is as close as a one-letter typo.
    const d = Math.min(a.length, b.length) >= 3 && (b.startsWith(a) || a.startsWith(b)) ? 1 : distance(a, b, bestDistance);
    if (d < bestDistance) {
      best = name;
      bestDistance = d;
    }
  }
  return best;
}

/** " Did you mean 'x'?" when a known name is close to the input, else nothing. */
export function didYouMean(input: string, known: readonly string[]): string {
  const guess = closest(input, known);
  return guess ? ` Did you mean '${guess}'?` : '';
}

export function unknownNameMessage(what: string, input: string, known: readonly string[]): string {
  return `Unknown ${what} '${input}'.${didYouMean(input, known)} Valid: ${known.join(', ')}.`;
}

/**
 * Levenshtein distance, or `limit` as soon as it cannot be under it: an unknown route's 404 is
 * answered to anyone, so a long path costs a length comparison per name, not a table of its length.
 */
function distance(a: string, b: string, limit: number): number {
  if (Math.abs(a.length - b.length) >= limit) return limit;
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0]!;
    row[0] = i;
    let least = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = tmp;
      if (row[j]! < least) least = row[j]!;
    }
    if (least >= limit) return limit;
  }
  return Math.min(row[b.length]!, limit);
}
