#!/usr/bin/python3
"""GGUF files as llama.cpp writes them, and the ids llama.cpp gives for texts
with them: the goldens of tests/gguf_test.py (LlamaCppTests).

    /usr/bin/python3 tools/make_gguf_llamacpp_files.py --llama-cpp PATH [--models DIR]
        [--out tests/golden/gguf_llamacpp] [--build DIR]
        [--llama2 llama2-tokenizer.model --local-out DIR]

PATH is llama.cpp at commit c392e5094deaf2d1a7c18683214f007fad3fe42b (LLAMA_CPP_COMMIT): a bare
git directory holding that commit (its tree is exported) or a work tree at it. Nothing of it is
committed here; everything below runs upstream's own code:

1. The files. convert_hf_to_gguf.py is imported and its model classes (LlamaModel for
   LlamaForCausalLM and MistralForCausalLM, GemmaModel) convert each model directory of
   FILES: set_gguf_parameters, then set_vocab — _set_vocab_sentencepiece,
   _create_vocab_sentencepiece and gguf-py's SpecialVocab (Gemma's set_vocab too), or
   _set_vocab_llama_hf when a directory has no tokenizer.model — then gguf-py's GGUFWriter
   writes the file, as Model.write does. The converter imports torch only to convert
   weights; none are converted here (the directories hold none), so a stand-in module named
   torch is put in its place. The only tensor is a tiny token_embd.weight the script adds
   with GGUFWriter.add_tensor: TABLE_COLUMNS float16 columns, row i column j =
   table_value(i, j) (exact in float16), and the config's hidden_size is set to that width
   in memory (the converter writes ARCH.embedding_length from it).
2. The ids. libllama is built from the same tree (cmake, Release, GGML_NATIVE=OFF) and a
   small program (DRIVER) loads each file with vocab_only and calls
   llama_tokenize(vocab, text, add_special = true, parse_special = false) on each of TEXTS.
   Where a file's tokenizer.model is the original model (not the Gemma stand-in, whose
   add_space_prefix the converter sets false), the plain texts are also encoded by
   SentencePiece (python3-sentencepiece) with BOS added, and the agreement is recorded.

Writes OUT/NAME.gguf for each of FILES, OUT/texts.txt (TEXTS, one a line), OUT/ids.json
({name: [[ids of text k]]}) and OUT/manifest.json (commit, files, sha256, what each is).
With --llama2, also a LLaMA-2-style directory made with that tokenizer.model, converted to
LOCAL_OUT/llama2.gguf with its ids in LOCAL_OUT/ids.json: a local check only, never committed
(the Llama 2 licence forbids it).
"""
import argparse
import hashlib
import json
import logging
import pathlib
import shutil
import subprocess
import sys
import tempfile
import types

import numpy as np

LLAMA_CPP_COMMIT = "c392e5094deaf2d1a7c18683214f007fad3fe42b"
TABLE_COLUMNS = 4

# name -> (model directory under --models, what is changed in a copy of it, what it is)
FILES = {
    "mistral-v0.3": ("mistral-7b-instruct-v0.3", {},
                     "Mistral-7B-Instruct-v0.3's directory as it is (transformers 4.42 wrote its "
                     "added_tokens_decoder: <unk>, <s>, </s> and 768 control tokens, all special -> CONTROL)"),
    "gemma": ("gemma-2b-it-subst-mistralv3", {},
              "gemma-2b-it's directory (tokenizer.model substituted by Mistral v0.3's; transformers 4.38's "
              "added_tokens_decoder renames ids 0-3 <pad> <eos> <bos> <unk> and 106-107, all CONTROL; "
              "GemmaModel writes add_space_prefix false)"),
    "openllama-legacy": ("llama-openllama-3b-subst-mistralv1", {},
                         "an OpenLLaMA fine-tune saved by transformers 4.30 (tokenizer.model substituted by "
                         "Mistral v0.1's): no added_tokens_decoder, so <unk> stays UNKNOWN; added_tokens.json's "
                         "[PAD]=32000 -> USER_DEFINED"),
    "openllama-resaved": ("llama-openllama-3b-subst-mistralv1", {
        "tokenizer_config.added_tokens_decoder": {
            "0": ["<unk>", True], "1": ["<s>", True], "2": ["</s>", True], "32000": ["[PAD]", True],
            "32001": ["<sep>", False], "32002": ["\u2581Assistant:", False]},
        "config.vocab_size": 32032},
        "the same directory as current transformers saves it: added_tokens_decoder written by hand as "
        "transformers >= 4.34 writes it (<unk> <s> </s> special; [PAD], the pad token, special), plus "
        "two non-special added tokens <sep> and \u2581Assistant: (-> USER_DEFINED, the second written "
        "' Assistant:': the converter turns U+2581 into a space), and config vocab_size "
        "32032 (a table padded to a multiple of 32, as e.g. Nous-Hermes-Llama-2's): ids 32003-32031 are "
        "the converter's [PADn] fillers, UNUSED"),
}

