import type { Node } from 'web-tree-sitter';
import { glue, Glue, pack, tokenIndex, tokens, type Atom, type Source } from './pieces.js';

/**
 * Cutting a syntax tree into chunks of at most `size` tokens.
 *
 * 1. Atoms: consecutive ranges that tile the source, each either within `size` or impossible to
 *    cut further. Sibling nodes form units (a node with the comments and decorators before it, and
 *    punctuation or a same-line comment after it); a unit that fits is one atom, so a function
 *    that fits is never cut. A unit too big is cut between its members, and a node too big alone
 *    is cut among its children; a node without children is cut at line starts, and a line still
 *    too big at token ends.
 * 2. Glue: the comments and decorators of a unit that was cut rejoin the piece they lead, a
 *    trailing comment the piece it follows, the header of a construct cut among its children (when
 *    its body is its last and largest part) the body's first piece, and a piece that ends
 *    mid-line the piece after it, whenever the two fit together.
 * 3. Packing: atoms are packed greedily, in order, while the chunk holds at most `size` tokens.
 *
 * Every position is a UTF-16 index (web-tree-sitter parses strings as UTF-16 and reports
 * startIndex/endIndex and columns in code units). The gap between two units is cut at the start
 * of the next unit's line when that line holds nothing of the previous unit (blank lines go with
 * the code above, indentation with the code below), else just before the next unit.
 */

/** A node with what stays attached to it; `main` indexes the described node (-1: comments alone). */
interface Unit {
  members: Node[];
  main: number;
}

/** Comments and decorators describe the node after them. */
const LEADING = /comment|^decorator$|^attribute_item$|^attribute_list$|^annotation$|^marker_annotation$/;

/** Chunk boundaries for the tree of `src.text`, each span with the node types it covers. */
export function splitTree(root: Node, src: Source): Atom[] {
  const atoms: Atom[] = [];
  const cutter = new Cutter(src, atoms);
  const kids = root.children.filter(present);
  if (kids.length) cutter.run({ k: 'units', lo: 0, hi: src.text.length, units: group(kids), glue: Glue.None, construct: false });
  else cutter.lines(0, src.text.length, root.type, Glue.None);
  return pack(glue(atoms, src), src);
}

/** Without a tree (the grammar failed on this text): line starts, then token ends. */
export function splitLines(src: Source): Atom[] {
  const atoms: Atom[] = [];
  new Cutter(src, atoms).lines(0, src.text.length, 'text', Glue.None);
  return pack(glue(atoms, src), src);
}

const present = (n: Node | null): n is Node => n !== null;

/** Work on a range [lo, hi): cut it as sibling units, as the members of one unit, or as one node. */
type Task =
  | { k: 'units'; lo: number; hi: number; units: Unit[]; glue: Glue; construct: boolean }
  | { k: 'members'; lo: number; hi: number; unit: Unit }
  | { k: 'node'; lo: number; hi: number; node: Node; glue: Glue }
  | { k: 'atom'; lo: number; hi: number; types: string[]; glue: Glue }
  | { k: 'leave'; type: string };

/**
 * Walks down only into what is too big, emitting atoms in source order. An explicit stack rather
 * than recursion: source nested thousands of levels deep must not overflow the call stack.
 */
class Cutter {
  /** Distinct named types of the nodes being cut among their children, outermost first. */
  private readonly within: string[] = [];
  private readonly depth = new Map<string, number>();

  constructor(
    private readonly src: Source,
    private readonly out: Atom[],
  ) {}

  run(first: Task): void {
    const stack: Task[] = [first];
    for (let t = stack.pop(); t; t = stack.pop()) {
      // Children are pushed last-first so they are handled in source order.
      const next = this.step(t);
      for (let i = next.length - 1; i >= 0; i--) stack.push(next[i]!);
    }
  }

