// Goldens for every code point: what HF tokenizers' components answer for each character, so the
// test suite can check embedpe on all 1,112,061 of them (tests/unicode_test.py).
//
// HF tokenizers takes its Unicode answers from several tables of several ages (tokenizers 0.22's
// Cargo.lock): unicode_categories 0.1.1 (Unicode 8.0: Punctuation, BertPreTokenizer, BertNormalizer's
// clean_text and strip_accents), unicode-normalization-alignments 0.1.12 (Unicode 9.0: NFC/NFD/NFKC/
// NFKD, StripAccents), Rust's std (char::is_numeric, is_whitespace, to_lowercase) and the regex crate
// (\w in Whitespace), of the Rust release it was built with. Each probe below is a tokenizer.json
// that makes one such answer visible in the ids of the line "a" + c + "a":
//   - split probes: WordPiece over {[UNK], a, aa}: a character the pre-tokenizer splits off gives
//     [a, [UNK], a], one it removes [aa], one it keeps inside the word [UNK];
//   - map probes: byte-level BPE without merges: the ids are the normalized line's bytes.
//   - regex probes: the split probes with the byte-level models' regex pre-tokenizers.
// Reference: HF tokenizers 0.22.2's Rust core (@anush008/tokenizers@0.6.0), run here; see
// tools/make_tokenizer_json_goldens.mjs for its setup.
// Run (from the repository root): node tools/make_unicode_goldens.mjs [probe-regex]
// Output, tests/golden/unicode/: <probe>.tokenizer.json, and <probe>.tsv.xz: the lines
// "first<TAB>last<TAB>ids" for the code points whose ids are not the probe's default (split probes:
// [UNK] alone; map probes: the line's own bytes), consecutive code points with the same ids as one
// range. Code points 0 (NUL), 10 and 13 (line ends) and the surrogates are not probed.

import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const NODE_MODULES = process.env.NPM_GOLDENS_MODULES || '/tmp/npm-goldens/node_modules';
const { Tokenizer } = require(require.resolve('@anush008/tokenizers', { paths: [NODE_MODULES] }));
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const OUT = path.join(ROOT, 'tests/golden/unicode');

const base = (o) => ({ version: '1.0', truncation: null, padding: null, added_tokens: [], normalizer: null, pre_tokenizer: null,
  post_processor: null, decoder: null, ...o });
const wordpiece = { type: 'WordPiece', unk_token: '[UNK]', continuing_subword_prefix: '##', max_input_chars_per_word: 100,
  vocab: { '[UNK]': 0, a: 1, aa: 2 } };
// GPT-2's byte-level alphabet: byte b is the token of id b.
const byteChar = (() => {
  const keep = [];
  for (let b = 0x21; b <= 0x7E; ++b) keep.push(b);
  for (let b = 0xA1; b <= 0xAC; ++b) keep.push(b);
  for (let b = 0xAE; b <= 0xFF; ++b) keep.push(b);
  const map = new Map();
  let n = 0;
  for (let b = 0; b < 256; ++b) map.set(b, String.fromCodePoint(keep.includes(b) ? b : 256 + n++));
  return map;
})();
const bytesVocab = Object.fromEntries([...byteChar].map(([b, ch]) => [ch, b]));
const byteLevel = (normalizer) => base({ normalizer,
  pre_tokenizer: { type: 'ByteLevel', add_prefix_space: false, trim_offsets: false, use_regex: false },
  model: { type: 'BPE', dropout: null, unk_token: null, continuing_subword_prefix: null, end_of_word_suffix: null, fuse_unk: false,
    byte_fallback: false, ignore_merges: false, vocab: bytesVocab, merges: [] } });
const bert = (o) => ({ type: 'BertNormalizer', clean_text: false, handle_chinese_chars: false, strip_accents: false, lowercase: false, ...o });

