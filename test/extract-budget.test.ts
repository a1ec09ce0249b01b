/**
 * The decoded-bytes budget of a PDF (maxPdfDecodedBytes, plugins/pdf/pdf-budget.ts): a
 * small file whose streams decode to more than the budget is refused with a 413 that names the
 * limit, however its filters are spelled or chained and however many streams share the bytes.
 * Each hostile file is also read under a budget large enough for it, which proves that the file
 * is readable and that the budget, nothing else, refused it. Budgets are small (a few MiB) to
 * keep the run short.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { deflateSync } from 'node:zlib';
import { extractText } from './helpers/extract.js';
import { DecodeBudget, DecodeBudgetError, withDecodeBudget } from '../plugins/pdf/pdf-budget.js';
import { rejectsWith } from './helpers/env.js';
import {
  ascii85,
  asciiHex,
  deflatedSpaces,
  hostilePdf,
  lzwLiteral,
  runLength,
  runLengthLiteral,
  textContent,
  type HostileStream,
} from './helpers/hostile-pdf.js';

const MiB = 1024 * 1024;
const BUDGET = 4 * MiB;
const limits = { maxPdfDecodedBytes: BUDGET };
const roomy = { maxPdfDecodedBytes: 64 * MiB };
const OVER = /more bytes once its streams are decoded than this server extracts \(4194304, limit maxPdfDecodedBytes\)/;

/** 8 MiB of spaces, deflated (8 kB): twice the budget from one stream. */
const bomb = deflatedSpaces(8 * MiB);
/** The page's readable text, after the hostile streams. */
const hello: HostileStream = { dict: '/Filter /FlateDecode', data: deflateSync(textContent('Hello')) };

async function refusedButReadable(pdf: Uint8Array, what: string, small = 200_000): Promise<void> {
  assert.ok(pdf.length < small, `${what}: the file is small (${pdf.length} bytes)`);
  await rejectsWith(extractText(pdf, { filename: 'bomb.pdf' }, { limits }), 413, OVER);
  assert.equal((await extractText(pdf, { filename: 'bomb.pdf' }, { limits: roomy })).text.trim(), 'Hello', `${what}: readable under a larger budget`);
}

describe('pdf: one decoded-bytes budget per file, whatever the filters', () => {
  it('Flate spelled with a name escape, abbreviated, or behind an indirect reference', async () => {
    for (const dict of ['/Filter /FlateDecode', '/Filter /Flat#65Decode', '/Filter /Fl', '/Filter [/Fl]', '/Filter 6 0 R']) {
      await refusedButReadable(hostilePdf([{ dict, data: bomb }, hello], ['6 0 obj /FlateDecode endobj']), dict);
    }
  });

  it('an indirect filter that lives in a compressed object stream', async () => {
    const objects = '6 0 ';
    const inside = Buffer.from(`${objects}/FlateDecode`);
    const packed = asciiHex(deflateSync(inside)).toString(); // text, so it can stand among the other objects
    const objStm = `7 0 obj << /Type /ObjStm /N 1 /First ${objects.length} /Length ${packed.length} /Filter [/AHx /Fl] >> stream\n${packed}\nendstream endobj`;
    await refusedButReadable(hostilePdf([{ dict: '/Filter 6 0 R', data: bomb }, hello], [objStm], [{ id: 6, in: 7 }]), 'object stream');
  });

  it('chains: ASCIIHex, ASCII85, LZW and RunLength in front of Flate, and abbreviated', async () => {
    const chains: [string, Buffer][] = [
      ['[/ASCIIHexDecode /FlateDecode]', asciiHex(bomb)],
      ['[/AHx /Fl]', asciiHex(bomb)],
      ['[/ASCII85Decode /FlateDecode]', ascii85(bomb)],
      ['[/A85 /Fl]', ascii85(bomb)],
      ['[/LZWDecode /FlateDecode]', lzwLiteral(bomb)],
      ['[/LZW /Fl]', lzwLiteral(bomb)],
      ['[/RunLengthDecode /FlateDecode]', runLengthLiteral(bomb)],
      ['[/RL /Fl]', runLengthLiteral(bomb)],
      ['[/AHx /A85 /Fl]', asciiHex(ascii85(bomb))],
      ['[/FlateDecode /FlateDecode]', deflateSync(bomb)],
    ];
    for (const [filter, data] of chains) await refusedButReadable(hostilePdf([{ dict: `/Filter ${filter}`, data }, hello]), filter);
  });

  it('filters that expand on their own: RunLength (64×), ASCII85 `z` (4×), with a predictor', async () => {
    await refusedButReadable(hostilePdf([{ dict: '/Filter /RL', data: runLength(0x20, (8 * MiB) / 128) }, hello]), 'RL');
    await refusedButReadable(hostilePdf([{ dict: '/Filter /A85', data: ascii85(new Uint8Array(5 * MiB)) }, hello]), 'A85 z', 2 * MiB);
    const rows = Buffer.alloc(8 * MiB + (8 * MiB) / 64, 0); // PNG rows of 64 bytes, each behind its filter-type byte
    await refusedButReadable(hostilePdf([{ dict: '/Filter /Fl /DecodeParms << /Predictor 12 /Columns 64 >>', data: deflateSync(rows) }, hello]), 'predictor');
  });

  it('image filters (DCT, JPX, JBIG2, CCITT), even behind Flate, are never decoded for text: nothing is charged', async () => {
    for (const image of ['/DCTDecode', '/DCT', '/JPXDecode', '/JBIG2Decode', '/CCITTFaxDecode', '/CCF']) {
      const pdf = hostilePdf([{ dict: `/Filter [/FlateDecode ${image}]`, data: bomb }, hello]);
      assert.equal((await extractText(pdf, { filename: 'image.pdf' }, { limits })).text.trim(), 'Hello', image);
    }
  });

  it('the dictionary far (> 4 KB) from `stream`', async () => {
    await refusedButReadable(hostilePdf([{ dict: '/Filter /FlateDecode', data: bomb, pad: 8000 }, hello]), 'far');
  });

  it('many streams on one page, each under the budget: 100 × budget/16 is refused', async () => {
    const each = deflatedSpaces(BUDGET / 16 - 1);
    await refusedButReadable(hostilePdf([...Array.from({ length: 100 }, () => ({ dict: '/Filter /FlateDecode', data: each })), hello]), '100 streams');
  });

  it('a file under the budget reads as before', async () => {
    const pdf = hostilePdf([{ dict: '/Filter /Fl', data: deflatedSpaces(MiB) }, hello]);
    assert.equal((await extractText(pdf, { filename: 'ok.pdf' }, { limits })).text.trim(), 'Hello');
  });
});

describe('DecodeBudget', () => {
  it('counts bytes until the limit, then refuses every charge; files in one thread are metered one at a time', async () => {
    const budget = new DecodeBudget(100);
    budget.charge(60);
    budget.charge(40);
    assert.throws(() => budget.charge(1), DecodeBudgetError);
    assert.equal(budget.exceeded, true);
    assert.throws(() => budget.charge(0), DecodeBudgetError);
    const order: string[] = [];
    const a = withDecodeBudget(new DecodeBudget(1), async () => {
      order.push('a start');
      await new Promise((r) => setTimeout(r, 5));
      order.push('a end');
    });
    const b = withDecodeBudget(new DecodeBudget(1), async () => void order.push('b'));
    await Promise.all([a, b]);
    assert.deepEqual(order, ['a start', 'a end', 'b']);
  });
});
