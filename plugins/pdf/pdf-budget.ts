import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { runInThisContext } from 'node:vm';

/**
 * A budget on the bytes PDF.js decodes for one file, kept by the decoders themselves.
 *
 * A PDF stream may be compressed a thousand to one, behind any chain of filters (Flate, LZW,
 * ASCIIHex, ASCII85, RunLength, predictors, DCT/JPX/JBIG2/CCITT images), spelled with name escapes
 * (`/Flat#65Decode`), abbreviations (`/Fl`, `/AHx`), arrays, or an indirect reference that may
 * itself live in a compressed object stream; and a page may draw from a hundred of them. Reading
 * the dictionaries ahead of PDF.js to guess which streams it will decode misses some spelling
 * sooner or later; counting what its decoders produce misses none. So every decoder of PDF.js's
 * worker code is metered:
 *
 * - `DecodeStream.ensureBuffer` — every synchronous decoder (Flate, LZW, ASCIIHex, ASCII85,
 *   RunLength, CCITT, predictors, concatenated content streams) grows its output buffer there: the
 *   growth is charged before the buffer is allocated, so a stream never grows past the budget;
 * - `DecodeStream.asyncGetBytesFromDecompressionStream` — Flate and Brotli decoded by the
 *   platform's DecompressionStream (how PDF.js reads page contents): charged chunk by chunk, the
 *   reading stops at the budget;
 * - `readBlock` of the image decoders (JPEG, JPX, JBIG2), which decode a whole image at once:
 *   charged after decoding, refused before it once the budget is spent.
 *
 * The count is cumulative over the file (a stream decoded twice counts twice): it bounds the work
 * as well as the memory. Once it is exceeded every further decode fails at once; PDF.js skips
 * some failed streams and carries on, so the caller checks `exceeded` after parsing as well.
 *
 * PDF.js keeps those classes private to its worker module, so that module (one file, no imports)
 * is compiled here as a function whose last statement returns them beside WorkerMessageHandler,
 * instead of imported (pdfjs-dist is pinned; a version whose file no longer ends as expected, or
 * lacks one of these classes, fails to load, loudly, rather than running unmetered).
 */
export class DecodeBudget {
  used = 0;
  exceeded = false;
  constructor(readonly limit: number) {}

  charge(bytes: number): void {
    if (this.exceeded) throw new DecodeBudgetError();
    this.used += bytes;
    if (this.used > this.limit) {
      this.exceeded = true;
      throw new DecodeBudgetError();
    }
  }
}

/** Thrown inside PDF.js's decoders when the budget is spent (the caller turns it into a 413). */
export class DecodeBudgetError extends Error {
  constructor() {
    super('The decoded-bytes budget of this file is spent.');
    this.name = 'DecodeBudgetError';
  }
}

/** The budget of the file being parsed in this thread (one at a time: see withDecodeBudget). */
let current: DecodeBudget | undefined;
let queue: Promise<unknown> = Promise.resolve();

/**
 * Run `parse` with `budget` as the budget every PDF.js decoder in this thread charges. Files are
 * parsed one after another in a thread (an extraction worker parses one anyway), so the count
 * belongs to one file.
 */
export function withDecodeBudget<T>(budget: DecodeBudget, parse: () => Promise<T>): Promise<T> {
  const run = queue.then(async () => {
    current = budget;
    try {
      return await parse();
    } finally {
      current = undefined;
    }
  });
  queue = run.catch(() => {});
  return run;
}

/** Charge the current file (no file: a decode outside an extraction is not metered). */
const charge = (bytes: number): void => current?.charge(bytes);

interface DecodeStreamLike {
  buffer: Uint8Array;
  bufferLength: number;
  minBufferLength: number;
  stream: { reset(): void; isAsync: boolean; asyncGetBytes(): Promise<Uint8Array | null>; getBytes(): Uint8Array };
}
type Proto<T> = { prototype: T };
interface MeteredModule {
  WorkerMessageHandler: unknown;
  __DecodeStream: Proto<
    DecodeStreamLike & { ensureBuffer(requested: number): Uint8Array; asyncGetBytesFromDecompressionStream(name: string): Promise<unknown> }
  >;
  __JpegStream: Proto<{ readBlock(...args: unknown[]): unknown }>;
  __JpxStream: Proto<{ readBlock(...args: unknown[]): unknown }>;
  __Jbig2Stream: Proto<{ readBlock(...args: unknown[]): unknown }>;
}

