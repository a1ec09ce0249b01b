/** Markdown tables and number formats for results.md. */

export function table(head: string[], rows: (string | number)[][]): string {
  const line = (cells: (string | number)[]) => `| ${cells.map((c) => String(c).replace(/\|/g, '\\|')).join(' | ')} |`;
  const align = head.map((_, i) => (i === 0 ? '---' : '---:'));
  return [line(head), `|${align.join('|')}|`, ...rows.map(line)].join('\n');
}

/** Three significant digits: enough for ratios on a noisy shared machine, no false precision. */
export function num(x: number | undefined): string {
  if (x === undefined || !Number.isFinite(x)) return '—';
  if (x >= 100) return Math.round(x).toLocaleString('en-US');
  return x.toPrecision(3);
}

export const ratio = (x: number | undefined) => (x === undefined ? '—' : `${num(x)}×`);

export const fmtSize = (bytes: number) => (bytes >= 1e6 ? `${+(bytes / 1e6).toFixed(1)} MB` : `${Math.round(bytes / 1e3)} KB`);

export const verdict = (met: boolean | undefined) => (met === undefined ? 'not measured' : met ? '**met**' : '**missed**');
