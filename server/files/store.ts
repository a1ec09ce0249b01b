import type { Structure } from '../../kernel/chef/document.js';
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
  /** The chef's structure of the text (headings, tables, code, images, pages; UTF-16 offsets), stored as JSON beside it. */
  structure?: Structure;
}

/** How much the stored files take, for the quota. */
export interface FileUsage {
  count: number;
  /** Upload bytes plus extracted-text bytes (UTF-8). */
  bytes: number;
}

/** Limits a store enforces on every put. */
export interface FileQuota {
  maxFiles: number;
  maxBytes: number;
}

/**
 * Uploaded files and their extracted text, behind one small contract: the routes never touch a
 * path. An expired file is gone for every method (as if deleted), whether or not a sweep has
 * removed it yet.
 */
export interface FileStore {
  /** Store a file (bytes and extracted text) under record.name; QuotaError when it would not fit. */
  put(record: FileRecord, bytes: Uint8Array, text: string): Promise<void>;
  get(name: string): Promise<FileRecord | undefined>;
  /** The extracted text, exactly as chunk requests see it. */
  text(name: string): Promise<string | undefined>;
  delete(name: string): Promise<boolean>;
  usage(): FileUsage;
  /** Remove every expired file now (a timer calls it; reads also skip expired files). */
  sweep(): Promise<number>;
  close(): Promise<void>;
}

/** Thrown by put when the file would exceed the quota: which limit, for the message. */
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
