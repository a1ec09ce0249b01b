/** `chunkd serve` and `chunkd chunk`: flags, --help, --version, refusals, and real processes from the sources and from the build. */
import assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { getPriority, tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { typedValue } from '../cli/field-flags.js';
import { Progress } from '../cli/progress.js';
import { resolveSettings, SETTINGS } from '../service/settings.js';
import { startApp, type TestApp } from './helpers/app.js';
import { startChild } from './helpers/child.js';
import { CLI, CLI_FROM_BUILD } from './helpers/cli.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SOURCE_CLI = ['--import', 'tsx', join(ROOT, 'cli/index.ts')];
const dataDir = mkdtempSync(join(tmpdir(), 'chunkd-cli-'));
after(() => rmSync(dataDir, { recursive: true, force: true }));

const run = (args: string[], input?: string, env: NodeJS.ProcessEnv = {}) =>
  spawnSync(process.execPath, [...CLI, ...args], { cwd: ROOT, encoding: 'utf8', input, env: { ...process.env, CHUNKD_LOG_LEVEL: '', ...env } });
const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };

describe('arguments', () => {
  test('--help lists every setting with its env variable and default, and exits 0', () => {
    const res = run(['serve', '--help']);
    assert.equal(res.status, 0);
    for (const [name, spec] of Object.entries(SETTINGS)) {
      assert.match(res.stdout, new RegExp(`--${name}\\b`));
      assert.match(res.stdout, new RegExp(spec.env));
    }
  });

  test('--version prints the version of package.json', () => {
    for (const flag of ['--version', '-v']) {
      const res = run([flag]);
      assert.equal(res.status, 0);
      assert.equal(res.stdout, `${version}\n`);
    }
  });

  test('chunkd --help lists every command within its first 20 lines; the server settings are under chunkd serve --help', () => {
    const res = run(['--help']);
    assert.equal(res.status, 0);
    const first = res.stdout.split('\n').slice(0, 20).join('\n');
    for (const command of ['serve', 'ingest', 'search', 'chunk', 'process', 'eval']) assert.match(first, new RegExp(`^  ${command} `, 'm'), command);
    assert.match(first, /npx chunkd/);
    assert.doesNotMatch(res.stdout, /--max-extract-ms/, 'no server flag before chunkd serve --help');
  });

  test('an empty default shows as "none" in --help, never as "." or ""', () => {
    const res = run(['serve', '--help']);
    assert.match(res.stdout, /--database-url <string>\n.*Default: none\./);
    assert.match(res.stdout, /--api-keys <list>\n.*Default: none\./);
    assert.doesNotMatch(res.stdout, /Default: \.?$/m, 'an empty default printed as is');
  });

  const refusals: [string[], RegExp][] = [
    [['serve', '--log-level', 'verbose'], /--log-level \(CHUNKD_LOG_LEVEL\) must be one of debug, info, warning, error; got 'verbose'/],
    [['serve', '--port', 'eighty'], /--port \(CHUNKD_PORT\) must be a whole number/],
    [['serve', '--worker-nice', '20'], /--worker-nice \(CHUNKD_WORKER_NICE\) must be a whole number from 0 to 19; got '20'/],
    [['serve', '--colour'], /Unknown option '--colour'[\s\S]*chunkd serve --help/],
    [['launch'], /Unknown command 'launch'\. Run: chunkd --help \(the commands\), or chunkd serve --help/],
    [['serve', '--prot', '80'], /Unknown option '--prot'\. Did you mean '--port'\?/],
    [['serve', '--data_dir', 'x'], /Unknown option '--data_dir'\. Did you mean '--data-dir'\?/],
    [['serv'], /Unknown command 'serv'\. Did you mean 'serve'\?/],
  ];
  for (const [args, message] of refusals) {
    test(`refuses ${args.join(' ')} with exit code 2 and a message`, () => {
      const res = run(args);
      assert.equal(res.status, 2);
      assert.match(res.stderr, message);
    });
  }
});

