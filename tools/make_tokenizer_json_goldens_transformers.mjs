// transformers.jsonl: what AutoTokenizer.from_pretrained(DIR) of transformers v4.44.2 gives for a
// model directory (tokenizer.json + tokenizer_config.json), where the fast class adds something on
// top of the file. The compiled `tokenizers` Python package cannot be installed here, so this
// applies exactly the rules of the transformers code quoted below (tag v4.44.2 of the
// transformers mirror, /work/.mirror/tianhua2+huggingface_llama3/repo) to the tokenizer.json and
// runs the Rust core (the same one as expected.jsonl) on the result.
//
// Rules followed (file:line at v4.44.2):
//
// R1  tokenization_utils_fast.py:113-115  the backend is TokenizerFast.from_file(tokenizer.json).
// R2  tokenization_utils_fast.py:149-167  the file's own truncation/padding sections are kept on the
//     backend, and seed kwargs (max_length, pad_token, pad_token_type_id, padding_side from
//     padding.direction) with setdefault, i.e. tokenizer_config.json wins;
//     tokenization_utils_fast.py:450-452 and 473-475: a plain call (no truncation, no padding)
//     switches both off on the backend: `if truncation_strategy == DO_NOT_TRUNCATE: if _truncation
//     is not None: self._tokenizer.no_truncation()` (the same for padding). So the records are
//     computed with both off, and only padding_side/pad_token in transformers.json come from them.
// R3  tokenization_utils_fast.py:180-212  tokens of tokenizer_config's added_tokens_decoder that the
//     file lacks, then every special token of the config (bos/eos/unk/pad/...,
//     additional_special_tokens) that is not yet an added token, are added (`self._add_tokens`),
//     special when `token.special or str(token) in self.all_special_tokens`.
// R4  models/llama/tokenization_llama_fast.py:181-205 (LlamaTokenizerFast.update_post_processor,
//     called from __init__ at :173) and models/gemma/tokenization_gemma_fast.py:124-150 (a copy,
//     called at :117): the post-processor is REPLACED by
//         single = f"{(bos+':0 ') if self.add_bos_token else ''}$A:0{(' '+eos+':0') if self.add_eos_token else ''}"
//         pair = f"{single}{(' '+bos+':1') if self.add_bos_token else ''} $B:1{(' '+eos+':1') if self.add_eos_token else ''}"
//         self._tokenizer.post_processor = processors.TemplateProcessing(single=single, pair=pair, special_tokens=special_tokens)
//     with add_bos_token=True, add_eos_token=False by default (llama_fast.py:135-136,
//     gemma_fast.py:99-100) unless tokenizer_config.json says otherwise.
// R5  decode: tokenization_utils_fast.py:651-660 `text = self._tokenizer.decode(token_ids,
//     skip_special_tokens=...)` then `if clean_up_tokenization_spaces: clean_text =
//     self.clean_up_tokenization(text)`; tokenization_utils_base.py:4074-4085 is the replace chain
//     used below; the default is True (tokenization_utils_base.py:1609) except where the class's
//     __init__ default says False (llama_fast.py:131, gemma_fast.py:94), and tokenizer_config.json
//     overrides both.
// R6  padding_side: class attribute "left" for LlamaTokenizerFast (llama_fast.py:124) and
//     GemmaTokenizerFast (gemma_fast.py:87), "right" otherwise (tokenization_utils_base.py:1565),
//     kwargs (tokenizer_config.json, else the file's padding.direction, R2) win
//     (tokenization_utils_base.py:1586).
// R8  BertTokenizerFast (models/bert/tokenization_bert_fast.py:103-113): when the file's normalizer
//     state disagrees with do_lower_case (default True, :79), strip_accents (None, :86) or
//     tokenize_chinese_chars (True, :85) of tokenizer_config.json, the normalizer is rebuilt with
//     those three values (`normalizer_state.get("lowercase", do_lower_case) != do_lower_case or ...`).
// R11 GPT2TokenizerFast (models/gpt2/tokenization_gpt2_fast.py:112-116) and RobertaTokenizerFast
//     (models/roberta/tokenization_roberta_fast.py:157-161): `pre_tok_state =
//     json.loads(self.backend_tokenizer.pre_tokenizer.__getstate__())`; when
//     `pre_tok_state.get("add_prefix_space", add_prefix_space) != add_prefix_space` (their argument,
//     default False, :96 and :131), the pre-tokenizer is made again, `pre_tok_class(**pre_tok_state)`
//     with add_prefix_space replaced. Only ByteLevel's state has the key (tokenizers 0.19.1, the one
//     v4.44.2 pins: a Sequence, Split or Metaspace state has none), and PyByteLevel's constructor takes
//     add_prefix_space and use_regex (trim_offsets, a **kwargs there, falls back to its default true,
//     which the pre-tokenizer does not use). A file without a pre-tokenizer fails there (None has no
//     __getstate__). RoBERTa then does the same for the post-processor's add_prefix_space and
//     trim_offsets (:165-189, default trim_offsets True), which change only offsets;
//     RobertaProcessing's is mirrored below. RoBERTa's string mask_token becomes
//     AddedToken(mask, lstrip=True, rstrip=False, normalized=False) (:135-139).
// R7  Qwen2TokenizerFast (models/qwen2/tokenization_qwen2_fast.py:88-91): unk_token and eos_token
//     default "<|endoftext|>", pad_token "<|endoftext|>", bos None; no post-processor change.
// R12 split_special_tokens (tokenization_utils_base.py:1612, default False): __init__ sets the
//     backend's encode_special_tokens from it (tokenization_utils_fast.py:173) and every encode
//     passes it on (:525-526, from encode_plus's kwargs.pop("split_special_tokens",
//     self.split_special_tokens), tokenization_utils_base.py:3044, :3255). In the core
//     (added_vocabulary.rs:388, find_matches) a match of a token whose content is a special token's
//     is then passed over (`continue`): its text stays in the text around it. The add-on has no
//     setter for it, so the records are the core's encode of the file WITHOUT its special added
//     tokens (decode still the whole file's), checked to be the same computation: every special
//     token has normalized=false, every other added token keeps its id, and in no text does an
//     occurrence of a special token overlap one of another added token with normalized=false (then
//     the leftmost-longest matches of the others are the same with or without the specials in the
//     automaton, and nothing else reads encode_special_tokens).

