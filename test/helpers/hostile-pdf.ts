import { deflateSync } from 'node:zlib';

/**
 * Small PDFs that decode to a lot, built at test time: one page whose content streams are
 * `streams`, each a dictionary's extra entries (its filter, spelled any way) and its raw bytes.
 * Objects 1–5 are the catalog, pages, page, font and (when asked) an indirect filter; the
 * streams are objects 10 onwards. No cross-reference table: PDF.js rebuilds it, as for any
 * damaged file.
 */
export interface HostileStream {
  /** Dictionary entries besides /Length, e.g. '/Filter /Flat#65Decode'. */
  dict: string;
  data: Uint8Array;
  /** Bytes of padding (a PDF comment) between the dictionary and `stream`. */
  pad?: number;
}

export function hostilePdf(streams: HostileStream[], extraObjects: string[] = [], compressed: { id: number; in: number }[] = []): Uint8Array {
  const ids = streams.map((_, i) => `${10 + i} 0 R`).join(' ');
  const parts: Buffer[] = [
    Buffer.from(
      [
        '%PDF-1.5',
        '1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj',
        '2 0 obj << /Type /Pages /Kids [3 0 R] /Count 1 >> endobj',
        `3 0 obj << /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >> >> /Contents [${ids}] >> endobj`,
        '4 0 obj << /Type /Font /Subtype /Type1 /BaseFont /Helvetica >> endobj',
        ...extraObjects,
        '',
      ].join('\n'),
    ),
  ];
  streams.forEach((s, i) => {
    const pad = s.pad ? `%${'x'.repeat(s.pad)}\n` : '';
    parts.push(
      Buffer.from(`${10 + i} 0 obj << /Length ${s.data.length} ${s.dict} >>\n${pad}stream\n`),
      Buffer.from(s.data),
      Buffer.from('\nendstream endobj\n'),
    );
  });
  if (!compressed.length) {
    parts.push(Buffer.from('trailer << /Root 1 0 R >>\n%%EOF\n'));
    return new Uint8Array(Buffer.concat(parts));
  }
  // A cross-reference stream, the only way to say that an object lives in an object stream.
  const body = Buffer.concat(parts);
  const offsets = new Map<number, number>();
  for (const m of body.toString('latin1').matchAll(/(?:^|\n)(\d+) 0 obj\b/g)) offsets.set(Number(m[1]), m.index + (m[0].startsWith('\n') ? 1 : 0));
  const xrefId = Math.max(...offsets.keys(), ...compressed.map((c) => c.id)) + 1;
  offsets.set(xrefId, body.length);
  const rows = Buffer.alloc(xrefId * 7 + 7);
  for (let id = 0; id <= xrefId; id++) {
    const inStream = compressed.find((c) => c.id === id);
    const at = id * 7;
    if (inStream) {
      rows[at] = 2;
      rows.writeUInt32BE(inStream.in, at + 1);
      rows.writeUInt16BE(compressed.filter((c) => c.in === inStream.in).indexOf(inStream), at + 5);
    } else if (offsets.has(id)) {
      rows[at] = 1;
      rows.writeUInt32BE(offsets.get(id)!, at + 1);
    }
  }
  const xref = Buffer.from(`${xrefId} 0 obj << /Type /XRef /Size ${xrefId + 1} /W [1 4 2] /Root 1 0 R /Length ${rows.length} >>\nstream\n`);
  return new Uint8Array(Buffer.concat([body, xref, rows, Buffer.from(`\nendstream endobj\nstartxref\n${body.length}\n%%EOF\n`)]));
}

/** `bytes` bytes of spaces (harmless content-stream text), deflated: about a thousand to one. */
export const deflatedSpaces = (bytes: number): Buffer => deflateSync(Buffer.alloc(bytes, 0x20), { level: 9 });

/** Hex text of bytes, as /ASCIIHexDecode reads it. */
export const asciiHex = (b: Uint8Array): Buffer => Buffer.from(`${Buffer.from(b).toString('hex')}>`);

