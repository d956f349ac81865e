// The cases of tools/make_tokenizer_json_goldens.mjs (read that file first).
//
// kind 'real':    a real tokenizer.json from an @lenml/tokenizer-* package; `commit` says how it is
//                 kept: 'plain' (tokenizer.json), 'xz' (tokenizer.json.xz, files over 4 MiB), or
//                 'no' (licence: not committed; source.json names the file and its sha256 and the
//                 tests report SKIPPED when /tmp/npm-goldens/node_modules does not have it).
// kind 'fixture': a tokenizer.json written here for what the real files do not cover. Vocabularies
//                 are small: GPT-2's own first merges (MIT), or trained by the core's own default
//                 trainers (BpeTrainer, WordPieceTrainer, UnigramTrainer through Tokenizer.train)
//                 on public-domain corpus lines. The core loads each file as written and computes
//                 every expected output.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { TRANSFORMERS } from './make_tokenizer_json_goldens_transformers.mjs';

const NODE_MODULES = process.env.NPM_GOLDENS_MODULES || '/tmp/npm-goldens/node_modules';
const lenml = (pkg, file = 'tokenizer.json') => path.join(NODE_MODULES, '@lenml', pkg, 'models', file);
const require = createRequire(import.meta.url);

// ---------------------------------------------------------------------------------------------
// Text subsets: fixtures that test one component skip the 10 KB runs (they would only repeat
// what the real-model cases already cover and would make the goldens large).
const noLong = (T) => T.filter((t) => t.group !== 'long');
// Fixtures of a model keep the runs of one character, cut to 2 KB (the real-model cases have 10 KB).
const shortLong = (T) => T.map((t) => (t.group === 'long' ? { ...t, text: [...t.text].slice(0, 2048).join('') } : t));
const shortOnly = (T) => T.filter((t) => t.group !== 'long' && t.text.length <= 400);

// ---------------------------------------------------------------------------------------------
// Vocabularies.
let gpt2Cache = null;
// GPT-2's byte-level vocabulary cut to its 256 byte symbols and its first `k` merges (ids stay
// GPT-2's own: in GPT-2's vocab.json merge i produces id 256 + i).
function gpt2Small(k = 2000) {
  if (!gpt2Cache) gpt2Cache = JSON.parse(fs.readFileSync(lenml('tokenizer-gpt2'), 'utf8'));
  const vocab = {};
  for (const [tok, id] of Object.entries(gpt2Cache.model.vocab)) if (id < 256 + k) vocab[tok] = id;
  const merges = gpt2Cache.model.merges.slice(0, k).filter((m) => {
    const [a, b] = m.split(' ');
    return a in vocab && b in vocab && (a + b) in vocab;
  });
  return { vocab, merges, size: 256 + k };
}

const trained = {};
function trainingFile(size = '') {
  const C = process.env.CORPORA_DIR || '/work/shared/corpora';
  const lines = (f, a, b) => fs.readFileSync(path.join(C, f), 'utf8').replace(/^\uFEFF/, '').split(/\r?\n/).slice(a, b);
  const file = path.join(os.tmpdir(), `tj_goldens_train${size}.txt`);
  fs.writeFileSync(file, (size === 'tiny'
    ? [...lines('botchan.txt', 100, 140), ...lines('tatoeba-zh.txt', 0, 40)]
    : size === 'small' ? [...lines('botchan.txt', 100, 220), ...lines('tatoeba-zh.txt', 0, 120), ...lines('wagahaiwa_nekodearu.txt', 0, 8)]
    : [...lines('botchan.txt', 100, 400), ...lines('tatoeba-zh.txt', 0, 300), ...lines('wagahaiwa_nekodearu.txt', 0, 30)]).join('\n'));
  return file;
}
// Trains a model with the core's default trainer of that model type and returns its JSON. The
// core's WordPiece and Unigram trainers do not give the same vocabulary from run to run (hash-map
// order breaks ties between equal counts), so a training's result is kept in
// tests/golden/tokenizer_json/trained/KIND.json and reused: delete that file to train again.
const TRAINED_DIR = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../tests/golden/tokenizer_json/trained');
function trainModel(kind, HF) {
  if (trained[kind]) return trained[kind];
  const keep = path.join(TRAINED_DIR, `${kind}.json`);
  if (fs.existsSync(keep)) return (trained[kind] = JSON.parse(fs.readFileSync(keep, 'utf8')));
  const { Tokenizer } = HF;
  let t;
  if (kind === 'wordpiece') {
    t = new Tokenizer(HF.WordPiece.empty());
    t.setNormalizer(HF.bertNormalizer({}));
    t.setPreTokenizer(HF.bertPreTokenizer());
  } else if (kind === 'unigram') {
    t = new Tokenizer(HF.Unigram.empty());
    t.setPreTokenizer(HF.metaspacePreTokenizer());
  } else if (kind === 'bpe_spm' || kind === 'bpe_spm_tiny') {
    t = new Tokenizer(HF.BPE.empty());
    t.setPreTokenizer(HF.metaspacePreTokenizer());
  } else throw new Error(kind);
  t.train([trainingFile(kind === 'bpe_spm' ? 'small' : kind === 'bpe_spm_tiny' ? 'tiny' : '')]);
  const out = path.join(os.tmpdir(), `tj_goldens_trained_${kind}.json`);
  t.save(out, false);
  trained[kind] = JSON.parse(fs.readFileSync(out, 'utf8')).model;
  fs.mkdirSync(TRAINED_DIR, { recursive: true });
  fs.writeFileSync(keep, JSON.stringify(trained[kind]));
  return trained[kind];
}

const added = (id, content, o = {}) => ({
  id, content, single_word: !!o.single_word, lstrip: !!o.lstrip, rstrip: !!o.rstrip,
  normalized: !!o.normalized, special: o.special !== false,
});

// WordPiece vocabulary trained by WordPieceTrainer, BERT's five specials first (ids 0..4).
function wordpieceModel(HF, opts = {}) {
  const m = trainModel('wordpiece', HF);
  const vocab = { '[PAD]': 0, '[UNK]': 1, '[CLS]': 2, '[SEP]': 3, '[MASK]': 4 };
  for (const [tok, id] of Object.entries(m.vocab)) vocab[tok] = id + 5;
  return { type: 'WordPiece', unk_token: '[UNK]', continuing_subword_prefix: '##', max_input_chars_per_word: opts.max ?? 100, vocab };
}
const bertSpecials = () => ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]'].map((c, i) => added(i, c));

// Unigram pieces trained by UnigramTrainer; <unk> first; with byte_fallback, <0x00>..<0xFF> too.
function unigramModel(HF, byteFallback) {
  const m = trainModel('unigram', HF);
  const vocab = [['<unk>', 0.0], ['<s>', 0.0], ['</s>', 0.0]];
  if (byteFallback) for (let b = 0; b < 256; b++) vocab.push([`<0x${b.toString(16).toUpperCase().padStart(2, '0')}>`, 0.0]);
  for (const [p, s] of m.vocab) vocab.push([p, s]);
  return { type: 'Unigram', unk_id: 0, vocab, byte_fallback: byteFallback };
}

// BPE trained by BpeTrainer over Metaspace words, laid out as LLaMA-2's file is: <unk> <s> </s>,
// the 256 byte tokens, then the trained vocabulary.
function bpeSpmModel(HF, byteFallback, kind = 'bpe_spm') {
  const m = trainModel(kind, HF);
  const vocab = { '<unk>': 0, '<s>': 1, '</s>': 2 };
  let next = 3;
  if (byteFallback) for (let b = 0; b < 256; b++) vocab[`<0x${b.toString(16).toUpperCase().padStart(2, '0')}>`] = next++;
  const ordered = Object.entries(m.vocab).sort((a, b) => a[1] - b[1]);
  for (const [tok] of ordered) if (!(tok in vocab)) vocab[tok] = next++;
  return {
    type: 'BPE', dropout: null, unk_token: '<unk>', continuing_subword_prefix: null, end_of_word_suffix: null,
    fuse_unk: true, byte_fallback: byteFallback, ignore_merges: false, vocab, merges: m.merges,
  };
}
const spmSpecials = () => [added(0, '<unk>'), added(1, '<s>'), added(2, '</s>')];

function gpt2Model(k, o = {}) {
  const g = gpt2Small(k);
  return {
    type: 'BPE', dropout: null, unk_token: null, continuing_subword_prefix: null, end_of_word_suffix: null,
    fuse_unk: false, byte_fallback: false, ignore_merges: !!o.ignore_merges, vocab: g.vocab, merges: g.merges,
  };
}

const tj = (o) => ({
  version: '1.0', truncation: null, padding: null, added_tokens: [], normalizer: null, pre_tokenizer: null,
  post_processor: null, decoder: null, ...o,
});
// BertTokenizerFast's tokenizer.json over the trained WordPiece vocabulary: BertNormalizer
// (lowercasing; `normalizer` overrides its settings), BertPreTokenizer, BertProcessing, the
// WordPiece decoder.
const bertFile = (HF, normalizer = {}) => tj({
  added_tokens: bertSpecials(),
  normalizer: { type: 'BertNormalizer', clean_text: true, handle_chinese_chars: true, strip_accents: null, lowercase: true, ...normalizer },
  pre_tokenizer: { type: 'BertPreTokenizer' },
  post_processor: { type: 'BertProcessing', sep: ['[SEP]', 3], cls: ['[CLS]', 2] },
  decoder: { type: 'WordPiece', prefix: '##', cleanup: true },
  model: wordpieceModel(HF),
});
const byteLevel = (addPrefix = false, useRegex = true, trim = true) => ({ type: 'ByteLevel', add_prefix_space: addPrefix, trim_offsets: trim, use_regex: useRegex });
const split = (regex, behavior = 'Isolated', invert = false) => ({ type: 'Split', pattern: { Regex: regex }, behavior, invert });
const splitStr = (s, behavior = 'Isolated', invert = false) => ({ type: 'Split', pattern: { String: s }, behavior, invert });
const seqPre = (...p) => ({ type: 'Sequence', pretokenizers: p });
const seqNorm = (...n) => ({ type: 'Sequence', normalizers: n });
const seqDec = (...d) => ({ type: 'Sequence', decoders: d });
const tmplSpecial = (id, type_id = 0) => ({ SpecialToken: { id, type_id } });
const tmplSeq = (id, type_id = 0) => ({ Sequence: { id, type_id } });
const specialMap = (pairs) => Object.fromEntries(pairs.map(([tok, id]) => [tok, { id: tok, ids: [id], tokens: [tok] }]));

