/**
 * The request examples of README.md and docs/ run as pasted: their shell lines, in the order of
 * scripts/docs-examples.ts, in one bash session (so `$id` from a create reaches the others), with
 * curl and jq against a real server, in an empty folder (uploads write their file there), and what
 * they print is what the page shows under them (ids and times aside, which the pages replace by
 * stand-ins). test/parity.test.ts checks the generated answers against an in-process run; this
 * checks the commands themselves, and the hand-written examples too.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { hubCacheDir } from '../kernel/model-files.js';
import { ROOT } from '../kernel/paths.js';
import { DOC_EXAMPLES } from '../scripts/docs-examples.js';
import { startApp, type TestApp } from './helpers/app.js';
import { CLI } from './helpers/cli.js';

const missingTools = ['curl', 'jq', 'bash'].filter((t) => spawnSync('sh', ['-c', `command -v ${t}`]).status !== 0);

/** The pages whose examples run here; the plugin READMEs show spans as comments, checked by the parity test. */
const PAGES = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];
const page = (file: string) => readFileSync(join(ROOT, file), 'utf8');

interface Block {
  name: string;
  file: string;
  sh: string;
  answers: { lang: string; text: string }[];
}

function docBlocks(): Block[] {
  return DOC_EXAMPLES.filter((e) => PAGES.includes(e.file ?? 'README.md')).map(({ name, file = 'README.md' }) => {
    const m = new RegExp(`<!-- ${name}:start -->\\n([\\s\\S]*?)<!-- ${name}:end -->`).exec(page(file));
    assert.ok(m, `${file} has no ${name} block`);
    const fences = [...m[1]!.matchAll(/```(\w*)\n([\s\S]*?)\n```/g)].map((f) => ({ lang: f[1]!, text: f[2]! }));
    assert.equal(fences[0]?.lang, 'sh', `${name} opens with a sh block`);
    return { name, file, sh: fences[0]!.text, answers: fences.slice(1) };
  });
}

function run(script: string, cwd: string): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', script], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

/** The mark of a README example's second run. */
const AGAIN = '@again';

const stable = (s: string) =>
  s
    .replace(/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/g, '<uuid>')
    .replace(/\bfile_[0-9a-f]{32}\b/g, '<file>')
    .replace(/\b\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z\b/g, '<time>');

const parseLines = (text: string) =>
  text
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as unknown);

