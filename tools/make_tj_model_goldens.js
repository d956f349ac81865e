#!/usr/bin/env node
// Goldens for tokenizer.json's models alone (lib/src/text/tj_model.h): the ids
// HF tokenizers 0.22.2's Rust core gives for one pre-token, run for real.
//
// The core is the Node add-on @anush008/tokenizers@0.6.0 (tokenizers 0.22.2,
// serde_json 1.0.149), installed outside the tree:
//
//   mkdir -p /tmp/npm-models && (cd /tmp/npm-models && npm install @anush008/tokenizers@0.6.0)
//   NODE_PATH=/tmp/npm-models/node_modules node tools/make_tj_model_goldens.js [CORPORA_DIR] [OUT_DIR]
//   (defaults: ../shared/corpora, tests/golden/tj_models)
//
// It writes, for each case, CASE.tokenizer.json (a tokenizer.json whose
// normalizer, pre-tokenizer, post-processor and decoder are null and that has
// no added tokens, so that the core's encode(word) is its model's tokenize(word))
// and CASE.words.jsonl ({"word": ..., "ids": [...]} or {"word": ..., "error": ...}
// per line); for the vocabularies with holes also CASE.ids.jsonl
// ({"vocab_size": the core's getVocabSize(false)} then {"id": k, "token": its
// idToToken(k) or null} for every k up to two past the largest id). The models are:
//   - trained by the core itself on two public-domain novels of the corpora
//     (botchan.txt, wagahaiwa_nekodearu.txt) with its default trainers
//     (WordPiece, Unigram, byte-level BPE), then cut to a few thousand tokens
//     so that the files stay small (still models the core loads and runs);
//   - small hand-written BPE and Unigram models for each option and corner
//     (continuing_subword_prefix, end_of_word_suffix, fuse_unk, byte_fallback
//     with missing bytes, no unk_token, "#version" and repeated merges,
//     several merges giving one token, ties, ignore_merges);
//   - vocabularies whose ids leave holes (GPT-4o's do: the core keeps them,
//     an id no token has maps to nothing), in order and out of order, BPE and
//     WordPiece, and a token given twice (serde keeps its last id, the
//     earlier one is a hole).
// And bad_models.jsonl: {"name", "model" (JSON text), "field", "hf"} for
// model sections we refuse: "hf" is what the core says of the same section
// ("refuses: <its message>" or "accepts" where we are stricter on purpose).
//
// The test suite (tests/test_tj_model.cpp) reads only what this writes.
'use strict';
const fs = require('fs');
const path = require('path');
const tk = require('@anush008/tokenizers');

const CORPORA = process.argv[2] || path.join(__dirname, '..', '..', 'shared', 'corpora');
const OUT = process.argv[3] || path.join(__dirname, '..', 'tests', 'golden', 'tj_models');
fs.mkdirSync(OUT, { recursive: true });

const bare = (model) => ({
  version: '1.0', truncation: null, padding: null, added_tokens: [], normalizer: null,
  pre_tokenizer: null, post_processor: null, decoder: null, model,
});

// GPT-2's bytes_to_unicode.
const byteLevel = (() => {
  const bs = [];
  for (let b = 33; b <= 126; ++b) bs.push(b);
  for (let b = 161; b <= 172; ++b) bs.push(b);
  for (let b = 174; b <= 255; ++b) bs.push(b);
  const cs = bs.slice();
  let n = 0;
  for (let b = 0; b < 256; ++b) if (!bs.includes(b)) { bs.push(b); cs.push(256 + n++); }
  const map = new Array(256);
  bs.forEach((b, i) => { map[b] = String.fromCodePoint(cs[i]); });
  return (s) => Array.from(Buffer.from(s, 'utf8')).map((b) => map[b]).join('');
})();

// Distinct words of the corpora, in order of first appearance.
function corpusWords(kind) {
  const re = kind === 'bytelevel'
    ? /'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}{1,3}| ?[^\s\p{L}\p{N}]+|\s+/gu
    : /\p{L}+|\p{N}+|[^\s\p{L}\p{N}]/gu;
  const seen = new Set();
  const out = [];
  for (const f of ['botchan.txt', 'wagahaiwa_nekodearu.txt']) {
    const text = fs.readFileSync(path.join(CORPORA, f), 'utf8');
    for (const m of text.matchAll(re)) {
      let w = m[0];
      if (/[\r\n]/.test(w)) continue;
      if (kind === 'bytelevel') w = byteLevel(w);
      else if (kind === 'metaspace') w = '\u2581' + w;
      if (!seen.has(w)) { seen.add(w); out.push(w); }
    }
  }
  return out;
}

