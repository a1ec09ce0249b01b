import busboy from 'busboy';
import type { IncomingMessage } from 'node:http';
import { tooLarge } from '../../kernel/caps.js';
import { ChunkdError, validationError } from '../../kernel/errors.js';
import { FRAMING_BYTES, uploadLimit, type Reservation } from '../../service/files/admission.js';
import { settingOf } from '../../service/settings.js';

/** The one file part of an upload. */
export interface Upload {
  bytes: Buffer;
  /** As the client sent it (sanitize before use). */
  filename: string | undefined;
  mime: string | undefined;
  /** The text fields sent beside the file (e.g. `chef`), by name. */
  fields: Record<string, string>;
}

/** The form part that carries the file, as Chonkie's clients name it. */
export const FILE_PART = 'file';
const EXAMPLE = "curl -F 'file=@notes.md' …/v1/files";

/**
 * Read a multipart/form-data upload with exactly one file part named `file` (other text fields
 * are ignored), at most maxBytes long; every other shape is refused with the reason. The body as
 * a whole is read up to uploadLimit(maxBytes) and no further: the byte past it is a 413, and the
 * rest is left unread (the route closes the connection after its answer).
 *
 * With a `reservation` (service/files/admission.ts), every byte read is covered by it first: a body that grows
 * past what the reservation may take is cut off with the reservation's refusal. With a
 * Content-Length, the file is copied once into a buffer of that size as it arrives, instead of
 * kept in pieces and joined at the end (which held the body twice); that buffer is a
 * SharedArrayBuffer, so handing the file to an extraction worker copies nothing.
 */
