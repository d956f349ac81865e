// HF tokenizers' Rust core (0.22.2, as the Node add-on @anush008/tokenizers@0.6.0)
// on a text file, one text per line, for bench/tokenizer_json.py: prints
// {"load_s", "encode_s", "ids"} as JSON, encode_s being the encodeBatch calls
// alone (run with RAYON_NUM_THREADS=1 for one thread). With a third argument,
// writes each line's ids there, space-separated, one line per text, as
// `embedpe tokenize --format ids` writes them.
//
//   node bench/hf_tokenizers_node.mjs tokenizer.json text.txt [ids.txt]
import fs from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const modules = process.env.NPM_GOLDENS_MODULES || '/tmp/npm-goldens/node_modules';
const { Tokenizer } = require(require.resolve('@anush008/tokenizers', { paths: [modules] }));

const [file, textFile, idsFile] = process.argv.slice(2);
let lines = fs.readFileSync(textFile, 'utf8').split('\n');
if (lines.length && lines[lines.length - 1] === '') lines.pop();
let t0 = process.hrtime.bigint();
const tok = Tokenizer.fromFile(file);
const loadS = Number(process.hrtime.bigint() - t0) / 1e9;
t0 = process.hrtime.bigint();
let count = 0;
const out = [];
for (let i = 0; i < lines.length; i += 1000) {
  const encs = await tok.encodeBatch(lines.slice(i, i + 1000), { addSpecialTokens: true });
  for (const e of encs) {
    const ids = e.getIds();
    count += ids.length;
    if (idsFile) out.push(ids.join(' '));
  }
}
const encodeS = Number(process.hrtime.bigint() - t0) / 1e9;
if (idsFile) fs.writeFileSync(idsFile, out.join('\n') + '\n');
console.log(JSON.stringify({ load_s: loadS, encode_s: encodeS, ids: count }));
