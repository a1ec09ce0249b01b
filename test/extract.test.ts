/**
 * Reading files with the chefs (plugins/text, markdown, html, pdf, docx; kernel/chef): each format's text, the 501 while a format's extra is
 * hidden, corrupt and oversized files → 4xx, the format picked by extension and MIME type, the
 * same answers through the worker pool, and the committed fixtures equal to a fresh generation.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { crc32, deflateRawSync, deflateSync } from 'node:zlib';
import type { ChildNode, Element } from 'domhandler';
import fc from 'fast-check';
import { parseDocument } from 'htmlparser2';
import { ROOT } from '../kernel/paths.js';
import { Extra } from '../kernel/plugin.js';
import { WorkerPool, closeExtractPools } from '../kernel/engine/index.js';
import { compileValidator } from '../kernel/validation.js';
import { DOCX_BLOCKS, FIXTURES_DIR, makeDocx, makePdf, PDF_PAGES } from '../scripts/make-fixtures.js';
import { extractFile, type RunWith } from './helpers/run.js';
import { chefFor, chefInfo, type FileFacts } from '../kernel/chef/select.js';
import { discover } from '../kernel/discovery.js';
import { nestingDepth } from '../plugins/html/html-depth.js';
import { PAGE_SEPARATOR } from '../plugins/pdf/pdf.js';
import { rejectsWith, withEnv } from './helpers/env.js';

const registry = await discover();
const CHEFS = registry.list('chef');
/** A file's text and the chef that read it. */
async function extractText(bytes: Uint8Array, facts: FileFacts, options?: RunWith): Promise<{ text: string; format: string }> {
  const { text, format } = await extractFile(registry, bytes, facts, options);
  return { text, format };
}
const extractorFor = (facts: FileFacts) => ({ format: chefFor(registry, facts)?.name }) as { format?: string };
const formatsInfo = () => CHEFS.map(chefInfo).map((f) => ({ ...f, format: f.name }));

const fixture = (name: string) => new Uint8Array(readFileSync(join(FIXTURES_DIR, name)));
const utf8 = (s: string) => new TextEncoder().encode(s);

/** What the fixtures were written with, as the extracted text must read. */
const PDF_TEXT = PDF_PAGES.map((page) => page.map((lines) => lines.join('\n')).join('\n\n')).join(PAGE_SEPARATOR);
const DOCX_TEXT = DOCX_BLOCKS.map((b) => b.text).join('\n\n');

const HTML = `<!doctype html><html><head><title>Not body text</title>
<style>p { color: red }</style><script>var notText = 1;</script></head><body>
<h1>Main title</h1><p>First paragraph with <a href="https://example.com/x">a link</a> and <b>bold</b> text.</p>
<h2>Lists</h2><ul><li>one</li><li>two<ul><li>nested</li></ul></li></ul><ol><li>first</li><li>second</li></ol>
<table><tr><th>Name</th><th>Qty</th></tr><tr><td>apple</td><td>3</td></tr></table>
<noscript>enable scripts</noscript><img src="x.png" alt="picture"><p hidden>secret</p><p>Last paragraph.</p></body></html>`;
const HTML_TEXT = [
  'Main title',
  'First paragraph with a link and bold text.',
  'Lists',
  '- one\n- two\n  - nested',
  ' 1. first\n 2. second',
  'Name    Qty\napple   3',
  'Last paragraph.',
].join('\n\n');