// Every k-th word up to `count`, then the hard ones.
function sample(words, count, extra) {
  const k = Math.max(1, Math.floor(words.length / count));
  const out = words.filter((_, i) => i % k === 0).slice(0, count);
  return out.concat(extra);
}

const hardWords = [
  'a'.repeat(3000), 'ab'.repeat(700), 'の'.repeat(500), 'é', 'e\u0301', '👩\u200d👩\u200d👧', 'שלום', '𠀋𠀋',
  '\u0000', '\t', 'abc\u00e9\u3042xyz', 'x'.repeat(101), 'x'.repeat(100), '12345678', 'ＡＢＣ',
];

async function idsOf(model, words) {
  const tok = tk.Tokenizer.fromString(JSON.stringify(bare(model)));
  const out = [];
  for (const w of words) {
    try {
      const e = await tok.encode(w, null, { addSpecialTokens: false });
      out.push({ word: w, ids: e.getIds() });
    } catch (err) {
      out.push({ word: w, error: String(err.message || err) });
    }
  }
  return out;
}

// The core's id -> token map and vocab size (for the vocabularies with holes).
function idLines(model) {
  const tok = tk.Tokenizer.fromString(JSON.stringify(bare(model)));
  const max = Math.max(...Object.values(model.vocab));
  const lines = [{ vocab_size: tok.getVocabSize(false) }];
  for (let id = 0; id <= max + 2; ++id) lines.push({ id, token: tok.idToToken(id) });
  return lines.map((r) => JSON.stringify(r)).join('\n') + '\n';
}

async function writeCase(name, model, words, withIds) {
  const records = await idsOf(model, words);
  if (withIds) fs.writeFileSync(path.join(OUT, `${name}.ids.jsonl`), idLines(model));
  fs.writeFileSync(path.join(OUT, `${name}.tokenizer.json`), JSON.stringify(bare(model)) + '\n');
  fs.writeFileSync(path.join(OUT, `${name}.words.jsonl`), records.map((r) => JSON.stringify(r)).join('\n') + '\n');
  console.log(`${name}: ${Object.keys(model.vocab).length} tokens, ${records.length} words`);
}

function train(model, preTokenizer) {
  const tok = new tk.Tokenizer(model);
  tok.setPreTokenizer(preTokenizer);
  tok.train(['botchan.txt', 'wagahaiwa_nekodearu.txt'].map((f) => path.join(CORPORA, f)));
  const tmp = path.join(OUT, '.trained.json');
  tok.save(tmp, false);
  const json = JSON.parse(fs.readFileSync(tmp, 'utf8'));
  fs.unlinkSync(tmp);
  return json.model;
}

// A BPE vocabulary from characters and merges (each merge's result added).
function bpe(options, chars, merges, legacy) {
  const vocab = {};
  const add = (t) => { if (!(t in vocab)) vocab[t] = Object.keys(vocab).length; };
  chars.forEach(add);
  const prefix = options.continuing_subword_prefix || '';
  for (const [a, b] of merges) add(a + b.slice(prefix.length));
  return {
    type: 'BPE', dropout: null, unk_token: null, continuing_subword_prefix: null, end_of_word_suffix: null,
    fuse_unk: false, byte_fallback: false, ignore_merges: false, ...options,
    vocab, merges: legacy ? merges.map((m) => (typeof m === 'string' ? m : m.join(' '))) : merges,
  };
}

