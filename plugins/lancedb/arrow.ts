import { createRequire } from 'node:module';
import { setImmediate as tick } from 'node:timers/promises';
import type { DataType as DataTypeType, FixedSizeList as FixedSizeListType, Schema as SchemaType, Table as TableType } from 'apache-arrow';
import type { StoreRow } from '../../kernel/index.js';

// LanceDB is a CommonJS package and reads Arrow through require(): an import would load the ES build,
// whose classes its instanceof checks do not know (the table then arrives empty). One copy: require's.
const { DataType, Field, FixedSizeList, Float32, Float64, Int32, Int64, makeData, Precision, RecordBatch, RecordBatchFileWriter, Schema, Struct, Table, Utf8 } =
  createRequire(import.meta.url)('apache-arrow') as typeof import('apache-arrow');

/**
 * Rows as an Arrow table, column by column, in the table's own schema. LanceDB's `add` of plain
 * objects infers a schema and converts value by value (makeArrowTable); here each string column is
 * one UTF-8 buffer and the vectors one Float32Array, so the conversion is a copy, not a rebuild.
 */

/** The schema of a collection written by this plugin (what LanceDB inferred from the rows before: numbers as Float64). */
export function rowSchema(dimension: number): SchemaType {
  return new Schema([
    new Field('id', new Utf8(), true),
    new Field('document', new Utf8(), true),
    new Field('text', new Utf8(), true),
    new Field('index_text', new Utf8(), true),
    new Field('start_index', new Float64(), true),
    new Field('end_index', new Float64(), true),
    new Field('token_count', new Float64(), true),
    new Field('metadata', new Utf8(), true),
    new Field('vector', new FixedSizeList(dimension, new Field('item', new Float32(), true)), true),
  ]);
}

function utf8(values: string[]) {
  const offsets = new Int32Array(values.length + 1);
  let bytes = 0;
  for (let i = 0; i < values.length; i++) {
    bytes += Buffer.byteLength(values[i]!, 'utf8');
    offsets[i + 1] = bytes;
  }
  const data = Buffer.allocUnsafe(bytes);
  for (let i = 0; i < values.length; i++) data.write(values[i]!, offsets[i]!, 'utf8');
  return makeData({ type: new Utf8(), length: values.length, valueOffsets: offsets, data: new Uint8Array(data.buffer, data.byteOffset, bytes) });
}

/** By type id and width, not instanceof: a schema read back from LanceDB may come from another copy of Arrow's classes. */
function numbers(type: DataTypeType, values: number[]) {
  const t = type as DataTypeType & { precision?: number; bitWidth?: number };
  if (DataType.isFloat(t) && t.precision === Precision.DOUBLE) return makeData({ type: new Float64(), length: values.length, data: Float64Array.from(values) });
  if (DataType.isInt(t) && t.bitWidth === 32) return makeData({ type: new Int32(), length: values.length, data: Int32Array.from(values) });
  if (DataType.isInt(t) && t.bitWidth === 64) return makeData({ type: new Int64(), length: values.length, data: BigInt64Array.from(values, BigInt) });
  throw new Error(`a number column of type ${String(type)} is not one this plugin writes`);
}

function vectors(dimension: number, rows: readonly StoreRow[]) {
  const flat = new Float32Array(rows.length * dimension);
  rows.forEach((r, i) => {
    if (r.embedding.length !== dimension) throw new Error(`a vector of ${r.embedding.length} dimensions, in a collection of ${dimension}`);
    flat.set(r.embedding, i * dimension);
  });
  const type = new FixedSizeList(dimension, new Field('item', new Float32(), true));
  return makeData({ type, length: rows.length, child: makeData({ type: new Float32(), length: flat.length, data: flat }) });
}

/** The rows as one Arrow record batch with the columns of `schema` (this plugin's, in the order and number types the table has). */
function recordBatch(schema: SchemaType, rows: readonly StoreRow[]) {
  const children = schema.fields.map((f) => {
    switch (f.name) {
      case 'id':
      case 'document':
      case 'text':
        return utf8(rows.map((r) => r[f.name as 'id' | 'document' | 'text']));
      case 'index_text':
        return utf8(rows.map((r) => r.index_text ?? r.text));
      case 'metadata':
        return utf8(rows.map((r) => JSON.stringify(r.metadata)));
      case 'start_index':
      case 'end_index':
      case 'token_count':
        return numbers(
          f.type,
          rows.map((r) => r[f.name as 'start_index']),
        );
      case 'vector':
        return vectors((f.type as FixedSizeListType).listSize, rows);
      default:
        throw new Error(`the table has a column '${f.name}' this plugin does not write`);
    }
  });
  // The schema rebuilt from this module's classes, with the columns' names, nullability and the types just made.
  const local = new Schema(schema.fields.map((f, i) => new Field(f.name, children[i]!.type, f.nullable)));
  const struct = makeData({ type: new Struct(local.fields), length: rows.length, nullCount: 0, children });
  return new RecordBatch(local, struct);
}

/** The rows as one Arrow table with the columns of `schema`. */
export function toArrow(schema: SchemaType, rows: readonly StoreRow[]): TableType {
  const batch = recordBatch(schema, rows);
  return new Table(batch.schema, [batch]);
}

/** The rows as one Arrow table of batches of `per` rows, converted one batch per turn of the event loop. */
export async function toArrowInTurns(schema: SchemaType, rows: readonly StoreRow[], per: number): Promise<TableType> {
  const batches = [];
  for (let at = 0; at < rows.length; at += per) {
    if (at > 0) await tick();
    batches.push(recordBatch(schema, rows.slice(at, at + per)));
  }
  return new Table(batches[0]!.schema, batches);
}

/** Bytes copied into the file between two turns (a first touch of memory costs ~3 ms/MB here). */
const BYTES_PER_TURN = 4 * 1024 * 1024;

/**
 * The rows as the bytes of one Arrow IPC file, what LanceDB's merge reads: a batch of `per` rows
 * made and written per turn of the event loop, then the file's pieces copied into one buffer a
 * slice at a time. LanceDB's own `execute(table)` makes the same bytes in one call: for a
 * 100,000-row replacement, the file writer joining its pieces and a copy of the result held the
 * event loop ~470 ms.
 */
export async function ipcFileInTurns(schema: SchemaType, rows: readonly StoreRow[], per: number): Promise<Buffer> {
  const writer = new RecordBatchFileWriter();
  for (let at = 0; at < rows.length; at += per) {
    if (at > 0) await tick();
    writer.write(recordBatch(schema, rows.slice(at, at + per)));
  }
  writer.finish();
  const pieces: Uint8Array[] = [];
  for await (const piece of writer) pieces.push(piece);
  const file = Buffer.allocUnsafeSlow(pieces.reduce((n, p) => n + p.byteLength, 0));
  let at = 0;
  let sinceTurn = 0;
  for (const piece of pieces) {
    if (sinceTurn >= BYTES_PER_TURN) {
      await tick();
      sinceTurn = 0;
    }
    file.set(piece, at);
    at += piece.byteLength;
    sinceTurn += piece.byteLength;
  }
  return file;
}
