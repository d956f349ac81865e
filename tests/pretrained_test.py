"""`--pretrained DIR`: the ids of Hugging Face's slow tokenizers (issue 30, items 2 and 6).

Every test runs the built binary ($EMBEDPE) on the model directories in
tests/models/hf/ (copies of ../shared/models, see tests/models/hf/SOURCES.md).
The goldens (tests/golden/hf_tokenizers/*.json) come from
tools/make_hf_tokenizer_goldens.py, which runs transformers v4.44.2 itself
(AutoTokenizer.from_pretrained(DIR, use_fast=False), from ../shared/tools/hfenv/):
input_ids, attention_mask and token_type_ids for single
texts and pairs, padding longest and max_length, left and right padding and
truncation. Neither torch nor transformers is needed here.
"""
import hashlib
import json
import pathlib
import shutil
import unittest

from cli_test import HERE, CliCase, run

MODELS = HERE / "models" / "hf"
GOLDENS = HERE / "golden" / "hf_tokenizers"


def goldens():
    return sorted(GOLDENS.glob("*.json"))


def variant_goldens():
    """Directories of tests/models/hf with tokenizer_config.json keys changed (VARIANTS in the generator)."""
    return sorted((GOLDENS / "variants").glob("*.json"))


def make_variant(golden, where):
    """The directory a variant golden was made from: its base with the changed keys."""
    directory = where / golden["model"]
    if not directory.exists():
        shutil.copytree(MODELS / golden["model"], directory)
        path = directory / "tokenizer_config.json"
        config = json.loads(path.read_text()) if path.exists() else {}
        config.update(golden["tokenizer_config"])
        path.write_text(json.dumps(config))
        for name, content in golden.get("files", {}).items():
            (directory / name).write_text(json.dumps(content))
    return directory


def case_args(case):
    args = []
    for text in case["texts"]:
        args += ["--text", text]
    for text in case.get("pairs", []):
        args += ["--text-pair", text]
    options = case["options"]
    if options.get("padding") == "max_length":
        args += ["--seq-len", str(options["max_length"])]
    if options.get("padding_side"):
        args += ["--padding-side", options["padding_side"]]
    if options.get("truncation_side"):
        args += ["--truncation-side", options["truncation_side"]]
    if case.get("pad_id") is not None:
        args += ["--pad-id", str(case["pad_id"])]
    return args


class GoldenCase(CliCase):
    def check_singles(self, golden, directory):
        """Each text alone (no padding): one run, --format ids gives one line per text."""
        singles = [c for c in golden["cases"] if c["name"].startswith("single ")]
        self.assertGreater(len(singles), 15)
        args = []
        for c in singles:
            args += ["--text", c["texts"][0]]
        # The goldens are the slow classes' (use_fast=False): a variant with a tokenizer.json asks for them.
        out = self.ok("tokenize", "--pretrained", str(directory), "--tokenizer", "slow", "--format", "ids",
                      *args).stdout.decode()
        lines = out.split("\n")[:-1]
        self.assertEqual(len(lines), len(singles))
        for c, line in zip(singles, lines):
            self.assertEqual([int(x) for x in line.split()], c["rows"][0]["input_ids"], repr(c["texts"][0]))

    def check_batch(self, golden, directory, case):
        r = run("tokenize", "--pretrained", str(directory), "--tokenizer", "slow", "--format", "json", *case_args(case))
        self.assertEqual(r.returncode, 0, r.stderr.decode())
        got = json.loads(r.stdout)
        self.assertEqual(got["input_ids"], [row["input_ids"] for row in case["rows"]])
        self.assertEqual(got["attention_mask"], [row["attention_mask"] for row in case["rows"]])
        if golden["has_token_type_ids"]:
            self.assertEqual(got["token_type_ids"], [row["token_type_ids"] for row in case["rows"]])
        else:
            self.assertNotIn("token_type_ids", got)


