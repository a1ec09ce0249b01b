import Type, { type Static } from '#typebox';

/**
 * A processed document: what a chef makes of a file or a text. `text` is what chunkers cut and
 * what every offset refers to; `structure` lists spans of it. Inside the kernel offsets are
 * UTF-16 indices (`start`, `end`); on the wire they are `start_index`/`end_index` in the
 * request's unit, as for chunks (see toWire).
 */
export interface Span {
  start: number;
  end: number;
}
export interface Heading extends Span {
  /** 1 for a top-level heading (`#`, `<h1>`), up to 6. */
  level: number;
  /** The heading's text, without its markers. */
  text: string;
}
export interface CodeBlock extends Span {
  /** The fence's info string (` ```python `), or null. */
  language: string | null;
}
export interface Image extends Span {
  alt: string;
  src: string;
}
export interface Page extends Span {
  /** 1-based. */
  number: number;
}
export interface Structure {
  headings: Heading[];
  tables: Span[];
  code: CodeBlock[];
  images: Image[];
  pages: Page[];
}
export interface Processed {
  text: string;
  structure: Structure;
  metadata: Record<string, unknown>;
  /**
   * Set by a chef whose text is the file's bytes decoded as UTF-8 and nothing else (text,
   * markdown): the text's UTF-8 encoding is the file's bytes from this index on (past a BOM; see
   * utf8TextStart), so a store writes those bytes instead of encoding the text again.
   */
  utf8From?: number;
  /** The text's length in code points, when counted where the text was made (an extraction worker), so the event loop need not scan it. */
  codePoints?: number;
  /**
   * Asked for by a caller that stores the structure (an upload): its JSON, made where the chef ran
   * (an extraction worker), absent when it has no spans. `structure` is then empty: the spans
   * cross to the event loop as these bytes only, never as objects to rebuild and stringify there.
   */
  structureJson?: Uint8Array;
}

export const emptyStructure = (): Structure => ({ headings: [], tables: [], code: [], images: [], pages: [] });

/** The input of a chef: a file's bytes (with what is known of the file), or a text. */
export interface ChefDocument {
  text?: string;
  bytes?: Uint8Array;
  /** The client's file name (its extension may matter), '' when unknown. */
  filename?: string;
  /** The media type the client sent, if any. */
  mime?: string;
}

const Offset = (what: string) => Type.Integer({ minimum: 0, description: `${what} offset into \`text\`, in the request's offset_unit.` });
const SpanFields = { start_index: Offset('Start'), end_index: Offset('End (exclusive)') };

/** The wire form of a processed document, declared once: the answer of POST /v1/process/{name}. */
export const ProcessedDocument = Type.Object(
  {
    text: Type.String({ description: 'The document as text: chunkers cut this, and every offset refers to it.' }),
    structure: Type.Object(
      {
        headings: Type.Array(Type.Object({ level: Type.Integer({ minimum: 1, maximum: 6 }), text: Type.String(), ...SpanFields }), {
          description: 'Headings in order, with their level (1 = top).',
        }),
        tables: Type.Array(Type.Object(SpanFields), { description: 'Tables (markdown tables, or a table as the chef lays it out in text).' }),
        code: Type.Array(Type.Object({ language: Type.Union([Type.String(), Type.Null()]), ...SpanFields }), {
          description: 'Fenced code blocks, fences included, with the language of the info string.',
        }),
        images: Type.Array(Type.Object({ alt: Type.String(), src: Type.String(), ...SpanFields }), { description: 'Images: their alt text and link.' }),
        pages: Type.Array(Type.Object({ number: Type.Integer({ minimum: 1 }), ...SpanFields }), { description: 'Pages, for formats that have them (PDF).' }),
      },
      { description: 'Spans of `text`, by kind.' },
    ),
    metadata: Type.Record(Type.String(), Type.Unknown(), { description: 'What the chef knows of the document besides its text (its format, page count, …).' }),
  },
  { description: 'A processed document.' },
);
export type WireDocument = Static<typeof ProcessedDocument>;

/** Every span of a structure, in a fixed order (for offset conversion and checks). */
export function allSpans(s: Structure): Span[] {
  return [...s.headings, ...s.tables, ...s.code, ...s.images, ...s.pages];
}

const SURROGATE = /[\uD800-\uDFFF]/;

/** Code points in a string (a surrogate pair counts once). */
export function codePointCount(text: string): number {
  // Most texts have no surrogates: a native scan says so at once (for a one-byte string, without reading it).
  if (!SURROGATE.test(text)) return text.length;
  let n = text.length;
  for (let i = 0; i < text.length - 1; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c < 0xdc00) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d < 0xe000) {
        n--;
        i++;
      }
    }
  }
  return n;
}
