/** FNV-1a (32 bits) of a string's UTF-16 units: a fast, fixed hash for sets and seeds, not for security. */
export function fnv1a(text: string): number {
  let x = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) x = Math.imul(x ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return x;
}