TEXTS = [
    "Hello world",
    "",
    " ",
    "  leading and trailing spaces  ",
    "multiple   spaces\tand a tab",
    "The quick brown fox jumps over the lazy dog 1234567890.",
    "def f(x):\treturn x**2  # code",
    "你好，世界。日本語のテキストも。",
    "Emoji 🙂👍🏽 and ünïcödé, Ελληνικά, русский",
    "<s> and </s> and <unk> are text here",
    "[INST] not parsed [/INST] [TOOL_CALLS]",
    "<start_of_turn>user hi<end_of_turn>",
    "<pad><bos><eos>",
    "a[PAD]b [PAD] [PAD][PAD]",
    "x<sep>y <sep> z<sep><sep>",
    "User: hi Assistant: ok,Assistant:no  Assistant:",
    "[PAD32003] [PAD32031] [PAD1]",
    "<0x41> <0x0A> bytes as text",
    "\u2581already\u2581escaped \u2581",
    "tokens like [control_8] and <unused0>",
]

DRIVER = r"""
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>
#include "llama.h"

static void quiet(enum ggml_log_level, const char *, void *) {}

// argv[1]: a GGUF file; argv[2]: texts separated by NUL. One line of ids per text.
int main(int argc, char ** argv) {
    if (argc != 3) return 2;
    llama_log_set(quiet, nullptr);
    llama_backend_init();
    llama_model_params params = llama_model_default_params();
    params.vocab_only = true;
    llama_model * model = llama_model_load_from_file(argv[1], params);
    if (!model) { std::fprintf(stderr, "cannot load %s\n", argv[1]); return 1; }
    const llama_vocab * vocab = llama_model_get_vocab(model);
    std::ifstream in(argv[2], std::ios::binary);
    std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    size_t start = 0;
    while (start <= all.size()) {
        size_t end = all.find('\0', start);
        if (end == std::string::npos) break;
        const std::string text = all.substr(start, end - start);
        std::vector<llama_token> ids(text.size() + 8);
        int n = llama_tokenize(vocab, text.data(), (int) text.size(), ids.data(), (int) ids.size(), true, false);
        if (n < 0) {
            ids.resize(-n);
            n = llama_tokenize(vocab, text.data(), (int) text.size(), ids.data(), (int) ids.size(), true, false);
        }
        for (int k = 0; k < n; ++k) std::printf(k ? " %d" : "%d", ids[k]);
        std::printf("\n");
        start = end + 1;
    }
    llama_model_free(model);
    return 0;
}
"""

TREE_PATHS = ["CMakeLists.txt", "cmake", "ggml", "src", "include", "gguf-py", "convert_hf_to_gguf.py", "LICENSE"]


def table_value(i, j):
    """Row i, column j of every file's token_embd: a multiple of 1/256 below 8 in magnitude,
    exact in float16."""
    return ((i * 7 + j * 131) % 4001 - 2000) / 256.0


def table(rows):
    i = np.arange(rows, dtype=np.int64)[:, None]
    j = np.arange(TABLE_COLUMNS, dtype=np.int64)[None, :]
    return (((i * 7 + j * 131) % 4001 - 2000) / 256.0).astype(np.float16)


def export_tree(path, tmp):
    p = pathlib.Path(path)
    if (p / "convert_hf_to_gguf.py").exists():
        commit = subprocess.check_output(["git", "-C", str(p), "rev-parse", "HEAD"], text=True).strip()
        if commit != LLAMA_CPP_COMMIT:
            sys.exit(f"{p} is at {commit}, not {LLAMA_CPP_COMMIT}")
        return p
    tree = pathlib.Path(tmp) / "llama.cpp"
    tree.mkdir()
    archive = subprocess.run(["git", "--git-dir", str(p), "archive", LLAMA_CPP_COMMIT, *TREE_PATHS],
                             check=True, capture_output=True).stdout
    subprocess.run(["tar", "x", "-C", str(tree)], input=archive, check=True)
    return tree