// The pre-tokenizer regexes of the real families (configuration, not vocabulary).
export const REGEX = {
  gpt2: "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+",
  llama3: "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+",
  qwen2: "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+",
  o200k: "[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]*[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?|[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]+[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n/]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+",
  // Mistral-Nemo's Tekken, as llama.cpp's src/llama-vocab.cpp (c392e509) quotes it ("original regex
  // from tokenizer.json", LLAMA_VOCAB_PRE_TYPE_TEKKEN); no real Tekken file was found to commit.
  tekken: "[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]*[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]+|[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]+[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]*|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n/]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+",
  deepseek_digits: '\\p{N}{1,3}',
  deepseek_cjk: '[\u4e00-\u9fa5\u3040-\u309f\u30a0-\u30ff]+',
  deepseek_main: "[!\"#$%&'()*+,\\-./:;<=>?@\\[\\\\\\]^_`{|}~][A-Za-z]+|[^\r\n\\p{L}\\p{P}\\p{S}]?[\\p{L}\\p{M}]+| ?[\\p{P}\\p{S}]+[\r\n]*|\\s*[\r\n]+|\\s+(?!\\S)|\\s+",
};

// Byte-level fixture on GPT-2's first 2000 merges, with the given pipeline pieces.
// Added tokens are written with ids from 50256 (GPT-2's <|endoftext|>) and renumbered here to follow
// the cut vocabulary without a hole: tokenizers 0.22.2 ignores an added token's `id` when its
// content is not in the model's vocabulary and gives it the next free id instead (serialization.rs
// warns "Token '...' was expected to have ID '...' but was given ID '...'"), while the
// post-processors keep the ids they name; real files never have such holes.
function renumberAdded(t, base) {
  const re = (id) => (id >= 50256 ? base + id - 50256 : id);
  for (const a of t.added_tokens) a.id = re(a.id);
  const post = (p) => {
    if (!p) return;
    if (p.type === 'Sequence') p.processors.forEach(post);
    if (p.special_tokens) for (const v of Object.values(p.special_tokens)) v.ids = v.ids.map(re);
    if (p.sep) p.sep[1] = re(p.sep[1]);
    if (p.cls) p.cls[1] = re(p.cls[1]);
  };
  post(t.post_processor);
  return t;
}
function bl(o = {}, k = 2000) {
  return renumberAdded(tj({
    added_tokens: o.added_tokens || [added(50256, '<|endoftext|>')],
    normalizer: o.normalizer ?? null,
    pre_tokenizer: o.pre_tokenizer ?? byteLevel(false, true),
    post_processor: o.post_processor ?? null,
    decoder: o.decoder ?? byteLevel(true, true),
    model: gpt2Model(k, o),
  }), 256 + k);
}
// The extra added tokens (ids after GPT-2's 50257) used by the byte-level family fixtures.
const llama3Specials = () => [added(50257, '<|begin_of_text|>'), added(50258, '<|end_of_text|>'),
  added(50259, '<|start_header_id|>'), added(50260, '<|end_header_id|>'), added(50261, '<|eot_id|>')];

