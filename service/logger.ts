/** Structured JSON-lines logs on stderr; never request bodies. */
export const LEVELS = ['debug', 'info', 'warning', 'error'] as const;
export type Level = (typeof LEVELS)[number];

export interface Logger {
  log(level: Level, msg: string, fields?: Record<string, unknown>): void;
}

/**
 * Each line is `{"time", "level", "msg", ...fields}`. A line is written per request, so it is built
 * without copying the fields into a new object (their JSON is appended to the fixed head) and the
 * time string's text up to the second is made once a second.
 */
export function createLogger(min: Level, write: (line: string) => void = toStderr): Logger {
  const floor = LEVELS.indexOf(min);
  // The head's text after the time, by level and message: a server logs few distinct messages, the request line most of all.
  const tails = LEVELS.map(() => new Map<string, string>());
  const tailOf = (rank: number, level: Level, msg: string): string => {
    const known = tails[rank]!.get(msg);
    if (known !== undefined) return known;
    const tail = `","level":"${level}","msg":${JSON.stringify(msg)}`;
    if (tails[rank]!.size < 256) tails[rank]!.set(msg, tail); // messages with a value in them would grow it without end
    return tail;
  };
  return {
    log(level, msg, fields) {
      const rank = LEVELS.indexOf(level);
      if (rank < floor) return;
      const head = `{"time":"${isoNow()}${tailOf(rank, level, msg)}`;
      if (fields === undefined) return write(head + '}');
      if ('time' in fields || 'level' in fields || 'msg' in fields) return write(JSON.stringify({ time: isoNow(), level, msg, ...fields })); // a field overrides a head key: keep its place
      const rest = JSON.stringify(fields);
      write(rest === '{}' ? head + '}' : `${head},${rest.slice(1)}`);
    },
  };
}

/** '000' to '999': the milliseconds of a log line's time. */
const MILLIS = Array.from({ length: 1000 }, (_, i) => String(i).padStart(3, '0'));
let lastSecond = -1;
let secondPrefix = '';
/** Date#toISOString of now (`2026-01-02T03:04:05.678Z`): its text up to the second is made once a second. */
function isoNow(): string {
  const now = Date.now();
  const second = Math.floor(now / 1000);
  if (second !== lastSecond) {
    lastSecond = second;
    secondPrefix = new Date(second * 1000).toISOString().slice(0, -4); // up to and with the '.'
  }
  return secondPrefix + MILLIS[now - second * 1000]! + 'Z';
}

/**
 * Lines to stderr, gathered and written at most every FLUSH_MS (or at once past 64 KiB): stderr
 * writes are synchronous system calls, and a busy server logs a line per request. Written once per
 * event-loop turn, a server under load still made about one write per request (a few µs each, a
 * visible share of a small request's CPU); a line now waits at most FLUSH_MS. Lines still waiting
 * when the process exits (also on a crash) are written then.
 */
export const FLUSH_MS = 25;
let waiting = '';
let flushing: NodeJS.Timeout | undefined;
let atExit = false;
function flush(): void {
  if (flushing) clearTimeout(flushing);
  flushing = undefined;
  if (!waiting) return;
  const out = waiting;
  waiting = '';
  process.stderr.write(out);
}
function toStderr(line: string): void {
  if (!flushing) flushing = setTimeout(flush, FLUSH_MS).unref();
  if (!atExit) {
    atExit = true;
    process.on('exit', flush);
  }
  waiting += line + '\n';
  if (waiting.length > 65_536) flush();
}

export const silentLogger: Logger = { log() {} };
