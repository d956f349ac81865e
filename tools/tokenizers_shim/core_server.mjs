#!/usr/bin/env node
// The computing half of tools/tokenizers_shim: one long-lived Node process that holds tokenizers
// of HF tokenizers 0.22.2's Rust core (the Node add-on @anush008/tokenizers@0.6.0) and answers
// JSON lines on stdin with JSON lines on stdout: {"id": n, "op": ..., ...} -> {"id": n, "ok": ...}
// or {"id": n, "error": "..."}. Every encode, decode, vocabulary lookup, token addition and the
// tokenizer's JSON (Tokenizer.save) is the core's; this file only forwards.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const NODE_MODULES = process.env.NPM_GOLDENS_MODULES || '/tmp/npm-goldens/node_modules';
const HF = require(require.resolve('@anush008/tokenizers', { paths: [NODE_MODULES] }));
const pkg = JSON.parse(fs.readFileSync(path.join(path.dirname(require.resolve('@anush008/tokenizers/package.json', { paths: [NODE_MODULES] })), 'package.json'), 'utf8'));

const tokenizers = new Map();
let next = 1;
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'tokenizers-shim-'));
process.on('exit', () => fs.rmSync(tmp, { recursive: true, force: true }));

const get = (h) => {
  const t = tokenizers.get(h);
  if (!t) throw new Error(`no tokenizer ${h}`);
  return t;
};
// Tokenizer.to_str(): the add-on has no toString, so the core's own serialisation via save().
const toStr = (tok, pretty) => {
  const f = path.join(tmp, 'tokenizer.json');
  tok.save(f, pretty);
  const s = fs.readFileSync(f, 'utf8');
  fs.unlinkSync(f);
  return s;
};
const encoding = (e) => ({
  ids: e.getIds(), type_ids: e.getTypeIds(), tokens: e.getTokens(), offsets: e.getOffsets(),
  attention_mask: e.getAttentionMask(), special_tokens_mask: e.getSpecialTokensMask(),
  word_ids: e.getWordIds().map((x) => (x === undefined ? null : x)),
  sequence_ids: e.getSequenceIds().map((x) => (x === undefined ? null : x)),
  n_sequences: e.getNSequences(),
  overflowing: e.getOverflowing().map(encoding),
});
const addedToken = (t) => {
  // Only the options the Python AddedToken has set: the add-on's constructor then does what
  // PyAddedToken::get_token does (tk::AddedToken::from(content, special), then each set option).
  const o = {};
  if (t.single_word != null) o.singleWord = t.single_word;
  if (t.lstrip != null) o.leftStrip = t.lstrip;
  if (t.rstrip != null) o.rightStrip = t.rstrip;
  if (t.normalized != null) o.normalized = t.normalized;
  return new HF.AddedToken(t.content, t.special, o);
};

// Components (normalizer, pre_tokenizer, post_processor, decoder): the add-on's own objects, kept
// here by handle, so that `tokenizer.normalizer = X` is the core's setter (setNormalizer), as in
// the Python binding (with_normalizer; the added vocabulary is not rebuilt, as there).
const components = new Map();
const keep = (c) => { if (c == null) return null; const h = next++; components.set(h, c); return h; };
const comp = (h) => { const c = components.get(h); if (!c) throw new Error(`no component ${h}`); return c; };
const SETTERS = { normalizer: 'setNormalizer', pre_tokenizer: 'setPreTokenizer', post_processor: 'setPostProcessor', decoder: 'setDecoder' };
const GETTERS = { normalizer: 'getNormalizer', pre_tokenizer: 'getPreTokenizer', post_processor: 'getPostProcessor', decoder: 'getDecoder' };
const kindOf = (kind) => { if (!(kind in SETTERS)) throw new Error(`no component kind ${kind}`); return kind; };
// A scratch tokenizer (empty BPE) to turn a component into its JSON (the core's serde) and back.
const scratchJson = () => JSON.parse(toStr(new HF.Tokenizer(HF.BPE.empty())));
const FACTORIES = {
  // name: (args) => component, each the add-on's factory with the Python constructor's defaults
  'normalizer.BertNormalizer': (a) => HF.bertNormalizer({ cleanText: a.clean_text, handleChineseChars: a.handle_chinese_chars,
    stripAccents: a.strip_accents ?? undefined, lowercase: a.lowercase }),
  'pre_tokenizer.ByteLevel': (a) => HF.byteLevelPreTokenizer(a.add_prefix_space, a.use_regex),
  'post_processor.TemplateProcessing': (a) => HF.templateProcessing(a.single, a.pair ?? undefined, a.special_tokens ?? undefined),
  'post_processor.RobertaProcessing': (a) => HF.robertaProcessing(a.sep, a.cls, a.trim_offsets, a.add_prefix_space),
  'post_processor.BertProcessing': (a) => HF.bertProcessing(a.sep, a.cls),
};

