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
 *
 * With a `write` of its own (tests, tools) each line is made and handed over at the call. To
 * stderr (the default) a call only records its time and arguments: the lines are made and written
 * together, within FLUSH_MS (toStderrLater), where one formatting loop over a batch costs a
 * fraction of a line made on each request's path. So the fields are read when the line is made:
 * pass values, not an object changed after the call (every caller passes a literal).
 */
export function createLogger(min: Level, write?: (line: string) => void): Logger {
  const floor = LEVELS.indexOf(min);
  // The head's text after the time, by level and message: a server logs few distinct messages, the request line most of all.
  const tails = LEVELS.map(() => new Map<string, string>());
  const tailOf = (rank: number, msg: string): string => {
    const known = tails[rank]!.get(msg);
    if (known !== undefined) return known;
    const tail = `","level":"${LEVELS[rank]}","msg":${JSON.stringify(msg)}`;
    if (tails[rank]!.size < 256) tails[rank]!.set(msg, tail); // messages with a value in them would grow it without end
    return tail;
  };
  const format: Format = (rank, msg, fields, now) => {
    const head = `{"time":"${isoAt(now)}${tailOf(rank, msg)}`;
    if (fields === undefined) return head + '}';
    if ('time' in fields || 'level' in fields || 'msg' in fields) return JSON.stringify({ time: isoAt(now), level: LEVELS[rank], msg, ...fields }); // a field overrides a head key: keep its place
    const rest = JSON.stringify(fields);
    return rest === '{}' ? head + '}' : `${head},${rest.slice(1)}`;
  };
  return {
    log(level, msg, fields) {
      const rank = LEVELS.indexOf(level);
      if (rank < floor) return;
      if (write) write(lineOf(format, rank, msg, fields, Date.now()));
      else toStderrLater(format, rank, msg, fields);
    },
  };
}

type Format = (rank: number, msg: string, fields: Record<string, unknown> | undefined, now: number) => string;

/** A call's line; fields JSON cannot hold (a BigInt, a cycle) give a line that says so, never a throw where the call was. */
function lineOf(format: Format, rank: number, msg: string, fields: Record<string, unknown> | undefined, now: number): string {
  try {
    return format(rank, msg, fields, now);
  } catch (e) {
    return JSON.stringify({
      time: isoAt(now),
      level: LEVELS[rank],
      msg,
      log_error: `The fields could not be written as JSON: ${(e as Error)?.message ?? String(e)}`,
    });
  }
}

/** '000' to '999': the milliseconds of a log line's time. */
const MILLIS = Array.from({ length: 1000 }, (_, i) => String(i).padStart(3, '0'));
let lastSecond = -1;
let secondPrefix = '';
/** Date#toISOString of `now` (`2026-01-02T03:04:05.678Z`): its text up to the second is made once a second. */
function isoAt(now: number): string {
  const second = Math.floor(now / 1000);
  if (second !== lastSecond) {
    lastSecond = second;
    secondPrefix = new Date(second * 1000).toISOString().slice(0, -4); // up to and with the '.'
  }
  return secondPrefix + MILLIS[now - second * 1000]! + 'Z';
}

/**
 * Lines to stderr, made and written at most every FLUSH_MS (or at once past FLUSH_LINES): stderr
 * writes are synchronous system calls, and a busy server logs a line per request. Written once per
 * event-loop turn, a server under load still made about one write per request (a few µs each, a
 * visible share of a small request's CPU); a line now waits at most FLUSH_MS. Calls still waiting
 * when the process exits (also on a crash) are written then.
 */
export const FLUSH_MS = 25;
export const FLUSH_LINES = 512;
/** Per waiting call: its format, level rank, message, fields and time, flat. */
const CALL = 5;
let waiting: unknown[] = [];
let flushing: NodeJS.Timeout | undefined;
let atExit = false;
function flush(): void {
  if (flushing) clearTimeout(flushing);
  flushing = undefined;
  if (waiting.length === 0) return;
  const calls = waiting;
  waiting = [];
  const lines = new Array<string>(calls.length / CALL + 1);
  for (let i = 0, k = 0; i < calls.length; i += CALL, k++) {
    lines[k] = lineOf(
      calls[i] as Format,
      calls[i + 1] as number,
      calls[i + 2] as string,
      calls[i + 3] as Record<string, unknown> | undefined,
      calls[i + 4] as number,
    );
  }
  lines[lines.length - 1] = ''; // the last line's newline
  process.stderr.write(lines.join('\n'));
}
function toStderrLater(format: Format, rank: number, msg: string, fields: Record<string, unknown> | undefined): void {
  if (!flushing) flushing = setTimeout(flush, FLUSH_MS).unref();
  if (!atExit) {
    atExit = true;
    process.on('exit', flush);
  }
  waiting.push(format, rank, msg, fields, Date.now());
  if (waiting.length >= FLUSH_LINES * CALL) flush();
}

export const silentLogger: Logger = { log() {} };
