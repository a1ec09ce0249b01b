import bourne from '@hapi/bourne';

/** What the splitters hand on, in body order. */
export type JobPiece =
  | { kind: 'field'; key: string; value: unknown }
  | { kind: 'document'; index: number; value: unknown; loc: (string | number)[] }
  | { kind: 'header'; value: unknown; loc: (string | number)[] }
  | { kind: 'error'; loc: (string | number)[]; msg: string };

/** Bytes one JSON value other than a document may take (a key, pipeline_id, the steps…): a larger one is refused. */
const FIELD_MAX_BYTES = 1024 * 1024;

const WS = new Set([0x20, 0x09, 0x0a, 0x0d]);
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** A JSON value parsed as the small-body reader parses one (a `__proto__` key refused). */
function parseValue(bytes: Buffer): unknown {
  return bourne.parse(bytes.toString('utf8'), { protoAction: 'error' });
}

type State = 'start' | 'key' | 'key-or-end' | 'colon' | 'value' | 'comma-or-end' | 'doc-first' | 'doc-value' | 'doc-sep' | 'done' | 'failed';

/**
 * A JSON job body (`{…, "documents": [{…}, …], …}`) split as it arrives: each top-level field but
 * `documents` is handed on whole (small, bounded), and each element of `documents` on its own, so
 * a body of any size is never held or parsed whole. The structure around the values (braces,
 * keys, colons, commas) is checked here; each value is checked by JSON.parse. Feed the bytes with
 * write(), then end(); both return the pieces complete so far.
 */
export class JsonJobSplitter {
  private state: State = 'start';
  private key = '';
  private seen = new Set<string>();
  private index = 0;
  /** The value being captured: its bytes so far, and the scanner's place in it. */
  private parts: Buffer[] = [];
  private size = 0;
  private capturing = false;
  private depth = 0;
  private inString = false;
  private escaped = false;
  private scalar = false;
  private bom = 0;
  private forDocument = false;
  private out: JobPiece[] = [];

  /** Whether the body has a `documents` list (empty or not). */
  get hasDocuments(): boolean {
    return this.seen.has('documents');
  }

  write(chunk: Buffer): JobPiece[] {
    this.scan(chunk);
    return this.take();
  }

  private scan(chunk: Buffer): void {
    let i = 0;
    // A UTF-8 byte order mark before the body is dropped, as the small-body reader drops it.
    while (this.state === 'start' && this.bom < 3 && i < chunk.length && chunk[i] === [0xef, 0xbb, 0xbf][this.bom]) {
      this.bom++;
      i++;
    }
    while (i < chunk.length && this.state !== 'failed') {
      if (this.capturing) {
        i = this.capture(chunk, i);
        continue;
      }
      const c = chunk[i]!;
      if (WS.has(c)) {
        i++;
        continue;
      }
      switch (this.state) {
        case 'start':
          if (c !== 0x7b)
            return this.fail(
              ['body'],
              'The body is not a JSON object: send {"steps" or "pipeline_id", "documents": [{"id", "text"}, …]}, or NDJSON with Content-Type: application/x-ndjson.',
            );
          this.state = 'key-or-end';
          i++;
          break;
        case 'key-or-end':
        case 'key':
          if (c === 0x7d && this.state === 'key-or-end') {
            this.state = 'done';
            i++;
            break;
          }
          if (c !== QUOTE) return this.syntax(`expected a key in double quotes at byte ${i}`);
          this.begin(false);
          break;
        case 'colon':
          if (c !== 0x3a) return this.syntax(`expected ':' after the key "${this.key}"`);
          this.state = 'value';
          i++;
          break;
        case 'value':
          if (this.key === 'documents' && c === 0x5b) {
            if (this.seen.has('documents')) return this.fail(['body', 'documents'], 'The body has two "documents" fields: send one list.');
            this.seen.add('documents');
            this.state = 'doc-first';
            i++;
            break;
          }
          this.begin(false);
          break;
        case 'comma-or-end':
          if (c === 0x2c) this.state = 'key';
          else if (c === 0x7d) this.state = 'done';
          else return this.syntax(`expected ',' or '}' after the field "${this.key}"`);
          i++;
          break;
        case 'doc-first':
        case 'doc-value':
          if (c === 0x5d && this.state === 'doc-first') {
            this.state = 'comma-or-end';
            i++;
            break;
          }
          this.begin(true);
          break;
        case 'doc-sep':
          if (c === 0x2c) this.state = 'doc-value';
          else if (c === 0x5d) this.state = 'comma-or-end';
          else return this.syntax(`expected ',' or ']' after document ${this.index - 1}`);
          i++;
          break;
        case 'done':
          return this.syntax('unexpected data after the closing brace');
      }
    }
  }

  end(): JobPiece[] {
    if (this.capturing && this.scalar) this.finish();
    if (this.state !== 'done' && this.state !== 'failed')
      this.syntax(this.state === 'start' && !this.capturing ? 'the body is empty' : 'the body ends before the closing brace');
    return this.take();
  }

  private take(): JobPiece[] {
    const out = this.out;
    this.out = [];
    return out;
  }

  private begin(forDocument: boolean): void {
    this.capturing = true;
    this.forDocument = forDocument;
    this.parts = [];
    this.size = 0;
    this.depth = 0;
    this.inString = false;
    this.escaped = false;
    this.scalar = false;
  }