const ops = {
  version: () => ({ addon: `${pkg.name}@${pkg.version}` }),
  from_str: ({ json }) => { const h = next++; tokenizers.set(h, HF.Tokenizer.fromString(json)); return h; },
  from_file: ({ path: p }) => { const h = next++; tokenizers.set(h, HF.Tokenizer.fromFile(p)); return h; },
  free: ({ h }) => { tokenizers.delete(h); return null; },
  to_str: ({ h, pretty }) => toStr(get(h), !!pretty),
  add_tokens: ({ h, tokens }) => get(h).addAddedTokens(tokens.map(addedToken)),
  get_vocab: ({ h, with_added_tokens }) => get(h).getVocab(with_added_tokens),
  get_vocab_size: ({ h, with_added_tokens }) => get(h).getVocabSize(with_added_tokens),
  token_to_id: ({ h, token }) => get(h).tokenToId(token),
  id_to_token: ({ h, id }) => get(h).idToToken(id),
  no_truncation: ({ h }) => { get(h).disableTruncation(); return null; },
  no_padding: ({ h }) => { get(h).disablePadding(); return null; },
  enable_truncation: ({ h, max_length, stride, strategy, direction }) => {
    get(h).setTruncation(max_length, { stride, strategy, direction });
    return null;
  },
  enable_padding: ({ h, direction, pad_id, pad_type_id, pad_token, length, pad_to_multiple_of }) => {
    get(h).setPadding({ direction, padId: pad_id, padTypeId: pad_type_id, padToken: pad_token,
      maxLength: length ?? undefined, padToMultipleOf: pad_to_multiple_of ?? undefined });
    return null;
  },
  encode: async ({ h, text, pair, add_special_tokens }) =>
    encoding(await get(h).encode(text, pair ?? null, { addSpecialTokens: add_special_tokens })),
  decode: async ({ h, ids, skip_special_tokens }) => get(h).decode(ids, skip_special_tokens),
  get_component: ({ h, kind }) => keep(get(h)[GETTERS[kindOf(kind)]]()),
  set_component: ({ h, kind, c }) => { get(h)[SETTERS[kindOf(kind)]](comp(c)); return null; },
  new_component: ({ kind, type, args }) => {
    const f = FACTORIES[`${kindOf(kind)}.${type}`];
    if (!f) throw new Error(`${kind} ${type}: no constructor in the shim`);
    return keep(f(args));
  },
  // A component from its JSON state, deserialised by the core (tokenizer.json's section).
  component_from_state: ({ kind, state }) => {
    const j = scratchJson();
    j[kindOf(kind)] = state;
    return keep(HF.Tokenizer.fromString(JSON.stringify(j))[GETTERS[kind]]());
  },
  component_state: ({ kind, c }) => {
    const t = new HF.Tokenizer(HF.BPE.empty());
    t[SETTERS[kindOf(kind)]](comp(c));
    return JSON.parse(toStr(t))[kind];
  },
  free_component: ({ c }) => { components.delete(c); return null; },
  decoder_decode: ({ c, tokens }) => comp(c).decode(tokens),
};

const rl = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
// Answers go to the pipe whose descriptor TOKENIZERS_SHIM_FD names, not stdout: the core may print
// (Rust println!) on stdout, which must not mix with the answers.
const OUT_FD = Number(process.env.TOKENIZERS_SHIM_FD);
if (!Number.isInteger(OUT_FD) || OUT_FD < 3) throw new Error('TOKENIZERS_SHIM_FD: the answer pipe is not set');
const out = (o) => {
  const buf = Buffer.from(JSON.stringify(o) + '\n', 'utf8');
  for (let off = 0; off < buf.length;) off += fs.writeSync(OUT_FD, buf, off);
};
process.stdout.on('error', () => {});
// One request at a time, in order (the client waits for each answer).
let chain = Promise.resolve();
rl.on('line', (line) => {
  chain = chain.then(async () => {
    let req;
    try {
      req = JSON.parse(line);
      const f = ops[req.op];
      if (!f) throw new Error(`unknown op ${req.op}`);
      out({ id: req.id, ok: (await f(req)) ?? null });
    } catch (e) {
      out({ id: req ? req.id : null, error: String(e && e.message ? e.message : e) });
    }
  });
});
