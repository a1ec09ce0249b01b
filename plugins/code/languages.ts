/**
 * The languages the code chunker parses: every grammar tree-sitter-wasms 0.1.13 ships that
 * web-tree-sitter 0.25.10 loads (code.test.ts loads and parses each one). This table is the only
 * list: validation, `auto` detection, the error message and the README table all read it.
 *
 * `hints` drive `auto`: distinctive tokens, each counted once when it matches the sample (see
 * detect.ts). `interpreters` are the names a `#!` line may run.
 */
export interface LanguageSpec {
  /** Canonical name: also the grammar file, out/tree-sitter-<name>.wasm. */
  name: string;
  aliases: string[];
  hints: RegExp[];
  interpreters?: string[];
}

export const LANGUAGES: readonly LanguageSpec[] = [
  {
    name: 'python',
    aliases: ['py', 'python3', 'py3'],
    interpreters: ['python', 'python3', 'python2'],
    hints: [
      /^\s*def \w+\(.*\)( -> .+)?:\s*$/m,
      /^\s*(from [\w.]+ )?import \w+/m,
      /^\s*class \w+(\(.*\))?:\s*$/m,
      /\bself\./,
      /^\s*(elif|except|with) .*:\s*$/m,
      /^\s*@\w+/m,
      /\b(None|True|False)\b/,
      /^\s*if __name__ == /m,
    ],
  },
  {
    name: 'javascript',
    aliases: ['js', 'jsx', 'node', 'mjs', 'cjs', 'ecmascript'],
    interpreters: ['node', 'nodejs', 'deno', 'bun'],
    hints: [
      /\bfunction\s*\w*\s*\(/,
      /^\s*(const|let|var) \w+ = /m,
      /=>/,
      /\brequire\(['"]/,
      /\bconsole\.\w+\(/,
      /^\s*export (default|const|function|class) /m,
      /^\s*import .* from ['"]/m,
      /===|!==/,
    ],
  },
  {
    name: 'typescript',
    aliases: ['ts', 'mts', 'cts'],
    hints: [
      /^\s*(export )?(interface|type) \w+(<.*>)? (=|\{|extends)/m,
      /: (string|number|boolean|void|unknown|any)\b/,
      /\b(private|public|protected|readonly) \w+/,
      /\bas const\b/,
      /^\s*import type /m,
      /^\s*(const|let|var) \w+ = /m,
      /=>/,
      /^\s*export (default|const|function|class) /m,
      /^\s*import .* from ['"]/m,
      /\w+<[A-Z]\w*(\[\])?>\(/,
    ],
  },
  {
    name: 'tsx',
    aliases: [],
    hints: [
      /^\s*(export )?(interface|type) \w+(<.*>)? (=|\{|extends)/m,
      /: (string|number|boolean|void|React\.\w+)\b/,
      /<\/?[A-Za-z][\w.]*(\s+\w+=|\s*\/?>)/,
      /\breturn \(\s*$/m,
      /\bclassName=/,
      /^\s*import .* from ['"]react['"]/m,
      /=>/,
    ],
  },
  {
    name: 'java',
    aliases: [],
    hints: [
      /^\s*package [\w.]+;/m,
      /^\s*import (static )?java\w*\.[\w.*]+;/m,
      /\bpublic (final |abstract )?(class|interface|enum|record) \w+/,
      /\b(private|public|protected) (static )?(final )?[\w<>\[\], ]+ \w+\(/,
      /\bSystem\.out\./,
      /@Override\b/,
      /\bnew \w+(<.*>)?\(/,
      /\bthrows \w+/,
    ],
  },
  {
    name: 'go',
    aliases: ['golang'],
    hints: [
      /^package \w+\s*$/m,
      /^func (\(\w+ \*?\w+\) )?\w+\(/m,
      /:=/,
      /\bfmt\.\w+\(/,
      /^import \(/m,
      /\bif err != nil\b/,
      /^type \w+ (struct|interface) \{/m,
      /\bchan\b|\bgo func\b|\bdefer\b/,
    ],
  },
  {
    name: 'rust',
    aliases: ['rs'],
    hints: [
      /^\s*(pub(\(crate\))? )?fn \w+/m,
      /\blet mut\b/,
      /^\s*impl(<.*>)? [\w<>]+/m,
      /^\s*use (std|crate|super)::/m,
      /#\[derive\(|#\[cfg\(/,
      /\bmatch \w+.*\{/,
      /&(mut |'\w+ )?(self|str)\b/,
      /\b\w+!\(/,
      /\bOption<|\bResult<|\bVec</,
    ],
  },
  {
    name: 'c',
    aliases: ['h'],
    hints: [
      /^#include <(stdio|stdlib|string|stdint|stddef|unistd|errno)\.h>/m,
      /^#include ["<]/m,
      /\bprintf\(|\bmalloc\(|\bfree\(|\bsizeof\(/,
      /^(static )?(int|void|char|unsigned|size_t|struct \w+) \*?\w+\(/m,
      /^#define \w+/m,
      /\bNULL\b/,
      /\btypedef struct\b/,
      /->\w+/,
    ],
  },
  {
    name: 'cpp',
    aliases: ['c++', 'cxx', 'cc', 'hpp', 'hh', 'cplusplus'],
    hints: [
      /\bstd::/,
      /^#include <(iostream|vector|string|map|memory|algorithm)>/m,
      /\btemplate\s*</,
      /^\s*namespace \w+/m,
      /^\s*(public|private|protected):\s*$/m,
      /\bnullptr\b|\bauto\b|\bconstexpr\b/,
      /^\s*class \w+( : (public )?\w+)? \{/m,
      /\bcout <<|\busing namespace\b/,
      /^#include ["<]/m,
      /::\w+\(/,
    ],
  },
  {
    name: 'c_sharp',
    aliases: ['cs', 'csharp', 'c#'],
    hints: [
      /^\s*using System[\w.]*;/m,
      /^\s*namespace [\w.]+/m,
      /\bpublic (static |sealed |abstract |partial )*(class|interface|record|struct) \w+/,
      /\{ get; (private |init; |set; )?/,
      /\bConsole\.Write(Line)?\(/,
      /\bvar \w+ = /,
      /\basync Task\b|\bawait\b/,
      /\bstring\b|\bforeach \(/,
    ],
  },
  {
    name: 'ruby',
    aliases: ['rb'],
    interpreters: ['ruby'],
    hints: [
      /^\s*def \w+[?!]?(\(.*\))?\s*$/m,
      /^\s*end\s*$/m,
      /^\s*require(_relative)? ['"]/m,
      /\battr_(accessor|reader|writer)\b/,
      /\bdo \|.*\|/,
      /^\s*(class|module) [A-Z]\w*( < [\w:]+)?\s*$/m,
      /\bputs\b/,
      /@\w+/,
      /\.each\b|\.map \{/,
    ],
  },
  {
    name: 'php',
    aliases: [],
    interpreters: ['php'],
    hints: [/<\?php/, /\$\w+\s*=/, /\$this->/, /\bfunction \w+\(.*\$\w+/, /\becho\b/, /^\s*namespace [\w\\]+;/m, /^\s*use [\w\\]+;/m, /\bpublic function\b/],
  },
  {
    name: 'bash',
    aliases: ['sh', 'shell', 'zsh', 'ksh'],
    interpreters: ['bash', 'sh', 'zsh', 'ksh', 'dash'],
    hints: [
      /^\s*(if|while) \[\[? .*\]\]?;? ?(then|do)?/m,
      /^\s*(fi|done|esac)\s*$/m,
      /\$\{?\w+\}?/,
      /\$\(/,
      /^\s*echo /m,
      /^\s*(export|local) \w+=/m,
      /^\s*\w+\(\)\s*\{/m,
      /\|\| exit|set -e/,
    ],
  },
  {
    name: 'kotlin',
    aliases: ['kt', 'kts'],
    hints: [
      /^\s*(private |override |suspend |inline )*fun (<.*> )?\w+/m,
      /^\s*(val|var) \w+(: [\w<>?]+)? =/m,
      /\bdata class\b|\bsealed class\b|\bcompanion object\b/,
      /\bprintln\(/,
      /^package [\w.]+\s*$/m,
      /\?:|!!|\?\./,
      /\bwhen \(/,
      /^import [\w.]+\s*$/m,
    ],
  },
  {
    name: 'swift',
    aliases: [],
    hints: [
      /^\s*import (Foundation|UIKit|SwiftUI)\s*$/m,
      /^\s*(public |private |static |mutating )*func \w+/m,
      /^\s*(let|var) \w+(: [\w<>?\[\]]+)? =/m,
      /\bguard let\b|\bif let\b/,
      /^\s*(struct|protocol|extension) \w+/m,
      /\bprint\(/,
      /-> \w+/,
      /\bself\.\w+/,
    ],
  },
  {
    name: 'scala',
    aliases: ['sc'],
    hints: [
      /^\s*(case )?class \w+(\[.*\])?\(/m,
      /^\s*object \w+/m,
      /^\s*def \w+(\[.*\])?(\(.*\))?(: [\w\[\]]+)? =/m,
      /^\s*val \w+(: [\w\[\]]+)? =/m,
      /\bextends App\b|\bimport scala\./,
      /\bprintln\(/,
      /=>/,
      /^\s*trait \w+/m,
    ],
  },
  {
    name: 'lua',
    aliases: [],
    interpreters: ['lua', 'luajit'],
    hints: [/^\s*local \w+( = |,)/m, /^\s*(local )?function [\w.:]+\(/m, /^\s*end\s*$/m, /\bthen\s*$/m, /^\s*--/m, /~=/, /\.\./, /\brequire\(?["']/],
  },
  { name: 'css', aliases: [], hints: [/^\s*[.#]?[\w-]+(\s*[,>+~]\s*[.#]?[\w-]+)*\s*\{\s*$/m, /^\s*[\w-]+: [^;]+;\s*$/m, /@media\b|@import\b/] },
  {
    name: 'dart',
    aliases: [],
    hints: [/^import '(package|dart):/m, /\bvoid main\(\)/, /\bfinal \w+ = /, /@override\b/, /\bWidget build\(/, /\b\w+ get \w+ =>/],
  },
  { name: 'elisp', aliases: ['emacs-lisp', 'el'], hints: [/^\(def(un|var|custom|macro) /m, /^;;;? /m, /\(setq /, /\(require '/] },
  {
    name: 'elixir',
    aliases: ['ex', 'exs'],
    interpreters: ['elixir'],
    hints: [/^\s*defmodule [\w.]+ do\s*$/m, /^\s*defp? \w+.* do\s*$/m, /\|>/, /^\s*end\s*$/m, /:ok\b|:error\b/],
  },
  { name: 'embedded_template', aliases: ['erb', 'ejs'], hints: [/<%=?[^%]*%>/] },
  { name: 'html', aliases: ['htm', 'xhtml'], hints: [/<!DOCTYPE html>/i, /<\/(div|p|span|body|head|html)>/, /<(div|p|a|span|ul|li)( [\w-]+="[^"]*")*>/] },
  { name: 'json', aliases: [], hints: [/^\s*[{[]\s*$/m, /^\s*"[\w-]+": /m] },
  {
    name: 'objc',
    aliases: ['objective-c', 'objectivec', 'm'],
    hints: [/^#import [<"]/m, /@interface\b|@implementation\b|@end\b/, /\[\w+ \w+(:\w+)?\]/, /NSString\b|@"/],
  },
  { name: 'ocaml', aliases: ['ml'], hints: [/^\s*let (rec )?\w+.* =/m, /\bmatch .* with\b/, /^\s*\| \w+.*->/m, /;;/, /\bmodule \w+ = struct\b/] },
  { name: 'rescript', aliases: ['res'], hints: [/^\s*let \w+ = \(.*\) =>/m, /->/, /\bswitch \w+ \{/, /@react\.component/] },
  {
    name: 'solidity',
    aliases: ['sol'],
    hints: [/^pragma solidity\b/m, /^\s*contract \w+/m, /\bmsg\.sender\b/, /\bfunction \w+\(.*\) (public|external|internal|private)/],
  },
  { name: 'systemrdl', aliases: ['rdl'], hints: [/^\s*addrmap \w+ \{/m, /^\s*(reg|field|regfile) \{/m, /\bsw ?= ?(rw|r|w);/] },
  { name: 'tlaplus', aliases: ['tla', 'tla+'], hints: [/^-{4,} MODULE \w+ -{4,}/m, /^={4,}\s*$/m, /\\\/|\/\\/, /\bEXTENDS\b|\bVARIABLES?\b/] },
  { name: 'toml', aliases: [], hints: [/^\[[\w.-]+\]\s*$/m, /^\[\[[\w.-]+\]\]\s*$/m, /^[\w-]+ = ("|\d|\[|true|false)/m] },
  { name: 'vue', aliases: [], hints: [/^<template>/m, /^<script( setup)?( lang="ts")?>/m, /^<style( scoped)?>/m, /\bv-(if|for|model)=/] },
  { name: 'zig', aliases: [], hints: [/@import\("std"\)/, /^\s*(pub )?fn \w+\(.*\) !?\w+/m, /\bconst \w+ = struct\b/, /\btry \w+/, /\bcomptime\b/] },
];

/** Grammars tree-sitter-wasms ships that web-tree-sitter 0.25.10 fails to load (checked by code.test.ts). */
export const UNLOADABLE: Readonly<Record<string, string>> = {
  elm: 'loading fails with a memory access out of bounds; its scanner also needs C++ runtime symbols',
  ql: 'loading fails with a memory access out of bounds',
  yaml: 'its scanner needs C++ runtime symbols (operator new/delete) the runtime does not provide',
};

export const DEFAULT_LANGUAGE = 'python';
export const AUTO = 'auto';

const byKey = new Map<string, LanguageSpec>();
for (const spec of LANGUAGES) for (const key of [spec.name, ...spec.aliases]) byKey.set(normalize(key), spec);

/** The canonical language for a name or alias (case-insensitive; '-' and '_' are alike), if any. */
export function findLanguage(input: string): LanguageSpec | undefined {
  return byKey.get(normalize(input));
}

/** Every accepted spelling, canonical names first: what the 400 for an unknown language lists. */
export function languageNames(): string[] {
  return [...LANGUAGES.map((l) => l.name), AUTO];
}

export function allKeys(): string[] {
  return [...byKey.keys(), AUTO];
}

function normalize(name: string): string {
  return name.trim().toLowerCase().replace(/-/g, '_');
}