  private step(t: Task): Task[] {
    switch (t.k) {
      case 'units':
        return this.units(t.lo, t.hi, t.units, t.glue, t.construct);
      case 'members':
        return this.members(t.lo, t.hi, t.unit);
      case 'node':
        return this.node(t.lo, t.hi, t.node, t.glue);
      case 'atom':
        this.atom(t.lo, t.hi, t.types, t.glue);
        return [];
      case 'leave':
        this.leave(t.type);
        return [];
    }
  }

  /** [lo, hi) holds these sibling units in order: a unit that fits is an atom, else it is cut further. */
  private units(lo: number, hi: number, units: Unit[], outerGlue: Glue, construct: boolean): Task[] {
    const cuts = boundaries(
      lo,
      hi,
      units.map((u) => [u.members[0]!, u.members.at(-1)!]),
    );
    const header = construct && bodyLast(cuts) ? units.length - 1 : 0;
    const tasks: Task[] = [];
    units.forEach((u, i) => {
      const start = cuts[i]!;
      const end = cuts[i + 1]!;
      if (end <= start) return;
      const g = edgeGlue(outerGlue, i, units.length) | (i < header ? Glue.Next : 0);
      if (tokens(this.src, start, end) <= this.src.size) tasks.push({ k: 'atom', lo: start, hi: end, types: namedTypes(u.members), glue: g });
      else if (u.members.length > 1) tasks.push({ k: 'members', lo: start, hi: end, unit: u });
      else tasks.push({ k: 'node', lo: start, hi: end, node: u.members[0]!, glue: g });
    });
    return tasks;
  }

  /** A unit too big: its members become separate pieces, glued to the described node. */
  private members(lo: number, hi: number, u: Unit): Task[] {
    const cuts = boundaries(
      lo,
      hi,
      u.members.map((m) => [m, m]),
    );
    const tasks: Task[] = [];
    u.members.forEach((m, i) => {
      const start = cuts[i]!;
      const end = cuts[i + 1]!;
      if (end <= start) return;
      const g = u.main < 0 ? Glue.None : i < u.main ? Glue.Next : i > u.main ? Glue.Back : Glue.None;
      if (tokens(this.src, start, end) <= this.src.size) tasks.push({ k: 'atom', lo: start, hi: end, types: namedTypes([m]), glue: g });
      else tasks.push({ k: 'node', lo: start, hi: end, node: m, glue: g });
    });
    return tasks;
  }

  /** A single node too big: cut among its children, or at lines when it has none. */
  private node(lo: number, hi: number, n: Node, g: Glue): Task[] {
    const kids = n.children.filter(present);
    if (!kids.length) {
      this.lines(lo, hi, n.type, g);
      return [];
    }
    const cut: Task = { k: 'units', lo, hi, units: group(kids), glue: g, construct: true };
    if (!n.isNamed) return [cut];
    // Pieces of a construct say what they are part of (function_definition > block > …).
    this.enter(n.type);
    return [cut, { k: 'leave', type: n.type }];
  }

  /** Each type once, however deep the nesting: a type leaves the list when its outermost node is done. */
  private enter(type: string): void {
    const d = this.depth.get(type) ?? 0;
    if (d === 0) this.within.push(type);
    this.depth.set(type, d + 1);
  }

  private leave(type: string): void {
    const d = this.depth.get(type)! - 1;
    this.depth.set(type, d);
    if (d === 0) this.within.pop();
  }

  /** The last resort inside a leaf (a long string or comment): whole lines while they fit, else token ends. */
  lines(lo: number, hi: number, type: string, g: Glue): void {
    const { text, size } = this.src;
    const pieces: number[] = [lo];
    for (let start = lo; start < hi;) {
      let end = start;
      while (end < hi) {
        const nl = text.indexOf('\n', end);
        const next = nl < 0 || nl >= hi ? hi : nl + 1;
        if (tokens(this.src, start, next) > size) break;
        end = next;
      }
      if (end === start) end = this.tokenCut(start, hi);
      pieces.push(end);
      start = end;
    }
    for (let i = 0; i + 1 < pieces.length; i++) this.atom(pieces[i]!, pieces[i + 1]!, [type], edgeGlue(g, i, pieces.length - 1));
  }