/** A page whose text is `text` (for a content stream that must still be read). */
export const textContent = (text: string): Buffer => Buffer.from(`BT /F1 12 Tf 72 700 Td (${text}) Tj ET`);

/** ASCII85 text of bytes (`z` for four zero bytes), as /ASCII85Decode reads it. */
export function ascii85(b: Uint8Array): Buffer {
  let out = '';
  for (let i = 0; i < b.length; i += 4) {
    const n = Math.min(4, b.length - i);
    const word = (((b[i] ?? 0) << 24) | ((b[i + 1] ?? 0) << 16) | ((b[i + 2] ?? 0) << 8) | (b[i + 3] ?? 0)) >>> 0;
    if (n === 4 && word === 0) {
      out += 'z';
      continue;
    }
    let digits = '';
    for (let v = word, k = 0; k < 5; k++, v = Math.floor(v / 85)) digits = String.fromCharCode(33 + (v % 85)) + digits;
    out += digits.slice(0, n + 1);
  }
  return Buffer.from(`${out}~>`);
}

/** /RunLengthDecode data: `count` repeats of a 128-byte run of `byte` (2 bytes each). */
export const runLength = (byte: number, count: number): Buffer =>
  Buffer.concat([Buffer.from(Array.from({ length: count }, () => [129, byte]).flat()), Buffer.from([128])]);

/** /RunLengthDecode data that copies bytes as they are (literal runs). */
export function runLengthLiteral(b: Uint8Array): Buffer {
  const parts: Buffer[] = [];
  for (let i = 0; i < b.length; i += 128) {
    const run = b.subarray(i, i + 128);
    parts.push(Buffer.from([run.length - 1]), Buffer.from(run));
  }
  parts.push(Buffer.from([128]));
  return Buffer.concat(parts);
}

/** /LZWDecode data that spells bytes as literal codes (9 bits each, the table cleared every 200). */
export function lzwLiteral(b: Uint8Array): Buffer {
  const codes: number[] = [256];
  b.forEach((byte, i) => {
    if (i > 0 && i % 200 === 0) codes.push(256);
    codes.push(byte);
  });
  codes.push(257);
  const out: number[] = [];
  let acc = 0;
  let bits = 0;
  for (const code of codes) {
    acc = (acc << 9) | code;
    bits += 9;
    while (bits >= 8) {
      out.push((acc >>> (bits - 8)) & 0xff);
      bits -= 8;
    }
    acc &= (1 << bits) - 1;
  }
  if (bits > 0) out.push((acc << (8 - bits)) & 0xff);
  return Buffer.from(out);
}

/**
 * A PDF of `pages` pages, each with its own short content stream: small (about 160 bytes a page)
 * but slow to read, since every page is parsed and laid out on its own.
 */
export function manyPagesPdf(pages: number, pad = 0): Uint8Array {
  const kids = Array.from({ length: pages }, (_, i) => `${10 + 2 * i} 0 R`).join(' ');
  const lines = [
    '%PDF-1.4',
    '1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj',
    `2 0 obj << /Type /Pages /Kids [${kids}] /Count ${pages} >> endobj`,
    '4 0 obj << /Type /Font /Subtype /Type1 /BaseFont /Helvetica >> endobj',
  ];
  for (let i = 0; i < pages; i++) {
    const content = `BT /F1 12 Tf 72 700 Td (Page ${i + 1}) Tj ET`;
    lines.push(
      `${10 + 2 * i} 0 obj << /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >> >> /Contents ${11 + 2 * i} 0 R >> endobj`,
    );
    lines.push(`${11 + 2 * i} 0 obj << /Length ${content.length} >> stream\n${content}\nendstream endobj`);
  }
  if (pad) lines.push(`%${'x'.repeat(pad)}`);
  lines.push('trailer << /Root 1 0 R >>', '%%EOF', '');
  return new Uint8Array(Buffer.from(lines.join('\n')));
}
