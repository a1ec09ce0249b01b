/** "Did you mean" for names typed by humans: the closest known name within a small edit distance. */
export function closest(input: string, known: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Math.max(2, Math.floor(input.length / 3)) + 1;
  for (const name of known) {
    const a = input.toLowerCase();
    const b = name.toLowerCase();
    // A truncated name ("cl100k" for "cl100k_base") is as close as a one-letter typo.
    const d = Math.min(a.length, b.length) >= 3 && (b.startsWith(a) || a.startsWith(b)) ? 1 : distance(a, b);
    if (d < bestDistance) {
      best = name;
      bestDistance = d;
    }
  }
  return best;
}

export function unknownNameMessage(what: string, input: string, known: readonly string[]): string {
  const guess = closest(input, known);
  const hint = guess ? ` Did you mean '${guess}'?` : '';
  return `Unknown ${what} '${input}'.${hint} Valid: ${known.join(', ')}.`;
}

function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = tmp;
    }
  }
  return row[b.length]!;
}
