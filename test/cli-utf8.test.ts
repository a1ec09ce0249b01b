/** `chunkd chunk` refuses bytes that are not UTF-8, as the server does: exit 2, naming the file and the byte offset. */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { invalidUtf8At } from '../cli/utf8.js';
import { CLI } from './helpers/cli.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'chunkd-cli-utf8-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const run = (args: string[], input?: Buffer) =>
  spawnSync(process.execPath, [...CLI, 'chunk', ...args], {
    cwd: ROOT,
    input,
    env: { ...process.env, CHUNKD_LOG_LEVEL: '' },
  });

test('a file with invalid UTF-8 → exit 2, the file and the offset of the first invalid byte named, nothing on stdout', () => {
  const good = join(dir, 'good.txt');
  const bad = join(dir, 'b.txt');
  writeFileSync(good, 'fine text\n');
  writeFileSync(bad, Buffer.from([0x6f, 0x6b, 0x20, 0xff, 0xfe, 0x0a])); // printf 'ok \xff\xfe\n'
  const res = run([good, bad]);
  assert.equal(res.status, 2, res.stderr.toString());
  assert.equal(res.stdout.toString(), '');
  const err = res.stderr.toString();
  assert.match(err, /b\.txt is not valid UTF-8/);
  assert.match(err, /byte offset 3\b/);
  assert.doesNotMatch(err, /\uFFFD/);
});

test('standard input with invalid UTF-8 → exit 2 naming standard input and the offset', () => {
  const res = run(['-'], Buffer.concat([Buffer.from('héllo '), Buffer.from([0xc3, 0x28])]));
  assert.equal(res.status, 2, res.stderr.toString());
  assert.match(res.stderr.toString(), /Standard input is not valid UTF-8.*byte offset 7\b/);
});

test('valid UTF-8 (accents, CJK, emoji, a BOM) still chunks', () => {
  const res = run(['-', '--chunker', 'token'], Buffer.from('\uFEFFhé 日本 🙂 ok'));
  assert.equal(res.status, 0, res.stderr.toString());
  assert.match(res.stdout.toString(), /🙂/);
});

test('the offset is where the first ill-formed sequence starts (overlong, surrogate, past U+10FFFF, cut short)', () => {
  const at = (...b: number[]) => invalidUtf8At(Uint8Array.from(b));
  assert.equal(at(0x61, 0xc3, 0xa9), -1);
  assert.equal(at(0xf0, 0x9f, 0x99, 0x82), -1);
  assert.equal(at(0x61, 0xc0, 0xaf), 1, 'overlong');
  assert.equal(at(0x61, 0x62, 0xed, 0xa0, 0x80), 2, 'a surrogate');
  assert.equal(at(0xf4, 0x90, 0x80, 0x80), 0, 'past U+10FFFF');
  assert.equal(at(0x61, 0xe2, 0x82), 1, 'cut short at the end');
  assert.equal(at(0x61, 0xe2, 0x82, 0x61), 1, 'cut short in the middle');
  assert.equal(at(0x80), 0, 'a lone continuation byte');
});
