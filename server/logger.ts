/** Structured JSON-lines logs on stderr; never request bodies. */
export const LEVELS = ['debug', 'info', 'warning', 'error'] as const;
export type Level = (typeof LEVELS)[number];

export interface Logger {
  log(level: Level, msg: string, fields?: Record<string, unknown>): void;
}

export function createLogger(min: Level, write: (line: string) => void = (l) => process.stderr.write(l + '\n')): Logger {
  const floor = LEVELS.indexOf(min);
  return {
    log(level, msg, fields = {}) {
      if (LEVELS.indexOf(level) < floor) return;
      write(JSON.stringify({ time: new Date().toISOString(), level, msg, ...fields }));
    },
  };
}

export const silentLogger: Logger = { log() {} };
