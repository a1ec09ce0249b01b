import { overLimit, type ExtractLimits } from '../../kernel/index.js';

/** Largest colspan/rowspan a cell keeps: browsers cap colspan at 1000 and rowspan at 65534, but text output gains nothing from wide spans. */
export const MAX_SPAN = 64;

interface Node {
  type?: string;
  name?: string;
  attribs?: Record<string, string>;
  children?: Node[];
}
type Format = (elem: Node, walk: unknown, builder: { options: { formatters: Record<string, Format> } }, formatOptions: unknown) => void;

/**
 * html-to-text's data-table layout fills a grid cell by cell over each cell's rowspan × colspan,
 * then transposes a square grid as large as the longer of its sides: a 64-byte
 * `<td colspan=20000 rowspan=20000>`, or one row of 100,000 cells, would take gigabytes or
 * minutes. This formatter clamps each span to MAX_SPAN, bounds the grid's cost from above (spans'
 * area plus the square of the longer side) and refuses a table past maxTableCells (413) before
 * handing it to html-to-text's own dataTable formatter.
 */
export function cappedDataTable(limits: ExtractLimits): Format {
  return (elem, walk, builder, formatOptions) => {
    const rows: Node[][] = [];
    collectRows(elem, rows);
    let area = 0;
    let widest = 0;
    const pushing: number[] = []; // per row: columns its cells that span lower rows take there
    rows.forEach((cells, j) => {
      let own = 0;
      let spanning = 0;
      for (const cell of cells) {
        const attribs = (cell.attribs ??= {});
        const colspan = clampSpan(attribs, 'colspan');
        const rowspan = clampSpan(attribs, 'rowspan');
        area += colspan * rowspan;
        own += colspan;
        if (rowspan > 1) spanning += colspan;
      }
      let above = 0;
      for (let k = Math.max(0, j - MAX_SPAN + 1); k < j; k++) above += pushing[k]!;
      pushing.push(spanning);
      widest = Math.max(widest, own + above);
    });
    const side = Math.max(rows.length, widest);
    if (area + side * side > limits.maxTableCells)
      throw overLimit('table cells (rows × columns of one table, counting spans)', limits.maxTableCells, 'maxTableCells');
    builder.options.formatters.dataTable!(elem, walk, builder, formatOptions);
  };
}

/** The rows as html-to-text's dataTable walks them: tr children of the table, of thead/tbody/tfoot/center. */
function collectRows(elem: Node, rows: Node[][]): void {
  for (const child of elem.children ?? []) {
    if (child.type !== 'tag') continue;
    if (child.name === 'tr') rows.push((child.children ?? []).filter((c) => c.type === 'tag' && (c.name === 'td' || c.name === 'th')));
    else if (child.name === 'thead' || child.name === 'tbody' || child.name === 'tfoot' || child.name === 'center') collectRows(child, rows);
  }
}

/** The span html-to-text will read (`+value || 1`), clamped to 1..MAX_SPAN and written back. */
function clampSpan(attribs: Record<string, string>, name: 'colspan' | 'rowspan'): number {
  const read = +(attribs[name] ?? '') || 1;
  const span = Math.min(MAX_SPAN, Math.max(1, Math.floor(read)));
  if (attribs[name] !== undefined || span !== 1) attribs[name] = String(span);
  return span;
}