// ---------------------------------------------------------------------------------------------
export const CASES = [
  // ---- real files ----
  { name: 'gpt2', kind: 'real', pkg: 'tokenizer-gpt2', commit: 'plain', licence: 'MIT', upstream: 'openai-community/gpt2 (OpenAI GPT-2, modified MIT licence)' },
  { name: 'qwen2_5', kind: 'real', pkg: 'tokenizer-qwen2_5', commit: 'xz', licence: 'Apache-2.0', upstream: 'Qwen/Qwen2.5 (tokenizer shared by the Apache-2.0 sizes)', transformers: TRANSFORMERS.qwen2 },
  { name: 'qwen3', kind: 'real', pkg: 'tokenizer-qwen3', commit: 'xz', licence: 'Apache-2.0', upstream: 'Qwen/Qwen3', transformers: TRANSFORMERS.qwen2 },
  { name: 'deepseek_v3', kind: 'real', pkg: 'tokenizer-deepseek_v3', commit: 'no', licence: 'DeepSeek License Agreement v1.0 (model licence of deepseek-ai/DeepSeek-V3; use-based restrictions): not committed', upstream: 'deepseek-ai/DeepSeek-V3', transformers: TRANSFORMERS.llamaFast },
  { name: 'llama3', kind: 'real', pkg: 'tokenizer-llama3', commit: 'no', licence: 'Meta Llama 3 Community License: not committed', upstream: 'meta-llama/Meta-Llama-3-8B' },
  { name: 'llama3_1', kind: 'real', pkg: 'tokenizer-llama3_1', commit: 'no', licence: 'Llama 3.1 Community License: not committed', upstream: 'meta-llama/Llama-3.1-8B-Instruct' },
  { name: 'llama2', kind: 'real', pkg: 'tokenizer-llama2', commit: 'no', licence: 'Llama 2 Community License: not committed', upstream: 'meta-llama/Llama-2-7b-hf', transformers: TRANSFORMERS.llamaFast },
  { name: 'gemma3', kind: 'real', pkg: 'tokenizer-gemma3', commit: 'no', licence: 'Gemma Terms of Use: not committed', upstream: 'google/gemma-3 (Gemma3 tokenizer)', transformers: TRANSFORMERS.gemmaFast },
  { name: 'gpt4o', kind: 'real', pkg: 'tokenizer-gpt4o', commit: 'no', licence: 'no licence stated for the Xenova/gpt-4o conversion of o200k_base: not committed', upstream: 'Xenova/gpt-4o (o200k_base)' },

  // ---- real model directories from public GitHub repositories (read from their mirrors) ----
  { name: 'bert_base_uncased', kind: 'github', repo: 'Fr4n13Z/PKGN', commit_id: '534bb47e6b5c9f8d7e3e069f8ef4ddbca2db1520',
    dir: 'bert-base-uncased', files: ['tokenizer_config.json', 'config.json'],
    upstream: 'google-bert/bert-base-uncased (hub copy: its tokenizer.json, tokenizer_config.json, config.json, vocab.txt)',
    licence: 'Apache-2.0 (bert-base-uncased); repository MIT' },
  { name: 'all_minilm_l6_v2_st', kind: 'github', repo: 'msi1427/Leadbook-ML-Challenge', commit_id: 'd4b218eddc9aa37edb39bf50b5048e57e14384a7',
    dir: 'models/all-MiniLM-L6-v2', files: ['tokenizer_config.json', 'special_tokens_map.json', 'config.json', 'sentence_bert_config.json', 'modules.json'],
    upstream: 'sentence-transformers/all-MiniLM-L6-v2 fine-tuned and re-saved by sentence-transformers (transformers 4.12.5): the file has its own truncation (256, no direction key) and padding (BatchLongest)',
    licence: 'Apache-2.0 (all-MiniLM-L6-v2); repository has no licence file' },

  // ---- byte-level BPE fixtures (GPT-2's first merges) ----
  { name: 'fx_bl_gpt2_small', kind: 'fixture', texts: noLong, build: () => bl({ post_processor: byteLevel(true, true, false) }) },
  { name: 'fx_bl_llama3_style', kind: 'fixture', texts: noLong, build: () => bl({
    ignore_merges: true,
    added_tokens: [added(50256, '<|endoftext|>'), ...llama3Specials()],
    pre_tokenizer: seqPre(split(REGEX.llama3), byteLevel(false, false)),
    post_processor: { type: 'Sequence', processors: [byteLevel(true, true, false), {
      type: 'TemplateProcessing',
      single: [tmplSpecial('<|begin_of_text|>'), tmplSeq('A')],
      pair: [tmplSpecial('<|begin_of_text|>'), tmplSeq('A'), tmplSpecial('<|begin_of_text|>', 1), tmplSeq('B', 1)],
      special_tokens: specialMap([['<|begin_of_text|>', 50257]]),
    }] },
  }) },
  { name: 'fx_bl_qwen2_style', kind: 'fixture', texts: noLong, build: () => bl({
    normalizer: { type: 'NFC' },
    added_tokens: [added(50256, '<|endoftext|>'), added(50257, '<|im_start|>'), added(50258, '<|im_end|>'),
      added(50259, '<think>', { special: false }), added(50260, '</think>', { special: false })],
    pre_tokenizer: seqPre(split(REGEX.qwen2), byteLevel(false, false)),
    post_processor: byteLevel(false, false, false),
    decoder: byteLevel(false, false, false),
  }) },
  { name: 'fx_bl_deepseek_style', kind: 'fixture', texts: noLong, build: () => bl({
    normalizer: seqNorm(),
    added_tokens: [added(50256, '<|endoftext|>'), added(50257, '<｜begin▁of▁sentence｜>'), added(50258, '<｜end▁of▁sentence｜>'),
      added(50259, '<think>', { special: false }), added(50260, '</think>', { special: false })],
    pre_tokenizer: seqPre(split(REGEX.deepseek_digits), split(REGEX.deepseek_cjk), split(REGEX.deepseek_main), byteLevel(false, false)),
    post_processor: byteLevel(true, true, false),
  }) },
  { name: 'fx_bl_o200k_style', kind: 'fixture', texts: noLong, build: () => bl({
    pre_tokenizer: seqPre(split(REGEX.o200k, 'Removed', true), byteLevel(false, false)),
  }) },
  { name: 'fx_bl_tekken_style', kind: 'fixture', texts: noLong, build: () => bl({
    ignore_merges: true,
    added_tokens: [added(50256, '<|endoftext|>'), added(50257, '<s>'), added(50258, '</s>'), added(50259, '[INST]'), added(50260, '[/INST]')],
    pre_tokenizer: seqPre(split(REGEX.tekken), byteLevel(false, false)),
    post_processor: { type: 'TemplateProcessing', single: [tmplSpecial('<s>'), tmplSeq('A')],
      pair: [tmplSpecial('<s>'), tmplSeq('A'), tmplSeq('B', 1)], special_tokens: specialMap([['<s>', 50257]]) },
  }) },
  { name: 'fx_bl_roberta', kind: 'fixture', texts: noLong, build: () => bl({
    added_tokens: [added(50256, '<|endoftext|>'), added(50257, '<s>'), added(50258, '<pad>'), added(50259, '</s>'),
      added(50260, '<unk>'), added(50261, '<mask>', { lstrip: true })],
    pre_tokenizer: byteLevel(true, true),
    post_processor: { type: 'RobertaProcessing', sep: ['</s>', 50259], cls: ['<s>', 50257], trim_offsets: true, add_prefix_space: true },
    decoder: byteLevel(true, true),
  }) },
  { name: 'fx_bl_noregex_prefix', kind: 'fixture', texts: noLong, build: () => bl({ pre_tokenizer: byteLevel(true, false) }) },

  // ---- WordPiece fixtures (WordPieceTrainer) ----
  { name: 'fx_wp_bert_uncased', kind: 'fixture', texts: shortLong, build: ({ HF }) => tj({
    added_tokens: bertSpecials(),
    normalizer: { type: 'BertNormalizer', clean_text: true, handle_chinese_chars: true, strip_accents: null, lowercase: true },
    pre_tokenizer: { type: 'BertPreTokenizer' },
    post_processor: { type: 'BertProcessing', sep: ['[SEP]', 3], cls: ['[CLS]', 2] },
    decoder: { type: 'WordPiece', prefix: '##', cleanup: true },
    model: wordpieceModel(HF),
  }) },
  { name: 'fx_wp_sbert_cased', kind: 'fixture', texts: noLong, build: ({ HF }) => tj({
    // sentence-transformers style: the file's own truncation and padding (a plain call ignores them).
    truncation: { direction: 'Right', max_length: 16, strategy: 'LongestFirst', stride: 0 },
    padding: { strategy: { Fixed: 16 }, direction: 'Right', pad_to_multiple_of: null, pad_id: 0, pad_type_id: 0, pad_token: '[PAD]' },
    added_tokens: bertSpecials(),
    normalizer: { type: 'BertNormalizer', clean_text: true, handle_chinese_chars: true, strip_accents: null, lowercase: false },
    pre_tokenizer: { type: 'BertPreTokenizer' },
    post_processor: {
      type: 'TemplateProcessing',
      single: [tmplSpecial('[CLS]'), tmplSeq('A'), tmplSpecial('[SEP]')],
      pair: [tmplSpecial('[CLS]'), tmplSeq('A'), tmplSpecial('[SEP]'), tmplSeq('B', 1), tmplSpecial('[SEP]', 1)],
      special_tokens: specialMap([['[CLS]', 2], ['[SEP]', 3]]),
    },
    decoder: { type: 'WordPiece', prefix: '##', cleanup: false },
    model: wordpieceModel(HF),
  }) },
  { name: 'fx_wp_strip_accents_nochinese', kind: 'fixture', texts: noLong, build: ({ HF }) => tj({
    added_tokens: bertSpecials(),
    normalizer: { type: 'BertNormalizer', clean_text: false, handle_chinese_chars: false, strip_accents: true, lowercase: false },
    pre_tokenizer: { type: 'BertPreTokenizer' },
    post_processor: { type: 'BertProcessing', sep: ['[SEP]', 3], cls: ['[CLS]', 2] },
    decoder: { type: 'WordPiece', prefix: '##', cleanup: true },
    model: wordpieceModel(HF),
  }) },
  { name: 'fx_wp_max_chars', kind: 'fixture', texts: shortLong, build: ({ HF }) => tj({
    added_tokens: bertSpecials(),
    normalizer: seqNorm({ type: 'NFD' }, { type: 'StripAccents' }, { type: 'Lowercase' }),
    pre_tokenizer: { type: 'WhitespaceSplit' },
    decoder: { type: 'WordPiece', prefix: '##', cleanup: true },
    model: wordpieceModel(HF, { max: 8 }),
  }) },

  // ---- BPE with byte fallback, SentencePiece layout (BpeTrainer) ----
  { name: 'fx_bpe_llama2_style', kind: 'fixture', texts: shortLong, build: ({ HF }) => tj({
    added_tokens: spmSpecials(),
    normalizer: seqNorm({ type: 'Prepend', prepend: '▁' }, { type: 'Replace', pattern: { String: ' ' }, content: '▁' }),
    post_processor: {
      type: 'TemplateProcessing',
      single: [tmplSpecial('<s>'), tmplSeq('A')],
      pair: [tmplSpecial('<s>'), tmplSeq('A'), tmplSpecial('<s>', 1), tmplSeq('B', 1)],
      special_tokens: specialMap([['<s>', 1]]),
    },
    decoder: seqDec({ type: 'Replace', pattern: { String: '▁' }, content: ' ' }, { type: 'ByteFallback' }, { type: 'Fuse' },
      { type: 'Strip', content: ' ', start: 1, stop: 0 }),
    model: bpeSpmModel(HF, true),
  }) },

  // ---- Unigram (UnigramTrainer) ----
  { name: 'fx_uni_metaspace_always', kind: 'fixture', texts: noLong, build: ({ HF }) => tj({
    added_tokens: spmSpecials(),
    pre_tokenizer: { type: 'Metaspace', replacement: '▁', prepend_scheme: 'always', split: true },
    post_processor: {
      type: 'TemplateProcessing',
      single: [tmplSeq('A'), tmplSpecial('</s>')],
      pair: [tmplSeq('A'), tmplSpecial('</s>'), tmplSeq('B'), tmplSpecial('</s>')],
      special_tokens: specialMap([['</s>', 2]]),
    },
    decoder: { type: 'Metaspace', replacement: '▁', prepend_scheme: 'always', split: true },
    model: unigramModel(HF, false),
  }) },
  { name: 'fx_uni_byte_fallback', kind: 'fixture', texts: shortLong, build: ({ HF }) => tj({
    added_tokens: spmSpecials(),
    normalizer: seqNorm({ type: 'NFKC' }, { type: 'Replace', pattern: { Regex: ' {2,}' }, content: ' ' }),
    pre_tokenizer: { type: 'Metaspace', replacement: '▁', prepend_scheme: 'first', split: false },
    decoder: seqDec({ type: 'Metaspace', replacement: '▁', prepend_scheme: 'first', split: false }, { type: 'ByteFallback' }, { type: 'Fuse' }),
    model: unigramModel(HF, true),
  }) },
];

