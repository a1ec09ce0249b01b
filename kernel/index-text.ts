/**
 * What a retriever indexes of a chunk: a string derived from it, never the chunk itself (its
 * `text` and offsets stay `input[start:end]`). The chunk's context (a heading line, a neighbour's
 * words: text outside the span that gives it meaning) goes before its text, unless a refinery has
 * already merged it into the text. Optionally, the document's name and the chunk's heading path
 * (`metadata.headings`, from a chef) go before both, each on a line of its own.
 *
 * A store's full-text index and its vectors, and chunkd eval's `bm25` and `embeddings`, all read
 * this string, so evaluation measures what a store searches.
 */

export interface IndexTextOptions {
  /** The document the chunk belongs to (an id, a file name); its words are indexed when `name` is set. */
  document?: string;
  /** Index the document's name (a file name read as words: `state_of_the_union.md` → `state of the union`). */
  name?: boolean;
  /** Index the chunk's heading path (`metadata.headings`), outermost first, joined by ` > `. */
  headings?: boolean;
}

export interface IndexableChunk {
  text: string;
  context?: string;
  metadata?: Record<string, unknown>;
}

/**
 * The index text of a chunk whose span reads `span` (its own `text`, unless a refinery merged its
 * context into it). A heading already in the context (the passage chunker's title line) is not
 * repeated.
 */
export function indexText(chunk: IndexableChunk, span: string = chunk.text, options: IndexTextOptions = {}): string {
  const lines: string[] = [];
  if (options.name && options.document) {
    const words = documentWords(options.document);
    if (words) lines.push(words);
  }
  const context = chunk.context && chunk.text === span ? chunk.context : undefined;
  if (options.headings) {
    const path = headingPath(chunk.metadata).filter((h) => !context?.includes(h));
    if (path.length) lines.push(path.join(' > '));
  }
  if (context) lines.push(context);
  lines.push(chunk.text);
  return lines.join('\n');
}

/** A document's name as words: its last path segment, without a file extension, `_`, `-` and `.` read as spaces. */
export function documentWords(document: string): string {
  const base = document.split(/[/\\]/).pop() ?? '';
  return base
    .replace(/\.[A-Za-z0-9]{1,5}$/, '')
    .replace(/[_\-.\s]+/g, ' ')
    .trim();
}

function headingPath(metadata: Record<string, unknown> | undefined): string[] {
  const h = metadata?.headings;
  return Array.isArray(h) ? h.filter((x): x is string => typeof x === 'string' && x.trim() !== '').map((x) => x.trim()) : [];
}
