#!/usr/bin/python3
"""Goldens for `--pretrained DIR`: the ids Hugging Face's slow tokenizers give.

Every golden comes from Hugging Face transformers v4.44.2 itself, run for real:
`AutoTokenizer.from_pretrained(DIR, use_fast=False)` and the class's own methods
(`__call__` with padding "longest"/"max_length", truncation, left/right padding
and truncation sides, text pairs; `decode` with and without
skip_special_tokens; `tokenize`, `convert_tokens_to_ids`).

transformers v4.44.2 (with huggingface_hub v0.24.6) comes from the offline
environment ../shared/tools/hfenv/ (its README.md says how to build it from
git mirrors of both; its STUBS.md says exactly what is stubbed: no compiled
`tokenizers`, so only the slow classes, and tokenizers v0.19.1's AddedToken
ported to Python). Run it with Debian's python3 (python3-torch,
python3-sentencepiece):

  MIRROR=/work/.mirror HFENV=/tmp/hfenv bash ../shared/tools/hfenv/setup.sh
  HFENV=/tmp/hfenv /usr/bin/python3 tools/make_hf_tokenizer_goldens.py [MODELS_DIR] [OUT_DIR]
  (defaults: tests/models/hf, tests/golden/hf_tokenizers)

The test suite reads only the goldens this writes; it needs neither transformers
nor this script.
"""
import json
import os
import sys

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
sys.path.insert(0, os.environ.get("HFENV", "/tmp/hfenv"))

import transformers  # noqa: E402
from transformers import AutoTokenizer  # noqa: E402

TRANSFORMERS_VERSION = "4.44.2"
if transformers.__version__ != TRANSFORMERS_VERSION:
    sys.exit(f"transformers {transformers.__version__} found, {TRANSFORMERS_VERSION} needed (see ../shared/tools/hfenv/)")


def load(directory):
    """AutoTokenizer.from_pretrained(DIR, use_fast=False): the slow class, never a fast one."""
    tok = AutoTokenizer.from_pretrained(directory, use_fast=False, local_files_only=True)
    assert not tok.is_fast, type(tok).__name__
    return tok


# ----------------------------------------------------------------- goldens
TEXTS = [
    "Hello world",
    "The quick brown fox jumps over the lazy dog.",
    "",
    " ",
    "  leading and trailing spaces  ",
    "tabs\tand\nnewlines\r\nhere",
    "multiple     spaces   between",
    "Café naïve résumé, ÀÉÎÕÜ façade",
    "Straße İstanbul ǅ ﬁ ligature ½ ²",
    "日本語のテキスト 中文文本 한국어",
    "emoji 😀👍🏽 and ZWJ 👩‍👩‍👧",
    "numbers 1,000,000 and 3,5 and 12,",
    "``quoted'' text",
    "Unicode spaces:\u00a0nbsp\u2003em\u3000ideographic",
    "\u2581already underlined \u2581x",
    "UPPER lower MiXeD",
    "a",
    "Ünïcödé 🚀 mixed with ASCII and 数字 123",
    ">>fra<< Bonjour, Mr. O'Neil isn't here >>x<< ok",
    "soft\u00adhyphen and zero\u200bwidth",
    "word " * 40,
    "OOV pieces: \u2603 \U0001d518\U0001d51e \U0002000b \u0e3f \u2cc0 end",
]


def special_texts(tok):
    """Texts with the tokenizer's own added tokens in them (split out before SentencePiece)."""
    added = sorted(tok._added_tokens_encoder.keys(), key=lambda t: tok._added_tokens_encoder[t])
    picked = added[:3] + added[-2:] if len(added) > 5 else added
    out = []
    for t in picked:
        out.append(f"before {t} after")
        out.append(f"{t}start")
        out.append(f"end{t}")
        out.append(f"  spaced  {t}  around  ")
    for t in picked[:2]:
        out.append(f"{t}{t} {t}\t{t}\n{t}")
        out.append(f"x {t}. {t}, y")
        out.append(f"\u2581{t}\u2581 {t} ")
    if tok.mask_token is not None:
        out.append(f"a {tok.mask_token} b")
        out.append(f"a{tok.mask_token}b   {tok.mask_token}   c")
    fill = getattr(tok, "fill_token", None)  # CodeLlamaTokenizer: prefix<FILL_ME>suffix is an infilling prompt
    if fill is not None:
        out += [f"def f(x):{fill}    return x", f"a {fill}", f"{fill}b", f" {fill} ", f"x\u2581{fill}\u2581y"]
    specials = [t for t in tok.all_special_tokens if t != tok.mask_token][:4]
    if specials:
        out.append(" ".join(f"w{i} {t}" for i, t in enumerate(specials)) + " end")
        out.append("".join(specials) + "tail")
    return out


PAIRS = [
    ("Hello world", "How are you?"),
    ("A much longer first text that goes on and on for a while", "short"),
    ("short", "A much longer second text that goes on and on for a while"),
    ("", "second only"),
    ("Café", "日本語"),
]