/** A zip of the given entries, deflated, with `declare` overriding an entry's declared uncompressed size. */
function zip(entries: { name: string; data: Uint8Array; declare?: number }[]): Uint8Array {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const { name, data, declare } of entries) {
    const packed = deflateRawSync(data);
    const fields = (h: Buffer, at: number) => {
      h.writeUInt16LE(8, at); // deflate
      h.writeUInt32LE(crc32(data), at + 6);
      h.writeUInt32LE(packed.length, at + 10);
      h.writeUInt32LE(declare ?? data.length, at + 14);
      h.writeUInt16LE(Buffer.byteLength(name), at + 18);
    };
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    fields(local, 8);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    fields(central, 10);
    central.writeUInt32LE(offset, 42);
    locals.push(local, Buffer.from(name), packed);
    centrals.push(central, Buffer.from(name));
    offset += 30 + Buffer.byteLength(name) + packed.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return new Uint8Array(Buffer.concat([...locals, directory, end]));
}

/** A one-page PDF whose page content is `content` (already deflated), with Helvetica as /F1. */
function pdfWithStream(content: Buffer): Uint8Array {
  const head = Buffer.from(
    [
      '%PDF-1.4',
      '1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj',
      '2 0 obj << /Type /Pages /Kids [3 0 R] /Count 1 >> endobj',
      '3 0 obj << /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >> endobj',
      `4 0 obj << /Length ${content.length} /Filter /FlateDecode >> stream`,
      '',
    ].join('\n'),
  );
  const tail = Buffer.from(`\nendstream endobj\n5 0 obj << /Type /Font /Subtype /Type1 /BaseFont /Helvetica >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n`);
  return new Uint8Array(Buffer.concat([head, content, tail]));
}

describe('fixtures', () => {
  it('the committed sample.pdf and sample.docx are what scripts/make-fixtures.ts writes, byte for byte', async () => {
    assert.deepEqual(Buffer.from(await makePdf()), Buffer.from(fixture('sample.pdf')));
    assert.deepEqual(Buffer.from(await makeDocx()), Buffer.from(fixture('sample.docx')));
  });

  it('in any time zone (the zip stamps local times)', async () => {
    for (const TZ of ['Asia/Tokyo', 'America/New_York']) {
      await withEnv({ TZ }, async () => assert.deepEqual(Buffer.from(await makeDocx()), Buffer.from(fixture('sample.docx')), TZ));
    }
  });
});