def build_driver(tree, build, tmp):
    build = pathlib.Path(build)
    if not (build / "bin" / "libllama.so").exists():
        subprocess.run(["cmake", "-S", str(tree), "-B", str(build), "-DCMAKE_BUILD_TYPE=Release",
                        "-DLLAMA_BUILD_COMMON=OFF", "-DLLAMA_BUILD_TESTS=OFF", "-DLLAMA_BUILD_EXAMPLES=OFF",
                        "-DLLAMA_BUILD_SERVER=OFF", "-DGGML_NATIVE=OFF", "-DBUILD_SHARED_LIBS=ON",
                        "-DGGML_OPENMP=OFF"], check=True, stdout=subprocess.DEVNULL)
        subprocess.run(["cmake", "--build", str(build), "-j2", "--target", "llama"], check=True,
                       stdout=subprocess.DEVNULL)
    src = pathlib.Path(tmp) / "tokenize_driver.cpp"
    src.write_text(DRIVER)
    exe = pathlib.Path(tmp) / "tokenize_driver"
    lib = build / "bin"
    subprocess.run(["g++", "-O1", "-std=c++17", "-I", str(tree / "include"), "-I", str(tree / "ggml" / "include"),
                    str(src), "-L", str(lib), "-lllama", f"-Wl,-rpath,{lib}", "-o", str(exe)], check=True)
    return exe


def import_converter(tree):
    """convert_hf_to_gguf as a module, with gguf-py from the same tree and a stand-in torch."""
    class Anything:
        def __getattr__(self, name):
            return Anything()

        def __call__(self, *args, **kwargs):
            return Anything()

        def __mro_entries__(self, bases):
            return (object,)

    class TorchStandIn(types.ModuleType):
        def __getattr__(self, name):
            return Anything()

    sys.modules["torch"] = TorchStandIn("torch")
    sys.path.insert(0, str(tree / "gguf-py"))
    sys.path.insert(0, str(tree))
    import convert_hf_to_gguf  # noqa: E402
    import gguf  # noqa: E402
    assert pathlib.Path(gguf.__file__).resolve().is_relative_to(tree.resolve()), gguf.__file__
    return convert_hf_to_gguf, gguf