class GoldenTests(GoldenCase):
    def test_every_model_directory_has_goldens(self):
        dirs = sorted(p.name for p in MODELS.iterdir() if p.is_dir())
        self.assertEqual(len(dirs), 18)
        self.assertEqual([g.stem for g in goldens()], dirs)

    def test_single_texts_equal_hugging_face(self):
        for path in goldens():
            with self.subTest(path.stem):
                self.check_singles(json.loads(path.read_text()), MODELS / path.stem)

    def test_batches_and_pairs_equal_hugging_face(self):
        """Padding longest / max_length, left and right padding and truncation, pairs."""
        for path in goldens():
            golden = json.loads(path.read_text())
            for c in golden["cases"]:
                if c["name"].startswith("single "):
                    continue
                with self.subTest(f"{path.stem}: {c['name']}"):
                    self.check_batch(golden, MODELS / path.stem, c)

    def test_decode_equals_hugging_face(self):
        """Every decode of a directory in one run per mode (a line per --ids), except texts that
        hold a line break, which would split a line: those run alone."""
        for path in goldens():
            golden = json.loads(path.read_text())
            directory = str(MODELS / path.stem)
            decodes = [d for d in golden["decodes"] if d["ids"]]
            self.assertGreater(len(decodes), 10)
            for mode, key in (([], "text"), (["--skip-special-tokens"], "skip_special")):
                one_line = [d for d in decodes if not any(c in d[key] for c in "\r\n")]
                args = []
                for d in one_line:
                    args += ["--ids", ",".join(map(str, d["ids"]))]
                with self.subTest(f"{path.stem}: {key}"):
                    out = self.ok("decode", "--pretrained", directory, *mode, *args).stdout.decode()
                    self.assertEqual(out.split("\n")[:-1], [d[key] for d in one_line])
                for d in decodes:
                    if d in one_line:
                        continue
                    with self.subTest(f"{path.stem}: {key} {d['ids']}"):
                        ids = ",".join(map(str, d["ids"]))
                        out = self.ok("decode", "--pretrained", directory, *mode, "--ids", ids).stdout.decode()
                        self.assertEqual(out, d[key] + "\n")


class VariantTests(GoldenCase):
    """The code paths the directories' own files do not take: T5's and LLaMA's legacy=false, ALBERT
    with accents kept, lowercasing XLNet and DeBERTa, other source languages, NLLB's legacy
    template, a directory's padding and truncation sides."""

    BATCHES = ("batch longest", "batch max_length 6 both left", "pairs longest", "pairs max_length 10 left trunc")

    def test_variants_equal_hugging_face(self):
        self.assertGreaterEqual(len(variant_goldens()), 10)
        for path in variant_goldens():
            golden = json.loads(path.read_text())
            directory = make_variant(golden, self.tmp / path.stem)
            with self.subTest(path.stem):
                self.check_singles(golden, directory)
            for c in golden["cases"]:
                if c["name"] in self.BATCHES:
                    with self.subTest(f"{path.stem}: {c['name']}"):
                        self.check_batch(golden, directory, c)


class FlagTests(CliCase):
    def test_explicit_flags_override_the_directory(self):
        xlnet = str(MODELS / "xlnet-base-cased")
        got = json.loads(self.ok("tokenize", "--pretrained", xlnet, "--text", "a", "--text", "a b c").stdout)
        self.assertEqual(got["attention_mask"][0][0], 0, "XLNet pads on the left by default")
        got = json.loads(self.ok("tokenize", "--pretrained", xlnet, "--padding-side", "right", "--text", "a",
                                 "--text", "a b c").stdout)
        self.assertEqual(got["attention_mask"][0][-1], 0)
        t5 = str(MODELS / "t5-base-tarjimon")
        with_eos = self.ok("tokenize", "--pretrained", t5, "--format", "ids", "--text", "test").stdout.split()
        without = self.ok("tokenize", "--pretrained", t5, "--format", "ids", "--no-eos", "--text", "test").stdout.split()
        self.assertEqual(with_eos[:-1], without)
        self.assertEqual(with_eos[-1], b"1")

    def test_seq_len_at_or_below_the_template(self):
        """transformers' slow classes leave a text they cannot cut longer than max_length (truncate_sequences
        logs an error): refused, naming the text; an empty one fits a max_length equal to the template
        (the golden "empty text at max_length N"); a shorter max_length is refused before any text."""
        albert = str(MODELS / "albert-base-v2")
        self.fails(2, "cannot hold text 2", "tokenize", "--pretrained", albert, "--seq-len", "2", "--text", "", "--text", "Hello")
        self.fails(2, "is shorter than the 2 special tokens of AlbertTokenizer's template", "tokenize", "--pretrained", albert,
                   "--seq-len", "1", "--text", "")

    def test_model_and_pretrained_exclude_each_other(self):
        self.fails(2, "--pretrained", "tokenize", "--model", "x.model", "--pretrained", str(MODELS / "albert-base-v2"),
                   "--text", "a")


class CodeLlamaTests(CliCase):
    def test_an_infilling_prompt_takes_one_fill_token(self):
        """HF's CodeLlamaTokenizer.tokenize unpacks text.split("<FILL_ME>") into prefix and suffix: a second
        <FILL_ME> is a ValueError there, a usage error here."""
        d = str(MODELS / "codellama-7b-subst-mistralv1")
        self.ok("tokenize", "--pretrained", d, "--text", "a<FILL_ME>b")
        self.fails(2, "<FILL_ME> more than once", "tokenize", "--pretrained", d, "--text", "a<FILL_ME>b<FILL_ME>c")

    def test_without_infilling_tokens_a_fill_token_is_refused(self):
        d = self.tmp / "m"
        shutil.copytree(MODELS / "codellama-7b-subst-mistralv1", d)
        config = json.loads((d / "tokenizer_config.json").read_text())
        config.update({"prefix_token": None, "additional_special_tokens": []})
        (d / "tokenizer_config.json").write_text(json.dumps(config))
        self.ok("tokenize", "--pretrained", str(d), "--text", "a<FILL_ME>")
        self.fails(2, "no prefix, middle and suffix tokens", "tokenize", "--pretrained", str(d), "--text", "a<FILL_ME>b")


