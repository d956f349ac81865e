#!/usr/bin/env node
// What `AutoTokenizer.from_pretrained(DIR)` of transformers v4.44.2 answers for a tokenizer.json
// model directory, computed by HF tokenizers 0.22.2's Rust core (@anush008/tokenizers@0.6.0) with
// the transformers rules of make_tokenizer_json_goldens_transformers.mjs. Used by
// tools/make_gguf_bpe_files.py in place of the `tokenizers` Python package (not installable here)
// when llama.cpp's converter calls AutoTokenizer.
//
//   node tools/tj_transformers_shim.mjs DIR < requests.json > answers.json
//
// requests.json: {"encode": [[text, add_special_tokens], ...], "roundtrip": [text, ...]}
// answers.json:  {"vocab": {token: id} (added tokens included), "added": [{id, content, special,
//   normalized, lstrip, rstrip, single_word}], "encode": [[ids], ...],
//   "roundtrip": [decode(encode(text, add_special_tokens=False)), ...], "meta": transformers.json}
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { transformersBackend, cleanUpTokenization, directoryConfig } from './make_tokenizer_json_goldens_transformers.mjs';

const require = createRequire(import.meta.url);
const NODE_MODULES = process.env.NPM_GOLDENS_MODULES || '/tmp/npm-goldens/node_modules';
const HF = require(require.resolve('@anush008/tokenizers', { paths: [NODE_MODULES] }));

const dir = process.argv[2];
const tjFile = path.join(dir, 'tokenizer.json');
const json = fs.existsSync(tjFile) ? fs.readFileSync(tjFile, 'utf8')
  : execFileSync('xz', ['-dc', `${tjFile}.xz`], { maxBuffer: 1 << 30 }).toString('utf8');
const cfg = directoryConfig(dir);  // special_tokens_map.json too, as transformers' legacy branch reads it
const req = JSON.parse(fs.readFileSync(0, 'utf8'));

const { json: backendJson, meta, toAdd, specials } = transformersBackend(json, cfg);
const tok = HF.Tokenizer.fromString(backendJson);
tok.disableTruncation();
tok.disablePadding();
const file = JSON.parse(backendJson);
const added = file.added_tokens.map((a) => ({ id: tok.tokenToId(a.content), content: a.content, special: a.special,
  normalized: a.normalized, lstrip: a.lstrip, rstrip: a.rstrip, single_word: a.single_word }));
const specialSet = new Set(specials);
for (const x of toAdd) {
  const isSpecial = x.token ? (x.token.special || specialSet.has(x.content)) : specialSet.has(x.content);
  const t = x.token || {};
  if (x.token) {
    tok.addAddedTokens([new HF.AddedToken(x.content, isSpecial, {
      singleWord: !!t.single_word, leftStrip: !!t.lstrip, rightStrip: !!t.rstrip, normalized: !!t.normalized })]);
  } else if (isSpecial) tok.addSpecialTokens([x.content]);
  else tok.addTokens([x.content]);
  added.push({ id: tok.tokenToId(x.content), content: x.content, special: isSpecial,
    normalized: x.token ? !!t.normalized : !isSpecial, lstrip: !!t.lstrip, rstrip: !!t.rstrip, single_word: !!t.single_word });
}
const decode = async (ids) => {
  const s = await tok.decode(ids, false);
  return meta.clean_up_tokenization_spaces ? cleanUpTokenization(s) : s;
};
const out = { vocab: tok.getVocab(true), added, meta, encode: [], roundtrip: [] };
for (const [text, addSpecial] of req.encode || []) {
  out.encode.push((await tok.encode(text, null, { addSpecialTokens: addSpecial })).getIds());
}
for (const text of req.roundtrip || []) {
  out.roundtrip.push(await decode((await tok.encode(text, null, { addSpecialTokens: false })).getIds()));
}
process.stdout.write(JSON.stringify(out));