export function readUpload(req: IncomingMessage, maxBytes: number, signal?: AbortSignal, reservation?: Reservation): Promise<Upload> {
  const type = req.headers['content-type'] ?? '';
  if (!/^multipart\/form-data\s*;/i.test(type)) {
    return Promise.reject(
      new ChunkdError(
        'UNSUPPORTED_MEDIA_TYPE',
        `POST /v1/files takes multipart/form-data with one part named '${FILE_PART}' (got Content-Type '${type || 'none'}'), e.g. ${EXAMPLE}.`,
      ),
    );
  }
  const encoding = (req.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
  if (encoding !== 'identity' && encoding !== '') {
    return Promise.reject(
      new ChunkdError(
        'UNSUPPORTED_MEDIA_TYPE',
        `POST /v1/files takes an uncompressed body (got Content-Encoding '${encoding}'): send the file as is; compressed formats such as .docx are fine.`,
      ),
    );
  }
  let parser: busboy.Busboy;
  try {
    // busboy stops a file as it reaches fileSize: one byte more than the cap tells a file at the cap from one over it.
    parser = busboy({ headers: req.headers, limits: { fileSize: maxBytes + 1, files: 1, fields: 16, fieldSize: 64 * 1024, parts: 17 } });
  } catch (e) {
    return Promise.reject(
      new ChunkdError(
        'UNSUPPORTED_MEDIA_TYPE',
        `The multipart body cannot be read (${(e as Error).message}): send multipart/form-data with a boundary, e.g. ${EXAMPLE}.`,
      ),
    );
  }
  const declared = Number(req.headers['content-length'] ?? 0) || 0;
  return new Promise<Upload>((resolve, reject) => {
    let upload: Omit<Upload, 'fields'> | undefined;
    const fields: Record<string, string> = {};
    let settled = false;
    const fail = (error: Error) => {
      if (settled) return;
      settled = true;
      signal?.removeEventListener('abort', onAbort);
      detach();
      req.pause(); // the rest is not read: the route closes the connection after its answer
      reject(error);
    };
    const onAbort = () => fail(signal!.reason as Error);
    signal?.addEventListener('abort', onAbort, { once: true });

    parser.on('file', (field, stream, info) => {
      if (field !== FILE_PART) {
        stream.resume();
        return fail(validationError(['body', field], `The file part is named '${field}': name it '${FILE_PART}', e.g. ${EXAMPLE}.`, 'file_part_name'));
      }
      // The file is no longer than the body: with a Content-Length, one buffer of that size (or of the file limit) holds it.
      // Shared memory: an extraction worker reads the file where it is, instead of a copy made on the event loop to send it.
      const into = declared > 0 ? Buffer.from(new SharedArrayBuffer(Math.min(declared, maxBytes))) : undefined;
      const parts: Buffer[] = [];
      let size = 0;
      stream.on('data', (b: Buffer) => {
        if (size + b.length > maxBytes) return fail(fileTooLarge(maxBytes));
        if (into) b.copy(into, size);
        else parts.push(b);
        size += b.length;
      });
      stream.on('error', (e: Error) => fail(malformed(e)));
      stream.on('end', () => {
        if (!settled) upload = { bytes: into ? into.subarray(0, size) : Buffer.concat(parts, size), filename: info.filename, mime: info.mimeType };
      });
    });
    parser.on('field', (field, value) => {
      if (field !== FILE_PART) fields[field] = value;
      if (field === FILE_PART)
        fail(
          validationError(
            ['body', FILE_PART],
            `The '${FILE_PART}' part is a plain field: send it as a file (with a filename in its Content-Disposition), e.g. ${EXAMPLE}.`,
            'file_part_not_file',
          ),
        );
    });
    parser.on('filesLimit', () =>
      fail(validationError(['body', FILE_PART], `The body holds more than one file: upload one file per request.`, 'file_part_many')),
    );
    parser.on('partsLimit', () => fail(validationError(['body'], `The body holds too many parts: send one part named '${FILE_PART}'.`, 'parts_many')));
    parser.on('error', (e: Error) => fail(malformed(e)));
    parser.on('close', () => {
      signal?.removeEventListener('abort', onAbort);
      if (settled) return;
      if (!upload) return fail(validationError(['body', FILE_PART], `No part named '${FILE_PART}' holds a file: send one, e.g. ${EXAMPLE}.`, 'missing'));
      settled = true;
      resolve({ ...upload, fields });
    });
    req.on('aborted', () => fail(new ChunkdError('VALIDATION', 'The upload was cut short: send the whole body.')));
    // Counted before busboy sees a byte: busboy bounds the file part only, and reads a preamble,
    // a text field or a tail after the closing boundary for as long as it is sent.
    const limit = uploadLimit(maxBytes);
    let read = 0;
    const onData = (chunk: Buffer) => {
      if (settled) return;
      read += chunk.length;
      if (read > limit) {
        return fail(
          tooLarge(
            `The multipart body is larger than the file limit plus ${FRAMING_BYTES} bytes for the framing and small fields`,
            `${limit} bytes`,
            MAX_FILE_BYTES,
            'Upload a smaller file, without large fields or data around it',
          ),
        );
      }
      try {
        reservation?.cover(read);
      } catch (e) {
        return fail(e as Error);
      }
      if (!parser.write(chunk)) {
        req.pause();
        parser.once('drain', () => settled || req.resume());
      }
    };
    function detach() {
      req.off('data', onData).off('end', onEnd);
    }
    const onEnd = () => settled || parser.end();
    parser.once('close', detach);
    req.on('data', onData).once('end', onEnd);
  });
}

const malformed = (e: Error) =>
  validationError(
    ['body'],
    `The multipart body is malformed (${e.message}): send multipart/form-data with one part named '${FILE_PART}', e.g. ${EXAMPLE}.`,
    'multipart_invalid',
  );

/** The 413 of a file over --max-file-bytes, whether its Content-Length says so up front or its bytes do as they arrive. */
export const fileTooLarge = (max: number) => tooLarge('The file is larger than this server accepts', `${max} bytes`, MAX_FILE_BYTES, 'Upload a smaller file');

const MAX_FILE_BYTES = settingOf('maxFileBytes');