describe('text of each format', () => {
  it('pdf: lines as drawn, paragraphs apart, pages separated by a form feed line', async () => {
    assert.deepEqual(await extractText(fixture('sample.pdf'), { filename: 'sample.pdf' }), { text: PDF_TEXT, format: 'pdf' });
  });

  it('docx: one paragraph per heading, paragraph and list item, a blank line between them', async () => {
    assert.deepEqual(await extractText(fixture('sample.docx'), { filename: 'sample.docx' }), { text: DOCX_TEXT, format: 'docx' });
  });

  it('html: headings, lists, link text and tables kept; scripts, styles, head, images and hidden parts dropped', async () => {
    assert.deepEqual(await extractText(utf8(HTML), { filename: 'page.html' }), { text: HTML_TEXT, format: 'html' });
  });

  it('html: read in the charset its <meta> declares', async () => {
    const bytes = new Uint8Array([
      ...utf8('<html><head><meta charset="windows-1252"></head><body><p>caf'),
      0xe9,
      ...utf8(' na'),
      0xef,
      ...utf8('ve</p></body></html>'),
    ]);
    assert.equal((await extractText(bytes, { filename: 'a.htm' })).text, 'café naïve');
  });

  it('html: nesting deeper than maxHtmlDepth → 413 before parsing; as the parser nests: a <p> closes a <p>, void and svg self-closed elements close at once', async () => {
    const deep = utf8(`<p>top</p>${'<div>'.repeat(100_000)}deep${'</div>'.repeat(100_000)}`);
    await rejectsWith(extractText(deep, { filename: 'deep.html' }), 413, /levels of nested elements .*maxHtmlDepth/);
    await rejectsWith(extractText(utf8('<div/>'.repeat(2000)), { filename: 'slash.html' }), 413, /maxHtmlDepth/);
    assert.equal(nestingDepth('<div><span>a</span><br><img src=x><p>b<p>c<li>d<svg><path/><path/></svg></div>'), 5); // div p li svg path
    assert.equal(nestingDepth('<div><!-- <div><div> --><script>"<div><div>"</script><style>div{}</style></div>'), 2); // div script
    const paragraphs = `<body>${'<p>one paragraph<br>'.repeat(20_000)}</body>`;
    assert.equal((await extractText(utf8(paragraphs), { filename: 'p.html' })).text.split('\n\n').length, 20_000);
  });

  it('html: the depth scan is linear, even on tags that never end or names that run into the next <', async () => {
    // A backtracking tag pattern took seconds on 8 kB of these; 200 kB would take hours.
    assert.equal(nestingDepth('<a'.repeat(100_000)), 0);
    assert.equal(nestingDepth('<a '.repeat(100_000)), 0); // one tag, cut off by the end of input: no element
    assert.equal(nestingDepth(`${'<a '.repeat(100_000)}>`), 1);
    assert.equal(nestingDepth('<a<b>'.repeat(50_000), 1024), 1025); // stops one past the cap
    assert.equal(nestingDepth('<!--'.repeat(100_000)), 0);
    assert.equal((await extractText(utf8('<a '.repeat(100_000)), { filename: 'a.html' })).format, 'html');
  });

  it("html: the depth scan measures the tree html-to-text's parser builds (on small inputs)", () => {
    const depth = (nodes: ChildNode[]): number =>
      Math.max(0, ...nodes.map((n) => (n.type === 'tag' || n.type === 'script' || n.type === 'style' ? 1 + depth((n as Element).children) : 0)));
    const piece = fc.constantFrom(
      '<',
      '>',
      '/',
      ' ',
      '\n',
      'a',
      'B',
      'div',
      'svg',
      'p',
      'br',
      'li',
      'td',
      'tr',
      'thead',
      'tbody',
      'html',
      'body',
      'iframe',
      'script',
      'title',
      'math',
      'mi',
      '!--',
      '-->',
      '![CDATA[',
      ']]>',
      '="x>"',
      '1',
      'x',
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 40 }), (parts) => {
        const html = parts.join('');
        assert.equal(nestingDepth(html), depth(parseDocument(html).children), JSON.stringify(html));
      }),
      { numRuns: 3000 },
    );
  });

  it('html: table spans are clamped, and a table whose layout would be too large → 413', async () => {
    const huge = utf8('<table><tr><td colspan=20000 rowspan=20000>x</td><td>y</td></tr><tr><td>z</td></tr></table>');
    assert.equal((await extractText(huge, { filename: 't.html' })).text.replace(/ +/g, ' '), 'x y\n z');
    const spans = utf8('<table><tr><td colspan=2>wide</td></tr><tr><td>a</td><td>b</td></tr></table>');
    assert.equal((await extractText(spans, { filename: 't.html' })).text, 'wide\na   b');
    const long = utf8(`<table><tr>${'<td>x</td>'.repeat(6000)}</tr></table>`);
    await rejectsWith(extractText(long, { filename: 't.html' }), 413, /table cells .*\(25000000, limit maxTableCells\)/);
  });

  it('txt and md: UTF-8 as it is', async () => {
    assert.deepEqual(await extractText(utf8('# Title\r\n\r\n日本語 😀'), { filename: 'a.md' }), { text: '# Title\r\n\r\n日本語 😀', format: 'markdown' });
    await rejectsWith(extractText(new Uint8Array([0xff, 0xfe, 0x41]), { filename: 'a.txt' }), 422, /not valid UTF-8/);
  });
});

