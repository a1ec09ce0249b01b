/**
 * What the engine runs on: a document in any of the forms a surface hands it (a text, a list of
 * chunks, JSON or UTF-16 bytes, a processed text with its structure, a file's bytes), how each is
 * weighed for placement, and how it is moved to a worker (bytes in buffers of their own, moved,
 * never copied) and read back where it runs.
 */
import type { Chunk } from '../chunk.js';
import type { ChefDocument, Structure } from '../chef/document.js';

/**
 * A document: a text, a list of chunks, either as its JSON bytes (parsed where it runs), or a text
 * as UTF-16 bytes (lone surrogates kept), or a processed text with its structure (a chef's
 * output). Bytes are moved to a worker, never copied; a text given as a string is turned into
 * UTF-16 bytes before it goes to one (a native copy, not a clone).
 */
export type Doc = string | Chunk[] | { json: Uint8Array } | { utf16: Uint8Array } | StructuredDoc | FileDoc;

/** A file's bytes, for a recipe whose first step is a chef (what is known of the file beside them). */
export interface FileDoc {
  file: Uint8Array;
  filename?: string;
  mime?: string;
  /** The caller uses the bytes afterwards (an upload stores them): they are copied to a worker, never moved. */
  keep?: boolean;
}

/** A processed document: its text, and the structure its chef found (UTF-16 spans of the text). */
export interface StructuredDoc {
  text: string;
  /**
   * The structure, or its JSON bytes (a stored upload's, in a buffer of their own: see movable):
   * parsed where the document runs, so a stored structure of many megabytes is moved to a worker
   * as bytes and never parsed on the calling thread when the work is placed off it.
   */
  structure: Structure | { json: Uint8Array };
  /** The chef that made it (a stored upload's): a process step of this very chef answers it as it is, not read again. */
  chef?: string;
}

/** A text as UTF-16 bytes in a buffer of its own (transferable: never Node's shared pool). */
export function utf16Doc(text: string): { utf16: Uint8Array } {
  const b = Buffer.allocUnsafeSlow(text.length * 2);
  b.write(text, 'utf16le');
  return { utf16: new Uint8Array(b.buffer, b.byteOffset, b.byteLength) };
}

/**
 * Bytes in an ArrayBuffer of their own, so they can be moved to a worker: the same bytes when they
 * fill theirs, else a copy (moving a view into a larger buffer, such as Node's shared pool for
 * small Buffers, would detach whatever else lives in it).
 */
export function movable(bytes: Uint8Array): Uint8Array {
  if (bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength && bytes.buffer instanceof ArrayBuffer) return bytes;
  return new Uint8Array(bytes);
}

/**
 * The buffers of documents given as bytes (a structure given as its JSON too), to move along with
 * them. A file's bytes move only when they fill a buffer of their own and the caller does not keep
 * them; else they are copied.
 */
export const docBuffers = (docs: Doc[]): ArrayBuffer[] =>
  docs.flatMap((d) => {
    if (typeof d !== 'object' || Array.isArray(d)) return [];
    if ('text' in d) return 'json' in d.structure ? [d.structure.json.buffer as ArrayBuffer] : [];
    if ('file' in d) return d.keep || movable(d.file) !== d.file ? [] : [d.file.buffer as ArrayBuffer];
    return [('json' in d ? d.json : d.utf16).buffer as ArrayBuffer];
  });

/** Documents as they are moved to a worker: a text as UTF-16 bytes. */
export const moved = (docs: Doc[]): Doc[] => docs.map((d) => (typeof d === 'string' ? utf16Doc(d) : d));

export const hasFiles = (docs: Doc[]): boolean => docs.some((d) => typeof d === 'object' && 'file' in d);

/** What a refine step weighs: characters of its chunks' texts. */
export const listWeight = (l: Chunk[]): number => l.reduce((m, c) => m + c.text.length, 0);

/**
 * Characters (or bytes, for JSON) of a document: what the placement's cost rule weighs. A
 * structure given as JSON weighs its bytes beside the text, so a large one is parsed in a worker.
 */
export const docWeight = (d: Doc): number =>
  typeof d === 'string'
    ? d.length
    : Array.isArray(d)
      ? listWeight(d)
      : 'text' in d
        ? d.text.length + ('json' in d.structure ? d.structure.json.byteLength : 0)
        : 'json' in d
          ? d.json.byteLength
          : 'file' in d
            ? d.file.byteLength
            : d.utf16.byteLength / 2;

/** A document as the first step takes it, where it runs: a text, chunks, or a file for a chef. */
export function docValue(d: Doc): string | Chunk[] | ChefDocument {
  if (typeof d === 'string' || Array.isArray(d)) return d;
  if ('text' in d) return d.text;
  if ('file' in d) return { bytes: d.file, filename: d.filename ?? '', ...(d.mime ? { mime: d.mime } : {}) };
  if ('utf16' in d) return Buffer.from(d.utf16.buffer, d.utf16.byteOffset, d.utf16.byteLength).toString('utf16le');
  return JSON.parse(new TextDecoder().decode(d.json)) as string | Chunk[];
}

/** Structures parsed from their JSON on this thread (a worker's or the calling one's), for tests that judge where the parse ran. */
export const parsedStructures = { documents: 0, bytes: 0 };

/** A document's structure, parsed here when it was given as JSON (a stored upload's). */
export function structureOf(given: StructuredDoc['structure']): Structure {
  if (!('json' in given)) return given;
  parsedStructures.documents++;
  parsedStructures.bytes += given.json.byteLength;
  return JSON.parse(new TextDecoder().decode(given.json)) as Structure;
}