const CLASS_DEFAULTS = {
  LlamaTokenizerFast: { padding_side: 'left', clean_up_tokenization_spaces: false, add_bos_token: true, add_eos_token: false, bos_token: '<s>', eos_token: '</s>', unk_token: '<unk>', rebuild_post: true },
  GemmaTokenizerFast: { padding_side: 'left', clean_up_tokenization_spaces: false, add_bos_token: true, add_eos_token: false, bos_token: '<bos>', eos_token: '<eos>', unk_token: '<unk>', pad_token: '<pad>', rebuild_post: true },
  Qwen2TokenizerFast: { padding_side: 'right', clean_up_tokenization_spaces: true, unk_token: '<|endoftext|>', eos_token: '<|endoftext|>', pad_token: '<|endoftext|>', bos_token: null },
  GPT2TokenizerFast: { padding_side: 'right', clean_up_tokenization_spaces: true, unk_token: '<|endoftext|>', bos_token: '<|endoftext|>', eos_token: '<|endoftext|>' },
  PreTrainedTokenizerFast: { padding_side: 'right', clean_up_tokenization_spaces: true },
  BertTokenizerFast: { padding_side: 'right', clean_up_tokenization_spaces: true, unk_token: '[UNK]', sep_token: '[SEP]', pad_token: '[PAD]', cls_token: '[CLS]', mask_token: '[MASK]', bert_normalizer: true },
  RobertaTokenizerFast: { padding_side: 'right', clean_up_tokenization_spaces: true, bos_token: '<s>', eos_token: '</s>', sep_token: '</s>', cls_token: '<s>', unk_token: '<unk>', pad_token: '<pad>', mask_token: '<mask>', mask_lstrip: true, prefix_space_rebuild: true, roberta_post: true },
};
CLASS_DEFAULTS.GPT2TokenizerFast.prefix_space_rebuild = true;
// AutoTokenizer: tokenizer_class of tokenizer_config.json (else config.json's class, R10), its "Fast" variant.
function fastClass(cfg) {
  let c = cfg.tokenizer_class;
  if (c == null) throw new Error('no tokenizer_class (directoryConfig resolves it from config.json)');
  if (!c.endsWith('Fast')) c += 'Fast';
  if (!(c in CLASS_DEFAULTS)) throw new Error(`transformers rule for ${c} not written`);
  return c;
}
const str = (t) => (t == null ? null : typeof t === 'string' ? t : t.content);