  /** The furthest token end in (start, limit] that keeps at most `size` tokens; at least one character. */
  private tokenCut(start: number, limit: number): number {
    const { ends, size } = this.src;
    const first = tokenIndex(this.src, start);
    let k = Math.min(first + size, ends.length) - 1;
    // Tokens that end at the same place share a character: never cut between them.
    while (k >= first && k + 1 < ends.length && ends[k + 1] === ends[k]) k--;
    const cut = k >= first ? ends[k] : ends[first];
    if (cut === undefined || cut >= limit) return limit;
    return cut > start ? cut : nextCodePoint(this.src.text, start);
  }

  private atom(start: number, end: number, types: string[], glue: Glue): void {
    // A piece that ends mid-line (a signature cut from its body) belongs with what follows it.
    const midLine = end < this.src.text.length && this.src.text.charCodeAt(end - 1) !== 10;
    this.out.push({ start, end, types: [...this.within, ...types], glue: midLine ? glue | Glue.Line : glue });
  }
}

/**
 * Group siblings into units: comments and decorators lead the next node unless a blank line
 * separates them; punctuation and a comment on the same line as the previous node's end trail it.
 */
export function group(nodes: Node[]): Unit[] {
  const units: Unit[] = [];
  let pending: Node[] = [];
  const flush = () => {
    if (pending.length) units.push({ members: pending, main: -1 });
    pending = [];
  };
  for (const n of nodes) {
    const prev = units.at(-1);
    const leading = n.isNamed ? LEADING.test(n.type) : true;
    if (!pending.length && prev && (!n.isNamed || (leading && sameRow(prev.members.at(-1)!, n)))) {
      prev.members.push(n);
    } else if (leading) {
      if (pending.length && blankLineBetween(pending.at(-1)!, n)) flush();
      pending.push(n);
    } else {
      if (pending.length && blankLineBetween(pending.at(-1)!, n)) flush();
      units.push({ members: [...pending, n], main: pending.length });
      pending = [];
    }
  }
  flush();
  return units;
}

/**
 * A construct whose last part is its largest (a function, class or loop and its body): its header
 * pieces stay with the start of the body rather than with the code before it.
 */
function bodyLast(cuts: number[]): boolean {
  const n = cuts.length - 1;
  if (n < 2) return false;
  const last = cuts[n]! - cuts[n - 1]!;
  for (let i = 0; i < n - 1; i++) if (cuts[i + 1]! - cuts[i]! > last) return false;
  return true;
}

/** A glued run cut into pieces: only the piece next to its partner keeps the glue. */
function edgeGlue(g: Glue, i: number, count: number): Glue {
  return (i === count - 1 ? g & Glue.Next : 0) | (i === 0 ? g & Glue.Back : 0);
}

const sameRow = (a: Node, b: Node) => a.endPosition.row === b.startPosition.row;
const blankLineBetween = (a: Node, b: Node) => b.startPosition.row - a.endPosition.row > 1;

/** Cut positions for consecutive [first, last] node runs inside [lo, hi): lo, one between each pair, hi. */
function boundaries(lo: number, hi: number, runs: [Node, Node][]): number[] {
  const cuts = [lo];
  for (let i = 1; i < runs.length; i++) {
    const prevEnd = runs[i - 1]![1].endIndex;
    const first = runs[i]![0];
    const lineStart = first.startIndex - first.startPosition.column;
    const cut = lineStart >= prevEnd ? lineStart : first.startIndex;
    cuts.push(Math.min(hi, Math.max(cuts.at(-1)!, cut)));
  }
  cuts.push(hi);
  return cuts;
}

function namedTypes(nodes: Node[]): string[] {
  return nodes.filter((n) => n.isNamed).map((n) => n.type);
}

function nextCodePoint(text: string, i: number): number {
  const c = text.charCodeAt(i);
  return c >= 0xd800 && c <= 0xdbff && i + 1 < text.length ? i + 2 : i + 1;
}
