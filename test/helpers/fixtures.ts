/**
 * Texts every chunker must handle with exact offsets: each stresses a different way a UTF-16
 * index, a code point and a UTF-8 byte disagree, or a way text repeats.
 */
export const FIXTURES: Record<string, string> = {
  ascii:
    'The quick brown fox jumps over the lazy dog. It was not amused! Was it tired? Nobody knows.\n\nA second paragraph follows here, with commas, semicolons; and colons: all of them.',
  crlf: 'First line of the file.\r\nSecond line, still going.\r\n\r\nA new paragraph after a blank CRLF line.\r\nLast line.\r\n',
  cjk: '日本語の文章です。これは二番目の文です！中文句子也在这里。한국어 문장도 있습니다. 混合された text with English words。最後の文。',
  emoji: 'Family: 👨‍👩‍👧‍👦 and flags 🇯🇵🇫🇷 and skin tones 👋🏽👋🏿. The hippo 🦛 says hi! 🦛🦛🦛 Repeated 🦛 hippos. Keycap 1️⃣ done.',
  combining:
    'Café naïve résumé — e\u0301 with a combining accent, Å vs A\u030a, and Hangul 한 vs \u1112\u1161\u11ab. Zalgo: Z\u0351\u0364a\u0363l\u0365g\u036bo.',
  repeated: 'Same sentence again. '.repeat(12) + 'abcabcabcabc '.repeat(8) + 'Same sentence again.',
  mixed_whitespace: '  leading spaces\t\ttabs\n\n\n   multiple blank lines\u00a0non-breaking space\u2003em space end.  ',
  long_word: 'Supercalifragilisticexpialidocious' + 'x'.repeat(200) + ' and a normal tail sentence.',
};

/** Texts that are empty or whitespace only: every chunker answers [] for each. */
export const BLANK_TEXTS = ['', ' ', '\n\n', '\r\n\t ', '\u00a0\u2003'];
