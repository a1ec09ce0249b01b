/** Graceful shutdown and keep-alive: in-flight requests finish, idle connections close, new ones are refused. */
import assert from 'node:assert/strict';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request as httpRequest, type IncomingMessage } from 'node:http';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { createLogger } from '../service/logger.js';
import { serve } from '../server/serve.js';
import { resolveSettings } from '../service/settings.js';
import { startApp } from './helpers/app.js';
import { BIG_TEXT, busyPluginDir, markerDir, waitFor } from './helpers/busy-plugin.js';

const busy = busyPluginDir();
after(() => rmSync(busy, { recursive: true, force: true }));

describe('graceful shutdown', () => {
  test('stops accepting, lets the in-flight request finish, then closes', async () => {
    const settings = resolveSettings(
      { host: '127.0.0.1', port: '0', 'plugins-dir': busy, 'data-dir': markerDir(busy), workers: '1', 'shutdown-grace-ms': '20000' },
      {},
    );
    const lines: string[] = [];
    const running = await serve(
      settings,
      createLogger('info', (l) => lines.push(l)),
    );
    const url = `http://127.0.0.1:${running.port}`;
    const markers = markerDir(busy);
    const job = fetch(`${url}/v1/chunk/busy`, { method: 'POST', body: JSON.stringify({ text: BIG_TEXT, marker_dir: markers }) });
    await waitFor(join(markers, 'started'));
    const stopped = running.stop('test');
    const late = await fetch(`${url}/health`).then(
      (r) => r.status,
      () => 'refused',
    );
    assert.ok(late === 503 || late === 'refused', `a new request during shutdown got ${late}`);
    writeFileSync(join(markers, 'release'), '');
    const res = await job;
    assert.equal(res.status, 200, 'the in-flight request finished');
    await stopped;
    assert.ok(lines.some((l) => JSON.parse(l).msg === 'stopped'));
    assert.equal(running.server.listening, false);
  });
});

describe('shutdown and keep-alive connections', () => {
  /** A request on `agent`; resolves with the answer read whole, and the socket it came on. */
  const send = (agent: Agent, url: string, path: string, body?: string) =>
    new Promise<{ res: IncomingMessage; text: string; socket: Socket }>((resolve, reject) => {
      const req = httpRequest(`${url}${path}`, { agent, method: body ? 'POST' : 'GET' }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (text += d));
        res.on('end', () => resolve({ res, text, socket: req.socket as Socket }));
      });
      req.on('error', reject);
      req.end(body);
    });
  const closedEvent = (socket: Socket) => new Promise<void>((resolve) => (socket.destroyed ? resolve() : socket.once('close', () => resolve())));

  test('idle connections close at once; a request in flight is answered with Connection: close', async () => {
    const settings = resolveSettings(
      { host: '127.0.0.1', port: '0', 'plugins-dir': busy, 'data-dir': markerDir(busy), workers: '1', 'shutdown-grace-ms': '20000' },
      {},
    );
    const running = await serve(
      settings,
      createLogger('error', () => {}),
    );
    const url = `http://127.0.0.1:${running.port}`;
    const idleAgent = new Agent({ keepAlive: true });
    const busyAgent = new Agent({ keepAlive: true });
    const markers = markerDir(busy);
    try {
      const idle = await send(idleAgent, url, '/health');
      assert.equal(idle.res.headers.connection, 'keep-alive', 'an ordinary answer keeps the connection');
      const idleClosed = closedEvent(idle.socket);
      const job = send(busyAgent, url, '/v1/chunk/busy', JSON.stringify({ text: BIG_TEXT, marker_dir: markers }));
      await waitFor(join(markers, 'started'));
      const stopped = running.stop('test');
      await idleClosed; // while the busy request still runs: it has not been released
      assert.equal(existsSync(join(markers, 'finished')), false);
      writeFileSync(join(markers, 'release'), '');
      const { res, socket } = await job;
      assert.equal(res.statusCode, 200, 'the request in flight finished');
      assert.equal(res.headers.connection, 'close', 'its client is told not to reuse the connection');
      await closedEvent(socket);
      await stopped;
    } finally {
      writeFileSync(join(markers, 'release'), '');
      idleAgent.destroy();
      busyAgent.destroy();
      await running.stop('test');
    }
  });
});

describe('keep-alive idle timeout', () => {
  const request = (path: string) => `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`;
  /** Everything up to the end of one answer with a Content-Length, or the socket's error code. */
  const answer = (socket: Socket) =>
    new Promise<string>((resolve) => {
      let text = '';
      const onData = (d: Buffer) => {
        text += d.toString('latin1');
        const head = text.indexOf('\r\n\r\n');
        const length = /content-length: (\d+)/i.exec(text)?.[1];
        if (head >= 0 && length !== undefined && text.length >= head + 4 + Number(length)) done(text);
      };
      const onError = (e: NodeJS.ErrnoException) => done(`error ${e.code}`);
      const onEnd = () => done(`closed after ${JSON.stringify(text.slice(0, 40))}`);
      const done = (result: string) => {
        socket.off('data', onData).off('error', onError).off('end', onEnd);
        resolve(result);
      };
      socket.on('data', onData).once('error', onError).once('end', onEnd);
    });

  test('a request sent on a kept-alive connection is answered though the event loop stalls past the idle timeout before reading it', async () => {
    // The tests' client and server share one event loop: a stall between the client's write and the
    // server's read must not let a server idle timer (Node's 5 s + 1 s) destroy the connection first.
    const app = await startApp();
    const socket = connect(Number(new URL(app.url).port), '127.0.0.1');
    try {
      await new Promise((resolve) => socket.once('connect', resolve));
      socket.write(request('/health'));
      assert.match(await answer(socket), /^HTTP\/1\.1 200/);
      const second = answer(socket);
      socket.write(request('/health'));
      // The loop held, as by inline work or a starved process: the thread blocked for 6.5 s (spinning would spend the CPU other test files need).
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 6_500);
      assert.match(await second, /^HTTP\/1\.1 200/, 'the request on the idle connection was answered, not reset');
    } finally {
      socket.destroy();
      await app.close();
    }
  });

  test('serve() keeps idle connections for --keep-alive-timeout-ms (65 s by default, above the usual 60 s proxy idle timeout)', async () => {
    for (const [flags, seconds] of [
      [{}, 65],
      [{ 'keep-alive-timeout-ms': '90000' }, 90],
    ] as const) {
      const settings = resolveSettings({ host: '127.0.0.1', port: '0', 'data-dir': markerDir(busy), workers: '0', ...flags }, {});
      const running = await serve(
        settings,
        createLogger('error', () => {}),
      );
      try {
        assert.equal(running.server.keepAliveTimeout, seconds * 1000);
        const res = await fetch(`http://127.0.0.1:${running.port}/health`);
        await res.text();
        assert.equal(res.headers.get('keep-alive'), `timeout=${seconds}`, 'clients are told how long the connection stays');
      } finally {
        await running.stop('test');
      }
    }
  });
});
