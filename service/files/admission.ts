import { settingName, tooLarge } from '../../kernel/caps.js';
import { ChunkdError } from '../../kernel/errors.js';
import { settingOf } from '../settings.js';

const IN_FLIGHT = settingOf('maxUploadBytesInFlight');
const SETTING = settingName(IN_FLIGHT);
/** What a refused upload is told to wait: the uploads ahead of it are read and extracted in about this long. */
const RETRY_AFTER_S = 1;

/**
 * The upload bytes the server holds at once, over every upload in flight: each upload reserves its
 * body before a byte of it is read (its Content-Length, or, for a chunked body, each piece as it
 * arrives), and keeps the reservation until its request is answered, since its bytes stay in
 * memory until then. Past the cap an upload is refused with a 503 and Retry-After (a chunked one as
 * soon as it passes it); an upload that could never fit, even alone, is a 413.
 */
export class UploadAdmission {
  #held = 0;
  constructor(readonly capacity: number) {}

  /** Bytes reserved now, over all uploads. */
  get held(): number {
    return this.#held;
  }

  /**
   * A reservation of `bytes` (the Content-Length; 0 for a chunked body, which grows it as it is
   * read), or the 503/413 that refuses the upload before its body is read.
   */
  admit(bytes: number): Reservation {
    const reservation = new Reservation(this);
    reservation.cover(bytes);
    return reservation;
  }

  /** @internal */
  take(bytes: number, total: number): void {
    if (total > this.capacity) {
      throw tooLarge(
        `The upload is ${total} bytes or more, more than all uploads in flight may hold together`,
        `${this.capacity} bytes`,
        IN_FLIGHT,
        'Upload a smaller file',
      );
    }
    if (this.#held + bytes > this.capacity) {
      throw new ChunkdError(
        'UNAVAILABLE',
        `The server is reading as many uploads as it holds at once (${this.capacity} bytes in flight, ${SETTING}): retry in a moment.`,
        { 'Retry-After': String(RETRY_AFTER_S) },
      );
    }
    this.#held += bytes;
  }

  /** @internal */
  give(bytes: number): void {
    this.#held -= bytes;
  }
}

/** One upload's share of the cap: grown as its body is read, given back once (release is idempotent). */
export class Reservation {
  #bytes = 0;
  #released = false;
  constructor(private readonly admission: UploadAdmission) {}

  get bytes(): number {
    return this.#bytes;
  }

  /** Grow the reservation to `total` bytes if it holds fewer; throws the refusal if the cap is passed. */
  cover(total: number): void {
    if (this.#released) throw new Error('Reservation used after release');
    if (total <= this.#bytes) return;
    this.admission.take(total - this.#bytes, total);
    this.#bytes = total;
  }

  release(): void {
    if (this.#released) return;
    this.#released = true;
    this.admission.give(this.#bytes);
    this.#bytes = 0;
  }
}

/** Room for the multipart framing and a few small fields around the largest file. */
export const FRAMING_BYTES = 2 * 1024 * 1024;

/**
 * The most of a multipart body read off the wire: the file limit plus framing, counted over the
 * whole body (a preamble, text fields, other parts, anything after the closing boundary).
 */
export const uploadLimit = (maxFileBytes: number) => maxFileBytes + FRAMING_BYTES;