describe('missing extras', () => {
  for (const [format, pkg, file, bytes] of [
    ['pdf', 'pdfjs-dist', 'a.pdf', () => fixture('sample.pdf')],
    ['docx', 'mammoth', 'a.docx', () => fixture('sample.docx')],
    ['html', 'html-to-text', 'a.html', () => utf8(HTML)],
  ] as const) {
    it(`${format}: 501 MISSING_EXTRA naming \`npm install ${pkg}\` while ${pkg} is hidden, and listed as unavailable`, async () => {
      await withEnv({ CHUNKD_HIDE_PACKAGES: pkg }, async () => {
        await assert.rejects(extractText(bytes(), { filename: file }), (e: { status: number; code: string; detail: string }) => {
          assert.equal(e.status, 501);
          assert.equal(e.code, 'MISSING_EXTRA');
          assert.match(e.detail, new RegExp(`The chef '${format}' .*Install them: npm install ${pkg}$`));
          return true;
        });
        const info = formatsInfo().find((f) => f.format === format)!;
        assert.equal(info.available, false);
        assert.equal(info.extra?.install, `npm install ${pkg}`);
        assert.ok(
          formatsInfo()
            .filter((f) => f.format !== format)
            .every((f) => f.available),
        );
      });
    });
  }

  it('each extra has the Extra shape, and its packages are optionalDependencies of chunkd', () => {
    const check = compileValidator<Extra>(Extra);
    const optional = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { optionalDependencies: Record<string, string> }).optionalDependencies;
    for (const chef of CHEFS) {
      for (const extra of chef.manifest.extras) {
        check(extra, ['chefs', chef.name, 'extra']);
        for (const pkg of extra.packages) assert.ok(pkg in optional, `${pkg} (${chef.name}) is in optionalDependencies`);
      }
    }
  });

  it('chefInfo lists every chef, available when its extra is installed; text and markdown need none', () => {
    const info = formatsInfo();
    const byName = Object.fromEntries(info.map((f) => [f.format, [f.available, f.extra?.packages ?? null]]));
    assert.deepEqual(byName.text, [true, null]);
    assert.deepEqual(byName.markdown, [true, null]);
    assert.deepEqual(byName.html, [true, ['html-to-text']]);
    assert.deepEqual(byName.pdf, [true, ['pdfjs-dist']]);
    assert.deepEqual(byName.docx, [true, ['mammoth']]);
  });
});