export function cleanUpTokenization(s) {
  return s.replaceAll(' .', '.').replaceAll(' ?', '?').replaceAll(' !', '!').replaceAll(' ,', ',')
    .replaceAll(" ' ", "'").replaceAll(" n't", "n't").replaceAll(" 'm", "'m").replaceAll(" 's", "'s")
    .replaceAll(" 've", "'ve").replaceAll(" 're", "'re");
}

// Builds the backend as transformers would and returns { json, meta }.
export function transformersBackend(json, cfg) {
  const cls = fastClass(cfg);
  const d = CLASS_DEFAULTS[cls];
  const tj = JSON.parse(json);
  const pick = (k) => (k in cfg ? cfg[k] : d[k]);
  const fromPadding = tj.padding ? tj.padding : null;
  const meta = {
    class: cls,
    padding_side: cfg.padding_side ?? (fromPadding ? fromPadding.direction.toLowerCase() : d.padding_side),
    clean_up_tokenization_spaces: pick('clean_up_tokenization_spaces') ?? true,
    bos_token: str(pick('bos_token')) ?? null,
    eos_token: str(pick('eos_token')) ?? null,
    unk_token: str(pick('unk_token')) ?? null,
    pad_token: str(cfg.pad_token ?? (fromPadding ? fromPadding.pad_token : d.pad_token)) ?? null,
    add_bos_token: d.rebuild_post ? (cfg.add_bos_token ?? d.add_bos_token) : null,
    add_eos_token: d.rebuild_post ? (cfg.add_eos_token ?? d.add_eos_token) : null,
    model_max_length: cfg.model_max_length ?? null,
  };
  if (cfg.split_special_tokens === true) meta.split_special_tokens = true;
  // R8: BertTokenizerFast's normalizer.
  if (d.bert_normalizer && tj.normalizer) {
    const want = {
      lowercase: cfg.do_lower_case ?? true,
      strip_accents: cfg.strip_accents ?? null,
      handle_chinese_chars: cfg.tokenize_chinese_chars ?? true,
    };
    const n = tj.normalizer;
    const get = (k) => (k in n ? n[k] : want[k]);
    if (get('lowercase') !== want.lowercase || get('strip_accents') !== want.strip_accents || get('handle_chinese_chars') !== want.handle_chinese_chars) {
      Object.assign(n, want);
      meta.normalizer_rebuilt = want;
    }
  }
  // R11: GPT2TokenizerFast's and RobertaTokenizerFast's add_prefix_space.
  if (d.prefix_space_rebuild) {
    const want = cfg.add_prefix_space ?? false;
    const pre = tj.pre_tokenizer;
    if (pre == null) throw new Error(`${cls}: the file has no pre_tokenizer: transformers raises (None.__getstate__)`);
    if (pre.type === 'ByteLevel' && (pre.add_prefix_space ?? want) !== want) {
      tj.pre_tokenizer = { type: 'ByteLevel', add_prefix_space: want, trim_offsets: true, use_regex: pre.use_regex ?? true };
      meta.pre_tokenizer_rebuilt = { add_prefix_space: want };
    }
    const post = tj.post_processor;
    const trim = cfg.trim_offsets ?? true;
    if (d.roberta_post && post && post.type === 'RobertaProcessing'
        && ((post.add_prefix_space ?? want) !== want || (post.trim_offsets ?? trim) !== trim)) {
      Object.assign(post, { add_prefix_space: want, trim_offsets: trim });
      meta.post_processor_rebuilt = { add_prefix_space: want, trim_offsets: trim };
    }
  }
  // R3: tokens to add.
  const have = new Set(tj.added_tokens.map((t) => t.content));
  const inVocab = (c) => have.has(c) || (tj.model.vocab && !Array.isArray(tj.model.vocab) && c in tj.model.vocab);
  const toAdd = [];  // { content, token: the added_tokens_decoder entry (flags) or null (a plain string) }
  for (const [, t] of Object.entries(cfg.added_tokens_decoder || {}).sort((a, b) => Number(a[0]) - Number(b[0]))) {
    if (!have.has(t.content)) toAdd.push({ content: t.content, token: t });
  }
  for (const k of ['sep_token', 'cls_token', 'mask_token']) if (k in d) meta[k] = str(pick(k)) ?? null;
  // The special tokens as given: a string, or an AddedToken object (its flags kept when it is added).
  const given = (k) => {
    const f = k in cfg ? cfg[k] : meta[k];
    if (k === 'mask_token' && d.mask_lstrip && typeof f === 'string') {
      return { content: f, lstrip: true, rstrip: false, normalized: false, single_word: false, special: true };
    }
    return f;
  };
  const forms = [...['bos_token', 'eos_token', 'unk_token', 'sep_token', 'pad_token', 'cls_token', 'mask_token'].map(given),
    ...(cfg.additional_special_tokens || [])].filter((x) => x != null);
  const specials = forms.map(str);
  for (const f of forms) {
    const s = str(f);
    if (!have.has(s) && !toAdd.some((x) => x.content === s)) toAdd.push({ content: s, token: typeof f === 'object' ? { ...f, special: true } : null });
  }
  meta.added_by_transformers = toAdd.map((x) => x.content);
  // R4: post-processor rebuilt.
  const vocabId = (c) => {
    const a = tj.added_tokens.find((t) => t.content === c);
    if (a) return a.id;
    if (tj.model.vocab && !Array.isArray(tj.model.vocab) && c in tj.model.vocab) return tj.model.vocab[c];
    throw new Error(`special token ${c} not in the vocabulary`);
  };
  if (d.rebuild_post) {
    const bos = meta.bos_token; const eos = meta.eos_token;
    if (meta.add_bos_token && bos == null) throw new Error('add_bos_token = True but bos_token = None');
    if (meta.add_eos_token && eos == null) throw new Error('add_eos_token = True but eos_token = None');
    const single = []; const pair = []; const special = {};
    const sp = (c, type_id) => ({ SpecialToken: { id: c, type_id } });
    if (meta.add_bos_token) { single.push(sp(bos, 0)); special[bos] = { id: bos, ids: [vocabId(bos)], tokens: [bos] }; }
    single.push({ Sequence: { id: 'A', type_id: 0 } });
    if (meta.add_eos_token) { single.push(sp(eos, 0)); special[eos] = { id: eos, ids: [vocabId(eos)], tokens: [eos] }; }
    pair.push(...single);
    if (meta.add_bos_token) pair.push(sp(bos, 1));
    pair.push({ Sequence: { id: 'B', type_id: 1 } });
    if (meta.add_eos_token) pair.push(sp(eos, 1));
    tj.post_processor = { type: 'TemplateProcessing', single, pair, special_tokens: special };
  }
  meta.pad_token_id = meta.pad_token != null && (inVocab(meta.pad_token)) ? vocabId(meta.pad_token) : null;
  return { json: JSON.stringify(tj), meta, toAdd, specials };
}