// ---------------------------------------------------------------------------------------------
// T5 as transformers v4.44.2 converts t5-spiece.model (shared/corpora, Apache-2.0) when a directory
// has no tokenizer.json: convert_slow_tokenizer.py SpmConverter.tokenizer (:564-633, Unigram with
// unk_id = trainer_spec.unk_id, control pieces (type 3) added as special tokens, normalized=False),
// SpmConverter.normalizer (:635-644: Precompiled(charsmap), Strip(left=False, right=True),
// Replace(Regex(" {2,}"), "▁")), pre_tokenizer/decoder Metaspace with _get_prepend_scheme (:46-53:
// add_prefix_space True and legacy (T5Tokenizer's default) -> "always"), T5Converter (:1071-1085:
// <extra_id_99>..<extra_id_0> appended to the vocabulary, TemplateProcessing "$A </s>" /
// "$A </s> $B </s>"); then PreTrainedTokenizerFast.__init__ (tokenization_utils_fast.py:180-212)
// adds the special tokens the file lacks (<unk> and the 100 extra ids, which T5Tokenizer declares
// as additional_special_tokens). The SentencePiece proto is read with /usr/bin/python3's
// sentencepiece_model_pb2 (Debian python3-sentencepiece).
import { execFileSync } from 'node:child_process';
function spmProto(file) {
  const py = `
import sys, json, base64
from sentencepiece import sentencepiece_model_pb2 as pb
m = pb.ModelProto(); m.ParseFromString(open(sys.argv[1], 'rb').read())
print(json.dumps({'pieces': [[p.piece, p.score, p.type] for p in m.pieces],
  'model_type': m.trainer_spec.model_type, 'unk_id': m.trainer_spec.unk_id,
  'byte_fallback': m.trainer_spec.byte_fallback,
  'charsmap': base64.b64encode(m.normalizer_spec.precompiled_charsmap).decode()}))`;
  return JSON.parse(execFileSync('/usr/bin/python3', ['-c', py, file], { maxBuffer: 1 << 28 }).toString());
}
function t5Converted() {
  const C = process.env.CORPORA_DIR || '/work/shared/corpora';
  const p = spmProto(path.join(C, 't5-spiece.model'));
  if (p.model_type !== 1) throw new Error('t5-spiece.model is not unigram');
  const vocab = p.pieces.map(([piece, score]) => [piece, score]);
  for (let i = 99; i >= 0; i--) vocab.push([`<extra_id_${i}>`, 0.0]);
  const ids = new Map(vocab.map(([piece], i) => [piece, i]));
  const addedList = [];
  p.pieces.forEach(([piece, , type], i) => { if (type === 3 || type === 4) addedList.push(added(i, piece, { special: type === 3 })); });
  // PreTrainedTokenizerFast: unk_token and the additional special tokens not yet added.
  for (const tok of ['<unk>', ...Array.from({ length: 100 }, (_, i) => `<extra_id_${i}>`)]) {
    if (!addedList.some((a) => a.content === tok)) addedList.push(added(ids.get(tok), tok));
  }
  addedList.sort((a, b) => a.id - b.id);
  return tj({
    added_tokens: addedList,
    normalizer: seqNorm({ type: 'Precompiled', precompiled_charsmap: p.charsmap },
      { type: 'Strip', strip_left: false, strip_right: true },
      { type: 'Replace', pattern: { Regex: ' {2,}' }, content: '▁' }),
    pre_tokenizer: { type: 'Metaspace', replacement: '▁', prepend_scheme: 'always', split: true },
    post_processor: {
      type: 'TemplateProcessing',
      single: [tmplSeq('A'), tmplSpecial('</s>')],
      pair: [tmplSeq('A'), tmplSpecial('</s>'), tmplSeq('B'), tmplSpecial('</s>')],
      special_tokens: specialMap([['</s>', ids.get('</s>')]]),
    },
    decoder: { type: 'Metaspace', replacement: '▁', prepend_scheme: 'always', split: true },
    model: { type: 'Unigram', unk_id: p.unk_id, vocab, byte_fallback: false },
  });
}
CASES.push({ name: 't5_converted', kind: 'fixture', build: () => t5Converted() });

// ---------------------------------------------------------------------------------------------
// Fixtures of one pipeline component each. Texts: the short ones (no corpora lines over 400
// characters, no runs), plus the case's own.
// Component fixtures: two corpus lines of each language (the models' cases have them all).
const componentTexts = (T) => {
  const seen = {};
  return shortOnly(T).filter((t) => !t.corpus || (seen[t.group] = (seen[t.group] || 0) + 1) <= 2);
};
const withTexts = (extra) => (T) => [...componentTexts(T), ...extra.map((x) => (typeof x === 'string' ? { group: 'case', text: x, pair: null } : { group: 'case', pair: null, ...x }))];
const compTexts = withTexts([]);

// Byte-level (GPT-2's first 2000 merges) with `pre` before a regex-free ByteLevel.
const SMALL = 500;  // merges in the component fixtures' vocabulary
const blWith = (pre, o = {}) => () => bl({ pre_tokenizer: pre ? seqPre(pre, byteLevel(false, false)) : byteLevel(false, false), ...o }, SMALL);
const SPLIT_BEHAVIOURS = ['Removed', 'Isolated', 'MergedWithPrevious', 'MergedWithNext', 'Contiguous'];
for (const b of SPLIT_BEHAVIOURS) {
  CASES.push({ name: `fx_pre_split_${b.toLowerCase()}`, kind: 'fixture', texts: withTexts(['a,,b;;c  d,e', ',,,']), build: blWith(split('[,;]| +', b)) });
}
CASES.push({ name: 'fx_pre_split_invert_isolated', kind: 'fixture', texts: withTexts(['a,,b;;c  d,e']), build: blWith(split('\\p{L}+', 'Isolated', true)) });
CASES.push({ name: 'fx_pre_split_invert_removed', kind: 'fixture', texts: withTexts(['a,,b;;c  d,e']), build: blWith(split('\\p{L}+|\\p{N}+', 'Removed', true)) });
CASES.push({ name: 'fx_pre_split_string_merged_next', kind: 'fixture', texts: withTexts(['a--b----c-', '--']), build: blWith(splitStr('--', 'MergedWithNext')) });
CASES.push({ name: 'fx_pre_split_string_contiguous', kind: 'fixture', texts: withTexts(['a--b----c-', '--']), build: blWith(splitStr('-', 'Contiguous')) });
CASES.push({ name: 'fx_pre_digits_individual', kind: 'fixture', texts: compTexts, build: blWith({ type: 'Digits', individual_digits: true }) });
CASES.push({ name: 'fx_pre_digits_grouped', kind: 'fixture', texts: compTexts, build: blWith({ type: 'Digits', individual_digits: false }) });
for (const b of SPLIT_BEHAVIOURS) {
  CASES.push({ name: `fx_pre_punct_${b.toLowerCase()}`, kind: 'fixture', texts: withTexts(['a.b,,c!?¿d «e» f—g…']), build: blWith({ type: 'Punctuation', behavior: b }) });
}
CASES.push({ name: 'fx_pre_whitespace', kind: 'fixture', texts: compTexts, build: blWith({ type: 'Whitespace' }) });
CASES.push({ name: 'fx_pre_whitespace_split', kind: 'fixture', texts: compTexts, build: blWith({ type: 'WhitespaceSplit' }) });
CASES.push({ name: 'fx_pre_bert', kind: 'fixture', texts: compTexts, build: blWith({ type: 'BertPreTokenizer' }) });
CASES.push({ name: 'fx_pre_sequence', kind: 'fixture', texts: compTexts, build: blWith(seqPre({ type: 'WhitespaceSplit' }, { type: 'Digits', individual_digits: true }, { type: 'Punctuation', behavior: 'Isolated' })) });
CASES.push({ name: 'fx_pre_bytelevel_prefix_regex', kind: 'fixture', texts: compTexts, build: () => bl({ pre_tokenizer: byteLevel(true, true) }, SMALL) });
CASES.push({ name: 'fx_pre_bytelevel_noprefix_noregex', kind: 'fixture', texts: compTexts, build: () => bl({ pre_tokenizer: byteLevel(false, false) }, SMALL) });

// Metaspace: every prepend_scheme, split or not, on the BpeTrainer vocabulary with byte fallback.
for (const scheme of ['always', 'first', 'never']) {
  for (const splitOn of [true, false]) {
    CASES.push({ name: `fx_pre_metaspace_${scheme}${splitOn ? '' : '_nosplit'}`, kind: 'fixture', texts: compTexts, build: ({ HF }) => tj({
      added_tokens: spmSpecials(),
      pre_tokenizer: { type: 'Metaspace', replacement: '▁', prepend_scheme: scheme, split: splitOn },
      decoder: seqDec({ type: 'Metaspace', replacement: '▁', prepend_scheme: scheme, split: splitOn }, { type: 'ByteFallback' }, { type: 'Fuse' }),
      model: bpeSpmModel(HF, true, 'bpe_spm_tiny'),
    }) });
  }
}
// prepend_scheme "first" asks NormalizedString::offsets_original().0 == 0 (metaspace.rs): a piece
// gets the prefix when its first normalized byte's alignment starts at original offset 0. A
// normalizer that removes the first characters (Strip, Replace with "", Bert's clean_text, Nmt,
// Precompiled) moves that start; one that inserts (Prepend, Replace, NFKC's ligatures, Lowercase's
// İ) gives the inserted characters the alignment of a neighbour, so a later split can start two
// pieces at offset 0, or none; a non-normalized added token at the start moves the rest off 0.
const FIRST_TEXTS = [' a b', '  a', 'ab cd', 'abab', '\u200bx y', '\u200b\u200b x', '\u0001x y', '\u00adx', '\ufeffx y',
  'ﬁx fy', 'ﬁ', 'x', '-x', '--x', 'e\u0301x', 'İx y', '\u3000x', 'x\u200b y', '<s>x y', ' <s> x', 'xyz', '  xyz', 'xy',
  'xy<s>', '\u2581x', ' \u2581x'];
