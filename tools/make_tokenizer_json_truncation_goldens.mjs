// Truncation goldens (longest_first; pairs, and single texts), beside tools/make_tokenizer_json_goldens.mjs's: for a few
// cases, HF tokenizers 0.22.2's Rust core (@anush008/tokenizers@0.6.0) with
// setTruncation(max_length, { strategy: 'LongestFirst', direction }) on pairs of lengths that make
// every branch of tokenizers/src/utils/truncation.rs truncate_encodings run (the shorter whole, both
// halved, odd and even budgets, the longer first or second, a tie), with special tokens.
// Run (from the repository root): node tools/make_tokenizer_json_truncation_goldens.mjs
// Output: tests/golden/tokenizer_json/<case>/truncation.jsonl, one line per encoding:
//   {"text", "pair", "max_length", "direction", "ids", "type_ids"}

import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const NODE_MODULES = process.env.NPM_GOLDENS_MODULES || '/tmp/npm-goldens/node_modules';
const { Tokenizer } = require(require.resolve('@anush008/tokenizers', { paths: [NODE_MODULES] }));
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const GOLDENS = path.join(ROOT, 'tests/golden/tokenizer_json');

// Committed tokenizer.json files only (the test suite must find them): byte-level with and without
// a template, WordPiece with [CLS]/[SEP], a LLaMA-style BOS template, RoBERTa's.
const CASES = ['fx_bl_gpt2_small', 'fx_wp_bert_uncased', 'fx_bpe_llama2_style', 'fx_bl_roberta', 'fx_post_template_multi'];
const WORDS = 'one two three four five six seven eight nine ten eleven twelve'.split(' ');
const words = (n, from = 0) => WORDS.slice(from, from + n).join(' ');
const PAIRS = [[1, 8], [8, 1], [3, 3], [5, 6], [6, 5], [2, 9], [9, 9], [12, 4], [4, 12], [0, 5]]
  .map(([a, b]) => [words(a), words(b, 3)]);
// Single texts too, and max_length from 1: at and below the template's size the core cuts the
// texts to nothing (max_length equal to the template: the template alone) or, below it, returns
// the template longer than max_length (max_length - n_added_tokens wraps in a release build).
const SINGLES = [[words(0), null], [words(1), null], [words(7), null]];

for (const name of CASES) {
  const tok = Tokenizer.fromFile(path.join(GOLDENS, name, 'tokenizer.json'));
  tok.disablePadding();
  const lines = [];
  for (const direction of ['right', 'left']) {
    for (let max = 1; max <= 17; ++max) {
      tok.setTruncation(max, { strategy: 'LongestFirst', direction });
      for (const [text, pair] of [...PAIRS, ...SINGLES]) {
        const e = await tok.encode(text, pair, { addSpecialTokens: true });
        lines.push(JSON.stringify({ text, pair, max_length: max, direction, ids: Array.from(e.getIds()), type_ids: Array.from(e.getTypeIds()) }));
      }
    }
  }
  fs.writeFileSync(path.join(GOLDENS, name, 'truncation.jsonl'), lines.join('\n') + '\n');
  console.log(`${name}: ${lines.length} records`);
}
