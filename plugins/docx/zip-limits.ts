import { inflateRawSync } from 'node:zlib';
import { ChunkdError, overLimit, type ExtractLimits } from '../../kernel/index.js';

/**
 * Refuse a zip (a DOCX) that would inflate past the limits before a library unpacks it: its
 * central directory gives each entry's sizes, and each deflated entry is then inflated here with
 * its declared size as the output cap, so an entry that lies about its size (a zip bomb) fails
 * after at most that many bytes instead of filling memory. JSZip (mammoth's reader) checks sizes
 * only once an entry is fully inflated.
 */
export function checkZip(bytes: Uint8Array, limits: ExtractLimits): void {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const end = findEndOfCentralDirectory(view);
  // JSZip switches to the ZIP64 records when any of these fields is at its maximum, and then
  // reads a directory this check never sees: refuse them all.
  const disk = view.getUint16(end + 4, true);
  const cdDisk = view.getUint16(end + 6, true);
  const onDisk = view.getUint16(end + 8, true);
  const entries = view.getUint16(end + 10, true);
  const cdSize = view.getUint32(end + 12, true);
  const cdOffset = view.getUint32(end + 16, true);
  if ([disk, cdDisk, onDisk, entries].includes(0xffff) || cdSize === 0xffffffff || cdOffset === 0xffffffff) {
    throw corrupt('it is a ZIP64 archive, which a DOCX never needs');
  }
  if (disk !== 0 || cdDisk !== 0 || onDisk !== entries) throw corrupt('it is split over several disks');
  if (entries > limits.maxZipEntries) throw overLimit('zip entries', limits.maxZipEntries, 'maxZipEntries');
  if (cdOffset + cdSize !== end) throw corrupt('its central directory is damaged');
  // JSZip reads every header in the directory whatever count the end record declares, and a later
  // entry of the same name replaces an earlier one: walk the directory by its size, and require
  // the count to match and each name to be unique, so every entry JSZip unpacks was checked here.
  const names = new Set<string>();
  const latin1 = new TextDecoder('latin1');
  let at = cdOffset;
  let seen = 0;
  let total = 0;
  while (at < end) {
    if (at + 46 > end || view.getUint32(at, true) !== 0x02014b50) throw corrupt('its central directory is damaged');
    if (++seen > entries) throw corrupt('its central directory holds more entries than it declares');
    const method = view.getUint16(at + 10, true);
    const compressed = view.getUint32(at + 20, true);
    const size = view.getUint32(at + 24, true);
    const nameLength = view.getUint16(at + 28, true);
    const local = view.getUint32(at + 42, true);
    if (compressed === 0xffffffff || size === 0xffffffff || local === 0xffffffff) throw corrupt('it is a ZIP64 archive, which a DOCX never needs');
    if (at + 46 + nameLength > end) throw corrupt('its central directory is damaged');
    const name = latin1.decode(bytes.subarray(at + 46, at + 46 + nameLength));
    if (names.has(name)) throw corrupt(`it holds two entries named '${clipName(name)}'`);
    names.add(name);
    total += size;
    if (total > limits.maxUnzippedBytes) throw overLimit('bytes once unzipped', limits.maxUnzippedBytes, 'maxUnzippedBytes');
    checkEntry(view, bytes, local, method, compressed, size);
    at += 46 + nameLength + view.getUint16(at + 30, true) + view.getUint16(at + 32, true);
  }
  if (at !== end || at - cdOffset !== cdSize || seen !== entries) throw corrupt('its central directory does not match the entry count and size it declares');
}

const clipName = (name: string) => (name.length > 100 ? `${name.slice(0, 100)}…` : name);

function checkEntry(view: DataView, bytes: Uint8Array, local: number, method: number, compressed: number, size: number): void {
  if (local + 30 > view.byteLength || view.getUint32(local, true) !== 0x04034b50) throw corrupt('an entry points outside the file');
  const start = local + 30 + view.getUint16(local + 26, true) + view.getUint16(local + 28, true);
  if (start + compressed > bytes.byteLength) throw corrupt('an entry is truncated');
  if (method === 0) {
    if (compressed !== size) throw corrupt('a stored entry has two sizes');
    return;
  }
  if (method !== 8) throw corrupt(`an entry uses compression method ${method}, which DOCX files do not use`);
  try {
    // Room for one byte more than declared: an entry that inflates to more fails here.
    const out = inflateRawSync(bytes.subarray(start, start + compressed), { maxOutputLength: size + 1 });
    if (out.length !== size) throw new Error('size mismatch');
  } catch {
    throw corrupt('an entry does not inflate to the size it declares');
  }
}

function findEndOfCentralDirectory(view: DataView): number {
  // The record is 22 bytes plus a comment of at most 65535 bytes, at the very end.
  for (let at = view.byteLength - 22; at >= Math.max(0, view.byteLength - 22 - 0xffff); at--) {
    if (view.getUint32(at, true) === 0x06054b50) return at;
  }
  throw corrupt('it is not a ZIP archive');
}

const corrupt = (why: string) =>
  new ChunkdError('VALIDATION', `The file could not be read as DOCX (${why}): save it again from Word or LibreOffice as .docx and upload it again.`);