/** Whether the process maps LanceDB's native module within `ms` (Linux: /proc/PID/maps lists every shared object it loaded). */
async function loadsLanceDb(pid: number, ms: number): Promise<boolean> {
  for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, 100)))
    if (readFileSync(`/proc/${pid}/maps`, 'utf8').includes('lancedb')) return true;
  return false;
}

/** The nice value of each thread of a process, its main thread's first (Linux: the 19th field of /proc/PID/task/TID/stat). */
function threadNices(pid: number): number[] {
  const tids = readdirSync(`/proc/${pid}/task`).sort((a, b) => (a === String(pid) ? -1 : b === String(pid) ? 1 : 0));
  return tids.map((tid) => Number(readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8').split(') ')[1]!.split(' ')[16]));
}

/** The main thread's nice and how many threads run 10 lower, once `workers` of them do (each worker lowers itself as it starts) or after `ms`. */
async function niceWorkers(pid: number, workers: number, ms: number): Promise<{ main: number; lowered: number }> {
  for (const end = Date.now() + ms; ; await new Promise((r) => setTimeout(r, 100))) {
    const [main, ...others] = threadNices(pid);
    const lowered = others.filter((n) => n === main! + 10).length;
    if (lowered >= workers || Date.now() > end) return { main: main!, lowered };
  }
}

/**
 * Start a server process, wait for its "listening" log line, check it answers, wait for it to load
 * its default store's engine (warmed after listening: the data directory holds no store yet, so
 * nothing else loads it) and for its workers to lower their priority, stop it with SIGTERM.
 */
async function serveAndStop(
  args: string[],
): Promise<{ code: number | null; port: number; plugins: string[]; workers: number; warmed: boolean; nice: { main: number; lowered: number } }> {
  const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  const listening = await new Promise<{ port: number; plugins: string[]; workers: number }>((resolve, reject) => {
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (d: string) => {
      log += d;
      const line = log.split('\n').find((l) => l.includes('"listening"'));
      if (line) resolve(JSON.parse(line));
    });
    child.on('exit', (code) => reject(new Error(`server exited with ${code}: ${log}`)));
  });
  const health = await fetch(`http://127.0.0.1:${listening.port}/health`);
  assert.deepEqual(await health.json(), { status: 'ok' });
  const chunks = await fetch(`http://127.0.0.1:${listening.port}/v1/chunk/token`, { method: 'POST', body: JSON.stringify({ text: 'abcdef', chunk_size: 4 }) });
  assert.deepEqual(
    ((await chunks.json()) as { text: string }[]).map((c) => c.text),
    ['abcd', 'ef'],
  );
  const warmed = await loadsLanceDb(child.pid!, 30_000);
  const nice = await niceWorkers(child.pid!, listening.workers, 30_000);
  const code = await new Promise<number | null>((resolve) => {
    child.removeAllListeners('exit');
    child.on('exit', resolve);
    child.kill('SIGTERM');
  });
  return { code, warmed, nice, ...listening };
}

describe('serving', () => {
  const flags = ['serve', '--host', '127.0.0.1', '--port', '0', '--data-dir', dataDir, '--log-level', 'info'];

  /** One server from the sources (under tsx, ~6 s of CPU a start) for both tests. */
  let fromSources: ReturnType<typeof serveAndStop> | undefined;
  const serveFromSources = () => (fromSources ??= serveAndStop([...SOURCE_CLI, ...flags]));

  test('from the sources: serves every plugin, loads its store engine once listening, stops cleanly on SIGTERM', async () => {
    const res = await serveFromSources();
    assert.ok(res.port > 0);
    assert.ok(res.plugins.includes('/v1/chunk/token'));
    assert.equal(res.warmed, true, 'LanceDB was not loaded after start: the first write would load it, holding every request meanwhile');
    assert.ok(res.workers > 0);
    // Each worker lowers itself; threads a worker starts (a plugin's own pool) inherit its priority.
    assert.equal(res.nice.main, getPriority(), 'the event loop keeps its priority');
    assert.ok(res.nice.lowered >= res.workers, `${res.nice.lowered} threads run at --worker-nice (10) below the event loop, for ${res.workers} workers`);
    assert.equal(res.code, 0);
  });

  test('from the build (what npm start runs): dist/ finds its plugins and assets', async () => {
    // npm test builds dist/ before the run (and other files use it meanwhile); alone, this test builds it.
    if (!CLI_FROM_BUILD) execFileSync(process.execPath, [join(ROOT, 'node_modules/tsup/dist/cli-default.js'), '--silent'], { cwd: ROOT });
    const fromSource = await serveFromSources();
    const fromDist = await serveAndStop([join(ROOT, 'dist/cli/index.js'), ...flags]);
    assert.deepEqual(fromDist.plugins, fromSource.plugins);
    assert.equal(fromDist.warmed, true, 'the built server did not load LanceDB after start');
    assert.equal(fromDist.code, 0);
    assert.equal(execFileSync(process.execPath, [join(ROOT, 'dist/cli/index.js'), '--version'], { encoding: 'utf8' }), `${version}\n`, '--version from dist/');
  });
});