async function main() {
  // Trained models, cut small.
  {
    const wp = train(tk.WordPiece.empty(), tk.whitespacePreTokenizer());
    const kept = Object.entries(wp.vocab).filter(([, id]) => id < 3000).sort((x, y) => x[1] - y[1]);
    wp.vocab = Object.fromEntries(kept.map(([t], i) => [t, i]));
    wp.vocab['[UNK]'] = kept.length;
    await writeCase('wordpiece_trained', wp, sample(corpusWords('plain'), 1500, hardWords));
    // No "type" (bert-base-uncased's tokenizer.json): the core tries BPE, WordPiece, WordLevel, Unigram.
    const { type: _wpType, ...untyped } = wp;
    await writeCase('wordpiece_untyped', untyped, sample(corpusWords('plain'), 200, hardWords));
  }
  {
    const uni = train(tk.Unigram.empty(), tk.metaspacePreTokenizer());
    uni.vocab = uni.vocab.slice(0, 3000);
    if (uni.unk_id === null || uni.unk_id >= 3000) {
      uni.vocab.push(['<unk>', 0.0]);
      uni.unk_id = uni.vocab.length - 1;
    }
    const words = sample(corpusWords('metaspace'), 1500, hardWords);
    await writeCase('unigram_trained', uni, words);
    // byte_fallback, with the bytes 0x80-0x9F missing (a run of unknowns then stays <unk>).
    const bf = JSON.parse(JSON.stringify(uni));
    for (let b = 0; b < 256; ++b) if (b < 0x80 || b > 0x9f) bf.vocab.push([`<0x${b.toString(16).toUpperCase().padStart(2, '0')}>`, -20 - b / 16]);
    bf.byte_fallback = true;
    await writeCase('unigram_byte_fallback', bf, words);
  }
  {
    const b = train(tk.BPE.empty(), tk.byteLevelPreTokenizer(false, true));
    // The first 2500 merges, the alphabet, and what they make, renumbered in id order.
    const merges = b.merges.slice(0, 2500);
    const keep = new Set(Object.entries(b.vocab).filter(([, id]) => id < 256 + 5).map(([t]) => t));
    for (const [x, y] of merges) { keep.add(x); keep.add(y); keep.add(x + y); }
    const kept = Object.entries(b.vocab).filter(([t]) => keep.has(t)).sort((p, q) => p[1] - q[1]);
    b.vocab = Object.fromEntries(kept.map(([t], i) => [t, i]));
    b.merges = merges;
    const words = sample(corpusWords('bytelevel'), 1500, hardWords.map(byteLevel));
    await writeCase('bpe_bytelevel_trained', b, words);
    await writeCase('bpe_bytelevel_ignore_merges', { ...b, ignore_merges: true }, words);
    await writeCase('bpe_bytelevel_legacy_merges', { ...b, merges: ['#version: 0.2', ...merges.map((m) => m.join(' '))] }, words);
  }

  // Hand-written BPE corners.
  const abc = ['a', 'b', 'c', 'd', 'x'];
  const small = ['a', 'ab', 'abc', 'abcd', 'abab', 'ba', 'dcba', 'aaaa', 'aaaaa', 'abxab', 'yab', 'zz', 'ayyb', 'é', 'aéb', 'aあb',
    'あéa', 'éあé', 'あいう', 'x\u0000x', 'a'.repeat(2000), 'ab'.repeat(500)];
  await writeCase('bpe_ties', bpe({}, abc, [['b', 'c'], ['a', 'b'], ['a', 'bc'], ['ab', 'c'], ['a', 'a'], ['aa', 'aa'], ['ab', 'ab'], ['c', 'd'], ['abc', 'd']]), small);
  await writeCase('bpe_repeated_merge', bpe({}, abc, [['a', 'b'], ['b', 'a'], ['c', 'd'], ['a', 'b'], ['ab', 'cd']], true), small);
  await writeCase('bpe_unk_fused', bpe({ unk_token: '<unk>', fuse_unk: true }, ['<unk>', ...abc], [['a', 'b'], ['<unk>', 'a']]), small);
  await writeCase('bpe_unk_not_fused', bpe({ unk_token: '<unk>', fuse_unk: false }, ['<unk>', ...abc], [['a', 'b'], ['<unk>', '<unk>']]), small);
  await writeCase('bpe_no_unk', bpe({}, abc, [['a', 'b']]), small);
  await writeCase('bpe_unk_not_in_vocab', bpe({ unk_token: '<unk>' }, abc, [['a', 'b']]), small);
  {
    // byte_fallback with 0xE3 missing: あ (E3 81 82) has no bytes, so it is <unk>.
    const bytes = [];
    for (let b = 0; b < 256; ++b) if (b !== 0xe3) bytes.push(`<0x${b.toString(16).toUpperCase().padStart(2, '0')}>`);
    await writeCase('bpe_byte_fallback', bpe({ unk_token: '<unk>', fuse_unk: true, byte_fallback: true }, ['<unk>', ...bytes, ...abc],
      [['a', 'b'], ['<0xC3>', '<0xA9>']]), small);
    await writeCase('bpe_byte_fallback_no_unk', bpe({ byte_fallback: true }, [...bytes, ...abc], [['a', 'b']]), small);
  }
  {
    const p = '##';
    const chars = ['a', 'b', 'c', 'x', '##a', '##b', '##c', 'a</w>', 'b</w>', '##a</w>', '##b</w>', '##c</w>', '<unk>'];
    const merges = [['a', '##b'], ['##b', '##c'], ['ab', '##c</w>'], ['a', '##bc'], ['##a', '##b</w>'], ['ab', '##ab</w>']];
    const m = bpe({ continuing_subword_prefix: p, end_of_word_suffix: '</w>', unk_token: '<unk>' }, chars, merges);
    for (const t of ['abc</w>', 'abab</w>']) if (!(t in m.vocab)) m.vocab[t] = Object.keys(m.vocab).length;
    await writeCase('bpe_prefix_suffix', m, ['a', 'ab', 'abc', 'abab', 'cab', 'bca', 'xyz', 'ba', 'é', 'abcabc']);
  }
  {
    const { type: _bpeType, ...untyped } = bpe({}, abc, [['a', 'b'], ['ab', 'c']]);
    await writeCase('bpe_untyped', untyped, small);
  }
  await writeCase('bpe_ignore_merges', bpe({ ignore_merges: true }, [...abc, 'dcb'], [['a', 'b'], ['ab', 'c']]), small.concat(['dcb', 'dcbdcb']));
  await writeCase('bpe_dropout_zero', bpe({ dropout: 0.0 }, abc, [['a', 'b']]), small);
  {
    // Holes: ids increasing with gaps (as GPT-4o's), then the same out of order; merges across them.
    const holes = { '<unk>': 0, a: 1, b: 2, c: 5, ab: 7, abc: 9, d: 10, abcd: 14 };
    const merges = [['a', 'b'], ['ab', 'c'], ['abc', 'd']];
    await writeCase('bpe_vocab_holes', { ...bpe({ unk_token: '<unk>' }, [], []), vocab: holes, merges }, small, true);
    const shuffled = Object.fromEntries(Object.entries(holes).reverse());
    await writeCase('bpe_vocab_holes_unordered', { ...bpe({ unk_token: '<unk>' }, [], []), vocab: shuffled, merges }, small, true);
    await writeCase('wordpiece_vocab_holes', { type: 'WordPiece', unk_token: '[UNK]', continuing_subword_prefix: '##',
      max_input_chars_per_word: 100, vocab: { a: 0, b: 2, '##b': 5, '##c': 6, ab: 11, '[UNK]': 12 } },
    ['a', 'b', 'ab', 'abb', 'abc', 'bc', 'c', 'x', 'é'], true);
  }

  // Hand-written Unigram corners.
  const uniSmall = ['ab', 'abc', 'abab', 'ba', 'a', 'c', 'xyz', 'aéb', 'ééé', 'a'.repeat(2000), 'éa'.repeat(300)];
  await writeCase('unigram_ties', { type: 'Unigram', unk_id: 0, byte_fallback: false,
    vocab: [['<unk>', 0], ['a', -1], ['b', -1], ['ab', -2], ['c', -1.5], ['bc', -2.5], ['abc', -3.5], ['ba', -2]] }, uniSmall);
  await writeCase('unigram_duplicates', { type: 'Unigram', unk_id: 0, byte_fallback: false,
    vocab: [['<unk>', 0], ['a', -1], ['b', -1], ['ab', -3], ['ab', -1.5], ['c', -2], ['a', -0.5]] }, uniSmall);
  await writeCase('unigram_no_unk', { type: 'Unigram', unk_id: null, byte_fallback: false,
    vocab: [['a', -1], ['b', -1], ['ab', -1.5], ['c', -2]] }, uniSmall);
  await writeCase('unigram_serde_floats', { type: 'Unigram', unk_id: 0, byte_fallback: false,
    vocab: [['<unk>', 0], ['a', -16.427407879097371], ['b', -18.429199866759897], ['ab', -34.85660774585727],
      ['c', 1e-320], ['abc', -34.856607745857270000000001], ['bc', -18.429199866759897]] }, uniSmall);

  // Bad model sections: the field we name, and what the core says.
  const tiny = () => bpe({ unk_token: '<unk>' }, ['<unk>', 'a', 'b'], [['a', 'b']]);
  const bad = [
    ['vocab_duplicate_id', 'model.vocab', (m) => { m.vocab.ab = 1; }],
    ['vocab_negative_id', 'model.vocab', (m) => { m.vocab.ab = -1; }],
    ['vocab_id_beyond_int32', 'model.vocab', (m) => { m.vocab.ab = 2147483648; }],
    ['vocab_id_beyond_u32', 'model.vocab', (m) => { m.vocab.ab = 4294967296; }],
    ['vocab_id_fraction', 'model.vocab', (m) => { m.vocab.ab = 1.5; }],
    ['vocab_not_object', 'model.vocab', (m) => { m.vocab = [['a', 0]]; }],
    ['merge_token_not_in_vocab', 'model.merges[0]', (m) => { m.merges = [['a', 'q']]; }],
    ['merge_result_not_in_vocab', 'model.merges[1]', (m) => { m.merges = [['a', 'b'], ['b', 'a']]; }],
    ['merge_legacy_three_parts', 'model.merges[0]', (m) => { m.merges = ['a b c']; }],
    ['merges_mixed_forms', 'model.merges[1]', (m) => { m.merges = [['a', 'b'], 'a b']; }],
    ['merge_pair_of_three', 'model.merges[0]', (m) => { m.merges = [['a', 'b', 'c']]; }],
    ['merges_missing', 'model', (m) => { delete m.merges; }],
    ['vocab_missing', 'model', (m) => { delete m.vocab; }],
    ['dropout_half', 'model.dropout', (m) => { m.dropout = 0.5; }],
    ['dropout_two', 'model.dropout', (m) => { m.dropout = 2; }],
    ['unk_token_number', 'model.unk_token', (m) => { m.unk_token = 5; }],
    ['fuse_unk_string', 'model.fuse_unk', (m) => { m.fuse_unk = 'yes'; }],
    ['byte_fallback_number', 'model.byte_fallback', (m) => { m.byte_fallback = 1; }],
    ['prefix_longer_than_token', 'model.merges[0]', (m) => { m.continuing_subword_prefix = '###'; m.merges = [['a', 'b']]; }],
    ['type_wordlevel', 'model.type', (m) => { m.type = 'WordLevel'; m.unk_token = '<unk>'; }],
    ['type_unknown', 'model.type', (m) => { m.type = 'Bigram'; }],
    ['wordpiece_no_unk_token', 'model', () => ({ type: 'WordPiece', continuing_subword_prefix: '##', max_input_chars_per_word: 100, vocab: { a: 0 } })],
    ['wordpiece_unk_token_null', 'model.unk_token', () => ({ type: 'WordPiece', unk_token: null, continuing_subword_prefix: '##', max_input_chars_per_word: 100, vocab: { a: 0 } })],
    ['wordpiece_max_chars_negative', 'model.max_input_chars_per_word', () => ({ type: 'WordPiece', unk_token: 'a', continuing_subword_prefix: '##', max_input_chars_per_word: -1, vocab: { a: 0 } })],
    ['unigram_unk_id_beyond', 'model.unk_id', () => ({ type: 'Unigram', unk_id: 5, vocab: [['a', -1]], byte_fallback: false })],
    ['unigram_unk_id_negative', 'model.unk_id', () => ({ type: 'Unigram', unk_id: -1, vocab: [['a', -1]], byte_fallback: false })],
    ['unigram_entry_single', 'model.vocab[1]', () => ({ type: 'Unigram', unk_id: 0, vocab: [['a', -1], ['b']], byte_fallback: false })],
    ['unigram_score_string', 'model.vocab[0]', () => ({ type: 'Unigram', unk_id: 0, vocab: [['a', 'x']], byte_fallback: false })],
    ['unigram_score_huge', 'model.vocab[0]', () => ({ type: 'Unigram', unk_id: 0, vocab: [['a', '@1e400']], byte_fallback: false })],
    ['unigram_byte_fallback_null', 'model.byte_fallback', () => ({ type: 'Unigram', unk_id: 0, vocab: [['a', -1]], byte_fallback: null })],
    ['unigram_vocab_missing', 'model', () => ({ type: 'Unigram', unk_id: 0 })],
  ];
  const lines = [];
  for (const [name, field, change] of bad) {
    let model = tiny();
    const replaced = change(model);
    if (replaced) model = replaced;
    // A raw number the JSON writer cannot spell: '@1e400' stands for 1e400.
    const text = JSON.stringify(model).replace('"@1e400"', '1e400');
    let hf;
    if (name === 'prefix_longer_than_token') {
      // Not run: the core panics and aborts the process (model.rs:186,
      // "byte index 3 is out of bounds of `b`").
      hf = 'panics';
    } else {
      try {
        tk.Tokenizer.fromString(JSON.stringify(bare('@MODEL@')).replace('"@MODEL@"', text));
        hf = 'accepts';
      } catch (err) {
        hf = 'refuses: ' + String(err.message || err);
      }
    }
    lines.push(JSON.stringify({ name, model: text, field, hf }));
  }
  // Texts that are not a model object at all (malformed JSON), as the core reads them.
  for (const [name, text, field] of [
    ['truncated', '{"type": "BPE", "vocab": {"a": 0', 'malformed JSON'],
    ['duplicate_key', '{"type": "BPE", "vocab": {"a": 0}, "vocab": {"a": 0}, "merges": []}', 'model.vocab'],
    ['trailing_comma', '{"type": "BPE", "vocab": {"a": 0,}, "merges": []}', 'malformed JSON'],
    ['lone_surrogate', '{"type": "BPE", "vocab": {"\\ud800": 0}, "merges": []}', 'malformed JSON'],
    ['no_type_no_model', '{"vocab": 5}', 'model'],
  ]) {
    let hf;
    try {
      tk.Tokenizer.fromString(JSON.stringify(bare('@MODEL@')).replace('"@MODEL@"', text));
      hf = 'accepts';
    } catch (err) {
      hf = 'refuses: ' + String(err.message || err);
    }
    lines.push(JSON.stringify({ name, model: text, field, hf }));
  }
  fs.writeFileSync(path.join(OUT, 'bad_models.jsonl'), lines.join('\n') + '\n');
  // A token given twice: serde's map keeps the last id (as text: JSON.stringify cannot write it).
  for (const [name, vocab] of [['bpe_duplicate_token', '{"a": 0, "b": 1, "a": 2, "ab": 3, "b": 5}'],
    ['bpe_duplicate_token_unordered', '{"ab": 3, "a": 2, "b": 1, "a": 0, "b": 5}']]) {
    const text = JSON.stringify(bare('@MODEL@')).replace('"@MODEL@"',
      `{"type": "BPE", "dropout": null, "unk_token": null, "vocab": ${vocab}, "merges": [["a", "b"]]}`);
    const tok = tk.Tokenizer.fromString(text);
    const words = [];
    for (const w of ['a', 'b', 'ab', 'aab', 'ba']) words.push({ word: w, ids: (await tok.encode(w, null, { addSpecialTokens: false })).getIds() });
    const ids = [{ vocab_size: tok.getVocabSize(false) }];
    for (let id = 0; id <= 7; ++id) ids.push({ id, token: tok.idToToken(id) });
    fs.writeFileSync(path.join(OUT, `${name}.tokenizer.json`), text + '\n');
    fs.writeFileSync(path.join(OUT, `${name}.words.jsonl`), words.map((r) => JSON.stringify(r)).join('\n') + '\n');
    fs.writeFileSync(path.join(OUT, `${name}.ids.jsonl`), ids.map((r) => JSON.stringify(r)).join('\n') + '\n');
    console.log(`${name}: ${words.length} words`);
  }
  console.log(`bad_models: ${lines.length}`);
}

main().catch((e) => { console.error(e); process.exit(1); });