// R9  tokenization_utils_base.py:2536-2569 (PreTrainedTokenizerBase._from_pretrained): when
//     tokenizer_config.json has no `added_tokens_decoder` (the legacy branch, :2547 `else:`),
//     special_tokens_map.json is read and every key of it replaces the config's
//     (`init_kwargs[key] = value`, :2569); an object becomes AddedToken(**value) with
//     `value["special"] = True` (:2556-2558); its additional_special_tokens are appended to the
//     config's list, each `if token not in additional_special_tokens` (:2559-2568; tokenizers'
//     AddedToken equals an AddedToken of the same content, never a plain string). With
//     added_tokens_decoder present the file is not read at all.
// R10 models/auto/tokenization_auto.py:837-931 (AutoTokenizer.from_pretrained): the class is
//     tokenizer_config.json's tokenizer_class (null is None); if none, AutoConfig.from_pretrained(DIR)
//     reads config.json (configuration_auto.py:976-1012: it raises without config.json and for a
//     model_type CONFIG_MAPPING lacks; without model_type it matches the directory's name, not followed
//     here) and the class is config.json's tokenizer_class, else TOKENIZER_MAPPING[type(config)]: the
//     fast class of the model type, else its slow one. That table is transformers' own, printed by
//     tools/make_tj_auto_classes.py (PYTHONPATH=/tmp/hfenv, i.e. HFENV).
let autoClasses = null;
function classFromConfigJson(dir) {
  const file = path.join(dir, 'config.json');
  if (!fs.existsSync(file)) throw new Error(`${dir}: no tokenizer_class and no config.json: AutoTokenizer raises`);
  const config = JSON.parse(fs.readFileSync(file, 'utf8'));
  if (typeof config.model_type !== 'string') throw new Error(`${file}: model_type ${config.model_type}: not followed`);
  if (!autoClasses) {
    const tool = path.join(path.dirname(new URL(import.meta.url).pathname), 'make_tj_auto_classes.py');
    autoClasses = JSON.parse(execFileSync('/usr/bin/python3', [tool, '--json'],
      { env: { ...process.env, PYTHONPATH: process.env.HFENV || '/tmp/hfenv' } }).toString('utf8'));
  }
  if (!(config.model_type in autoClasses)) throw new Error(`${file}: model_type ${config.model_type} unknown to v4.44.2`);
  if (config.tokenizer_class != null) return config.tokenizer_class;
  const c = autoClasses[config.model_type];
  if (!c) throw new Error(`${file}: model_type ${config.model_type} has no tokenizer: AutoTokenizer raises`);
  return c;
}

