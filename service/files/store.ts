import { randomBytes } from 'node:crypto';

/** What is known of a stored file: the answer of POST /v1/files and GET /v1/files/{name}. */
export interface FileRecord {
  /** The opaque id this server made; never derived from anything the client sent. */
  name: string;
  /** The client's file name, sanitized (no directories, no control characters): informational only. */
  filename: string | null;
  /** Bytes uploaded. */
  size: number;
  /** The chef that read the file (text, markdown, html, pdf, docx, …). */
  format: string;
  /** Length of the extracted text, in code points (the default offset unit). */
  text_chars: number;
  created_at: string;
  /** When the file is deleted; null when files do not expire. */
  expires_at: string | null;
}

/** How much the stored files take, for the quota (reservations of uploads in flight included). */
export interface FileUsage {
  count: number;
  /** Upload bytes plus extracted-text bytes (UTF-8). */
  bytes: number;
}

/** Limits a store enforces on every reservation, across every process that shares it. */
export interface FileQuota {
  maxFiles: number;
  maxBytes: number;
}

/**
 * Room held for one upload before its text is extracted: one file, and the upload's bytes. `put`
 * turns it into the stored file (growing it by the text's bytes), `release` gives it back. A
 * reservation never put nor released (its process died) lapses on its own (see each store).
 */
export interface FileReservation {
  readonly name: string;
  /** Bytes held so far. */
  readonly bytes: number;
}

/** What is stored for a file besides its record. */
export interface FileContent {
  /** The bytes as uploaded: kept so a file can be processed again (another chef, a newer one). */
  bytes: Uint8Array;
  /** The extracted text: what chunk requests by file see, and what offsets refer to. */
  text: string;
  /**
   * The text's UTF-8 bytes, when the caller has them already (the file's own bytes, for a chef
   * whose text is those bytes decoded: Processed.utf8From): stored as they are, and the text is
   * not encoded again. They must be exactly `Buffer.from(text, 'utf8')`.
   */
  textUtf8?: Uint8Array;
  /**
   * The chef's structure of the text (headings, tables, code, images, pages: offset spans into
   * it; kernel/chef/document.ts), or any JSON value: stored beside the text as its JSON and given
   * back as those bytes by `structureJson()`, never read by the store. Omitted: null.
   */
  structure?: unknown;
  /**
   * The structure as its JSON bytes already (made where the chef ran, off the event loop): stored
   * as they are, in place of `structure`, which is then not stringified here.
   */
  structureJson?: Uint8Array;
}

/** One page of the list: newest first; `next` continues after its last file, null on the last page. */
export interface FilePage {
  files: FileRecord[];
  next: string | null;
}

/**
 * Uploaded files, behind one small contract: the routes never touch a path or a table. Two
 * back-ends: a folder (data-dir.ts, the default) and PostgreSQL (postgres.ts, shared by every
 * replica that names the same database). An expired file is gone for every method (as if
 * deleted), whether or not a sweep has removed it yet.
 *
 * An upload is three steps, so the quota is taken before the costly part (extraction):
 * `reserve` (QuotaError when full) → extract → `put` (or `release` when extraction fails).
 *
 * Large bytes could later move to an object store without changing this contract: the bytes are
 * written by `put` and read only by `original`, each in one place per back-end (see FileBlobs in
 * postgres.ts), so a store may keep the metadata and text in its database and the bytes elsewhere.
 */
export interface FileStore {
  /** Hold one file and `bytes` against the quota (QuotaError when it would not fit), under a new name. */
  reserve(name: string, bytes: number): Promise<FileReservation>;
  /**
   * Store the file under its reservation, which grows (or shrinks) to the file's stored size:
   * its bytes plus its text's UTF-8 bytes plus its structure's JSON bytes. QuotaError when the growth does not fit; the
   * reservation is released then, and on any other failure too.
   */
  put(reservation: FileReservation, record: FileRecord, content: FileContent): Promise<void>;
  /** Give a reservation back (extraction failed, the client left). Idempotent. */
  release(reservation: FileReservation): Promise<void>;
  get(name: string): Promise<FileRecord | undefined>;
  /** The extracted text, exactly as chunk requests see it. */
  text(name: string): Promise<string | undefined>;
  /**
   * The structure stored beside the text, as the JSON bytes it was stored as (null when none was;
   * undefined for an unknown file). Bytes, not a value: a structure can be many megabytes, and the
   * document runner parses it where the work runs (kernel/engine/runner.ts StructuredDoc), off the event
   * loop, rather than the store parsing it here.
   */
  structureJson(name: string): Promise<Uint8Array | null | undefined>;
  /** The bytes as uploaded. */
  original(name: string): Promise<Uint8Array | undefined>;
  /** Stored files, newest first, `limit` at a time after the cursor `after` (a `next` from an earlier page). */
  list(page: { limit: number; after?: string }): Promise<FilePage>;
  delete(name: string): Promise<boolean>;
  usage(): Promise<FileUsage>;
  /** Remove every expired file now (a timer calls it; reads also skip expired files). */
  sweep(): Promise<number>;
  /** Resolves when the storage answers (readiness). */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** Text bytes the stores encoded from a string (not given as textUtf8), for tests and the bench. */
export const encodedText = { files: 0, bytes: 0 };

/** The text's UTF-8 bytes to store: the ones given, as a Buffer over the same memory, else the text encoded (counted). */
export function textBytesOf({ text, textUtf8 }: Pick<FileContent, 'text' | 'textUtf8'>): Buffer {
  if (textUtf8) return Buffer.isBuffer(textUtf8) ? textUtf8 : Buffer.from(textUtf8.buffer, textUtf8.byteOffset, textUtf8.byteLength);
  const bytes = Buffer.from(text, 'utf8');
  encodedText.files++;
  encodedText.bytes += bytes.length;
  return bytes;
}

/**
 * The structure as it is stored (its JSON), or null when there is none: made once, and its bytes
 * count in the file's stored size (--max-files-bytes) like the bytes and the text, since a small
 * file's structure can be many times its size.
 */
export function structureJsonOf({ structure, structureJson }: Pick<FileContent, 'structure' | 'structureJson'>): string | Buffer | null {
  if (structureJson) return Buffer.from(structureJson.buffer, structureJson.byteOffset, structureJson.byteLength);
  return structure === undefined || structure === null ? null : JSON.stringify(structure);
}

/** A cursor that is not one the store handed out: a 422 on the query. */
export class InvalidFileCursorError extends Error {}

/** Thrown by reserve and put when the file would exceed the quota: which limit, for the message. */
export class QuotaError extends Error {
  constructor(
    readonly limit: 'count' | 'bytes',
    readonly usage: FileUsage,
    readonly quota: FileQuota,
  ) {
    super(`file quota (${limit}) reached`);
  }
}

/** A new file name: 128 random bits, so one can neither be guessed nor taken for a path. */
export const newFileName = (): string => `file_${randomBytes(16).toString('hex')}`;

const NAME = /^file_[0-9a-f]{32}$/;
/** Only names this server makes are ever looked up: anything else (a path, `..`, a URL) is unknown. */
export const isFileName = (name: string): boolean => NAME.test(name);

/** The sanitized client file name: its last path segment, without control characters, at most 255 characters. */
export function sanitizeFilename(raw: string | undefined): string | null {
  if (!raw) return null;
  const base = raw.split(/[\\/]/).pop() ?? '';
  const clean = [...base.toWellFormed().replace(/[\p{Cc}\p{Cf}]/gu, '')].slice(0, 255).join('').trim();
  return clean === '' || clean === '.' || clean === '..' ? null : clean;
}
