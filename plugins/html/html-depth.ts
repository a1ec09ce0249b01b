/**
 * How deep an HTML document nests its elements, estimated in one linear pass over its tags.
 * htmlparser2 (html-to-text's parser) keeps its stack of open elements with Array.unshift, so
 * each tag costs time in proportion to the depth: 80,000 unclosed <div>s (400 kB) take seconds.
 * Refusing documents nested deeper than the limit before parsing keeps the cost linear.
 *
 * Elements that the parser closes by itself when a sibling opens (p, li, td, option, …) and void
 * elements (br, img, …) are not counted, so a page of unclosed <p>s is not mistaken for deep
 * nesting; `/>` closes an element only inside svg or math, as in the parser; comments, CDATA and the contents of script/style/textarea/title are skipped as the
 * parser skips them.
 */
const UNCOUNTED = new Set([
  // void
  'area', 'base', 'br', 'col', 'embed', 'hr', 'img', 'input', 'link', 'meta', 'param', 'source', 'track', 'wbr', 'keygen', 'basefont', 'frame',
  // closed implicitly when a sibling opens
  'p', 'li', 'dt', 'dd', 'option', 'optgroup', 'tr', 'td', 'th', 'thead', 'tbody', 'tfoot', 'rb', 'rt', 'rp', 'rtc', 'html', 'head', 'body',
]);
const RAW_TEXT = new Set(['script', 'style', 'textarea', 'title', 'xmp', 'iframe', 'noembed', 'noframes', 'plaintext']);

/**
 * A scanner, not a regular expression: a tag pattern whose name may run into a later `<` and
 * whose attributes are matched lazily to the next `>` backtracks over the rest of the text at
 * every `<`, so '<a'.repeat(4000) took seconds. Here each character is looked at a bounded number
 * of times: once there is no `>` left, no tag can end and the scan stops.
 */
export function nestingDepth(html: string): number {
  const lower = html.toLowerCase();
  const length = lower.length;
  let depth = 0;
  let deepest = 0;
  let foreign = 0; // open svg/math elements: only inside them does `/>` close an element
  let pos = 0;
  while (pos < length) {
    const open = lower.indexOf('<', pos);
    if (open < 0) break;
    if (lower.startsWith('<!--', open)) {
      pos = skipPast(lower, '-->', open + 4);
      continue;
    }
    if (lower.startsWith('<![cdata[', open)) {
      pos = skipPast(lower, ']]>', open + 9);
      continue;
    }
    const closing = lower.charCodeAt(open + 1) === 0x2f; // '/'
    const nameStart = open + 1 + (closing ? 1 : 0);
    if (!isAsciiLetter(lower.charCodeAt(nameStart))) {
      pos = open + 1;
      continue;
    }
    const gt = lower.indexOf('>', nameStart);
    if (gt < 0) break; // no tag can end from here on
    let nameEnd = nameStart + 1;
    while (nameEnd < gt && !endsName(lower.charCodeAt(nameEnd))) nameEnd++;
    const name = lower.slice(nameStart, nameEnd);
    const selfClosing = gt - 1 >= nameEnd && lower.charCodeAt(gt - 1) === 0x2f;
    pos = gt + 1;
    if (!closing && RAW_TEXT.has(name)) {
      const end = lower.indexOf(`</${name}`, pos);
      pos = end < 0 ? length : end;
      continue;
    }
    if (UNCOUNTED.has(name) || (selfClosing && foreign > 0)) continue;
    const isForeign = name === 'svg' || name === 'math';
    if (closing) {
      depth = Math.max(0, depth - 1);
      if (isForeign) foreign = Math.max(0, foreign - 1);
    } else {
      deepest = Math.max(deepest, ++depth);
      if (isForeign) foreign++;
    }
  }
  return deepest;
}

function skipPast(text: string, marker: string, from: number): number {
  const end = text.indexOf(marker, from);
  return end < 0 ? text.length : end + marker.length;
}

const isAsciiLetter = (c: number) => (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a);
/** Whitespace (as `\s` in the pattern this replaced, for the characters HTML uses), `/` and `>` end a tag name. */
const endsName = (c: number) => c === 0x2f || c === 0x3e || c === 0x20 || (c >= 0x09 && c <= 0x0d) || c === 0xa0 || c === 0xfeff || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000;