export function directoryConfig(dir) {
  const cfgFile = path.join(dir, 'tokenizer_config.json');
  const cfg = fs.existsSync(cfgFile) ? JSON.parse(fs.readFileSync(cfgFile, 'utf8')) : {};
  if (cfg.tokenizer_class == null) cfg.tokenizer_class = classFromConfigJson(dir);
  const mapFile = path.join(dir, 'special_tokens_map.json');
  if ('added_tokens_decoder' in cfg || !fs.existsSync(mapFile)) return cfg;
  const map = JSON.parse(fs.readFileSync(mapFile, 'utf8'));
  const asToken = (v) => (v && typeof v === 'object' && !Array.isArray(v) ? { ...v, special: true } : v);
  for (const [key, value] of Object.entries(map)) {
    if (key === 'additional_special_tokens' && Array.isArray(value)) {
      const list = Array.isArray(cfg[key]) ? [...cfg[key]] : [];
      for (const t0 of value) {
        const t = asToken(t0);
        const there = list.some((h) => (typeof t === 'object') === (typeof h === 'object')
          && (typeof t === 'object' ? h.content === t.content : h === t));
        if (!there) list.push(t);
      }
      cfg[key] = list;
    } else cfg[key] = asToken(value);
  }
  return cfg;
}

// The backend of a directory as transformers builds it: the Rust core loaded with the rebuilt
// file, then the tokens of R3 added in order.
function backendTokenizer(HF, json, cfg) {
  const { json: j2, meta, toAdd, specials } = transformersBackend(json, cfg);
  const tok = HF.Tokenizer.fromString(j2);
  if (toAdd.length) {
    // Added as transformers does (R3), in order: `self._add_tokens(tokens, special_tokens=is_special)`,
    // i.e. the backend's add_special_tokens / add_tokens; a plain string becomes
    // AddedToken(content, special) with the tokenizers defaults (normalized = not special).
    const specialSet = new Set(specials);
    for (const x of toAdd) {
      const isSpecial = x.token ? (x.token.special || specialSet.has(x.content)) : specialSet.has(x.content);
      if (x.token) {
        tok.addAddedTokens([new HF.AddedToken(x.content, isSpecial, {
          singleWord: !!x.token.single_word, leftStrip: !!x.token.lstrip, rightStrip: !!x.token.rstrip, normalized: !!x.token.normalized })]);
      } else if (isSpecial) tok.addSpecialTokens([x.content]);
      else tok.addTokens([x.content]);
    }
    meta.pad_token_id = meta.pad_token != null ? tok.tokenToId(meta.pad_token) : null;
  }
  const file = JSON.parse(j2);
  let encodeTok = null;
  if (meta.split_special_tokens) {
    // R12: the backend without its special added tokens, for encode.
    const specialSet = new Set(specials);
    const all = [...file.added_tokens, ...toAdd.map((x) => ({ content: x.content, ...(x.token || {}),
      special: x.token ? (x.token.special || specialSet.has(x.content)) : specialSet.has(x.content) }))];
    const special = all.filter((t) => t.special);
    const others = all.filter((t) => !t.special);
    for (const t of special) if (t.normalized) throw new Error(`R12: special token ${t.content} has normalized=true`);
    encodeTok = HF.Tokenizer.fromString(JSON.stringify({ ...file, added_tokens: file.added_tokens.filter((t) => !t.special) }));
    for (const x of toAdd.filter((y) => !all.find((t) => t.content === y.content).special)) {
      if (x.token) encodeTok.addAddedTokens([new HF.AddedToken(x.content, false, {
        singleWord: !!x.token.single_word, leftStrip: !!x.token.lstrip, rightStrip: !!x.token.rstrip, normalized: !!x.token.normalized })]);
      else encodeTok.addTokens([x.content]);
    }
    for (const t of others) {
      if (encodeTok.tokenToId(t.content) !== tok.tokenToId(t.content)) throw new Error(`R12: ${t.content} changes id without the special tokens`);
    }
    meta.split_special_tokens_check = { specials: special.map((t) => t.content), raw_others: others.filter((t) => !t.normalized).map((t) => t.content) };
  }
  return { tok, meta, toAdd, file, encodeTok };
}

