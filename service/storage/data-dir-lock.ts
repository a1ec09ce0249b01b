/**
 * One writer per data directory: a server (or `chunkd ingest`) holds <data-dir>/chunkd.lock, a
 * file naming its process, while it runs. A second process on the same directory refuses to start,
 * naming the directory and the process holding it: two writers on one embedded store (LanceDB, the
 * SQLite databases) would store documents twice. A lock left by a process that no longer runs
 * (kill -9, a crash, a container restarted with the same pid) is taken over.
 */
import { closeSync, mkdirSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';
import { flagOf } from '../settings.js';

export const LOCK_FILE = 'chunkd.lock';

/** What the lock file holds. */
interface Holder {
  pid: number;
  host: string;
  command: string;
  since: string;
}

/** The data directory is in use by another running process: start-up stops with this message. */
export class DataDirInUseError extends Error {}

/** Locks this process took, by file: a second take in the same process (a test's second app) shares it. */
const held = new Map<string, { count: number; token: string }>();

/** A process with this pid runs on this machine (EPERM: it runs, as another user). */
function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function readHolder(file: string): Holder | undefined {
  try {
    const h = JSON.parse(readFileSync(file, 'utf8')) as Holder;
    return Number.isInteger(h.pid) ? h : undefined;
  } catch {
    return undefined; // gone meanwhile, or torn: treated as stale
  }
}

/**
 * Take the lock of `dataDir` for this process (`command`: what it is, for the message of a second
 * one). Returns the release. Throws DataDirInUseError when another running process holds it.
 */
export function lockDataDir(dataDir: string, command: string): () => void {
  const dir = resolve(dataDir);
  try {
    mkdirSync(dir, { recursive: true });
  } catch {
    // A data directory that cannot be made (a file in its place, no permission): nothing to lock;
    // opening its databases next says why, naming --data-dir.
    return () => {};
  }
  const file = join(dir, LOCK_FILE);
  const mine = held.get(file);
  if (mine) {
    mine.count++;
    return once(() => release(file));
  }
  const holder: Holder = { pid: process.pid, host: hostname(), command, since: new Date().toISOString() };
  const text = JSON.stringify(holder);
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const fd = openSync(file, 'wx');
      try {
        writeSync(fd, text);
      } finally {
        closeSync(fd);
      }
      held.set(file, { count: 1, token: text });
      return once(() => release(file));
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
    const other = readHolder(file);
    // Our own pid in a file this process did not write: left by an earlier process that had it (a container restarted).
    if (other && other.pid !== process.pid && other.host === hostname() && running(other.pid))
      throw new DataDirInUseError(
        `The data directory ${dir} is in use by another chunkd process (pid ${other.pid}, ${other.command}, since ${other.since}): one process writes a data directory at a time. Stop it, send the work to that server, or give this one another ${flagOf('dataDir')}. If no such process runs, delete ${file}.`,
      );
    if (other && other.host !== hostname())
      throw new DataDirInUseError(
        `The data directory ${dir} is locked by a chunkd process on another machine (${other.host}, pid ${other.pid}, ${other.command}, since ${other.since}): one process writes a data directory at a time. Give this one another ${flagOf('dataDir')}, or, if that process no longer runs, delete ${file}.`,
      );
    // Stale (its process is gone) or unreadable: taken over.
    try {
      unlinkSync(file);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    }
  }
  throw new DataDirInUseError(`The lock ${file} of the data directory ${dir} keeps changing: another chunkd process is starting on it. Start one at a time.`);
}

function release(file: string): void {
  const mine = held.get(file);
  if (!mine || --mine.count > 0) return;
  held.delete(file);
  try {
    // Only the file this process wrote: a process that took over a lock it thought stale keeps its own.
    if (readFileSync(file, 'utf8') === mine.token) unlinkSync(file);
  } catch {
    // already gone
  }
}

const once = (f: () => void) => {
  let done = false;
  return () => {
    if (done) return;
    done = true;
    f();
  };
};