const msFirst = { type: 'Metaspace', replacement: '▁', prepend_scheme: 'first', split: true };
const FIRST_NORMALIZERS = {
  strip: [{ type: 'Strip', strip_left: true, strip_right: true }, null],
  replace_ab: [{ type: 'Replace', pattern: { String: 'ab' }, content: 'c' }, null],
  replace_a_long: [{ type: 'Replace', pattern: { String: 'a' }, content: 'xyz' }, splitStr('y')],
  replace_delete: [{ type: 'Replace', pattern: { Regex: '[\u200b\u00ad\ufeff]' }, content: '' }, null],
  prepend_punct: [{ type: 'Prepend', prepend: '-' }, { type: 'Punctuation', behavior: 'Isolated' }],
  strip_prepend: [seqNorm({ type: 'Strip', strip_left: true, strip_right: false }, { type: 'Prepend', prepend: '-' }), { type: 'Punctuation', behavior: 'Isolated' }],
  nfkc_split: [{ type: 'NFKC' }, splitStr('f')],
  nfc: [{ type: 'NFC' }, null],
  lowercase_split: [{ type: 'Lowercase' }, splitStr('\u0307')],
  bert_clean: [{ type: 'BertNormalizer', clean_text: true, handle_chinese_chars: true, strip_accents: true, lowercase: true }, null],
  nmt: [{ type: 'Nmt' }, null],
  precompiled_albert: ['albert', splitStr('f')],
};
for (const [name, [norm, pre]] of Object.entries(FIRST_NORMALIZERS)) {
  CASES.push({ name: `fx_pre_metaspace_first_after_${name}`, kind: 'fixture', texts: () => FIRST_TEXTS.map((text) => ({ group: 'case', text, pair: null })), build: ({ HF }) => {
    const model = bpeSpmModel(HF, true, 'bpe_spm_tiny');
    const next = Object.keys(model.vocab).length;
    const C = process.env.CORPORA_DIR || '/work/shared/corpora';
    return tj({
      // <s> as written (not normalized); "xy" a normalized added token.
      added_tokens: [...spmSpecials(), added(next, 'xy', { special: false, normalized: true })],
      normalizer: norm === 'albert' ? { type: 'Precompiled', precompiled_charsmap: spmProto(path.join(C, 'albert-spiece.model')).charsmap } : norm,
      pre_tokenizer: pre ? seqPre(pre, msFirst) : msFirst,
      decoder: seqDec(msFirst, { type: 'ByteFallback' }, { type: 'Fuse' }),
      model,
    });
  } });
}
// A combining sequence straddling the text's start once Prepend or Replace lengthened it: the
// composing and case-mapping normalizers then work on characters aligned with original offset 0
// and with later ones at once, and the prefix goes where HF's alignments say.
const STRADDLE_TEXTS = ['\u0301x', ' \u0301x', 'x\u0301 y', '\u0301 x', '\u0301\u0301', 'x', ' x', '\u0301', 'a\u0301 b',
  '\u1161\u11a8 z', '\u0130x', 'I\u0307 x', '  \u0301 x ', 'x\u0301\u0301 x\u0301', '\u0001\u0301 x', '\u200b\u0301 a'];
const STRADDLE_NORMALIZERS = {
  replace_nfc: [{ type: 'Replace', pattern: { String: ' ' }, content: 'e' }, { type: 'NFC' }],
  replace_long_nfc: [{ type: 'Replace', pattern: { String: 'x' }, content: 'e\u0301' }, { type: 'NFC' }],
  prepend_nfc: [{ type: 'Prepend', prepend: 'e' }, { type: 'NFC' }],
  prepend_hangul_nfc: [{ type: 'Prepend', prepend: '\u1100' }, { type: 'NFC' }],
  prepend_nfkd_strip: [{ type: 'Prepend', prepend: '\u0301' }, { type: 'NFKD' }, { type: 'StripAccents' }],
  prepend_lowercase: [{ type: 'Prepend', prepend: 'I' }, { type: 'Lowercase' }],
  prepend_bert: [{ type: 'Prepend', prepend: '\u0301' }, { type: 'BertNormalizer', clean_text: true, handle_chinese_chars: true, strip_accents: true, lowercase: true }],
  prepend_nmt: [{ type: 'Prepend', prepend: '\u0001' }, { type: 'Nmt' }],
};
// Byte fallback alone (every piece spelled as its bytes, "▁" one token): the ids show the normalized text.
const bytesOnlyModel = () => {
  const vocab = { '<unk>': 0 };
  for (let b = 0; b < 256; ++b) vocab[`<0x${b.toString(16).toUpperCase().padStart(2, '0')}>`] = b + 1;
  vocab['▁'] = 257;
  return { type: 'BPE', dropout: null, unk_token: '<unk>', continuing_subword_prefix: null, end_of_word_suffix: null,
    fuse_unk: false, byte_fallback: true, ignore_merges: false, vocab, merges: [] };
};
for (const [name, norms] of Object.entries(STRADDLE_NORMALIZERS)) {
  for (const splitOn of [true, false]) {
    const ms = { ...msFirst, split: splitOn };
    CASES.push({ name: `fx_pre_metaspace_first_straddle_${name}${splitOn ? '' : '_nosplit'}`, kind: 'fixture',
      texts: () => STRADDLE_TEXTS.map((text) => ({ group: 'case', text, pair: null })), build: () => tj({
        normalizer: seqNorm(...norms), pre_tokenizer: ms, decoder: seqDec(ms, { type: 'ByteFallback' }, { type: 'Fuse' }),
        model: bytesOnlyModel() }) });
  }
}
// ByteFallback reads a token "<0x..>" with u8::from_str_radix(_, 16): lower-case hex and a leading
// '+' are bytes too ("<0x+A>" is 10), "<0x-1>" and "<0xzz>" are not; non-special added tokens
// reach the decoder as any token does.
CASES.push({ name: 'fx_dec_byte_fallback_spellings', kind: 'fixture', texts: withTexts(['<0x+A>', 'a<0xe3>b', '<0xe3>あ', '<0x-1><0xzz><0x+F><0x+>']), build: ({ HF }) => {
  const model = bpeSpmModel(HF, true, 'bpe_spm_tiny');
  const next = Object.keys(model.vocab).length;  // the added tokens' ids follow the vocabulary's
  return tj({
    added_tokens: [...spmSpecials(), ...['<0x+A>', '<0xe3>', '<0x-1>', '<0xzz>', '<0x+F>', '<0x+>']
      .map((t, k) => added(next + k, t, { special: false }))],
    pre_tokenizer: { type: 'Metaspace', replacement: '▁', prepend_scheme: 'first', split: false },
    decoder: seqDec({ type: 'Metaspace', replacement: '▁', prepend_scheme: 'first', split: false }, { type: 'ByteFallback' }, { type: 'Fuse' }),
    model,
  });
} });
// Replace finds no match in an empty text, even with a pattern that matches "" (utils/onig.rs
// find_matches): a text Strip emptied, a token a decoder emptied, stays empty.
CASES.push({ name: 'fx_norm_replace_empty_text', kind: 'fixture', texts: withTexts(['  ', ' a ', '\t']), build: () => bl({
  // '^\\s*$' matches after Strip only in an emptied text (HF panics on '^' itself with some texts).
  normalizer: seqNorm({ type: 'Strip', strip_left: true, strip_right: true }, { type: 'Replace', pattern: { Regex: '^\\s*$' }, content: 'X' }),
  pre_tokenizer: byteLevel(false, false) }, SMALL) });
CASES.push({ name: 'fx_dec_replace_empty_token', kind: 'fixture', texts: withTexts([' a  b ', '  ']), build: () => bl({
  decoder: seqDec({ type: 'Strip', content: 'Ġ', start: 1, stop: 0 }, { type: 'Replace', pattern: { Regex: '^' }, content: 'X' }) }, SMALL) });
// The older serialization (tokenizers < 0.19): add_prefix_space instead of prepend_scheme.
CASES.push({ name: 'fx_pre_metaspace_legacy_add_prefix_space', kind: 'fixture', texts: compTexts, build: ({ HF }) => tj({
  added_tokens: spmSpecials(),
  pre_tokenizer: { type: 'Metaspace', replacement: '▁', add_prefix_space: true },
  decoder: { type: 'Metaspace', replacement: '▁', add_prefix_space: true },
  model: bpeSpmModel(HF, true, 'bpe_spm_tiny'),
}) });

// Normalizers, before GPT-2's regex ByteLevel.
const NORMALIZERS = {
  nfc: { type: 'NFC' }, nfd: { type: 'NFD' }, nfkc: { type: 'NFKC' }, nfkd: { type: 'NFKD' },
  lowercase: { type: 'Lowercase' },
  strip_accents: seqNorm({ type: 'NFD' }, { type: 'StripAccents' }),
  strip_accents_alone: { type: 'StripAccents' },
  strip_both: { type: 'Strip', strip_left: true, strip_right: true },
  strip_left: { type: 'Strip', strip_left: true, strip_right: false },
  replace_string: { type: 'Replace', pattern: { String: 'th' }, content: 'TH!' },
  replace_regex: { type: 'Replace', pattern: { Regex: '\\s+' }, content: ' ' },
  replace_regex_delete: { type: 'Replace', pattern: { Regex: '[aeiou]' }, content: '' },
  prepend: { type: 'Prepend', prepend: '>>' },
  bert_default: { type: 'BertNormalizer', clean_text: true, handle_chinese_chars: true, strip_accents: null, lowercase: true },
  bert_strip_no_lower: { type: 'BertNormalizer', clean_text: true, handle_chinese_chars: false, strip_accents: true, lowercase: false },
  bert_noclean_lower_nostrip: { type: 'BertNormalizer', clean_text: false, handle_chinese_chars: true, strip_accents: false, lowercase: true },
  nmt: { type: 'Nmt' },
  sequence: seqNorm({ type: 'NFKC' }, { type: 'Lowercase' }, { type: 'Replace', pattern: { String: ' ' }, content: '_' }, { type: 'Strip', strip_left: false, strip_right: true }),
};
for (const [n, norm] of Object.entries(NORMALIZERS)) {
  CASES.push({ name: `fx_norm_${n}`, kind: 'fixture', texts: compTexts, build: () => bl({ normalizer: norm }, SMALL) });
}
// Precompiled: T5's real charsmap alone.
CASES.push({ name: 'fx_norm_precompiled_t5', kind: 'fixture', texts: compTexts, build: () => {
  const C = process.env.CORPORA_DIR || '/work/shared/corpora';
  return bl({ normalizer: { type: 'Precompiled', precompiled_charsmap: spmProto(path.join(C, 't5-spiece.model')).charsmap } }, SMALL);
} });
CASES.push({ name: 'fx_norm_precompiled_albert', kind: 'fixture', texts: compTexts, build: () => {
  const C = process.env.CORPORA_DIR || '/work/shared/corpora';
  return bl({ normalizer: { type: 'Precompiled', precompiled_charsmap: spmProto(path.join(C, 'albert-spiece.model')).charsmap } }, SMALL);
} });

