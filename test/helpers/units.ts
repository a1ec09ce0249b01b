/** Slice a string by offsets counted in code points, UTF-16 code units or UTF-8 bytes. */
export function sliceIn(text: string, start: number, end: number, unit: 'codepoint' | 'utf16' | 'utf8'): string {
  if (unit === 'utf16') return text.slice(start, end);
  if (unit === 'utf8') return Buffer.from(text, 'utf8').subarray(start, end).toString('utf8');
  return Array.from(text).slice(start, end).join('');
}

export const lengthIn = (text: string, unit: 'codepoint' | 'utf16' | 'utf8'): number =>
  unit === 'utf16' ? text.length : unit === 'utf8' ? Buffer.byteLength(text) : Array.from(text).length;
