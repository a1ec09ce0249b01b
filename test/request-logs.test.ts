/** Request logs: one JSON line per request, levels kept, never the text; the default logger writes later, in order. */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createLogger, LEVELS, type Level } from '../service/logger.js';
import { startApp } from './helpers/app.js';
import { brokenPluginDir } from './helpers/broken-plugin.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

describe('request logs', () => {
  test('a line holds its own level and message, whichever were logged before it (the head is kept per level and message)', () => {
    const lines: string[] = [];
    const logger = createLogger('debug', (l) => lines.push(l));
    const said: [Level, string][] = [];
    for (let i = 0; i < 600; i++) {
      const level = LEVELS[i % LEVELS.length]!;
      const msg = i % 3 === 0 ? 'request' : i % 3 === 1 ? `job ${i} "quoted" \u2028` : 'request';
      logger.log(level, msg, i % 2 ? { n: i } : undefined);
      said.push([level, msg]);
    }
    assert.deepEqual(
      lines.map((l) => [JSON.parse(l).level, JSON.parse(l).msg]),
      said,
    );
    assert.deepEqual(
      lines.map((l) => Object.keys(JSON.parse(l)).slice(0, 3)),
      said.map(() => ['time', 'level', 'msg']),
    );
  });

  test('to stderr, calls are written later in one go, in order, each at its own time; fields JSON cannot hold give a line saying so', () => {
    // The default logger (no write of its own) keeps the calls and makes their lines at the flush: by time, past FLUSH_LINES, at exit.
    const script = join(mkdtempSync(join(tmpdir(), 'chunkd-log-')), 'log.ts');
    writeFileSync(
      script,
      `import { createLogger, FLUSH_LINES, FLUSH_MS } from ${JSON.stringify(join(ROOT, 'service/logger.ts'))};
const logger = createLogger('info');
const cycle: Record<string, unknown> = {}; cycle.self = cycle;
const times: number[][] = [];
const at = (i: number) => { const before = Date.now(); logger.log('info', 'n', i === 5 ? { i, big: 10n } : i === 6 ? { i, cycle } : { i }); times.push([before, Date.now()]); };
logger.log('debug', 'below the level');
logger.log('info', 'first');
process.stderr.write('{"mark":"written at once"}\\n'); // the call above only recorded its line: it comes after this
for (let i = 0; i < FLUSH_LINES + 10; i++) at(i);
process.stderr.write('{"mark":"after the loop"}\\n'); // past FLUSH_LINES calls a batch went out before this; the rest waits
process.stdout.write(JSON.stringify({ flushLines: FLUSH_LINES }) + '\\n');
setTimeout(() => {
  process.stderr.write('{"mark":"after FLUSH_MS"}\\n'); // the FLUSH_MS timer wrote the rest before this
  at(FLUSH_LINES + 10);
  setTimeout(() => { at(FLUSH_LINES + 11); process.stdout.write(JSON.stringify({ times }) + '\\n'); process.exit(0); }, 1); // the last two: at exit
}, FLUSH_MS * 2);
`,
    );
    const run = spawnSync(process.execPath, ['--import', 'tsx', script], { cwd: ROOT, encoding: 'utf8' });
    rmSync(join(script, '..'), { recursive: true, force: true });
    assert.equal(run.status, 0, run.stderr);
    const [{ flushLines }, { times }] = run.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const [mark, first, ...rest] = run.stderr
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    assert.deepEqual([mark.mark, first.msg], ['written at once', 'first'], 'a call is written with its batch, not at the call');
    const markAt = (name: string) => rest.findIndex((r) => r.mark === name);
    const [afterLoop, afterTimer] = [markAt('after the loop'), markAt('after FLUSH_MS')];
    assert.ok(
      afterLoop >= flushLines - 1 && afterLoop < flushLines + 10,
      `past FLUSH_LINES calls a batch is written at once, the rest waits: ${afterLoop} lines before the loop's end`,
    );
    assert.equal(afterTimer, flushLines + 10 + 1, 'the rest is written by the FLUSH_MS timer, the last two at exit');
    const records = rest.filter((r) => r.mark === undefined);
    assert.equal(records.length, flushLines + 12, 'every call once, the one below the level none');
    records.forEach((r, i) => {
      assert.deepEqual([r.level, r.msg], ['info', 'n']);
      if (i === 5 || i === 6) assert.match(r.log_error, /could not be written as JSON/);
      else assert.equal(r.i, i);
      const [before, after] = times[i];
      assert.ok(
        before <= Date.parse(r.time) && Date.parse(r.time) <= after && new Date(r.time).toISOString() === r.time,
        `the time of the call, not of the write: ${r.time}`,
      );
    });
  });

  test('one JSON line per request with id, route, status and duration; never the text', async () => {
    const lines: string[] = [];
    const app = await startApp(
      {},
      {},
      createLogger('info', (l) => lines.push(l)),
    );
    try {
      const secret = 'confidential words that must not be logged';
      const res = await app.post('/v1/chunk/token', { text: secret });
      const id = res.headers.get('x-request-id');
      assert.match(id ?? '', /^[0-9a-f-]{36}$/);
      const given = await app.request('GET', '/health', undefined, { 'x-request-id': 'client-id-42' });
      assert.equal(given.headers.get('x-request-id'), 'client-id-42');
      await app.post('/v1/chunk/token', { text: 7, note: secret });
      const records = lines.map((l) => JSON.parse(l));
      const rec = records.find((r) => r.id === id);
      assert.deepEqual([rec.msg, rec.method, rec.route, rec.status], ['request', 'POST', '/v1/chunk/token', 200]);
      assert.equal(typeof rec.duration_ms, 'number');
      for (const r of records) assert.equal(new Date(r.time).toISOString(), r.time); // the time as Date#toISOString writes it
      const clock: string[] = [];
      const timed = createLogger('info', (l) => clock.push(l));
      for (let i = 0; i < 200; i++) {
        const before = Date.now();
        timed.log('info', 'tick');
        const at = Date.parse(JSON.parse(clock.at(-1)!).time);
        assert.ok(before <= at && at <= Date.now(), `a line's time is the time it was logged, to the millisecond: ${clock.at(-1)}`);
        if (i % 20 === 0) await new Promise((r) => setTimeout(r, 3));
      }
      assert.ok(records.some((r) => r.id === 'client-id-42'));
      assert.ok(records.some((r) => r.status === 422));
      assert.ok(!lines.some((l) => l.includes('confidential')), 'a body reached the log');
    } finally {
      await app.close();
    }
  });

  test('--log-level warning keeps request lines out; errors still appear', async () => {
    const lines: string[] = [];
    const app = await startApp(
      { 'plugins-dir': brokenPluginDir() },
      {},
      createLogger('warning', (l) => lines.push(l)),
    );
    try {
      await app.post('/v1/chunk/token', { text: 'hi' });
      assert.equal(lines.length, 0);
      const res = await app.post('/v1/chunk/broken', { text: 'hi' });
      assert.equal(res.status, 500);
      assert.ok(lines.some((l) => JSON.parse(l).level === 'error'));
    } finally {
      await app.close();
    }
  });
});