def run(tok, texts, pairs=None, padding="longest", max_length=None, padding_side=None, truncation_side=None,
        pad_id=None):
    """tok(texts, pairs, padding=..., truncation=..., max_length=...) as a list of rows. HF refuses to pad
    without a pad token (users set one): PAD_ID is then set as the pad token for this call only, and the
    tests pass it as --pad-id."""
    saved = tok.padding_side, tok.truncation_side, tok._pad_token
    if padding_side:
        tok.padding_side = padding_side
    if truncation_side:
        tok.truncation_side = truncation_side
    if pad_id is not None:
        tok.pad_token_id = pad_id
    try:
        out = tok(texts, pairs, padding=padding, truncation=max_length is not None, max_length=max_length)
    finally:
        tok.padding_side, tok.truncation_side, tok._pad_token = saved
    keys = list(out.keys())
    return [{k: out[k][i] for k in keys} for i in range(len(texts))]


def goldens_for(directory):
    tok = load(directory)
    pad_id = tok.pad_token_id
    case_pad = None if pad_id is not None else 0
    cases = []

    def add(name, texts, pairs=None, **kw):
        rows = run(tok, texts, pairs, pad_id=case_pad, **kw)
        case = {"name": name, "texts": texts, "options": kw, "rows": rows}
        if pairs is not None:
            case["pairs"] = pairs
        if case_pad is not None:
            case["pad_id"] = case_pad
        cases.append(case)

    singles = TEXTS + special_texts(tok)
    # one text per case (no padding), then batches in each mode
    for i, t in enumerate(singles):
        add(f"single {i}", [t])
    add("batch longest", TEXTS)
    add("batch longest left", TEXTS, padding_side="left")
    add("batch longest right", TEXTS, padding_side="right")
    for n in (4, 7, 16):
        add(f"batch max_length {n}", TEXTS, padding="max_length", max_length=n)
    add("batch max_length 6 left pad", TEXTS, padding="max_length", max_length=6, padding_side="left")
    add("batch max_length 6 left trunc", TEXTS, padding="max_length", max_length=6, truncation_side="left")
    add("batch max_length 6 both left", TEXTS, padding="max_length", max_length=6, padding_side="left",
        truncation_side="left")
    a = [p[0] for p in PAIRS]
    b = [p[1] for p in PAIRS]
    add("pairs longest", a, b)
    add("pairs longest left", a, b, padding_side="left")
    for n in (8, 12):
        add(f"pairs max_length {n}", a, b, padding="max_length", max_length=n)
    add("pairs max_length 10 left trunc", a, b, padding="max_length", max_length=10, truncation_side="left")
    add("pairs max_length 10 left pad", a, b, padding="max_length", max_length=10, padding_side="left")
    # max_length equal to the template's size: an empty text fits it exactly (a longer one HF leaves
    # longer than max_length, which embedpe refuses, tests/pretrained_test.py)
    template = len(tok("")["input_ids"])
    if template > 0:
        add(f"empty text at max_length {template}", [""], padding="max_length", max_length=template)

    def decoded(row):
        ids = [i for i, m in zip(row["input_ids"], row["attention_mask"]) if m]
        return {"ids": ids, "text": tok.decode(ids), "skip_special": tok.decode(ids, skip_special_tokens=True)}

    decodes = [decoded(row) for row in cases[len(singles)]["rows"]]  # "batch longest"
    # every single text (added tokens inside, OOV pieces) and every pair, with their special tokens
    more = [decoded(c["rows"][0]) for c in cases[:len(singles)]]
    more += [decoded(row) for c in cases if c["name"] == "pairs longest" for row in c["rows"]]
    # ids the texts do not give: each added token alone and between pieces, the unk id
    unk = tok.unk_token_id
    piece = tok.convert_tokens_to_ids(tok.tokenize("a"))
    for index in sorted(tok._added_tokens_decoder)[:6] + sorted(tok._added_tokens_decoder)[-3:]:
        more.append(decoded({"input_ids": piece + [index] + piece + [index, index], "attention_mask": [1] * (len(piece) * 2 + 3)}))
    if unk is not None:
        more.append(decoded({"input_ids": piece + [unk] + piece, "attention_mask": [1] * (len(piece) * 2 + 1)}))
    return {
        "class": type(tok).__name__,
        "padding_side": tok.padding_side,
        "truncation_side": tok.truncation_side,
        "pad_token_id": pad_id,
        "has_token_type_ids": "token_type_ids" in tok.model_input_names,
        "cases": cases,
        "decodes": decodes,
        "more_decodes": more,
    }