describe('--api-keys-file', () => {
  const file = (name: string, text: string) => {
    const path = join(dataDir, name);
    writeFileSync(path, text);
    return path;
  };

  test('one key per line, blank lines, # comments and CRLF ignored; added to --api-keys', () => {
    const keys = file('keys.txt', '# team keys\r\nkey-from-file-1\r\n\n   \n  key-from-file-2  \n# old: revoked\n');
    assert.deepEqual(resolveSettings({ 'api-keys-file': keys, 'api-keys': 'flag-key' }, {}).apiKeys, ['flag-key', 'key-from-file-1', 'key-from-file-2']);
    assert.deepEqual(resolveSettings({}, { CHUNKD_API_KEYS_FILE: keys }).apiKeys, ['key-from-file-1', 'key-from-file-2'], 'from the environment');
  });

  const unreadable = file('unreadable.txt', 'secret-key-unreadable\n');
  chmodSync(unreadable, 0o000);
  const refusals: [string, string, RegExp][] = [
    ['a missing file', join(dataDir, 'nope.txt'), /--api-keys-file \(CHUNKD_API_KEYS_FILE\) names .*nope\.txt, but it does not exist/],
    ['a directory', dataDir, /it cannot be read \(EISDIR\)/],
    ['a file with no key', file('empty.txt', '# nothing yet\n\n'), /holds no key \(only blank lines or # comments\)/],
    ['a key with whitespace inside', file('spaced.txt', 'good-key\nsecret-half other-half\n'), /line 2: a key holds whitespace/],
    ...(process.getuid?.() === 0 ? [] : ([['an unreadable file', unreadable, /it cannot be read \(EACCES\)/]] as [string, string, RegExp][])),
  ];
  for (const [what, path, message] of refusals) {
    test(`${what}: refused, saying so and showing no key`, () => {
      assert.throws(
        () => resolveSettings({ 'api-keys-file': path }, {}),
        (e: Error) => message.test(e.message) && !/secret|good-key/.test(e.message),
      );
    });
  }

  test('chunkd serve with a bad key file stops at start-up with exit 2 and the reason', () => {
    const res = run(['serve', '--port', '0', '--data-dir', dataDir, '--api-keys-file', file('only-comments.txt', '# secret-note\n')]);
    assert.equal(res.status, 2, res.stderr);
    assert.match(res.stderr, /--api-keys-file \(CHUNKD_API_KEYS_FILE\) names .*only-comments\.txt, which holds no key/);
    assert.doesNotMatch(res.stderr, /secret-note/);
  });

  test('a server started with a key file needs those keys, and logs none of them', async () => {
    const keys = file('serve-keys.txt', '# keys\nkey-in-a-file-7f3a\n');
    const child = await startChild(['--data-dir', dataDir, '--log-level', 'debug', '--api-keys-file', keys]);
    try {
      const call = (key?: string) =>
        fetch(`${child.url}/v1/chunk/token`, { method: 'POST', body: '{"text": "hi"}', headers: key ? { authorization: `Bearer ${key}` } : {} }).then(
          (r) => r.status,
        );
      assert.equal(await call(), 401);
      assert.equal(await call('key-in-a-file-7f3a'), 200);
      assert.equal(await call('keys'), 401, 'a comment is not a key');
    } finally {
      await child.stop();
    }
    assert.doesNotMatch(child.log(), /key-in-a-file-7f3a/);
    assert.match(child.log(), /"listening"/);
  });
});

test('a list flag: comma-separated items; a value of commas only is one item; JSON for anything else', () => {
  const list = { type: 'array', items: { type: 'string' } };
  assert.deepEqual(typedValue(list, '.,!', '--delim'), ['.', '!']);
  assert.deepEqual(typedValue(list, ',', '--delim'), [',']);
  assert.deepEqual(typedValue(list, '[",", ";"]', '--delim'), [',', ';']);
  assert.deepEqual(typedValue(list, '', '--delim'), []);
});

describe('chunkd chunk', () => {
  let app: TestApp;
  const dir = mkdtempSync(join(tmpdir(), 'chunkd-chunk-'));
  const file = (name: string, text: string) => {
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
  };
  const a = file('a.txt', 'The first file. It has two sentences, and some more words after them.');
  const b = file('b.md', '# Title\r\n\r\n短い文書です。🙂 Then English again. And a last sentence!');
  const blank = file('blank.txt', '  \n');
  const ndjson = (stdout: string) =>
    stdout
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
  /** The chunks of one file in an NDJSON output, without the file key: what the HTTP route answers for it. */
  const of = (lines: Record<string, unknown>[], name: string) => lines.filter((l) => l.file === name).map(({ file: _, ...chunk }) => chunk);

  before(async () => (app = await startApp()));
  after(async () => {
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('files: one NDJSON line per chunk with its file, the chunks the HTTP route answers, nothing on a non-TTY stderr', async () => {
    const res = run(['chunk', a, b, blank, '--chunker', 'token', '--chunk-size', '8', '--chunk-overlap', '2']);
    assert.equal(res.status, 0, res.stderr);
    assert.equal(res.stderr, '', 'no progress bar when stderr is not a terminal');
    const lines = ndjson(res.stdout);
    const http = await app.post('/v1/chunk/token', { text: [readFileSync(a, 'utf8'), readFileSync(b, 'utf8'), '  \n'], chunk_size: 8, chunk_overlap: 2 });
    assert.deepEqual([of(lines, a), of(lines, b), of(lines, blank)], http.body);
    assert.ok(lines.every((l) => Object.keys(l)[0] === 'file'));
  });

  test('--FIELD flags are typed by the schema (numbers, lists, a boolean alone before a file) and equal --config', async () => {
    const fields = run(['chunk', '--chunker', 'sentence', '--chunk-size', '12', '--delim', '.,!', '--approximate', a]);
    const config = run(['chunk', a, '--chunker', 'sentence', '--config', '{"chunk_size": 12, "delim": [".", "!"], "approximate": true}']);
    assert.equal(fields.status, 0, fields.stderr);
    assert.equal(fields.stdout, config.stdout);
    const http = await app.post('/v1/chunk/sentence', { text: readFileSync(a, 'utf8'), chunk_size: 12, delim: ['.', '!'], approximate: true });
    assert.deepEqual(of(ndjson(fields.stdout), a), http.body);
  });

  test('- reads standard input; the default chunker is recursive with its defaults', async () => {
    const text = 'Standard input text.\n\nA second paragraph here.';
    const res = run(['chunk', '-'], text);
    assert.equal(res.status, 0, res.stderr);
    assert.deepEqual(of(ndjson(res.stdout), '-'), (await app.post('/v1/chunk/recursive', { text })).body);
  });

  test('--format json: one list of {file, chunks} in the order of the files', async () => {
    const res = run(['chunk', b, a, '--chunker', 'token', '--chunk-size', '16', '--format', 'json']);
    assert.equal(res.status, 0, res.stderr);
    const http = await app.post('/v1/chunk/token', { text: [readFileSync(b, 'utf8'), readFileSync(a, 'utf8')], chunk_size: 16 });
    assert.deepEqual(JSON.parse(res.stdout), [
      { file: b, chunks: http.body[0] },
      { file: a, chunks: http.body[1] },
    ]);
  });

  test('--pipeline FILE.json runs its steps, as POST /v1/pipelines/{id}/execute does', async () => {
    const steps = [
      { type: 'chunk', chunker: 'token', config: { chunk_size: 10 } },
      { type: 'refine', refinery: 'overlap', config: { context_size: 3 } },
    ];
    const created = await app.post('/v1/pipelines', { name: 'cli', steps });
    const res = run(['chunk', a, b, '--pipeline', file('pipeline.json', JSON.stringify({ name: 'cli', steps }))]);
    assert.equal(res.status, 0, res.stderr);
    const http = await app.post(`/v1/pipelines/${created.body.id}/execute`, { text: [readFileSync(a, 'utf8'), readFileSync(b, 'utf8')] });
    const lines = ndjson(res.stdout);
    assert.deepEqual([of(lines, a), of(lines, b)], http.body);
    assert.ok(
      lines.some((l) => 'context' in l),
      'the refine step ran',
    );
  });

  const refusals: [string, string[], RegExp][] = [
    ['an unknown chunker', ['--chunker', 'tokn'], /Unknown chunker 'tokn'\. Did you mean 'token'\?/],
    [
      'an unknown field flag',
      ['--chunker', 'token', '--chunk-sise', '4'],
      /Unknown option '--chunk-sise' for the token chunker\. Did you mean '--chunk-size'\?/,
    ],
    ['a value out of the schema', ['--chunker', 'token', '--chunk-size', '0'], /--chunk-size: chunk_size must be >= 1/],
    ['a word for a number', ['--chunker', 'token', '--chunk-size', 'big'], /--chunk-size takes a whole number; got 'big'/],
    ['a config the plugin refuses', ['--chunker', 'token', '--chunk-size', '4', '--chunk-overlap', '4'], /chunk_overlap .* must be smaller than chunk_size/],
    ['--config that is not JSON', ['--chunker', 'token', '--config', '{chunk_size: 4}'], /--config is not valid JSON/],
    [
      '--config with a key the chunker does not take',
      ['--chunker', 'token', '--config', '{"chunk_sise": 4}'],
      /--config has keys the token chunker does not take: chunk_sise/,
    ],
    ['a pipeline file with a bad step', ['--pipeline', join(dir, 'bad-pipeline.json')], /steps\.0\.chunker|Unknown chunker 'nope'/],
    ['--format of another kind', ['--format', 'csv'], /--format must be one of ndjson, json; got 'csv'/],
  ];
  writeFileSync(join(dir, 'bad-pipeline.json'), JSON.stringify({ steps: [{ type: 'chunk', chunker: 'nope' }] }));
  for (const [what, args, message] of refusals) {
    test(`${what}: exit code 2, the message on stderr, nothing on stdout`, () => {
      const res = run(['chunk', a, ...args]);
      assert.equal(res.status, 2, res.stderr);
      assert.match(res.stderr, message);
      assert.equal(res.stdout, '');
    });
  }

  test('an unreadable file or none at all: exit code 2 before any output', () => {
    const missing = run(['chunk', a, join(dir, 'missing.txt')]);
    assert.equal(missing.status, 2);
    assert.match(missing.stderr, /Cannot read .*missing\.txt: it does not exist/);
    assert.equal(missing.stdout, '');
    const directory = run(['chunk', dir]);
    assert.equal(directory.status, 2);
    assert.match(directory.stderr, /it is a directory/);
    const none = run(['chunk', '--chunker', 'token']);
    assert.equal(none.status, 2);
    assert.match(none.stderr, /Name at least one file/);
  });

  test('the limits are checked before the files are read, in the terms of the CLI: the file and the CHUNKD_* variable', () => {
    const big = file('big.txt', 'x'.repeat(300));
    const many = run(['chunk', a, b, blank], undefined, { CHUNKD_MAX_TEXTS: '2' });
    assert.equal(many.status, 2);
    assert.match(many.stderr, /3 files were named; the limit is 2 per run\. Name fewer files, or raise CHUNKD_MAX_TEXTS\./);
    const size = run(['chunk', a, big], undefined, { CHUNKD_MAX_TEXT_CHARS: '60' }); // a.txt (69 characters) is not read: big.txt is refused by its size first
    assert.equal(size.status, 2);
    assert.match(
      size.stderr,
      /big\.txt has 300 bytes, more than any text within the limit; the limit is 60 characters per file\. Split it, or raise CHUNKD_MAX_TEXT_CHARS\./,
    );
    const chars = run(['chunk', big], undefined, { CHUNKD_MAX_TEXT_CHARS: '100' }); // 300 bytes may be 100 characters: read, then counted
    assert.equal(chars.status, 2);
    assert.match(chars.stderr, /big\.txt has 300 characters; the limit is 100 characters per file/);
    const stdin = run(['chunk', '-'], 'y'.repeat(100), { CHUNKD_MAX_TEXT_CHARS: '10' });
    assert.equal(stdin.status, 2);
    assert.match(stdin.stderr, /Standard input holds more bytes than any text within the limit; the limit is 10 characters per file/);
    const cjk = run(['chunk', file('cjk.txt', '短い文書です。短い文書です。')], undefined, { CHUNKD_MAX_TEXT_CHARS: '12' }); // 42 bytes: read, then counted
    assert.equal(cjk.status, 2);
    assert.match(cjk.stderr, /cjk\.txt has 14 characters; the limit is 12 characters per file/);
    for (const res of [many, size, stdin, cjk]) {
      assert.equal(res.stdout, '');
      assert.doesNotMatch(res.stderr, /--max-text/, 'a flag chunkd chunk does not take');
    }
  });

  const script = ['/usr/bin/script', '/bin/script'].find((p) => existsSync(p));
  test('on a terminal, stderr shows the progress bar', { skip: script ? false : 'util-linux script (a pseudo-terminal) is not installed' }, () => {
    const command = [process.execPath, ...CLI, 'chunk', a, b, '--chunker', 'token'].map((w) => `'${w}'`).join(' ');
    const res = spawnSync(script!, ['-qec', command, '/dev/null'], { cwd: ROOT, encoding: 'utf8' });
    assert.equal(res.status, 0, res.stdout + res.stderr);
    assert.match(res.stdout, /\[#{24}\] 2\/2 files {2}\d+\.\d MB\/s/);
  });

  test('the progress bar: files done of the total and MB/s, redrawn in place', () => {
    let out = '';
    const bar = new Progress({ write: (s: string) => (out += s) }, 4, [1e6, 1e6, 2e6, 0]);
    bar.done(0);
    bar.done(2);
    assert.match(out, /\r\x1b\[K\[-+\] 0\/4 files/);
    assert.match(bar.line(1000), /^\[#{12}-{12}\] 2\/4 files {2}3\.0 MB\/s$/);
    bar.finish();
    assert.ok(out.endsWith('\n'));
  });
});

describe('chunkd process CHEF FILE', () => {
  test('prints the processed document: the chef, the text, and its structure in code points', () => {
    const file = join(dataDir, 'guide.md');
    writeFileSync(file, '# 日本 🦛\r\n\r\n## Install\r\n\r\n```sh\r\nmake\r\n```\r\n');
    for (const chef of ['markdown', 'auto']) {
      const res = run(['process', chef, file]);
      assert.equal(res.status, 0, res.stderr);
      const doc = JSON.parse(res.stdout);
      assert.equal(doc.chef, 'markdown');
      assert.deepEqual(
        doc.structure.headings.map((h: { text: string; start_index: number }) => [h.text, h.start_index]),
        [
          ['日本 🦛', 0],
          ['Install', 10],
        ],
      );
      assert.deepEqual(
        doc.structure.code.map((c: { language: string }) => c.language),
        ['sh'],
      );
    }
  });

  test('a file the chef cannot read, an unknown chef, a missing file: exit 2 with the reason', () => {
    const file = join(dataDir, 'plain.md');
    writeFileSync(file, 'not a pdf');
    const bad = run(['process', 'pdf', file]);
    assert.equal(bad.status, 2);
    assert.match(bad.stderr, /could not be read as PDF/);
    assert.match(run(['process', 'markdwn', file]).stderr, /Unknown chef 'markdwn'.*markdown/);
    assert.equal(run(['process', 'markdown', join(dataDir, 'nope.md')]).status, 2);
    assert.equal(run(['process', 'markdown']).status, 2);
  });
});

describe('the CLI reads regular files only, bounded as the server bounds what it reads', () => {
  const dir = mkdtempSync(join(tmpdir(), 'chunkd-cli-files-'));
  const fifo = join(dir, 'fifo');
  execFileSync('mkfifo', [fifo]);
  const corpora = join(dir, 'corpora');
  mkdirSync(corpora);
  writeFileSync(join(corpora, 'a.md'), 'hello world');
  const questions = (corpus: string) => {
    const file = join(dir, `q-${corpus.length}.csv`);
    writeFileSync(file, `question,references,corpus_id\nq,"[{""content"": ""hello"", ""start_index"": 0, ""end_index"": 5}]",${corpus}\n`);
    return file;
  };
  after(() => rmSync(dir, { recursive: true, force: true }));

  /** Exit code 2 and one line on stderr (no stack trace), nothing on stdout. */
  const refused = (args: string[], message: RegExp, env: NodeJS.ProcessEnv = {}) => {
    const res = run(args, undefined, env);
    assert.equal(res.status, 2, `${args.join(' ')}: ${res.stderr}`);
    assert.equal(res.stderr.trimEnd().split('\n').length, 1, res.stderr);
    assert.match(res.stderr, message);
    assert.equal(res.stdout, '');
  };
  const notRegular = /not a regular file/;

  test('chunk: a FIFO or a device is refused', () => {
    refused(['chunk', fifo], notRegular);
    refused(['chunk', '/dev/zero'], notRegular);
  });

  test('process: a FIFO, a device or a directory is refused, by a named chef or auto', () => {
    refused(['process', 'auto', '/dev/zero'], notRegular);
    refused(['process', 'markdown', fifo], notRegular);
    refused(['process', 'auto', dir], /it is a directory/);
  });

  test('eval: questions from a FIFO or a device are refused; a corpus_id outside --corpora is refused', () => {
    refused(['eval', '--corpora', corpora, '--questions', '/dev/zero'], notRegular);
    refused(['eval', '--corpora', corpora, '--questions', fifo], notRegular);
    refused(['eval', '--corpora', corpora, '--questions', questions('../../etc/passwd')], /corpus '\.\.\/\.\.\/etc\/passwd', which is outside .*corpora/);
    refused(['eval', '--corpora', corpora, '--questions', questions('a')], /questions .* has \d+ bytes; the limit is 10 \(CHUNKD_MAX_BODY_BYTES\)/, {
      CHUNKD_MAX_BODY_BYTES: '10',
    });
  });

  test('process: a file over CHUNKD_MAX_FILE_BYTES is refused before it is read', () => {
    const file = join(dir, 'big.md');
    writeFileSync(file, '# a\n'.repeat(100));
    refused(['process', 'markdown', file], /has 400 bytes; the limit is 100 \(CHUNKD_MAX_FILE_BYTES\)/, { CHUNKD_MAX_FILE_BYTES: '100' });
  });

  test("a chef's work is stopped at CHUNKD_MAX_EXTRACT_MS, in chunkd process and in chunkd chunk --pipeline", () => {
    // A millisecond: the chef's own module takes longer than that to load in its worker.
    const file = join(dir, 'headings.md');
    writeFileSync(file, '# a\n'.repeat(200_000));
    const slow = /takes longer to .* \(1 ms, limit --max-extract-ms, CHUNKD_MAX_EXTRACT_MS\)/;
    refused(['process', 'markdown', file], slow, { CHUNKD_MAX_EXTRACT_MS: '1' });
    const pipeline = join(dir, 'pipeline.json');
    writeFileSync(
      pipeline,
      JSON.stringify({
        steps: [
          { type: 'process', chef: 'markdown' },
          { type: 'chunk', chunker: 'recursive' },
        ],
      }),
    );
    const res = run(['chunk', file, '--pipeline', pipeline], undefined, { CHUNKD_MAX_EXTRACT_MS: '1' });
    assert.equal(res.status, 2, res.stderr);
    assert.match(res.stderr, slow);
  });
});
