#!/usr/bin/env node
// Prints {case: [{text, pair}, ...]}: the texts make_tokenizer_json_goldens.mjs gives each case's
// transformers.jsonl (the case's texts without the 10 KB `long` runs), for
// tools/make_tokenizer_json_goldens_transformers.py.
import { texts } from './make_tokenizer_json_goldens.mjs';
import { CASES } from './make_tokenizer_json_goldens_cases.mjs';

const all = texts();
const out = {};
for (const c of CASES) {
  out[c.name] = (c.texts ? c.texts(all) : all).filter((t) => t.group !== 'long').map((t) => ({ text: t.text, pair: t.pair }));
}
process.stdout.write(JSON.stringify(out));