# Variants: a directory of tests/models/hf with keys of its tokenizer_config.json changed, for
# the code paths its own files do not take (T5's and LLaMA's legacy=false, ALBERT's
# keep_accents, other source languages, ...). The tests build the same directory.
VARIANTS = {
    "t5-legacy-false": ("t5-base-tarjimon", {"legacy": False}),
    "mt5-legacy-false": ("mt5-small-subst-t5spiece", {"legacy": False}),
    "openllama-legacy-false-eos": ("llama-openllama-3b-subst-mistralv1", {"legacy": False, "add_eos_token": True}),
    "mistral-no-bos": ("mistral-7b-instruct-v0.3", {"add_bos_token": False, "add_eos_token": True}),
    "albert-cased-accents": ("albert-base-v2", {"do_lower_case": False, "keep_accents": True, "remove_space": False}),
    "xlnet-lower": ("xlnet-base-cased", {"do_lower_case": True}),
    "deberta-lower": ("deberta-v3-large-subst-albertspiece", {"do_lower_case": True}),
    # SPMTokenizer's split_by_punct: each punctuation character a word of its own, each word encoded alone
    "deberta-split-by-punct": ("deberta-v3-large-subst-albertspiece", {"split_by_punct": True}),
    "deberta-split-by-punct-lower": ("deberta-v3-large-subst-albertspiece", {"split_by_punct": True,
                                                                             "do_lower_case": True}),
    "mbart50-fr": ("mbart-large-50-mmt-subst-hfsample", {"src_lang": "fr_XX"}),
    "mbart-ro": ("mbart-large-cc25-de-pruned", {"src_lang": "ro_RO"}),
    "nllb-fra-legacy": ("nllb-200-distilled-600m-subst-hfsample", {"src_lang": "fra_Latn", "legacy_behaviour": True}),
    "m2m100-fr": ("m2m100-418m", {"src_lang": "fr"}),
    "llama-left": ("llama-openllama-3b-subst-mistralv1", {"padding_side": "left", "truncation_side": "left"}),
    "mt5-split-special": ("mt5-small-subst-t5spiece", {"split_special_tokens": True, "extra_ids": 3}),
    "mt5-extra-ids": ("mt5-small-subst-t5spiece", {"extra_ids": 100}),
    # a tokenizer.json beside a tokenizer_config.json without added_tokens_decoder: its added tokens
    # are registered with their own flags (over the class's <extra_id_N>, lstrip/rstrip True)
    "mt5-tokenizer-json": ("mt5-small-subst-t5spiece", {"extra_ids": 3}, {"tokenizer.json": {"added_tokens": [
        {"id": 32002, "content": "<extra_id_0>", "single_word": False, "lstrip": False, "rstrip": False,
         "normalized": False, "special": True},
        {"id": 32003, "content": "<new_word>", "single_word": True, "lstrip": False, "rstrip": True,
         "normalized": True, "special": False}], "model": {"type": "Unigram", "vocab": [["<pad>", 0.0]]}}}),
    "xlnet-tokenizer-json": ("xlnet-base-cased", {}, {"tokenizer.json": {"added_tokens": [
        {"id": 6, "content": "<mask>", "single_word": False, "lstrip": False, "rstrip": True, "normalized": False,
         "special": True},
        {"id": 32000, "content": "<sp-tok>", "single_word": False, "lstrip": True, "rstrip": False,
         "normalized": False, "special": True}], "model": {"type": "Unigram", "vocab": [["<unk>", 0.0]]}}}),
    "xlmr-split-special": ("xlm-roberta-base-subst-hfsample", {"split_special_tokens": True}),
}


def make_variant(models, base, overrides, directory, files=None):
    """Copies tests/models/hf/BASE to DIRECTORY with OVERRIDES merged into its tokenizer_config.json
    and FILES ({name: JSON}) written into it."""
    import shutil
    shutil.copytree(os.path.join(models, base), directory)
    path = os.path.join(directory, "tokenizer_config.json")
    config = {}
    if os.path.isfile(path):
        with open(path, encoding="utf-8") as f:
            config = json.load(f)
    config.update(overrides)
    with open(path, "w", encoding="utf-8") as f:
        json.dump(config, f)
    for name, content in (files or {}).items():
        with open(os.path.join(directory, name), "w", encoding="utf-8") as f:
            json.dump(content, f)


def write(out, name, golden):
    with open(os.path.join(out, name + ".json"), "w", encoding="utf-8") as f:
        json.dump(golden, f, ensure_ascii=False, indent=None, separators=(",", ":"))
        f.write("\n")
    print(f"{name}: {golden['class']}, {len(golden['cases'])} cases", file=sys.stderr)


def main():
    import tempfile
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    models = sys.argv[1] if len(sys.argv) > 1 else os.path.join(root, "tests", "models", "hf")
    out = sys.argv[2] if len(sys.argv) > 2 else os.path.join(root, "tests", "golden", "hf_tokenizers")
    os.makedirs(out, exist_ok=True)
    for name in sorted(os.listdir(models)):
        directory = os.path.join(models, name)
        if not os.path.isdir(directory):
            continue
        golden = goldens_for(directory)
        golden["model"] = name
        write(out, name, golden)
    variants = os.path.join(out, "variants")
    os.makedirs(variants, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        for name, (base, overrides, *files) in sorted(VARIANTS.items()):
            directory = os.path.join(tmp, name)
            make_variant(models, base, overrides, directory, files[0] if files else None)
            golden = goldens_for(directory)
            golden.update({"model": base, "tokenizer_config": overrides})
            if files:
                golden["files"] = files[0]
            write(variants, name, golden)


if __name__ == "__main__":
    main()