// Precompiled's grapheme rule (precompiled.rs: a cluster under 6 bytes looked up whole, first
// key that starts it wins; else char by char): combining sequences, CR LF, fullwidth and
// compatibility characters followed by marks, emoji sequences, Hangul jamo, Prepend and
// SpacingMark clusters, NUL, zero-width characters.
const GRAPHEME_TEXTS = [
  'e\u0301 a\u0301 \uFF21\u0301 \uFF21 \uFF45\u0301 a\u0308\u0301 n\u0303 \u0438\u0306 \u00C5\u030A \u212B',
  'a\r\nb\rc\nd \r\n\r\n \u2122\u0301 \u2122 \uFB01\u0301 \uFB01',
  'x\uFE0F #\uFE0F\u20E3 1\u20E3 \u00A9\uFE0F \u2122\uFE0F \u2764\uFE0F \uFE0Fabc',
  '\u{1F468}\u200D\u{1F469}\u200D\u{1F467} \u{1F44D}\u{1F3FD} \u{1F1EF}\u{1F1F5}\u{1F1FA}\u{1F1F8}\u{1F1EB}',
  '\u1100\u1161\u11A8 \uD55C\uAD6D\uC5B4 \u1100\u1161 \u3131\u314F \uFF76\uFF9E \uFF8A\uFF9F \uFF76',
  '\u0000a\u0000\u0301 a\u200Db \u200B\u200C\u200D \u0600\u0661 a\u0903 \u0915\u094D\u0937\u093F',
  '\uFF28\uFF45\uFF4C\uFF4C\uFF4F\u3000\uFF57\uFF4F\uFF52\uFF4C\uFF44\uFF01 \u00A0\u2028\t \u2460\u2461 \u337B \u3300',
  '\u00BD\u0301 \u00B2\u0301 \u2160\u0301 \u01C4\u030C \u1E9B\u0323 \u0345\u0301 \u0F73\u0F73',
];
// (albert-spiece.model's charsmap is T5's, byte for byte: nmt_nfkc.)
CASES.push({ name: 'fx_norm_precompiled_graphemes', kind: 'fixture', texts: withTexts(GRAPHEME_TEXTS), build: () => {
  const C = process.env.CORPORA_DIR || '/work/shared/corpora';
  return bl({ normalizer: { type: 'Precompiled', precompiled_charsmap: spmProto(path.join(C, 't5-spiece.model')).charsmap } }, SMALL);
} });

// ---------------------------------------------------------------------------------------------
// Added tokens: every flag, overlaps (longest first), a token that is also in the vocabulary,
// normalized ones matched on the lowercased text.
const ADDED_TEXTS = [
  'x<special>y <special> <special><special>',
  'a [lstrip] b   [lstrip]c\t[lstrip]',
  'a [rstrip] b[rstrip]   c [rstrip]\n\nd',
  'word words sword word. (word) word_word wordword 1word word1 語word',
  'HELLO hello HeLLo hello<special>Hello',
  '<a><b> <a> <a><b><c> <a><a><b>',
  'the then there the',
  '<mask> <mask>. a<mask>b',
  '[both]  [both]  x[both]y',
  'ｗｏｒｄ WORD Word',
];
CASES.push({ name: 'fx_added_flags', kind: 'fixture', texts: withTexts(ADDED_TEXTS), build: () => bl({
  normalizer: { type: 'Lowercase' },
  added_tokens: [
    added(50256, '<|endoftext|>'),
    added(50257, '<special>'),
    added(50258, '[lstrip]', { lstrip: true }),
    added(50259, '[rstrip]', { rstrip: true }),
    added(50260, 'word', { single_word: true, special: false }),
    added(50261, 'hello', { normalized: true, special: false }),
    added(50262, '<a>', { special: false }),
    added(50263, '<a><b>', { special: false }),
    added(50264, 'the', { special: false }),
    added(50265, '<mask>', { lstrip: true }),
    added(50266, '[both]', { lstrip: true, rstrip: true }),
    added(50267, 'ｗｏｒｄ', { normalized: true, special: false, single_word: true }),
  ],
}, SMALL) });
// The same flags under a Bert pipeline (normalized special-looking tokens, [MASK] lstrip).
CASES.push({ name: 'fx_added_wordpiece', kind: 'fixture', texts: withTexts(ADDED_TEXTS), build: ({ HF }) => {
  const model = wordpieceModel(HF);
  const n = Object.keys(model.vocab).length;
  return tj({
    added_tokens: [...bertSpecials().map((a) => (a.content === '[MASK]' ? { ...a, lstrip: true } : a)),
      added(n, '<special>'), added(n + 1, 'word', { single_word: true, special: false }),
      added(n + 2, 'hello', { normalized: true, special: false }), added(n + 3, '[rstrip]', { rstrip: true })],
    normalizer: { type: 'BertNormalizer', clean_text: true, handle_chinese_chars: true, strip_accents: null, lowercase: true },
    pre_tokenizer: { type: 'BertPreTokenizer' },
    post_processor: { type: 'BertProcessing', sep: ['[SEP]', 3], cls: ['[CLS]', 2] },
    decoder: { type: 'WordPiece', prefix: '##', cleanup: true },
    model,
  });
} });

// BPE with continuing_subword_prefix and end_of_word_suffix. The core's trainers are not reachable
// with those options through the binding, so the merges are learnt here by plain BPE counting
// over corpus words (any valid merge list will do: the core computes every output).
function learnBpe({ prefix = '', suffix = '', merges: nMerges = 400 }) {
  const C = process.env.CORPORA_DIR || '/work/shared/corpora';
  const text = fs.readFileSync(path.join(C, 'botchan.txt'), 'utf8').split(/\r?\n/).slice(100, 600).join(' ');
  const counts = new Map();
  for (const w of text.split(/[^\p{L}\p{N}]+/u)) if (w) counts.set(w, (counts.get(w) || 0) + 1);
  let words = [...counts].map(([w, c]) => {
    const chars = [...w];
    return [chars.map((ch, i) => (i > 0 ? prefix : '') + ch + (i === chars.length - 1 ? suffix : '')), c];
  });
  const vocab = new Map([['<unk>', 0]]);
  const addTok = (t) => { if (!vocab.has(t)) vocab.set(t, vocab.size); };
  for (const [syms] of words) syms.forEach(addTok);
  const merges = [];
  const strip = (t) => (prefix && t.startsWith(prefix) ? t.slice(prefix.length) : t);
  for (let m = 0; m < nMerges; m++) {
    const pairs = new Map();
    for (const [syms, c] of words) for (let i = 0; i + 1 < syms.length; i++) {
      const k = syms[i] + '\u0000' + syms[i + 1];
      pairs.set(k, (pairs.get(k) || 0) + c);
    }
    let best = null; let bestC = 1;
    for (const [k, c] of pairs) if (c > bestC || (c === bestC && best !== null && k < best)) { best = k; bestC = c; }
    if (!best) break;
    const [a, b] = best.split('\u0000');
    const merged = a + strip(b);
    merges.push([a, b]);
    addTok(merged);
    words = words.map(([syms, c]) => {
      const out = [];
      for (let i = 0; i < syms.length; i++) {
        if (i + 1 < syms.length && syms[i] === a && syms[i + 1] === b) { out.push(merged); i++; } else out.push(syms[i]);
      }
      return [out, c];
    });
  }
  return { vocab: Object.fromEntries(vocab), merges };
}
for (const [name, prefix, suffix, dec] of [
  ['fx_bpe_prefix', '##', '', { type: 'WordPiece', prefix: '##', cleanup: false }],
  ['fx_bpe_suffix', '', '</w>', { type: 'BPEDecoder', suffix: '</w>' }],
  ['fx_bpe_prefix_suffix', '##', '</w>', { type: 'BPEDecoder', suffix: '</w>' }],
]) {
  CASES.push({ name, kind: 'fixture', texts: compTexts, build: () => {
    const { vocab, merges } = learnBpe({ prefix, suffix });
    return tj({
      added_tokens: [added(0, '<unk>')],
      normalizer: { type: 'Lowercase' },
      pre_tokenizer: { type: 'Whitespace' },
      decoder: dec,
      model: { type: 'BPE', dropout: null, unk_token: '<unk>', continuing_subword_prefix: prefix || null,
        end_of_word_suffix: suffix || null, fuse_unk: false, byte_fallback: false, ignore_merges: false, vocab, merges },
    });
  } });
}
// ignore_merges: a vocabulary word that the merges would not build (GPT-2's cut vocabulary plus
// whole words appended at the end), with and without the flag.
for (const ignore of [true, false]) {
  CASES.push({ name: `fx_bpe_ignore_merges_${ignore}`, kind: 'fixture', texts: withTexts(['hello world unbelievable', 'Ġworld xyzzy']), build: () => {
    const t = bl({ ignore_merges: ignore, pre_tokenizer: byteLevel(false, true), added_tokens: [] }, SMALL);
    let next = 256 + SMALL;
    for (const w of ['hello', 'Ġworld', 'Ġunbelievable', 'xyzzy', 'Ġxyzzy', 'ĠWorld']) if (!(w in t.model.vocab)) t.model.vocab[w] = next++;
    t.added_tokens = [added(next, '<|endoftext|>')];
    return t;
  } });
}
// BPE dropout 0.0 is dropout off (HF accepts 0.0 and 1.0; null is the usual spelling).
CASES.push({ name: 'fx_bpe_dropout_zero', kind: 'fixture', texts: compTexts, build: () => { const t = bl({}, SMALL); t.model.dropout = 0.0; return t; } });

