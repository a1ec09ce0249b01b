import { writeFile } from 'node:fs/promises';
import { MAX_MODEL_BYTES, readModelFile } from '../model-files.js';

/**
 * The safetensors container (an 8-byte little-endian header length, a JSON header, raw
 * little-endian tensor bytes): read by the Model2Vec provider, written by the model build script
 * and the tests. Only the dtypes static embedding models use are supported.
 */
export type DType = 'F32' | 'F16' | 'BF16' | 'I8' | 'I32' | 'I64';

export interface Tensor {
  dtype: DType;
  shape: number[];
  /** The raw values (I64 as a Float64Array: ids fit in 53 bits). */
  data: Float32Array | Int8Array | Int32Array | Float64Array;
}

const WIDTH: Record<DType, number> = { F32: 4, F16: 2, BF16: 2, I8: 1, I32: 4, I64: 8 };

export function parseSafetensors(buf: Buffer): Map<string, Tensor> {
  if (buf.length < 8) throw new Error('file too short for a safetensors header');
  const headerLength = Number(buf.readBigUInt64LE(0));
  if (headerLength > buf.length - 8) throw new Error('header length exceeds the file');
  const header = JSON.parse(buf.subarray(8, 8 + headerLength).toString('utf8')) as Record<
    string,
    { dtype: string; shape: number[]; data_offsets: [number, number] }
  >;
  const base = 8 + headerLength;
  const out = new Map<string, Tensor>();
  for (const [name, info] of Object.entries(header)) {
    if (name === '__metadata__') continue;
    const dtype = info.dtype as DType;
    if (!(dtype in WIDTH)) throw new Error(`tensor '${name}' has unsupported dtype ${info.dtype}`);
    const [from, to] = info.data_offsets;
    const count = info.shape.reduce((a, b) => a * b, 1);
    if (to - from !== count * WIDTH[dtype] || base + to > buf.length) throw new Error(`tensor '${name}' has inconsistent offsets`);
    out.set(name, { dtype, shape: info.shape, data: decode(dtype, buf.subarray(base + from, base + to), count) });
  }
  return out;
}

/** A model file under the model roots, read within MAX_MODEL_BYTES. */
export async function readSafetensors(path: string): Promise<Map<string, Tensor>> {
  const buf = await readModelFile(path, MAX_MODEL_BYTES);
  if (!buf) throw new Error(`not a regular file of at most ${MAX_MODEL_BYTES / 1024 ** 3} GiB under the model roots`);
  return parseSafetensors(buf);
}

/** Write tensors given as typed arrays of their on-disk type (F32: Float32Array, I8: Int8Array, F16: Uint16Array bits). */
export async function writeSafetensors(
  path: string,
  tensors: Record<string, { dtype: DType; shape: number[]; bytes: ArrayBufferView }>,
  metadata: Record<string, string> = {},
): Promise<void> {
  const header: Record<string, unknown> = { __metadata__: metadata };
  let offset = 0;
  for (const [name, t] of Object.entries(tensors)) {
    header[name] = { dtype: t.dtype, shape: t.shape, data_offsets: [offset, offset + t.bytes.byteLength] };
    offset += t.bytes.byteLength;
  }
  let json = JSON.stringify(header);
  json += ' '.repeat((8 - ((8 + Buffer.byteLength(json)) % 8)) % 8); // align the data to 8 bytes
  const len = Buffer.alloc(8);
  len.writeBigUInt64LE(BigInt(Buffer.byteLength(json)));
  const parts = [len, Buffer.from(json, 'utf8'), ...Object.values(tensors).map((t) => Buffer.from(t.bytes.buffer, t.bytes.byteOffset, t.bytes.byteLength))];
  await writeFile(path, Buffer.concat(parts));
}

function decode(dtype: DType, bytes: Buffer, count: number): Tensor['data'] {
  const copy = new Uint8Array(bytes); // aligned copy: typed-array views need aligned offsets
  switch (dtype) {
    case 'F32':
      return new Float32Array(copy.buffer, 0, count);
    case 'I8':
      return new Int8Array(copy.buffer, 0, count);
    case 'I32':
      return new Int32Array(copy.buffer, 0, count);
    case 'I64': {
      const big = new BigInt64Array(copy.buffer, 0, count);
      return Float64Array.from(big, (v) => Number(v));
    }
    case 'F16':
    case 'BF16': {
      const bits = new Uint16Array(copy.buffer, 0, count);
      const out = new Float32Array(count);
      for (let i = 0; i < count; i++) out[i] = dtype === 'F16' ? halfToFloat(bits[i]!) : bf16ToFloat(bits[i]!);
      return out;
    }
  }
}

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

function bf16ToFloat(h: number): number {
  u32[0] = h << 16;
  return f32[0]!;
}

function halfToFloat(h: number): number {
  const sign = h & 0x8000 ? -1 : 1;
  const exp = (h >> 10) & 0x1f;
  const frac = h & 0x3ff;
  if (exp === 0) return sign * frac * 2 ** -24;
  if (exp === 31) return frac ? NaN : sign * Infinity;
  return sign * (1 + frac / 1024) * 2 ** (exp - 15);
}