class BadDirectoryTests(CliCase):
    def test_missing_directory(self):
        self.fails(2, "does not exist", "tokenize", "--pretrained", str(self.tmp / "none"), "--text", "a")

    def test_missing_sentencepiece_file_names_what_is_there(self):
        d = self.tmp / "m"
        d.mkdir()
        (d / "tokenizer_config.json").write_text('{"tokenizer_class": "T5Tokenizer"}')
        err = self.fails(2, "spiece.model", "tokenize", "--pretrained", str(d), "--text", "a")
        self.assertIn("tokenizer_config.json", err)

    def test_unknown_class_lists_the_supported_ones(self):
        d = self.tmp / "m"
        d.mkdir()
        (d / "tokenizer_config.json").write_text('{"tokenizer_class": "FancyTokenizer"}')
        err = self.fails(2, "FancyTokenizer", "tokenize", "--pretrained", str(d), "--text", "a")
        self.assertIn("XLMRobertaTokenizer", err)

    def test_unknown_model_type_lists_the_supported_ones(self):
        d = self.tmp / "m"
        d.mkdir()
        (d / "config.json").write_text('{"model_type": "fancy"}')
        err = self.fails(2, "model_type fancy", "tokenize", "--pretrained", str(d), "--text", "a")
        self.assertIn("xlm-roberta", err)

    def test_wordpiece_and_bpe_files_are_not_sentencepiece(self):
        for files, said in (({"vocab.txt": "[PAD]\n"}, "WordPiece"), ({"merges.txt": "#\n", "vocab.json": "{}"}, "byte-level BPE")):
            d = self.tmp / said.replace(" ", "_")
            d.mkdir()
            (d / "config.json").write_text('{"model_type": "bert"}' if said == "WordPiece" else '{"model_type": "gpt2"}')
            for name, content in files.items():
                (d / name).write_text(content)
            with self.subTest(said):
                err = self.fails(2, said, "tokenize", "--pretrained", str(d), "--text", "a")
                self.assertIn("--ids", err)

    def test_a_tokenizer_json_is_the_fast_tokenizer_unless_slow_is_asked(self):
        d = self.tmp / "m"
        d.mkdir()
        (d / "config.json").write_text('{"model_type": "gpt2"}')
        (d / "tokenizer.json").write_text("{}")
        self.fails(2, 'tokenizer.json: has no "model"', "tokenize", "--pretrained", str(d), "--text", "a")
        err = self.fails(2, "tokenizer.json", "tokenize", "--pretrained", str(d), "--tokenizer", "slow", "--text", "a")
        self.assertIn("--ids", err)

    def test_every_command_with_pretrained_takes_tokenizer_slow(self):
        # One flag definition: tokenize, decode and diff each pass --tokenizer to the one loader (encode
        # reads the directory's layer first: FlagTests).
        d = self.tmp / "m"
        d.mkdir()
        (d / "config.json").write_text('{"model_type": "gpt2"}')
        (d / "tokenizer.json").write_text("{}")
        ids = self.tmp / "ids.npy"
        self.ok("encode", "--ids", "1,2", "--emit", "input_ids", "-o", str(ids))
        for args in (("tokenize", "--text", "a"), ("decode", "--ids", "1,2"), ("diff", str(ids), str(ids))):
            with self.subTest(args[0]):
                self.fails(2, 'tokenizer.json: has no "model"', *args, "--pretrained", str(d))
                err = self.fails(2, "tokenizer.json", *args, "--pretrained", str(d), "--tokenizer", "slow")
                self.assertNotIn('has no "model"', err)

    def test_unreadable_json(self):
        d = self.tmp / "m"
        d.mkdir()
        (d / "tokenizer_config.json").write_text("{not json")
        self.fails(2, "tokenizer_config.json is not valid JSON", "tokenize", "--pretrained", str(d), "--text", "a")

    def test_nothing_is_written(self):
        d = self.tmp / "m"
        d.mkdir()
        out = self.tmp / "o.json"
        self.fails(2, "names no tokenizer", "tokenize", "--pretrained", str(d), "--text", "a", "-o", str(out),
                   output=out)


def sha256_of_files(directory, names):
    """What `sha256sum NAMES | LC_ALL=C sort -k2 | sha256sum` prints in `directory`."""
    lines = sorted((name, hashlib.sha256((directory / name).read_bytes()).hexdigest()) for name in names)
    return hashlib.sha256("".join(f"{h}  {n}\n" for n, h in lines).encode()).hexdigest()


