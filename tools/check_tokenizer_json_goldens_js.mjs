#!/usr/bin/env node
// Second opinion on tests/golden/tokenizer_json: HF's pure-JS port `@huggingface/tokenizers@0.2.0`
// (Tokenizers.js) encodes every record's text and the ids are compared with expected.jsonl (the
// Rust core's). Disagreements are reported, not fixed: the Rust core is the reference; this only
// shows where the two HF implementations differ (useful to know which behaviours are subtle).
//   node tools/check_tokenizer_json_goldens_js.mjs [case-regex] > report.tsv
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';
const NODE_MODULES = process.env.NPM_GOLDENS_MODULES || '/tmp/npm-goldens/node_modules';
const { Tokenizer } = await import(pathToFileURL(path.join(NODE_MODULES, '@huggingface/tokenizers/dist/tokenizers.mjs')).href);
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const DIR = path.join(ROOT, 'tests/golden/tokenizer_json');
const only = process.argv[2] ? new RegExp(process.argv[2]) : null;
console.log('case\trecords\tsame_ids\terrors\tfirst_difference');
for (const name of fs.readdirSync(DIR).sort()) {
  const d = path.join(DIR, name);
  if (!fs.statSync(d).isDirectory() || !fs.existsSync(path.join(d, 'expected.jsonl')) || (only && !only.test(name))) continue;
  let text;
  if (fs.existsSync(path.join(d, 'tokenizer.json'))) text = fs.readFileSync(path.join(d, 'tokenizer.json'), 'utf8');
  else if (fs.existsSync(path.join(d, 'tokenizer.json.xz'))) text = execFileSync('xz', ['-dc', path.join(d, 'tokenizer.json.xz')], { maxBuffer: 1 << 30 }).toString();
  else {
    const src = JSON.parse(fs.readFileSync(path.join(d, 'source.json'), 'utf8'));
    if (!src.path || !fs.existsSync(src.path)) continue;
    text = fs.readFileSync(src.path, 'utf8');
  }
  let tok;
  try { tok = new Tokenizer(JSON.parse(text), {}); } catch (e) { console.log(`${name}\t0\t0\tload: ${String(e.message).slice(0, 80)}\t`); continue; }
  let n = 0, same = 0, errors = 0, first = '';
  for (const line of fs.readFileSync(path.join(d, 'expected.jsonl'), 'utf8').split('\n')) {
    if (!line) continue;
    const r = JSON.parse(line);
    n++;
    try {
      const e = tok.encode(r.text, { text_pair: r.pair, add_special_tokens: r.add_special_tokens });
      if (JSON.stringify(e.ids) === JSON.stringify(r.ids)) same++;
      else if (!first) first = JSON.stringify(r.text.slice(0, 40));
    } catch (e) { errors++; if (!first) first = `error ${String(e.message).slice(0, 60)}`; }
  }
  console.log(`${name}\t${n}\t${same}\t${errors}\t${first}`);
}