// R12's condition on one text: no occurrence of a special token overlaps one of another raw added token.
function checkSplitSpecial(check, text) {
  const at = (s) => { const out = []; for (let i = text.indexOf(s); i >= 0; i = text.indexOf(s, i + 1)) out.push([i, i + s.length]); return out; };
  for (const s of check.specials) {
    for (const [a, b] of at(s)) {
      for (const o of check.raw_others) {
        for (const [c, d] of at(o)) if (c < b && a < d) throw new Error(`R12: ${JSON.stringify(o)} overlaps ${JSON.stringify(s)} in ${JSON.stringify(text)}`);
      }
    }
  }
}

// For tools/tj_differential.mjs: a model directory's tokenizer as transformers v4.44.2 gives it:
// { tok (the Rust core), meta (transformers.json's), clean (decode's clean-up), added (every
// added token's content and flags) }.
export function transformersTokenizer(HF, json, dir) {
  const cfg = directoryConfig(dir);
  const { tok, meta, toAdd, file } = backendTokenizer(HF, json, cfg);
  if (meta.split_special_tokens) throw new Error(`${dir}: split_special_tokens (R12) is emulated per text only in the goldens generator`);
  const clean = meta.clean_up_tokenization_spaces ? cleanUpTokenization : (s) => s;
  const added = [...(file.added_tokens || []), ...toAdd.map((x) => ({ content: x.content, ...(x.token || {}) }))];
  return { tok, meta: { ...meta, clean }, added };
}

// For a case: returns the transformers.jsonl text and writes transformers.json (meta).
async function directoryRecords({ HF, json, cfg, textList, expectedLines }) {
  const { tok, meta, encodeTok } = backendTokenizer(HF, json, cfg);
  let lines = await expectedLines(encodeTok || tok, textList);
  if (encodeTok) {
    // R12: encoded without the special tokens, decoded by the whole backend.
    const out = [];
    for (const l of lines.trimEnd().split('\n')) {
      const r = JSON.parse(l);
      checkSplitSpecial(meta.split_special_tokens_check, r.text);
      if (r.pair != null) checkSplitSpecial(meta.split_special_tokens_check, r.pair);
      r.decode = await tok.decode(r.ids, false);
      r.decode_skip_special = await tok.decode(r.ids, true);
      out.push(JSON.stringify(r));
    }
    lines = out.join('\n') + '\n';
  }
  if (meta.clean_up_tokenization_spaces) {
    lines = lines.trimEnd().split('\n').map((l) => {
      const r = JSON.parse(l);
      r.decode = cleanUpTokenization(r.decode);
      r.decode_skip_special = cleanUpTokenization(r.decode_skip_special);
      return JSON.stringify(r);
    }).join('\n') + '\n';
  }
  return { lines, meta };
}

import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
function forDirectory() {
  return async ({ Tokenizer, HF, json, dir, textList, expectedLines, cfgFile }) => {
    const cfg = directoryConfig(path.dirname(cfgFile));
    const { lines, meta } = await directoryRecords({ Tokenizer, HF, json, cfg, textList, expectedLines });
    // transformers.jsonl only where some record differs from the bare file's (expected.jsonl
    // without the 10 KB runs); transformers.json says which.
    const bare = Tokenizer.fromString(json);
    const same = (await expectedLines(bare, textList)) === lines;
    meta.records_same_as_expected = same;
    fs.writeFileSync(path.join(dir, 'transformers.json'), JSON.stringify({ transformers: 'v4.44.2', ...meta }, null, 2) + '\n');
    const f = path.join(dir, 'transformers.jsonl');
    if (same) { if (fs.existsSync(f)) fs.unlinkSync(f); return null; }
    return lines;
  };
}
export const TRANSFORMERS = {
  qwen2: forDirectory(),
  llamaFast: forDirectory(),
  gemmaFast: forDirectory(),
  any: forDirectory(),
};