class ModelDigestTests(CliCase):
    """Issue 45, item 4 (the digest): an output's record of a --pretrained directory covers every file that
    decides the ids, and decode's "its SHA-256 matches" checks that same digest; a plain .model keeps its own
    sha256sum."""

    def directory(self):
        d = self.tmp / "llama"
        shutil.copytree(MODELS / "llama-openllama-3b-subst-mistralv1", d)
        return d

    def record(self, out):
        import numpy as np
        return json.loads(str(np.load(out)["config"]))["model"]

    def test_the_digest_covers_every_tokenizer_file(self):
        d = self.directory()
        out = self.tmp / "out.npz"
        self.ok("tokenize", "--pretrained", str(d), "--text", "Goodbye", "-o", str(out))
        # tokenizer_config.json names the class, so config.json (read, but not deciding the ids) is left out
        want = sha256_of_files(d, ["added_tokens.json", "special_tokens_map.json", "tokenizer.model",
                                   "tokenizer_config.json"])
        self.assertEqual(self.record(out)["sha256"], want)
        r = run("decode", str(out))
        self.assertEqual(r.returncode, 0, r.stderr.decode())
        self.assertIn("(its SHA-256 matches)", r.stderr.decode())

    def test_an_edit_to_added_tokens_decoder_is_not_a_match(self):
        d = self.directory()
        out = self.tmp / "out.npz"
        self.ok("tokenize", "--pretrained", str(d), "--text", "Goodbye", "-o", str(out))
        config = json.loads((d / "tokenizer_config.json").read_text())
        config["added_tokens_decoder"] = {"32000": {"content": "Goodbye", "special": True}}
        (d / "tokenizer_config.json").write_text(json.dumps(config))
        self.fails(2, "was made with another model", "decode", str(out))

    def test_an_edit_to_special_tokens_map_is_not_a_match(self):
        d = self.directory()
        out = self.tmp / "out.npz"
        self.ok("tokenize", "--pretrained", str(d), "--text", "Goodbye", "-o", str(out))
        (d / "special_tokens_map.json").write_text('{"bos_token": "<s>", "eos_token": "</s>", "unk_token": "<unk>"}')
        self.fails(2, "was made with another model", "decode", str(out))

    def test_a_plain_model_keeps_its_sha256sum(self):
        model = HERE / "models" / "sp-test.model"
        out = self.tmp / "out.npz"
        self.ok("tokenize", "--model", str(model), "--text", "Goodbye", "-o", str(out))
        self.assertEqual(self.record(out)["sha256"], hashlib.sha256(model.read_bytes()).hexdigest())

    def test_output_dir_hashes_what_the_layer_reads_not_the_whole_checkpoint(self):
        d = self.tmp / "xlmr"
        shutil.copytree(HERE / "models" / "hf_layer" / "xlm-roberta-base-subst-hfsample", d)
        weights = d / "model.safetensors"
        # 64 MiB of a tensor the layer does not use, appended to the checkpoint: not hashed
        data = weights.read_bytes()
        n = int.from_bytes(data[:8], "little")
        header = json.loads(data[8:8 + n])
        end = max(v["data_offsets"][1] for k, v in header.items() if k != "__metadata__")
        header["lm_head.unused"] = {"dtype": "F32", "shape": [16 << 20], "data_offsets": [end, end + (64 << 20)]}
        text = json.dumps(header).encode()
        text += b" " * (-len(text) % 8)
        with open(weights, "wb") as f:
            f.write(len(text).to_bytes(8, "little") + text + data[8 + n:])
            f.truncate(8 + len(text) + end + (64 << 20))
        info = json.loads(self.ok("info", "--pretrained", str(d), "--format", "json").stdout)
        used = sorted(t["name"] for t in info["used"])
        self.assertNotIn("lm_head.unused", used)
        (self.tmp / "ids.txt").write_text("5 6\n")
        self.ok("encode", "--pretrained", str(d), "--model", str(HERE / "models" / "sp-test.model"),
                "--input", str(self.tmp / "ids.txt"), "--input-format", "ids", "--output-dir", str(self.tmp / "dir"))
        manifest = json.loads((self.tmp / "dir" / "manifest.json").read_text())
        got = manifest["config"]["weight_files"][str(weights)]
        h = hashlib.sha256(len(text).to_bytes(8, "little") + text)
        body = 8 + len(text)
        new_header = json.loads(text)
        for name in used:
            lo, hi = new_header[name]["data_offsets"]
            with open(weights, "rb") as f:
                f.seek(body + lo)
                h.update(f.read(hi - lo))
        self.assertEqual(got, h.hexdigest())


if __name__ == "__main__":
    unittest.main()