def model_dir(source, edits, where):
    """A copy of `source` with `edits` applied (keys "FILE.key": value)."""
    where.mkdir(parents=True)
    for f in source.iterdir():
        shutil.copyfile(f, where / f.name)
    for key, value in edits.items():
        name, field = key.split(".", 1)
        path = where / f"{name}.json"
        doc = json.loads(path.read_text(encoding="utf-8"))
        if field == "added_tokens_decoder":
            value = {k: {"content": c, "lstrip": False, "normalized": False, "rstrip": False,
                         "single_word": False, "special": s} for k, (c, s) in value.items()}
        doc[field] = value
        path.write_text(json.dumps(doc, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return where


def convert(converter, gguf, directory, out_path):
    hparams = json.loads((directory / "config.json").read_text(encoding="utf-8"))
    cls = converter.Model.from_model_architecture(hparams["architectures"][0])
    model = cls(directory, gguf.LlamaFileType.MOSTLY_F16, out_path, eager=True)
    model.hparams["hidden_size"] = TABLE_COLUMNS
    rows = model.hparams["vocab_size"]
    model.gguf_writer.add_tensor("token_embd.weight", table(rows))
    # Model.write, less prepare_tensors (there are no weights to convert).
    model.prepare_metadata(vocab_only=False)
    model.gguf_writer.write_header_to_file(path=model.fname_out)
    model.gguf_writer.write_kv_data_to_file()
    model.gguf_writer.write_tensors_to_file()
    model.gguf_writer.close()
    return cls.__name__


# A tiny SPM vocabulary, written with GGUFWriter's own tokenizer calls (for the split and
# bad-file tests: small files that are llama.cpp's writer's, whose bytes tests patch).
TINY_TOKENS = ["<unk>", "<s>", "</s>", "\u2581", "a", "b", "\u2581a", "ab"]
TINY_SCORES = [0.0, 0.0, 0.0, -1.0, -2.0, -3.0, -0.5, -0.7]
TINY_TYPES = [3, 3, 3, 1, 1, 1, 1, 1]  # <unk> CONTROL, as the converter types it
TINY_TEXTS = ["ab a", "ba b", "aab"]
# ggml's types, as tests/golden/gguf/ (tools/make_gguf_goldens.py) holds ggml's blocks of them.
QUANT_TYPES = ["f32", "f16", "bf16", "q8_0", "q4_0", "q4_1", "q5_0", "q5_1", "q2_K", "q3_K", "q4_K", "q5_K", "q6_K"]


def tiny_writer(gguf, path_name, vocab, split_max_tensors=0):
    w = gguf.GGUFWriter(path=None, arch="llama", split_max_tensors=split_max_tensors)
    w.add_name(path_name)
    w.add_context_length(4096)
    w.add_embedding_length(TABLE_COLUMNS if vocab is None else 256)
    w.add_block_count(0)
    n = len(TINY_TOKENS) if vocab is None else vocab
    w.add_tokenizer_model("llama")
    w.add_tokenizer_pre("default")
    w.add_token_list(TINY_TOKENS + [f"c{k}" for k in range(n - len(TINY_TOKENS))])
    w.add_token_scores(TINY_SCORES + [0.0] * (n - len(TINY_TOKENS)))
    w.add_token_types(TINY_TYPES + [1] * (n - len(TINY_TOKENS)))
    w.add_bos_token_id(1)
    w.add_eos_token_id(2)
    w.add_add_bos_token(True)
    w.add_add_eos_token(False)
    return w


def write(w, path):
    w.write_header_to_file(path=pathlib.Path(path))
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()


def tiny_files(gguf, out):
    """tiny.gguf (token_embd and output_norm), the same as a split of two parts, and one file per
    ggml type whose token_embd rows are ggml's own blocks (tests/golden/gguf/)."""
    made = []
    for name, split in (("tiny", 0), ("tiny-split", 1)):
        w = tiny_writer(gguf, name, None, split)
        w.add_tensor("token_embd.weight", table(len(TINY_TOKENS)).astype(np.float32))
        w.add_tensor("output_norm.weight", np.ones(TABLE_COLUMNS, dtype=np.float32))
        write(w, out / f"{name}.gguf")
        made += [name] if not split else ["tiny-split-00001-of-00002", "tiny-split-00002-of-00002"]
    golden = pathlib.Path(__file__).resolve().parent.parent / "tests" / "golden" / "gguf"  # ggml's blocks
    for name in QUANT_TYPES:
        blocks = np.concatenate([np.load(golden / f"{name}.blocks.npy"), np.load(golden / f"{name}.random_blocks.npy")
                                 .reshape(-1, np.load(golden / f"{name}.blocks.npy").shape[1])])
        w = tiny_writer(gguf, f"type-{name}", blocks.shape[0])
        qtype = getattr(gguf.GGMLQuantizationType, name.upper())
        w.add_tensor("token_embd.weight", np.ascontiguousarray(blocks, dtype=np.uint8), raw_dtype=qtype)
        write(w, out / f"type-{name}.gguf")
        made.append(f"type-{name}")
    return made


def llama_ids(driver, path, texts, tmp):
    blob = pathlib.Path(tmp) / "texts.bin"
    blob.write_bytes(b"".join(t.encode("utf-8") + b"\0" for t in texts))
    out = subprocess.run([str(driver), str(path), str(blob)], check=True, capture_output=True, text=True).stdout
    lines = out.split("\n")[:-1]
    assert len(lines) == len(texts), (path, len(lines))
    return [[int(x) for x in line.split()] for line in lines]


def sentencepiece_agreement(model_path, texts, ids):
    """Texts whose llama.cpp ids equal SentencePiece's with BOS, among those with no added token."""
    import sentencepiece as spm
    sp = spm.SentencePieceProcessor(model_file=str(model_path))
    plain = [k for k, t in enumerate(texts) if "[PAD]" not in t and "<sep>" not in t and "Assistant:" not in t]
    same = [k for k in plain if ids[k] == [sp.bos_id()] + sp.encode(texts[k])]
    return {"plain_texts": len(plain), "same_as_sentencepiece": len(same),
            "differ": [texts[k] for k in plain if k not in same]}


def sha256(path):
    return hashlib.sha256(pathlib.Path(path).read_bytes()).hexdigest()


def main():
    here = pathlib.Path(__file__).resolve().parent.parent
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--llama-cpp", required=True, help="llama.cpp: a bare git directory or a work tree")
    ap.add_argument("--models", default=str(here.parent.parent / "shared" / "models"))
    ap.add_argument("--out", default=str(here / "tests" / "golden" / "gguf_llamacpp"))
    ap.add_argument("--build", help="a build directory of libllama to use or make (default: a temporary one)")
    ap.add_argument("--llama2", help="LLaMA-2's tokenizer.model: also make a local, uncommitted llama2.gguf")
    ap.add_argument("--local-out", help="where the --llama2 file and its ids go (outside the repository)")
    args = ap.parse_args()
    logging.basicConfig(level=logging.WARNING)
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    models = pathlib.Path(args.models)
    with tempfile.TemporaryDirectory() as tmp:
        tmp = pathlib.Path(tmp)
        tree = export_tree(args.llama_cpp, tmp)
        driver = build_driver(tree, args.build or tmp / "build", tmp)
        converter, gguf = import_converter(tree)
        manifest = {"llama.cpp": {"repository": "https://github.com/ggml-org/llama.cpp", "commit": LLAMA_CPP_COMMIT,
                                  "converter": "convert_hf_to_gguf.py + gguf-py (GGUFWriter, SpecialVocab)",
                                  "ids": "libllama: llama_tokenize(add_special=true, parse_special=false)"},
                    "table": f"token_embd.weight F16 (vocab, {TABLE_COLUMNS}): "
                             "((i*7 + j*131) % 4001 - 2000) / 256",
                    "texts": "texts.txt", "files": {}}
        all_ids = {}
        (out / "texts.txt").write_text("".join(t + "\n" for t in TEXTS), encoding="utf-8")
        for name, (source, edits, what) in FILES.items():
            directory = model_dir(models / source, edits, tmp / "models" / name)
            path = out / f"{name}.gguf"
            cls = convert(converter, gguf, directory, path)
            ids = llama_ids(driver, path, TEXTS, tmp)
            all_ids[name] = ids
            entry = {"file": path.name, "sha256": sha256(path), "bytes": path.stat().st_size,
                     "model_directory": source, "converter_class": cls, "what": what}
            if name != "gemma":
                entry["check"] = sentencepiece_agreement(directory / "tokenizer.model", TEXTS, ids)
            manifest["files"][name] = entry
            print(f"{path}: {cls}, {entry['bytes']} bytes; {entry.get('check', '')}")
        for name in tiny_files(gguf, out):
            path = out / f"{name}.gguf"
            entry = {"file": path.name, "sha256": sha256(path), "bytes": path.stat().st_size,
                     "what": "written with GGUFWriter's own calls: a tiny SPM vocabulary (TINY_TOKENS)"}
            if name in ("tiny", "tiny-split-00001-of-00002"):
                all_ids[name] = llama_ids(driver, path, TINY_TEXTS, tmp)
                entry["texts"] = TINY_TEXTS
            manifest["files"][name] = entry
        (out / "ids.json").write_text(json.dumps(all_ids) + "\n")
        (out / "manifest.json").write_text(json.dumps(manifest, indent=1, ensure_ascii=False) + "\n")
        if args.llama2:
            local = pathlib.Path(args.local_out or sys.exit("--llama2 needs --local-out"))
            if local.resolve().is_relative_to(here):
                sys.exit("--local-out must be outside the repository: nothing made from LLaMA-2 is committed")
            local.mkdir(parents=True, exist_ok=True)
            directory = model_dir(models / "llama-openllama-3b-subst-mistralv1", {
                "tokenizer_config.added_tokens_decoder": {"0": ["<unk>", True], "1": ["<s>", True],
                                                          "2": ["</s>", True]},
                "config.vocab_size": 32000}, tmp / "models" / "llama2")
            (directory / "added_tokens.json").unlink()
            shutil.copyfile(args.llama2, directory / "tokenizer.model")
            path = local / "llama2.gguf"
            convert(converter, gguf, directory, path)
            ids = llama_ids(driver, path, TEXTS, tmp)
            (local / "ids.json").write_text(json.dumps({"llama2": ids}) + "\n")
            (local / "texts.txt").write_text("".join(t + "\n" for t in TEXTS), encoding="utf-8")
            print(f"{path} (local only): {sentencepiece_agreement(args.llama2, TEXTS, ids)}")


if __name__ == "__main__":
    main()