// Post-processors and decoders.
CASES.push({ name: 'fx_post_template_multi', kind: 'fixture', texts: compTexts, build: () => bl({
  added_tokens: [added(50256, '<|endoftext|>'), added(50257, '[CLS]'), added(50258, '[SEP]'), added(50259, '[Q]')],
  post_processor: {
    type: 'TemplateProcessing',
    single: [tmplSpecial('[CLS]'), tmplSpecial('[Q]'), tmplSeq('A'), tmplSpecial('[SEP]')],
    pair: [tmplSpecial('[CLS]'), tmplSeq('A'), tmplSpecial('[SEP]'), tmplSeq('B', 1), tmplSpecial('[SEP]', 1), tmplSpecial('[Q]', 2)],
    special_tokens: {
      '[CLS]': { id: '[CLS]', ids: [50257], tokens: ['[CLS]'] },
      '[SEP]': { id: '[SEP]', ids: [50258], tokens: ['[SEP]'] },
      // one template piece that stands for two ids
      '[Q]': { id: '[Q]', ids: [50259, 50256], tokens: ['[Q]', '<|endoftext|>'] },
    },
  },
}, SMALL) });
CASES.push({ name: 'fx_post_sequence_bert_bytelevel', kind: 'fixture', texts: compTexts, build: () => bl({
  added_tokens: [added(50256, '<|endoftext|>'), added(50257, '[CLS]'), added(50258, '[SEP]')],
  post_processor: { type: 'Sequence', processors: [byteLevel(true, true, true), { type: 'BertProcessing', sep: ['[SEP]', 50258], cls: ['[CLS]', 50257] }] },
}, SMALL) });
CASES.push({ name: 'fx_dec_sequence_replace_strip_fuse', kind: 'fixture', texts: compTexts, build: () => bl({
  decoder: seqDec(byteLevel(false, false), { type: 'Replace', pattern: { String: 'e' }, content: 'E' },
    { type: 'Replace', pattern: { Regex: '\\s+' }, content: ' ' }, { type: 'Fuse' }, { type: 'Strip', content: ' ', start: 2, stop: 0 }),
  // No `stop` > 0: tokenizers 0.22.2's Strip decoder panics (the process aborts) on a token of
  // only `content` characters shorter than start + stop (decoders/strip.rs:55 "slice index starts
  // at 1 but ends at 0", e.g. Strip(' ', 1, 1) on " "), and with stop > 0 on an empty token
  // (strip.rs:47 "index out of bounds: the len is 0", e.g. decoding no ids). No golden can exist.
}, SMALL) });

// ---------------------------------------------------------------------------------------------
// Model directories (tokenizer.json + tokenizer_config.json) where transformers v4.44.2 adds
// something on top of the file: the committed counterparts of DeepSeek-V3's directory.
const llamaFastConfig = (bos, eos) => ({
  tokenizer_class: 'LlamaTokenizerFast', add_bos_token: bos, add_eos_token: eos, legacy: true,
  bos_token: '<|begin_of_text|>', eos_token: '<|end_of_text|>', unk_token: null, pad_token: null,
  clean_up_tokenization_spaces: false, model_max_length: 131072,
});
const llamaFastFile = () => bl({ added_tokens: [added(50256, '<|endoftext|>'), ...llama3Specials()],
  pre_tokenizer: seqPre(split(REGEX.llama3), byteLevel(false, false)), post_processor: byteLevel(true, true, false) }, SMALL);
CASES.push({ name: 'fx_dir_llamafast_bos_eos', kind: 'fixture', texts: compTexts,
  extraFiles: { 'tokenizer_config.json': llamaFastConfig(true, true) }, build: llamaFastFile });
// The same file with add_bos_token or add_eos_token false: what `--no-bos` or `--no-eos` on
// fx_dir_llamafast_bos_eos must give (from_pretrained(DIR, add_bos_token=False) changes the
// template as the config's key does).
const LLAMA_FAST_TEXTS = ['Hello world', ' leading space', 'two\nlines', '<|begin_of_text|>inside', 'end<|end_of_text|>', '', '  ', 'ünïcödé 123'];
for (const [name, bos, eos] of [['bos_only', true, false], ['eos_only', false, true]]) {
  CASES.push({ name: `fx_dir_llamafast_${name}`, kind: 'fixture', texts: () => LLAMA_FAST_TEXTS.map((text) => ({ group: 'case', text, pair: null })),
    extraFiles: { 'tokenizer_config.json': llamaFastConfig(bos, eos) }, build: llamaFastFile });
}
CASES.push({ name: 'fx_dir_llamafast_defaults', kind: 'fixture', texts: compTexts,
  // add_bos_token/add_eos_token absent: the class defaults (True, False); unk_token absent: the
  // class default "<unk>", which the file lacks, so transformers adds it as a special token.
  extraFiles: { 'tokenizer_config.json': { tokenizer_class: 'LlamaTokenizerFast', bos_token: '<s>', eos_token: '</s>' } },
  build: () => bl({ added_tokens: [added(50256, '<|endoftext|>'), added(50257, '<s>'), added(50258, '</s>')], post_processor: null }, SMALL) });
CASES.push({ name: 'fx_dir_pad_added_left', kind: 'fixture', texts: compTexts,
  extraFiles: { 'tokenizer_config.json': {
    tokenizer_class: 'PreTrainedTokenizerFast', bos_token: '<|endoftext|>', eos_token: '<|endoftext|>',
    pad_token: '[PAD]', padding_side: 'left', additional_special_tokens: ['<|im_start|>'],
    added_tokens_decoder: { 50258: { content: '<think>', lstrip: false, normalized: false, rstrip: true, single_word: false, special: false } },
  } },
  build: () => bl({ added_tokens: [added(50256, '<|endoftext|>'), added(50257, '<|im_end|>')] }, SMALL) });
CASES.push({ name: 'fx_dir_bert_normalizer_rebuilt', kind: 'fixture', texts: compTexts,
  // tokenizer_config.json says do_lower_case false: BertTokenizerFast rebuilds the file's
  // (lowercasing) BertNormalizer with lowercase=False.
  extraFiles: { 'tokenizer_config.json': { tokenizer_class: 'BertTokenizer', do_lower_case: false, strip_accents: null, tokenize_chinese_chars: true } },
  build: ({ HF }) => bertFile(HF) });
CASES.push({ name: 'fx_dir_special_tokens_map_legacy', kind: 'fixture', texts: compTexts,
  // transformers' legacy branch (R9 in make_tokenizer_json_goldens_transformers.mjs): no
  // added_tokens_decoder, so special_tokens_map.json is read and wins over tokenizer_config.json:
  // bos_token becomes "<s>" (the rebuilt template's), pad_token "<pad>" (lstrip) is added, and its
  // additional_special_tokens ("<|im_end|>", rstrip) are appended to the config's "<|im_start|>".
  extraFiles: {
    'tokenizer_config.json': {
      tokenizer_class: 'LlamaTokenizerFast', bos_token: '<|endoftext|>', eos_token: '</s>', pad_token: null,
      add_eos_token: true, additional_special_tokens: ['<|im_start|>'],
    },
    'special_tokens_map.json': {
      bos_token: { content: '<s>', lstrip: false, normalized: true, rstrip: false, single_word: false },
      pad_token: { content: '<pad>', lstrip: true, normalized: false, rstrip: false, single_word: false },
      unk_token: '<unk>',
      additional_special_tokens: ['<|im_start|>', { content: '<|im_end|>', lstrip: false, normalized: false, rstrip: true, single_word: false }],
    },
  },
  build: () => bl({ added_tokens: [added(50256, '<|endoftext|>'), added(50257, '<s>'), added(50258, '</s>')], post_processor: null }, SMALL) });

// ---- vocabularies whose ids leave holes (GPT-4o's: o200k's 200000 tokens reach id 200018, its two
// special tokens are in the vocabulary past the holes and are the added tokens of the same ids) ----
// HF reads any vocabulary with holes: an id no token has decodes to nothing; an added token whose
// content the vocabulary lacks gets AddedVocabulary::add_tokens' next id (the vocabulary's number of
// tokens on load, then one past the largest added id), whatever id the file writes beside it, and
// that id may be a model token's too (the added token wins in decode). decodeIds: id sequences
// whose decode the core gives (decode.jsonl), holes among them (ids below the largest: embedpe
// refuses an id past every token, as for every model).
function holesModel(o = {}) {
  const m = gpt2Model(SMALL, o);
  const n = 256 + SMALL;
  for (const [tok, id] of Object.entries(o.move || {})) m.vocab[tok] = id;  // a token given another id: a hole where it was
  for (const [tok, id] of Object.entries(o.extra || {})) m.vocab[tok] = id;
  return { m, n };
}
const holesTexts = withTexts(['<|endoftext|>a<|endofprompt|> b <|fim|>c', 'a <|endoftext|><|endoftext|> <|fim|><|fim|>',
  'abc a aa a. <|endofprompt|>', '<|endoftext|']);