  /** Scan the value being captured from chunk[i]; returns where scanning stopped. */
  private capture(chunk: Buffer, i: number): number {
    const from = i;
    let end = -1; // the index just past the value, once found
    if (this.size === 0 && from === i && this.parts.length === 0 && !this.inString && this.depth === 0 && !this.scalar) {
      const c = chunk[i]!;
      if (c === QUOTE) {
        this.inString = true;
        i++;
      } else if (c === 0x7b || c === 0x5b) {
        this.depth = 1;
        i++;
      } else this.scalar = true;
    }
    for (; i < chunk.length; i++) {
      const c = chunk[i]!;
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (c === BACKSLASH) this.escaped = true;
        else if (c === QUOTE) {
          this.inString = false;
          if (this.depth === 0) {
            end = i + 1;
            break;
          }
        }
      } else if (this.scalar) {
        if (WS.has(c) || c === 0x2c || c === 0x7d || c === 0x5d) {
          end = i;
          break;
        }
      } else if (c === QUOTE) this.inString = true;
      else if (c === 0x7b || c === 0x5b) this.depth++;
      else if (c === 0x7d || c === 0x5d) {
        if (--this.depth === 0) {
          end = i + 1;
          break;
        }
      }
    }
    const stop = end === -1 ? chunk.length : end;
    this.parts.push(chunk.subarray(from, stop));
    this.size += stop - from;
    if (!this.forDocument && this.size > FIELD_MAX_BYTES) {
      this.fail(
        ['body', this.state === 'value' ? this.key : 'body'],
        `A field of the body is larger than ${FIELD_MAX_BYTES} bytes: only "documents" may be large.`,
      );
      return chunk.length;
    }
    if (end !== -1) this.finish();
    return stop;
  }

  private finish(): void {
    this.capturing = false;
    const bytes = this.parts.length === 1 ? this.parts[0]! : Buffer.concat(this.parts, this.size);
    this.parts = [];
    if (this.state === 'key' || this.state === 'key-or-end') {
      let key: unknown;
      try {
        key = JSON.parse(bytes.toString('utf8'));
      } catch (e) {
        return this.syntax((e as Error).message);
      }
      if (key === '__proto__') return this.syntax('Object contains forbidden prototype property');
      this.key = key as string;
      this.state = 'colon';
      return;
    }
    let value: unknown;
    try {
      value = parseValue(bytes);
    } catch (e) {
      return this.syntax((e as Error).message);
    }
    if (this.forDocument) {
      const index = this.index++;
      this.out.push({ kind: 'document', index, value, loc: ['body', 'documents', index] });
      this.state = 'doc-sep';
      return;
    }
    if (this.seen.has(this.key)) return this.fail(['body', this.key], `The body has two "${this.key}" fields: send one.`);
    this.seen.add(this.key);
    this.out.push({ kind: 'field', key: this.key, value });
    this.state = 'comma-or-end';
  }

  private syntax(why: string): void {
    this.fail(['body'], `The body is not valid JSON (${why}): send a JSON object, or NDJSON with Content-Type: application/x-ndjson.`);
  }

  private fail(loc: (string | number)[], msg: string): void {
    this.state = 'failed';
    this.capturing = false;
    this.out.push({ kind: 'error', loc, msg });
  }
}

/**
 * An NDJSON job body split into lines as it arrives: the first non-blank line is the header, each
 * later one a document; each line is parsed alone. A line that is not JSON is an error piece at its
 * line number, and splitting goes on (every bad line is reported).
 */
export class NdjsonJobSplitter {
  private rest: Buffer[] = [];
  private restSize = 0;
  private line = 0;
  private index = 0;
  private headerSeen = false;

  write(chunk: Buffer): JobPiece[] {
    const out: JobPiece[] = [];
    let at = 0;
    for (let nl = chunk.indexOf(0x0a, at); nl !== -1; nl = chunk.indexOf(0x0a, at)) {
      const piece = chunk.subarray(at, nl);
      const line = this.restSize ? Buffer.concat([...this.rest, piece], this.restSize + piece.length) : piece;
      this.rest = [];
      this.restSize = 0;
      this.handle(line, out);
      at = nl + 1;
    }
    if (at < chunk.length) {
      this.rest.push(chunk.subarray(at));
      this.restSize += chunk.length - at;
    }
    return out;
  }

  end(): JobPiece[] {
    const out: JobPiece[] = [];
    if (this.restSize) this.handle(Buffer.concat(this.rest, this.restSize), out);
    this.rest = [];
    return out;
  }

  private handle(bytes: Buffer, out: JobPiece[]): void {
    const n = ++this.line;
    let text = bytes.toString('utf8');
    if (n === 1 && text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    if (!text.trim()) return;
    let value: unknown;
    try {
      if (!/^[\x20\x09\x0d]*\{/.test(text)) throw new SyntaxError('invalid JSON, only supports object and array');
      value = bourne.parse(text, { protoAction: 'error' });
    } catch (e) {
      out.push({ kind: 'error', loc: ['body', n], msg: `Line ${n} is not one JSON object (${(e as Error).message}): send one object per line.` });
      if (!this.headerSeen) this.headerSeen = true; // a bad header line is still the header: the next lines are documents
      return;
    }
    if (!this.headerSeen) {
      this.headerSeen = true;
      out.push({ kind: 'header', value, loc: ['body', n] });
      return;
    }
    out.push({ kind: 'document', index: this.index++, value, loc: ['body', n] });
  }

  get sawHeader(): boolean {
    return this.headerSeen;
  }
}
