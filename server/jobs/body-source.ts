/**
 * A job body as it arrives over HTTP (POST /v1/jobs): pulled one network (or decoded) chunk at a
 * time for the intake (service/jobs/intake.ts), at most --max-job-bytes off the wire and,
 * compressed, at most that once decoded.
 */
import type { IncomingMessage } from 'node:http';
import type { Readable, Transform } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import { tooLarge } from '../../kernel/caps.js';
import { ChunkdError } from '../../kernel/errors.js';
import type { BodySource } from '../../service/jobs/intake.js';
import { settingOf, type Settings } from '../../service/settings.js';

export const NDJSON = 'application/x-ndjson';

export const jobTooLarge = (settings: Pick<Settings, 'maxJobBytes'>) =>
  tooLarge('The job body is too large', `${settings.maxJobBytes} bytes`, settingOf('maxJobBytes'), 'Split the documents over several jobs');

/**
 * The body's bytes, pulled one network (or decoded) chunk at a time: at most --max-job-bytes off
 * the wire and, compressed, at most that once decoded. `stop()` leaves the rest unread (the
 * connection is closed after the answer).
 */
export function bodySource(req: IncomingMessage, settings: Pick<Settings, 'maxJobBytes'>): BodySource {
  const limit = settings.maxJobBytes;
  const encoding = (req.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
  let decoder: Transform | undefined;
  if (encoding === 'gzip' || encoding === 'x-gzip') decoder = createGunzip();
  else if (encoding === 'deflate') decoder = createInflate();
  else if (encoding === 'br') decoder = createBrotliDecompress();
  else if (encoding !== 'identity' && encoding !== '') {
    throw new ChunkdError(
      'UNSUPPORTED_MEDIA_TYPE',
      `Unsupported Content-Encoding '${encoding}': send the body uncompressed, or compressed with gzip, deflate or br.`,
    );
  }
  let failure: Error | undefined;
  let wire = 0;
  let decoded = 0;
  if (decoder) {
    req.on('data', (c: Buffer) => {
      wire += c.length;
      if (wire > limit && !failure) {
        failure = jobTooLarge(settings);
        req.unpipe(decoder);
        req.pause();
      }
    });
    decoder.on(
      'error',
      () =>
        (failure ??= new ChunkdError('VALIDATION', [
          {
            loc: ['body'],
            msg: `The body is not valid ${encoding} data: send it compressed as its Content-Encoding says, or uncompressed without one.`,
            type: 'json_invalid',
          },
        ])),
    );
    req.pipe(decoder);
  }
  const source: Readable = decoder ?? req;
  const cutShort = () => new ChunkdError('VALIDATION', [{ loc: ['body'], msg: 'The body was cut short: send the whole body.', type: 'json_invalid' }]);
  return {
    async next() {
      for (;;) {
        if (failure) throw failure;
        const chunk = source.read() as Buffer | null;
        if (chunk !== null) {
          decoded += chunk.length;
          if (decoded > limit) throw (failure = jobTooLarge(settings));
          return chunk;
        }
        if (source.readableEnded) return null;
        if (source.destroyed || (req.destroyed && !req.complete)) throw (failure ??= cutShort());
        await new Promise<void>((resolve) => {
          const done = () => {
            source.off('readable', done).off('end', done).off('error', done).off('close', done);
            req.off('close', done);
            resolve();
          };
          source.on('readable', done).on('end', done).on('error', done).on('close', done);
          req.on('close', done);
        });
      }
    },
    stop() {
      if (decoder) {
        req.unpipe(decoder);
        decoder.destroy();
      }
      req.pause();
    },
  };
}