describe('documentation examples, pasted into bash', { skip: missingTools.length ? `needs ${missingTools.join(', ')} on PATH` : false }, () => {
  const out = new Map<string, { stdout: string; stderr: string }>();
  /** The pipelines each page's examples left on its server. */
  const left = new Map<string, string[]>();
  let blocks: Block[];

  // Each page runs on a fresh server, in an empty folder, as a reader pasting it would.
  before(async () => {
    blocks = docBlocks();
    // `chunkd` is the installed command: here the build npm test made, or the sources under tsx (test/helpers/cli.ts).
    const chunkd = `chunkd() { node ${CLI.map((a) => `'${a === 'tsx' ? fileURLToPath(import.meta.resolve('tsx')) : a}'`).join(' ')} "$@"; }`;
    for (const file of new Set(blocks.map((b) => b.file))) {
      const app = await startApp();
      const cwd = mkdtempSync(join(tmpdir(), 'chunkd-examples-'));
      try {
        const host = app.url.replace('http://', '');
        const mine = blocks.filter((b) => b.file === file);
        // The README's examples run a second time on the same server, as a reader trying them again would.
        const passes = file === 'README.md' ? ['', AGAIN] : [''];
        const script = [
          'set -eu',
          chunkd,
          ...passes.flatMap((again) =>
            mine.flatMap((b) => [`printf '\\n@@%s\\n' ${b.name}${again}; printf '\\n@@%s\\n' ${b.name}${again} >&2`, b.sh.replaceAll('localhost:8000', host)]),
          ),
        ].join('\n');
        // Not spawnSync: the server answers from this process's event loop.
        const res = await run(script, cwd);
        assert.equal(res.status, 0, `${file}: ${res.stderr}`);
        const split = (text: string) =>
          text
            .split(/^@@/m)
            .slice(1)
            .map((part) => [part.slice(0, part.indexOf('\n')), part.slice(part.indexOf('\n') + 1)] as const);
        const stderr = new Map(split(res.stderr));
        for (const [name, stdout] of split(res.stdout)) out.set(name, { stdout, stderr: stderr.get(name) ?? '' });
        left.set(file, (await app.request('GET', '/v1/pipelines')).body.map((p: { name: string }) => p.name).sort());
      } finally {
        await app.close();
        rmSync(cwd, { recursive: true, force: true });
      }
    }
  });

  test('every example ran, and each page lists its examples in the order it shows them', () => {
    assert.deepEqual([...out.keys()].filter((k) => !k.endsWith(AGAIN)).sort(), blocks.map((b) => b.name).sort());
    for (const file of new Set(blocks.map((b) => b.file))) {
      const listed = blocks.filter((b) => b.file === file).map((b) => b.name);
      const shown = [...page(file).matchAll(/<!-- (example:[\w-]+):start -->/g)].map((m) => m[1]);
      assert.deepEqual(listed, shown, `${file}: DOC_EXAMPLES lists its examples in another order than the page`);
    }
  });

  test('every example block of README.md and docs/ is listed in scripts/docs-examples.ts, and so runs here', () => {
    const listed = new Set(DOC_EXAMPLES.map((e) => `${e.file ?? 'README.md'} ${e.name}`));
    for (const file of PAGES) {
      for (const [, name] of page(file).matchAll(/<!-- (example:[\w-]+):start -->/g))
        assert.ok(listed.has(`${file} ${name}`), `${file}: ${name} is not in DOC_EXAMPLES`);
    }
  });

  test('every shell line that calls the server is in an example block', () => {
    for (const file of PAGES) {
      const outside = page(file).replace(/<!-- (example:[\w-]+):start -->[\s\S]*?<!-- \1:end -->/g, '');
      for (const [, lang, body] of outside.matchAll(/```(\w*)\n([\s\S]*?)\n```/g)) {
        if (['sh', 'bash'].includes(lang!)) assert.ok(!/curl [^\n]*localhost:8000/.test(body!), `${file}: an untested request:\n${body}`);
      }
    }
  });

  test('each shown answer is what the pasted commands print (JSON, NDJSON lines or text)', () => {
    for (const b of blocks) {
      const shown = b.answers.filter((a) => ['json', 'ndjson', 'text'].includes(a.lang));
      if (!shown.length) continue;
      assert.equal(shown.length, 1, `${b.name}: one answer per example`);
      const [{ lang, text }] = shown as [{ lang: string; text: string }];
      const { stdout, stderr } = out.get(b.name)!;
      const printed = stable((stdout + stderr).split(hubCacheDir()).join('~/.cache/huggingface/hub'));
      const where = `${b.file} ${b.name}: the page's answer differs from what the commands print`;
      if (lang === 'text') {
        assert.equal(printed.trim(), stable(text).trim(), where);
        continue;
      }
      let actual: unknown;
      try {
        actual = lang === 'json' ? JSON.parse(printed) : parseLines(printed);
      } catch {
        assert.fail(`${b.name}: the commands printed no ${lang} answer: ${printed}`);
      }
      assert.deepEqual(actual, lang === 'json' ? JSON.parse(stable(text)) : parseLines(stable(text)), where);
    }
  });

  test("the README's examples run twice in a row on one server: the second time prints what the first did", () => {
    const readme = blocks.filter((b) => b.file === 'README.md');
    assert.ok(readme.length >= 5);
    for (const b of readme) {
      const first = out.get(b.name)!;
      const again = out.get(`${b.name}${AGAIN}`);
      assert.ok(again, `${b.name}: ran a second time`);
      assert.equal(stable(again.stdout).trim(), stable(first.stdout).trim(), `${b.name}: the second run printed something else`);
    }
  });

  test('each shown header answer: the status line and headers are what curl -si prints', () => {
    for (const b of blocks) {
      for (const a of b.answers.filter((x) => x.lang === '')) {
        const printed = out.get(b.name)!.stdout.replace(/\r/g, '');
        const lines = a.text.split('\n').filter((l) => l !== '...');
        assert.ok(lines.length > 1, `${b.name}: a status line and headers`);
        assert.match(printed, new RegExp(`^${lines[0]!.replace('HTTP/1.1 ', 'HTTP/1\\.1 ')}`, 'm'));
        for (const line of lines.slice(1)) assert.ok(printed.toLowerCase().includes(line.toLowerCase()), `${b.name}: curl printed no '${line}'`);
      }
    }
  });

  test('the pipeline examples used the ids they captured (the execute answered chunks, the deletes left none behind)', () => {
    assert.ok(Array.isArray(JSON.parse(out.get('example:pipeline-execute')!.stdout)));
    // docs-small is deleted by id, then made again by slug.
    assert.deepEqual(left.get('docs/pipelines.md'), ['docs-paragraphs', 'docs-small']);
    assert.deepEqual(left.get('docs/tutorial.md'), [], 'the tutorial deletes what it made');
    assert.deepEqual(left.get('README.md'), ['notes-stored', 'short-paragraphs'], 'the store example keeps its pipeline, as the pipeline example does');
  });
});