CASES.push({ name: 'fx_vocab_holes_o200k_style', kind: 'fixture', texts: holesTexts,
  decodeIds: [[0, 1, 2], [756, 757, 758, 776, 600], [757, 775, 757], [759], [64, 65, 756, 66]],
  build: () => {
    // As GPT-4o's: ids 0..755, a hole at 756, <|endoftext|> 757 and <|endofprompt|> 776 in the
    // vocabulary and added with those ids; <|fim|> (non-special) only added, its file id unused.
    const { m } = holesModel({ extra: { '<|endoftext|>': 757, '<|endofprompt|>': 776 } });
    return tj({
      added_tokens: [added(757, '<|endoftext|>'), added(776, '<|endofprompt|>'), added(5000, '<|fim|>', { special: false })],
      pre_tokenizer: seqPre(split(REGEX.o200k, 'Removed', true), byteLevel(false, false)),
      decoder: byteLevel(true, true), model: m,
    });
  } });
CASES.push({ name: 'fx_vocab_holes_collision', kind: 'fixture', texts: holesTexts,
  decodeIds: [[756, 64], [64], [756], [65, 756, 65]],
  build: () => {
    // "a" (64) moved to 756: 756 tokens, so the added <|fim|> (not in the vocabulary) gets id 756
    // too; "a" still encodes as 756, which decodes as <|fim|> (HF's own answer).
    const { m } = holesModel({ move: { a: 756 } });
    return tj({ added_tokens: [added(9, '<|fim|>'), added(9, '<|endoftext|>', { special: false })],
      pre_tokenizer: byteLevel(false, true), decoder: byteLevel(true, true), model: m });
  } });
CASES.push({ name: 'fx_dir_vocab_holes_next_id', kind: 'fixture', texts: holesTexts,
  // GPT-4o's tokenizer_config.json, with a pad token the file lacks: transformers adds it after the
  // file's tokens, at one past the largest added id (776 + 1), not at the vocabulary's size (758).
  extraFiles: { 'tokenizer_config.json': {
    tokenizer_class: 'GPT2Tokenizer', add_prefix_space: false, bos_token: '<|endoftext|>', eos_token: '<|endoftext|>',
    unk_token: '<|endoftext|>', pad_token: '<pad>', clean_up_tokenization_spaces: false, model_max_length: 128000,
  } },
  build: () => {
    const { m } = holesModel({ extra: { '<|endoftext|>': 757, '<|endofprompt|>': 776 } });
    return tj({ added_tokens: [added(757, '<|endoftext|>'), added(776, '<|endofprompt|>')],
      pre_tokenizer: seqPre(split(REGEX.o200k, 'Removed', true), byteLevel(false, false)),
      decoder: byteLevel(true, true), model: m });
  } });
CASES.push({ name: 'fx_vocab_holes_wordpiece', kind: 'fixture', texts: compTexts,
  decodeIds: [[2, 6, 7, 8, 3], [13, 15, 17], [12, 1, 14]],
  build: ({ HF }) => {
    // The trained WordPiece vocabulary with every id from 6 on doubled: a hole after each token.
    const m = wordpieceModel(HF);
    for (const [tok, id] of Object.entries(m.vocab)) if (id >= 6) m.vocab[tok] = 2 * id;
    return tj({ added_tokens: bertSpecials(), normalizer: { type: 'BertNormalizer', clean_text: true, handle_chinese_chars: true, strip_accents: null, lowercase: true },
      pre_tokenizer: { type: 'BertPreTokenizer' }, post_processor: { type: 'BertProcessing', sep: ['[SEP]', 3], cls: ['[CLS]', 2] },
      decoder: { type: 'WordPiece', prefix: '##', cleanup: true }, model: m });
  } });

// ---- split_special_tokens: true in tokenizer_config.json (transformers' R12): special added tokens
// are not matched, their text tokenized as text; the template's special tokens are still added ----
const SPLIT_SPECIAL_TEXTS = ['<|begin_of_text|>Hello<|eot_id|> <think>x</think>', 'a <mask> b<mask>c  <mask>', '<sep>  <sep>x',
  '<|eot_id|><think><|eot_id|>'];
CASES.push({ name: 'fx_dir_split_special_tokens', kind: 'fixture', texts: withTexts(SPLIT_SPECIAL_TEXTS),
  extraFiles: { 'tokenizer_config.json': {
    tokenizer_class: 'PreTrainedTokenizerFast', bos_token: '<|begin_of_text|>', eos_token: '<|eot_id|>',
    split_special_tokens: true, clean_up_tokenization_spaces: false,
  } },
  build: () => bl({
    // The other added tokens first, so that their ids do not depend on the special ones (R12's check).
    added_tokens: [added(50256, '<think>', { special: false }), added(50257, '</think>', { special: false }),
      added(50258, '<|endoftext|>'), added(50259, '<|begin_of_text|>'), added(50260, '<|end_of_text|>'),
      added(50261, '<|start_header_id|>'), added(50262, '<|end_header_id|>'), added(50263, '<|eot_id|>'),
      added(50264, '<mask>', { lstrip: true }), added(50265, '<sep>', { rstrip: true })],
    pre_tokenizer: seqPre(split(REGEX.llama3), byteLevel(false, false)),
    post_processor: { type: 'TemplateProcessing', single: [tmplSpecial('<|begin_of_text|>'), tmplSeq('A')],
      pair: [tmplSpecial('<|begin_of_text|>'), tmplSeq('A'), tmplSpecial('<|begin_of_text|>', 1), tmplSeq('B', 1)],
      special_tokens: specialMap([['<|begin_of_text|>', 50259]]) },
  }, SMALL) });
CASES.push({ name: 'fx_dir_split_special_tokens_llamafast', kind: 'fixture', texts: withTexts(SPLIT_SPECIAL_TEXTS),
  // LlamaTokenizerFast's rebuilt template, and a pad token transformers adds (special: passed over too).
  extraFiles: { 'tokenizer_config.json': {
    tokenizer_class: 'LlamaTokenizerFast', bos_token: '<|begin_of_text|>', eos_token: '<|eot_id|>', pad_token: '<pad>',
    add_eos_token: true, split_special_tokens: true,
  } },
  build: () => bl({ added_tokens: [added(50256, '<think>', { special: false }), added(50257, '<|endoftext|>'),
    added(50258, '<|begin_of_text|>'), added(50259, '<|end_of_text|>'), added(50260, '<|start_header_id|>'),
    added(50261, '<|end_header_id|>'), added(50262, '<|eot_id|>')],
    pre_tokenizer: seqPre(split(REGEX.llama3), byteLevel(false, false)) }, SMALL) });
// The class from config.json's model_type (R10): no tokenizer_class in tokenizer_config.json, so
// AutoTokenizer takes model_type "bert" to BertTokenizerFast, whose __init__ rebuilds the file's
// lowercasing BertNormalizer with do_lower_case false (R8).
CASES.push({ name: 'fx_dir_class_from_model_type', kind: 'fixture', texts: compTexts,
  extraFiles: { 'tokenizer_config.json': { do_lower_case: false }, 'config.json': { model_type: 'bert', vocab_size: 1000 } },
  build: ({ HF }) => bertFile(HF) });
// add_prefix_space rebuilt (R11): RoBERTa's file has ByteLevel(add_prefix_space=true) and
// RobertaTokenizerFast's default is False; GPT-2's has false and tokenizer_config.json says true.
CASES.push({ name: 'fx_dir_roberta_prefix_space', kind: 'fixture', texts: compTexts,
  extraFiles: { 'tokenizer_config.json': { tokenizer_class: 'RobertaTokenizer' } },
  build: () => bl({
    added_tokens: [added(50256, '<|endoftext|>'), added(50257, '<s>'), added(50258, '<pad>'), added(50259, '</s>'),
      added(50260, '<unk>'), added(50261, '<mask>', { lstrip: true })],
    pre_tokenizer: byteLevel(true, true),
    post_processor: { type: 'RobertaProcessing', sep: ['</s>', 50259], cls: ['<s>', 50257], trim_offsets: true, add_prefix_space: true },
    decoder: byteLevel(true, true),
  }, SMALL) });
CASES.push({ name: 'fx_dir_gpt2_prefix_space', kind: 'fixture', texts: compTexts,
  extraFiles: { 'tokenizer_config.json': { tokenizer_class: 'GPT2Tokenizer', add_prefix_space: true } },
  build: () => bl({ post_processor: byteLevel(true, true, false) }, SMALL) });
// The unicode_categories crate 0.1.1's old tables (BertNormalizer's clean_text and strip_accents,
// BertPreTokenizer's and Punctuation's punctuation): characters Unicode made Mn, P* or Cf after
// them are left alone there (found by tools/tj_differential.mjs on bert_base_uncased).
const CRATE_TEXTS = ['\u08D9 x\u08D9y A\u08D9', 'x\u{11074}y \u{11D45}', 'a\u2E59b \u2E59 x\u{10EAD}y', 'a\u2E42b a\u2E43b',
  'p\u{110CD}q r\u2066s', 'caf\u00E9 na\u0308ive \u1AB0x \u1DFAy', 'a\u{1E94B}b \u{16FE4}c'];
CASES.push({ name: 'fx_norm_bert_crate_tables', kind: 'fixture', texts: withTexts(CRATE_TEXTS), build: ({ HF }) => tj({
  added_tokens: bertSpecials(),
  normalizer: { type: 'BertNormalizer', clean_text: true, handle_chinese_chars: true, strip_accents: true, lowercase: true },
  pre_tokenizer: { type: 'BertPreTokenizer' },
  post_processor: { type: 'BertProcessing', sep: ['[SEP]', 3], cls: ['[CLS]', 2] },
  decoder: { type: 'WordPiece', prefix: '##', cleanup: true },
  model: wordpieceModel(HF),
}) });
CASES.push({ name: 'fx_pre_punct_crate_tables', kind: 'fixture', texts: withTexts(CRATE_TEXTS),
  build: blWith({ type: 'Punctuation', behavior: 'Isolated' }) });
