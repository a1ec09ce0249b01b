import { useMemo } from 'preact/hooks';
import { histogram, segments, type Chunk } from './spans.js';

interface ViewProps {
  text: string;
  chunks: Chunk[];
  selected: number | undefined;
  onSelect(i: number | undefined): void;
}

/**
 * The input with each chunk as a coloured span (two colours alternating), a stretch shared by two
 * chunks striped, overlap context underlined in its chunk's colour, gaps plain. Each piece names
 * its chunks in data-chunks, so a test can rebuild every chunk's text from the page.
 */
export function SpansView({ text, chunks, selected, onSelect }: ViewProps) {
  const parts = useMemo(() => segments(text, chunks), [text, chunks]);
  return (
    <pre class="spans" aria-label="The text, each chunk in colour">
      {parts.map((p) => {
        const first = p.chunks[0];
        const cls = [
          'seg',
          p.chunks.length === 0 ? 'gap' : `c${first! % 2}`,
          p.chunks.length > 1 ? 'overlap' : '',
          p.context.length ? `ctx ctx${p.context[0]! % 2}` : '',
          selected !== undefined && (p.chunks.includes(selected) || p.context.includes(selected)) ? 'sel' : '',
        ].join(' ');
        const title = p.chunks.length
          ? p.chunks.map((i) => `#${i}`).join(' + ') + (p.context.length ? ` (context of ${p.context.map((i) => `#${i}`).join(', ')})` : '')
          : p.context.length
            ? `context of ${p.context.map((i) => `#${i}`).join(', ')}`
            : undefined;
        return (
          <span
            key={p.start}
            class={cls}
            data-chunks={p.chunks.join(' ')}
            data-context={p.context.join(' ')}
            title={title}
            onMouseEnter={first !== undefined ? () => onSelect(first) : undefined}
            onClick={first !== undefined ? () => onSelect(first) : undefined}
          >
            {text.slice(p.start, p.end)}
          </span>
        );
      })}
    </pre>
  );
}

/** One button per chunk: the keyboard's way through the chunks (the spans are for the mouse). */
export function ListView({ chunks, selected, onSelect }: Omit<ViewProps, 'text'>) {
  return (
    <ol class="chunk-list">
      {chunks.map((c, i) => (
        <li key={c.id + i} class={`c${i % 2}${selected === i ? ' sel' : ''}`}>
          <button type="button" class="chunk-item" aria-pressed={selected === i} onClick={() => onSelect(i)}>
            <span class="meta">
              #{i} · [{c.start_index}, {c.end_index}) · {c.token_count} tokens
            </span>
            <span class="chunk-text">{c.text}</span>
            {c.context ? <span class="chunk-context">context: {c.context}</span> : null}
          </button>
        </li>
      ))}
    </ol>
  );
}

/** Everything the API answered for one chunk (embeddings shortened). */
export function ChunkDetails({ chunk, index, headings }: { chunk: Chunk | undefined; index: number | undefined; headings?: string[] }) {
  if (!chunk || index === undefined)
    return <p class="muted details">Hover or click a chunk (or pick one in the list) to see its id, offsets, tokens and metadata.</p>;
  const rows: [string, string][] = [
    ['chunk', `#${index}`],
    ['id', chunk.id],
    ['start_index', String(chunk.start_index)],
    ['end_index', String(chunk.end_index)],
    ['token_count', String(chunk.token_count)],
  ];
  if (chunk.context !== undefined) rows.push(['context', JSON.stringify(chunk.context)]);
  if (chunk.embedding)
    rows.push([
      'embedding',
      `${chunk.embedding.length} numbers: [${chunk.embedding
        .slice(0, 4)
        .map((x) => x.toFixed(3))
        .join(', ')}, …]`,
    ]);
  // A chunk of a processed document (a file by reference, a pipeline's process step) says where it sits.
  const meta = chunk.metadata ?? {};
  // Or, for a text a chef processed in the page, the heading path the page found from the chef's headings.
  const path = Array.isArray(meta.headings) ? (meta.headings as string[]) : headings;
  if (path) rows.push(['headings', path.length ? path.join(' › ') : '(before the first heading)']);
  if (Array.isArray(meta.blocks)) rows.push(['blocks', meta.blocks.join(', ')]);
  if (Array.isArray(meta.pages)) rows.push(['pages', meta.pages.join(', ')]);
  if (chunk.metadata) rows.push(['metadata', JSON.stringify(chunk.metadata)]);
  return (
    <dl class="details" aria-live="polite">
      {rows.map(([k, v]) => [<dt key={`${k}t`}>{k}</dt>, <dd key={`${k}d`}>{v}</dd>])}
    </dl>
  );
}

/** Chunk sizes in tokens, in 20 bins up to the larger of chunk_size and the largest chunk, chunk_size marked. */
export function Histogram({ chunks, chunkSize }: { chunks: Chunk[]; chunkSize: number | undefined }) {
  const bins = 20;
  const largest = chunks.reduce((m, c) => Math.max(m, c.token_count), 0);
  const top = Math.max(chunkSize ?? 0, largest, 1);
  const counts = histogram(chunks, top, bins);
  const peak = Math.max(...counts, 1);
  const W = 400;
  const H = 120;
  const bw = W / bins;
  const mark = chunkSize !== undefined ? (chunkSize / top) * W : undefined;
  return (
    <figure class="histogram">
      <svg
        viewBox={`0 0 ${W} ${H + 18}`}
        role="img"
        aria-label={`Chunk sizes: ${chunks.length} chunks, largest ${largest} tokens${chunkSize !== undefined ? `, chunk_size ${chunkSize}` : ''}`}
      >
        {counts.map((n, i) =>
          n ? (
            <rect key={i} x={i * bw + 1} y={H - (n / peak) * H} width={bw - 2} height={(n / peak) * H} class="bar">
              <title>{`${Math.round(i * (top / bins))}–${Math.round((i + 1) * (top / bins))} tokens: ${n}`}</title>
            </rect>
          ) : null,
        )}
        <line x1="0" y1={H} x2={W} y2={H} class="axis" />
        {mark !== undefined ? <line x1={mark - 1} y1="0" x2={mark - 1} y2={H} class="limit" /> : null}
        <text x="0" y={H + 14} class="tick">
          0
        </text>
        <text x={W} y={H + 14} class="tick" text-anchor="end">
          {top} tokens
        </text>
      </svg>
      <figcaption>
        Chunk sizes in tokens
        {chunkSize !== undefined ? (
          <>
            {' '}
            · <span class="limit-key">chunk_size {chunkSize}</span>
          </>
        ) : null}{' '}
        · tallest bar {peak}
      </figcaption>
    </figure>
  );
}