describe('corrupt and oversized files', () => {
  const noise = new Uint8Array(Array.from({ length: 4096 }, (_, i) => (i * 2654435761) >>> 24));

  it('pdf: noise, a truncated file, an empty file → 422 that says to check the file', async () => {
    await rejectsWith(extractText(noise, { filename: 'x.pdf' }), 422, /could not be read as PDF/);
    await rejectsWith(extractText(fixture('sample.pdf').subarray(0, 700), { filename: 'x.pdf' }), 422, /could not be read as PDF/);
    await rejectsWith(extractText(new Uint8Array(), { filename: 'x.pdf' }), 422, /could not be read as PDF/);
  });

  it('pdf: more pages than maxPages → 413 before any page is read', async () => {
    await rejectsWith(extractText(fixture('sample.pdf'), { filename: 'a.pdf' }, { limits: { maxPages: 2 } }), 413, /more pages .*\(2, limit maxPages\)/);
  });

  it('pdf: a page tree that reuses its nodes to declare a million pages in 1 kB → 422', async () => {
    const objects = ['<< /Type /Catalog /Pages 2 0 R >>'];
    for (let level = 0; level < 6; level++)
      objects.push(
        `<< /Type /Pages /Kids [${Array(10)
          .fill(`${level + 3} 0 R`)
          .join(' ')}] /Count ${10 ** (6 - level)} >>`,
      );
    objects.push('<< /Type /Page /MediaBox [0 0 100 100] >>');
    const bomb = `%PDF-1.4\n${objects.map((o, i) => `${i + 1} 0 obj\n${o}\nendobj\n`).join('')}trailer\n<< /Root 1 0 R >>\n%%EOF\n`;
    await rejectsWith(extractText(utf8(bomb), { filename: 'bomb.pdf' }), 422, /could not be read as PDF \(Pages tree contains circular reference/);
  });

  it('text past maxTextChars → 413 (pdf, docx, html)', async () => {
    const limits = { maxTextChars: 40 };
    await rejectsWith(extractText(fixture('sample.pdf'), { filename: 'a.pdf' }, { limits }), 413, /maxTextChars/);
    await rejectsWith(extractText(fixture('sample.docx'), { filename: 'a.docx' }, { limits }), 413, /maxTextChars/);
    await rejectsWith(extractText(utf8(HTML), { filename: 'a.html' }, { limits }), 413, /maxTextChars/);
  });

  it('pdf: a stream that inflates past maxPdfDecodedBytes → 413 (whole or truncated); images are not decoded, so not counted', async () => {
    const spaces = deflateSync(Buffer.alloc(40 * 1024 * 1024, 0x20));
    const bomb = pdfWithStream(spaces);
    assert.ok(bomb.length < 100_000, `the file is small (${bomb.length} bytes)`);
    const limits = { maxPdfDecodedBytes: 32 * 1024 * 1024 };
    await rejectsWith(
      extractText(bomb, { filename: 'bomb.pdf' }, { limits }),
      413,
      /bytes once its streams are decoded than this server extracts \(33554432, limit maxPdfDecodedBytes\)/,
    );
    await rejectsWith(extractText(pdfWithStream(spaces.subarray(0, spaces.length - 8)), { filename: 'bomb.pdf' }, { limits }), 413, /maxPdfDecodedBytes/);
    const text = deflateSync(Buffer.from('BT /F1 12 Tf 72 700 Td (Hello) Tj ET'));
    const image = `6 0 obj << /Type /XObject /Subtype /Image /Width 1 /Height 1 /BitsPerComponent 8 /ColorSpace /DeviceGray /Length ${spaces.length} /Filter /FlateDecode >> stream\n`;
    const withImage = Buffer.concat([Buffer.from(pdfWithStream(text)), Buffer.from(image), spaces, Buffer.from('\nendstream endobj\n')]);
    assert.equal((await extractText(new Uint8Array(withImage), { filename: 'image.pdf' }, { limits })).text, 'Hello');
  });

  it('docx: noise, a truncated file, a zip without a document → 422', async () => {
    await rejectsWith(extractText(noise, { filename: 'x.docx' }), 422, /could not be read as DOCX \(it is not a ZIP archive\)/);
    const docx = fixture('sample.docx');
    await rejectsWith(extractText(docx.subarray(0, docx.length - 30), { filename: 'x.docx' }), 422, /could not be read as DOCX/);
    await rejectsWith(extractText(zip([{ name: 'hello.txt', data: utf8('hello') }]), { filename: 'x.docx' }), 422, /could not be read as DOCX/);
  });

  it('docx: a zip bomb is refused before it is unpacked (413), and an entry inflating past its declared size is a 422', async () => {
    const zeros = new Uint8Array(8 * 1024 * 1024);
    const bomb = zip([{ name: 'word/document.xml', data: zeros }]);
    assert.ok(bomb.length < 64 * 1024, `the bomb is small (${bomb.length} bytes)`);
    await rejectsWith(extractText(bomb, { filename: 'x.docx' }, { limits: { maxUnzippedBytes: 1024 * 1024 } }), 413, /once unzipped .*maxUnzippedBytes/);
    const liar = zip([{ name: 'word/document.xml', data: zeros, declare: 100 }]);
    await rejectsWith(extractText(liar, { filename: 'x.docx' }), 422, /does not inflate to the size it declares/);
    const many = zip(Array.from({ length: 20 }, (_, i) => ({ name: `f${i}`, data: utf8('x') })));
    await rejectsWith(extractText(many, { filename: 'x.docx' }, { limits: { maxZipEntries: 10 } }), 413, /zip entries/);
  });

  it('docx: every central-directory entry is checked, whatever count the end record declares, and names are unique', async () => {
    const big = utf8(`<w:document>${'x'.repeat(50_000)}</w:document>`);
    const entries = [
      { name: 'word/document.xml', data: utf8('<w:document/>') },
      { name: '[Content_Types].xml', data: utf8('<Types/>') },
      { name: 'word/document.xml', data: big },
    ];
    const limits = { maxUnzippedBytes: 5000 };
    /** The zip with its end record's fields patched (offsets within the 22-byte record). */
    const patched = (fields: Record<number, number>, of = entries) => {
      const out = Buffer.from(zip(of));
      const end = out.length - 22;
      for (const [at, value] of Object.entries(fields)) Number(at) === 12 ? out.writeUInt32LE(value, end + 12) : out.writeUInt16LE(value, end + Number(at));
      return new Uint8Array(out);
    };
    const smaller = entries.slice(0, 2).concat({ name: 'word/other.xml', data: big });
    await rejectsWith(extractText(patched({ 8: 2, 10: 2 }, smaller), { filename: 'x.docx' }, { limits }), 422, /more entries than it declares/);
    await rejectsWith(extractText(patched({ 8: 0, 10: 0 }, smaller), { filename: 'x.docx' }, { limits }), 422, /more entries than it declares/);
    await rejectsWith(extractText(patched({ 8: 2 }, smaller), { filename: 'x.docx' }, { limits }), 422, /split over several disks/);
    await rejectsWith(extractText(patched({}), { filename: 'x.docx' }, { limits }), 422, /two entries named 'word\/document.xml'/);
    for (const at of [4, 6, 8]) await rejectsWith(extractText(patched({ [at]: 0xffff }, smaller), { filename: 'x.docx' }, { limits }), 422, /ZIP64/);
    await rejectsWith(extractText(patched({ 12: 0xffffffff }, smaller), { filename: 'x.docx' }, { limits }), 422, /ZIP64/);
    // The honest zip of the same entries is refused for its size, as the checked directory says.
    await rejectsWith(extractText(zip(smaller), { filename: 'x.docx' }, { limits }), 413, /maxUnzippedBytes/);
  });

  it('html: bytes invalid in the declared charset, or an unknown charset → 422', async () => {
    await rejectsWith(extractText(new Uint8Array([0x3c, 0x70, 0x3e, 0xff]), { filename: 'a.html' }), 422, /not valid UTF-8/);
    await rejectsWith(extractText(utf8('<meta charset="klingon"><p>x</p>'), { filename: 'a.html' }), 422, /charset 'klingon'/);
  });
});

describe('format choice', () => {
  it('by extension, case-insensitively, before the MIME type', () => {
    assert.equal(extractorFor({ filename: 'Report.PDF' })?.format, 'pdf');
    assert.equal(extractorFor({ filename: 'a.HTM' })?.format, 'html');
    assert.equal(extractorFor({ filename: 'notes.docx', mime: 'text/plain' })?.format, 'docx');
    assert.equal(extractorFor({ filename: 'page.html', mime: 'application/pdf' })?.format, 'html');
  });

  it('by MIME type (parameters ignored) when the extension says nothing', () => {
    assert.equal(extractorFor({ filename: 'upload', mime: 'application/pdf' })?.format, 'pdf');
    assert.equal(extractorFor({ filename: 'blob.bin', mime: 'Text/HTML; charset=utf-8' })?.format, 'html');
    assert.equal(extractorFor({ filename: 'x', mime: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document' })?.format, 'docx');
    assert.equal(extractorFor({ filename: 'x', mime: 'image/png' }).format, undefined);
  });

  it('an unknown format → 415 listing the chefs', async () => {
    await rejectsWith(extractText(utf8('x'), { filename: 'a.png', mime: 'image/png' }), 415, /no chef reads it.*docx \(\.docx\).*pdf \(\.pdf\)/);
    await rejectsWith(extractText(new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 0, 1]), { filename: 'blob.bin' }), 415, /form field 'chef'/);
  });

  it('source code and other UTF-8 text is read by the text chef: by extension, by text/* type, or sniffed when the type is unknown', async () => {
    assert.equal(extractorFor({ filename: 'main.py' }).format, 'text');
    assert.equal(extractorFor({ filename: 'script', mime: 'text/x-python' }).format, 'text');
    assert.deepEqual(await extractText(utf8('fn main() {}\n'), { filename: 'main.unknownext', mime: 'application/octet-stream' }), {
      text: 'fn main() {}\n',
      format: 'text',
    });
    assert.deepEqual(await extractText(utf8('# T'), { filename: 'notes.txt', chef: 'markdown' } as FileFacts), { text: '# T', format: 'markdown' });
  });

  it('a file named .pdf that is HTML is read as PDF, and refused as one (the name decides)', async () => {
    await rejectsWith(extractText(utf8(HTML), { filename: 'a.pdf', mime: 'text/html' }), 422, /could not be read as PDF/);
  });
});

describe('through the worker pool', () => {
  let pool: WorkerPool;
  before(async () => {
    pool = new WorkerPool({ threads: 1 });
    await pool.ready;
  });
  after(async () => {
    await pool.close();
    await closeExtractPools();
  });

  it('the same text as inline, for every format the pool runs', async () => {
    assert.equal((await extractText(fixture('sample.pdf'), { filename: 'a.pdf' }, { executor: pool })).text, PDF_TEXT);
    assert.equal((await extractText(fixture('sample.docx'), { filename: 'a.docx' }, { executor: pool })).text, DOCX_TEXT);
    assert.equal((await extractText(utf8(HTML), { filename: 'a.html' }, { executor: pool })).text, HTML_TEXT);
  });

  it('errors keep their status across the thread: corrupt → 422, limits → 413, and the 501 is answered before the pool', async () => {
    await rejectsWith(extractText(utf8('%PDF-1.7 nonsense'), { filename: 'a.pdf' }, { executor: pool }), 422, /could not be read as PDF/);
    await rejectsWith(extractText(fixture('sample.pdf'), { filename: 'a.pdf' }, { executor: pool, limits: { maxPages: 1 } }), 413, /maxPages/);
    await withEnv({ CHUNKD_HIDE_PACKAGES: 'pdfjs-dist' }, () =>
      rejectsWith(extractText(fixture('sample.pdf'), { filename: 'a.pdf' }, { executor: pool }), 501, /npm install pdfjs-dist/),
    );
  });

  it('an extraction that needs more heap than its worker may use → 413 naming the cap, and the next file is read', async () => {
    // One array operand of 20 million numbers: 40 MB of content stream in a ~40 kB file, parsed into one JS array.
    const bomb = pdfWithStream(deflateSync(Buffer.from(`BT /F1 12 Tf [${'1 '.repeat(20_000_000)}(a)] TJ ET`)));
    assert.ok(bomb.length < 100_000, `the file is small (${bomb.length} bytes)`);
    await rejectsWith(
      extractText(bomb, { filename: 'bomb.pdf' }, { executor: pool, maxMemoryMb: 128, limits: { maxPdfDecodedBytes: 64 * 1024 * 1024 } }),
      413,
      /more memory than this server allows one file \(128 MB\)/,
    );
    assert.equal((await extractText(fixture('sample.pdf'), { filename: 'a.pdf' }, { executor: pool, maxMemoryMb: 128 })).text, PDF_TEXT);
  });

  it('an aborted extraction stops with the abort, not with a 4xx', async () => {
    const controller = new AbortController();
    const running = extractText(fixture('sample.pdf'), { filename: 'a.pdf' }, { executor: pool, signal: controller.signal });
    controller.abort();
    await assert.rejects(running, (e: Error) => e.name === 'AbortError' || /abort/i.test(e.message));
  });
});