const EXPORT = /\nexport \{ WorkerMessageHandler \};\s*(?:\/\/# sourceMappingURL=\S*\s*)?$/;
const RETURN =
  '\nreturn { WorkerMessageHandler, __DecodeStream: DecodeStream, __JpegStream: JpegStream, __JpxStream: JpxStream, __Jbig2Stream: Jbig2Stream };\n';

let loaded: MeteredModule | undefined;

/** PDF.js's worker module with its decoders metered (once per thread). */
export function meteredPdfjsWorker(): MeteredModule {
  if (loaded) return loaded;
  const path = createRequire(import.meta.url).resolve('pdfjs-dist/legacy/build/pdf.worker.mjs');
  const source = readFileSync(path, 'utf8');
  if (!EXPORT.test(source)) throw new Error(`${path} does not end with the export this server expects: install the pdfjs-dist version package.json names.`);
  // import.meta.url only locates the optional wasm decoders, which are off (useWasm: false).
  const body = source.replace(/import\.meta\.url/g, JSON.stringify(pathToFileURL(path).href)).replace(EXPORT, RETURN);
  const factory = runInThisContext(`(function () {'use strict';\n${body}\n})`, { filename: path }) as () => MeteredModule;
  loaded = factory();
  meter(loaded);
  return loaded;
}

function meter(mod: MeteredModule): void {
  const decode = mod.__DecodeStream.prototype;
  const ensureBuffer = decode.ensureBuffer;
  decode.ensureBuffer = function (this: DecodeStreamLike, requested: number) {
    const had = this.buffer.byteLength;
    if (requested > had) {
      let size = this.minBufferLength; // the size PDF.js is about to allocate
      while (size < requested) size *= 2;
      charge(size - had);
    }
    return ensureBuffer.call(this, requested);
  };
  // As PDF.js's own (same answers), with each decompressed chunk charged as it arrives.
  decode.asyncGetBytesFromDecompressionStream = async function (this: DecodeStreamLike, name: string) {
    this.stream.reset();
    const bytes = this.stream.isAsync ? await this.stream.asyncGetBytes() : this.stream.getBytes();
    const budget = current;
    let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
    try {
      const { readable, writable } = new DecompressionStream(name as ConstructorParameters<typeof DecompressionStream>[0]);
      const writer = writable.getWriter();
      await writer.ready;
      writer
        .write(bytes as Uint8Array<ArrayBuffer>)
        .then(async () => {
          await writer.ready;
          await writer.close();
        })
        .catch(() => {});
      reader = readable.getReader();
      const chunks: Uint8Array[] = [];
      let total = 0;
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        budget?.charge(value.byteLength);
        chunks.push(value);
        total += value.byteLength;
      }
      const data = new Uint8Array(total);
      let offset = 0;
      for (const chunk of chunks) {
        data.set(chunk, offset);
        offset += chunk.byteLength;
      }
      return { decompressed: data, compressed: bytes };
    } catch (e) {
      if (e instanceof DecodeBudgetError) {
        reader?.cancel().catch(() => {});
        throw e;
      }
      return { decompressed: null, compressed: bytes };
    }
  };
  for (const image of [mod.__JpegStream, mod.__JpxStream, mod.__Jbig2Stream]) {
    const readBlock = image.prototype.readBlock;
    image.prototype.readBlock = function (this: DecodeStreamLike, ...args: unknown[]) {
      charge(0); // spent already: refuse before decoding
      const had = this.buffer?.byteLength ?? 0;
      const result = readBlock.apply(this, args);
      charge(Math.max(0, (this.buffer?.byteLength ?? 0) - had));
      return result;
    };
  }
}