export const PROBES = {
  split_punctuation: base({ pre_tokenizer: { type: 'Punctuation', behavior: 'Isolated' }, model: wordpiece }),
  split_bert_pre_tokenizer: base({ pre_tokenizer: { type: 'BertPreTokenizer' }, model: wordpiece }),
  split_whitespace: base({ pre_tokenizer: { type: 'Whitespace' }, model: wordpiece }),
  split_whitespace_split: base({ pre_tokenizer: { type: 'WhitespaceSplit' }, model: wordpiece }),
  split_digits: base({ pre_tokenizer: { type: 'Digits', individual_digits: true }, model: wordpiece }),
  split_bert_clean_text: base({ normalizer: bert({ clean_text: true }), pre_tokenizer: { type: 'WhitespaceSplit' }, model: wordpiece }),
  split_bert_chinese: base({ normalizer: bert({ handle_chinese_chars: true }), pre_tokenizer: { type: 'WhitespaceSplit' }, model: wordpiece }),
  split_bert_strip_accents: base({ normalizer: bert({ strip_accents: true }), pre_tokenizer: { type: 'WhitespaceSplit' }, model: wordpiece }),
  split_strip_accents: base({ normalizer: { type: 'StripAccents' }, pre_tokenizer: { type: 'WhitespaceSplit' }, model: wordpiece }),
  map_lowercase: byteLevel({ type: 'Lowercase' }),
  map_nfc: byteLevel({ type: 'NFC' }),
  map_nfd: byteLevel({ type: 'NFD' }),
  map_nfkc: byteLevel({ type: 'NFKC' }),
  map_nfkd: byteLevel({ type: 'NFKD' }),
  map_strip_accents: byteLevel({ type: 'StripAccents' }),
};
// The regex pre-tokenizers of the byte-level models (Oniguruma's \p{L}, \p{N}, \s, ... and
// embedpe's hand-written paths for these patterns), as the fixtures of
// tools/make_tokenizer_json_goldens_cases.mjs have them (ByteLevel leaves "a" as it is).
for (const [name, fixture] of Object.entries({ regex_gpt2: 'fx_bl_gpt2_small', regex_llama3: 'fx_bl_llama3_style',
  regex_qwen2: 'fx_bl_qwen2_style', regex_deepseek_v3: 'fx_bl_deepseek_style', regex_o200k: 'fx_bl_o200k_style' })) {
  const tj = JSON.parse(fs.readFileSync(path.join(ROOT, 'tests/golden/tokenizer_json', fixture, 'tokenizer.json'), 'utf8'));
  PROBES[`split_${name}`] = base({ pre_tokenizer: tj.pre_tokenizer, model: wordpiece });
}

export function codePoints() {
  const cps = [];
  for (let cp = 1; cp < 0x110000; ++cp) if (cp !== 10 && cp !== 13 && !(cp >= 0xD800 && cp <= 0xDFFF)) cps.push(cp);
  return cps;
}
const defaultIds = (name, cp) =>
  name.startsWith('split_') ? '0' : [...Buffer.from('a' + String.fromCodePoint(cp) + 'a', 'utf8')].join(' ');

async function main() {
  const only = process.argv[2] ? new RegExp(process.argv[2]) : null;
  const cps = codePoints();
  fs.mkdirSync(OUT, { recursive: true });
  for (const [name, tj] of Object.entries(PROBES)) {
    if (only && !only.test(name)) continue;
    const file = path.join(OUT, `${name}.tokenizer.json`);
    fs.writeFileSync(file, JSON.stringify(tj, null, 1) + '\n');
    const tok = Tokenizer.fromFile(file);
    const rows = [];
    for (let i = 0; i < cps.length; i += 20000) {
      const batch = cps.slice(i, i + 20000);
      const enc = await tok.encodeBatch(batch.map((cp) => 'a' + String.fromCodePoint(cp) + 'a'), { addSpecialTokens: false });
      enc.forEach((e, k) => {
        const cp = batch[k];
        const ids = Array.from(e.getIds()).join(' ');
        if (ids === defaultIds(name, cp)) return;
        const last = rows[rows.length - 1];
        if (last && last.last === cp - 1 && last.ids === ids) last.last = cp;
        else rows.push({ first: cp, last: cp, ids });
      });
    }
    const tsv = rows.map((r) => `${r.first.toString(16)}\t${r.last.toString(16)}\t${r.ids}`).join('\n') + '\n';
    fs.writeFileSync(path.join(OUT, `${name}.tsv.xz`), execFileSync('xz', ['-9e', '-c'], { input: tsv, maxBuffer: 1 << 28 }));
    console.log(`${name}: ${rows.length} ranges not the default`);
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
