/**
 * The CLI reads named files only if they are regular files, and never more than a limit: a FIFO or
 * a device (/dev/zero) never ends, a directory is no text, and a file may grow between a stat and
 * a read. So the file is opened once, its own descriptor stat'ed, and at most limit + 1 bytes read.
 */
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';

/** A file the CLI refuses: its message is the one line the command prints before exit code 2. */
export class UnreadableFile extends Error {}

const why = (e: unknown) => {
  const code = (e as NodeJS.ErrnoException).code;
  return code === 'ENOENT' ? 'it does not exist' : code === 'EISDIR' ? 'it is a directory' : code === 'EACCES' ? 'permission denied' : (e as Error).message;
};

/**
 * The bytes of `path`, a regular file of at most `maxBytes` bytes. `tooBig(size)` makes the error
 * for a larger one (`size` is at least what was found: the file may still be growing).
 */
export function readRegularFile(path: string, maxBytes: number, tooBig: (size: number) => Error, what = 'file'): Buffer {
  let fd: number;
  try {
    // O_NONBLOCK: opening a FIFO with no writer would otherwise wait forever before the check below.
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (e) {
    throw new UnreadableFile(`Cannot read the ${what} ${path}: ${why(e)}.`);
  }
  try {
    const stat = fstatSync(fd);
    if (stat.isDirectory()) throw new UnreadableFile(`Cannot read the ${what} ${path}: it is a directory. Name a file.`);
    if (!stat.isFile())
      throw new UnreadableFile(`Cannot read the ${what} ${path}: it is not a regular file (a pipe, device or socket may never end). Name a regular file.`);
    if (stat.size > maxBytes) throw tooBig(stat.size);
    // Read to the end, whatever the stat said: a file that grew past the limit meanwhile is refused, never cut short.
    const parts: Buffer[] = [];
    let total = 0;
    for (;;) {
      const chunk = Buffer.allocUnsafe(Math.min(maxBytes + 1 - total, Math.max(64 * 1024, stat.size + 1 - total)));
      const n = readSync(fd, chunk, 0, chunk.length, null);
      if (n === 0) break;
      parts.push(chunk.subarray(0, n));
      total += n;
      if (total > maxBytes) throw tooBig(total);
    }
    return parts.length === 1 ? parts[0]! : Buffer.concat(parts, total);
  } catch (e) {
    // A system call's error (it names one) is the file's; anything else (tooBig's error) goes on as it is.
    if (typeof (e as NodeJS.ErrnoException).syscall !== 'string') throw e;
    throw new UnreadableFile(`Cannot read the ${what} ${path}: ${why(e)}.`);
  } finally {
    closeSync(fd);
  }
}
