"""encode --pretrained DIR: the input layer a Hugging Face model directory's own
code computes (issue 30, items 3 to 6, the layer's half).

The directories (tests/models/hf_layer/) and the goldens (golden/hf_layer/)
come from tools/make_hf_layer_goldens.py: real config.json files of
/work/shared/models with small sizes, random checkpoints under the exact HF
tensor names, and the outputs of a PyTorch port of each upstream embedding
module (named there, with the commit read) for ids padded on the right and on
the left. The ids go in with --ids, so no tokenizer is involved; --model names
a 1000-piece SentencePiece model only so that the ids (all below 1000) are
accepted.

Tolerances: float32 (and, for Gemma, the weights' bfloat16 and float16,
exact). A plain lookup, Gemma's × √hidden_size and
the static sinusoid of Marian/Pegasus (computed in float64 and rounded, as
NumPy computes it there) are exact. LayerNorm (embedpe sums in float64,
PyTorch in float32), ALBERT's and DeBERTa's projections (likewise) and
M2M100's sinusoid (PyTorch computes exp, the product and sin in float32;
embedpe in float64) differ by a few ulps: rtol 1e-5, atol 2e-5.
"""
import json
import re
import shlex
import shutil
import unittest

import numpy as np

from cli_test import GOLDEN, HERE, CliCase, read_safetensors, run, write_safetensors

MODELS = HERE / "models" / "hf_layer"
GOLDENS = GOLDEN / "hf_layer"
SPM = str(HERE / "models" / "sp-test.model")  # 1000 pieces: accepts the golden ids

EXACT = {"t5-base-tarjimon", "mt5-small-subst-t5spiece", "llama-openllama-3b-subst-mistralv1",
         "mistral-7b-instruct-v0.3", "gemma-2b-it-subst-mistralv3", "gemma-h24", "xlnet-base-cased",
         "marian-opus-mt-en-mg", "pegasus-autonlp-subst-hfsample",
         # issue 47's types: a lookup, GPT-2's one float32 sum, Gemma 3's one product
         "gpt2", "gpt2-prefixed", "llama-3.1-8b", "qwen2.5-0.5b", "mistral-nemo-base-2407", "qwen3-0.6b",
         "deepseek-v3", "gemma-3-1b", "gemma-3-4b"}
# Issue 47's model types (tools/make_hf_layer_goldens.py, REAL_CONFIGS): transformers v4.44.2 run for real, or,
# for the types it lacks, the formula of their newer modelling code.
ISSUE47 = {"bert-base-uncased": "bert", "all-minilm-l6-v2": "bert", "bge-small-en-v1.5": "bert", "e5-small-v2": "bert",
           "distilbert-base-uncased": "distilbert", "roberta-base": "roberta", "gpt2": "gpt2", "gpt2-prefixed": "gpt2",
           "llama-3.1-8b": "llama", "qwen2.5-0.5b": "qwen2", "mistral-nemo-base-2407": "mistral",
           "qwen3-0.6b": "qwen3", "gemma-3-1b": "gemma3_text", "gemma-3-4b": "gemma3", "modernbert-base": "modernbert",
           "deepseek-v3": "deepseek_v3"}


def model_names():
    return sorted(p.stem for p in GOLDENS.glob("*.npz"))


def ids_args(ids, mask):
    args = []
    for row, m in zip(ids, mask):
        args += ["--ids", ",".join(str(int(i)) for i in row[m == 1])]
    return args


class PretrainedLayerTests(CliCase):
    def encode(self, name, side, *extra, directory=None):
        g = np.load(GOLDENS / (name + ".npz"))
        out = self.tmp / "out.npz"
        self.ok("encode", "--pretrained", str(directory or MODELS / name), "--model", SPM,
                *ids_args(g["ids_" + side], g["mask_" + side]), "--pad-id", str(int(g["pad_id"])),
                "--padding-side", "left" if side == "left" else "right", "--emit", "input_ids,attention_mask,output", *extra, "-o", str(out))
        return g, np.load(out)

    def test_every_model_type_equals_the_port_of_its_hf_module(self):
        names = model_names()
        self.assertGreaterEqual(len(names), 17)
        for name in names:
            for side in ("right", "left", "inner"):
                with self.subTest(name=name, side=side):
                    g, got = self.encode(name, side)
                    np.testing.assert_array_equal(got["input_ids"], g["ids_" + side])
                    np.testing.assert_array_equal(got["attention_mask"], g["mask_" + side])
                    want = g["out_" + side]
                    if name in EXACT:
                        np.testing.assert_array_equal(got["output"], want)
                    else:
                        np.testing.assert_allclose(got["output"], want, rtol=1e-5, atol=2e-5)

    def test_issue_47_types_have_goldens_from_their_reference(self):
        for name, model_type in ISSUE47.items():
            with self.subTest(name=name):
                g = np.load(GOLDENS / (name + ".npz"))
                cfg = json.loads((MODELS / name / "config.json").read_text())
                self.assertEqual(cfg["model_type"], model_type)
                reference = str(g["reference"])
                if model_type in ("qwen3", "gemma3_text", "gemma3", "modernbert", "deepseek_v3"):
                    self.assertTrue(reference.startswith("formula of " + model_type), reference)
                else:
                    self.assertEqual(reference, "transformers v4.44.2 AutoModel, hidden_states[0]")
                doc = json.loads(self.ok("info", "--pretrained", str(MODELS / name), "--format", "json").stdout)
                self.assertEqual(doc["model_type"], model_type)

    def test_gemma_in_the_weights_dtype(self):
        # torch_dtype=bfloat16 or float16: the normalizer √24 rounded to that dtype (bfloat16 4.90625),
        # the product rounded once. Exact. Gemma 3's embed_scale is the float32 √hidden_size cast to the
        # weights' dtype (gemma-3-1b is made with hidden 24 too).
        for name in ("gemma-h24", "gemma-3-1b", "gemma-3-4b"):
            g = np.load(GOLDENS / (name + ".npz"))
            for dtype in [d for d in ("bf16", "f16") if "out_right_" + d in g.files]:
                with self.subTest(name=name, dtype=dtype):
                    doc = json.loads(self.ok("encode", "--pretrained", str(MODELS / name), "--model", SPM,
                                             *ids_args(g["ids_right"], g["mask_right"]), "--pad-id", "0",
                                             "--dtype", dtype, "--format", "json").stdout)
                    np.testing.assert_array_equal(np.array(doc["output"], dtype=np.float32), g["out_right_" + dtype])
        name = "gemma-h24"
        doc = json.loads(self.ok("encode", "--pretrained", str(MODELS / name), "--model", SPM,
                                 *ids_args(g["ids_right"], g["mask_right"]), "--pad-id", "0", "--dtype", "bf16",
                                 "--scale", "sqrt", "--format", "json").stdout)  # float32's normalizer: not HF's
        self.assertFalse(np.array_equal(np.array(doc["output"], dtype=np.float32), g["out_right_bf16"]))

    def test_positions_differ_by_model_type_under_left_padding(self):
        # RoBERTa counts positions over ids != pad, BART by column: with left
        # padding the real tokens of XLM-R keep their vectors, mBART's move.
        for name, same in (("xlm-roberta-base-subst-hfsample", True), ("mbart-large-50-mmt-subst-hfsample", False)):
            g, right = self.encode(name, "right")
            _, left = self.encode(name, "left")
            short = 1  # the row of 3 tokens
            r = right["output"][short][g["mask_right"][short] == 1]
            l_ = left["output"][short][g["mask_left"][short] == 1]
            self.assertEqual(bool(np.allclose(r, l_, rtol=1e-5, atol=2e-5)), same, name)

    def test_an_explicit_flag_overrides_its_part(self):
        name = "mbart-large-50-mmt-subst-hfsample"
        g, base = self.encode(name, "right")
        _, scaled = self.encode(name, "right", "--scale", "none")
        self.assertFalse(np.allclose(base["output"], scaled["output"]))
        _, eps = self.encode(name, "right", "--layernorm-eps", "0.5")
        self.assertFalse(np.allclose(base["output"], eps["output"]))

    def test_no_token_type_leaves_the_directorys_table_out(self):
        name = "xlm-roberta-base-subst-hfsample"
        g, base = self.encode(name, "right")
        _, without = self.encode(name, "right", "--no-token-type")
        self.assertFalse(np.allclose(base["output"], without["output"]))

    def test_info_lists_what_was_understood(self):
        d = MODELS / "xlm-roberta-base-subst-hfsample"
        text = self.ok("info", "--pretrained", str(d)).stdout.decode()
        for word in ("xlm-roberta", "XLMRobertaForMaskedLM", "roberta.embeddings.word_embeddings.weight",
                     "(1002, 16)", "F32", "--position-ids padding-idx", "--layernorm-eps 1e-05",
                     "lm_head.bias", "roberta.encoder.layer.0.output.LayerNorm.weight"):
            self.assertIn(word, text)
        doc = json.loads(self.ok("info", "--pretrained", str(d), "--format", "json").stdout)
        self.assertEqual(doc["model_type"], "xlm-roberta")
        self.assertEqual(sorted(t["name"] for t in doc["unused"]),
                         ["lm_head.bias", "roberta.encoder.layer.0.output.LayerNorm.weight"])

    def test_info_summarises_the_unused_tensors(self):
        # Issue 45, item 7: a 7B checkpoint has hundreds of tensors the input layer does not use;
        # the text report counts them and shows the first few, --format json lists them all.
        # Before: one line each.
        d = self.tmp / "many"
        shutil.copytree(MODELS / "xlm-roberta-base-subst-hfsample", d)
        tensors, _ = read_safetensors(d / "model.safetensors")
        extra = {f"roberta.encoder.layer.{i}.attention.self.query.weight": np.zeros((16, 16), np.float32)
                 for i in range(300)}
        write_safetensors(d / "model.safetensors", {**{k: ("F32", v) for k, v in tensors.items()},
                                                    **{k: ("F32", v) for k, v in extra.items()}})
        text = self.ok("info", "--pretrained", str(d)).stdout.decode()
        unused_bytes = 300 * 16 * 16 * 4 + 4 * (1002 + 16)  # and lm_head.bias, the layer-0 LayerNorm weight
        self.assertIn(f"tensors the input layer does not use: 302 ({unused_bytes / 1024:.1f} KiB; --format json "
                      "lists them all)", text)
        self.assertIn("  ... and 297 more\n", text)
        self.assertLess(len(text.splitlines()), 30)
        doc = json.loads(self.ok("info", "--pretrained", str(d), "--format", "json").stdout)
        self.assertEqual(len(doc["unused"]), 302)

    def test_info_flags_rebuild_the_same_layer(self):
        # The equivalent explicit flags info prints give the same output as --pretrained.
        for name in ("xlm-roberta-base-subst-hfsample", "albert-base-v2", "m2m100-418m", "deberta-v2-embproj"):
            with self.subTest(name):
                d = MODELS / name
                doc = json.loads(self.ok("info", "--pretrained", str(d), "--format", "json").stdout)
                flags = []
                for k, v in doc["parameters"]:
                    flags += ["--" + k.replace("_", "-")] + ([v] if v != "" else [])
                g = np.load(GOLDENS / (name + ".npz"))
                out = self.tmp / "flags.npz"
                self.ok("encode", *flags, "--model", SPM, *ids_args(g["ids_left"], g["mask_left"]),
                        "--pad-id", str(int(g["pad_id"])), "--padding-side", "left", "--emit", "output",
                        "-o", str(out))
                _, got = self.encode(name, "left")
                np.testing.assert_array_equal(np.load(out)["output"], got["output"])

    def test_lookup_reads_the_directorys_table(self):
        d = MODELS / "t5-base-tarjimon"
        g = np.load(GOLDENS / "t5-base-tarjimon.npz")
        ids = [int(i) for i in g["ids_right"][0][:3]]
        r = run("lookup", "--pretrained", str(d), "--ids", ",".join(map(str, ids)), "--format", "json")
        self.assertEqual(r.returncode, 0, r.stderr.decode())
        doc = json.loads(r.stdout)
        np.testing.assert_array_equal(np.array(doc["rows"], dtype=np.float32), g["out_right"][0][:3])
        # This directory holds no tokenizer: said in a note, and no piece column.
        self.assertRegex(r.stderr.decode(), r"^embedpe: note: no piece column, without the directory's tokenizer "
                                             r"\(.*spiece.model, which is missing.*\)\n$")
        self.assertNotIn("pieces", doc)

    def test_lookup_names_the_pieces_by_the_directorys_tokenizer(self):
        d = self.tmp / "mistral"
        shutil.copytree(MODELS / "mistral-7b-instruct-v0.3", d)
        shutil.copy(SPM, d / "tokenizer.model")
        out = json.loads(self.ok("tokenize", "--pretrained", str(d), "--text", "Hello world, again.",
                                 "--format", "json").stdout)
        ids, tokens = out["input_ids"][0], out["tokens"][0]
        doc = json.loads(self.ok("lookup", "--pretrained", str(d), "--ids", ",".join(map(str, ids)),
                                 "--format", "json").stdout)
        self.assertEqual(doc["pieces"], tokens)
        table = self.ok("lookup", "--pretrained", str(d), "--ids", ",".join(map(str, ids))).stdout.decode()
        self.assertEqual([l.split("\t")[1] for l in table.splitlines() if not l.startswith("#")], tokens)


def readme_recipe_rows():
    """(model, flags) of README's table of how common models map onto the flags, as written."""
    readme = (HERE.parent / "README.md").read_text()
    table = re.search(r"\| model \| flags \|\n\|---\|---\|\n((?:\|.*\n)+)", readme)
    assert table, "README.md has no recipe table"
    rows = []
    for line in table.group(1).splitlines():
        cells = [c.strip() for c in line.strip("|").split("|")]
        flags = re.search(r"`([^`]*)`", cells[1]).group(1)
        rows.append((cells[0], shlex.split(flags)))
    return rows


RECIPES = GOLDENS / "recipes"
# Each README row: the checkpoint standing for W (or the directory for DIR), and its golden.
RECIPE_CASES = {
    '"Attention is all you need" (the Annotated Transformer)': (RECIPES / "annotated.safetensors", "annotated"),
    "BERT": (RECIPES / "bert.safetensors", "bert"),
    "RoBERTa / XLM-R / CamemBERT": (MODELS / "xlm-roberta-base-subst-hfsample" / "model.safetensors",
                                    "xlm-roberta-base-subst-hfsample"),
    "BART / mBART": (MODELS / "mbart-large-50-mmt-subst-hfsample" / "model.safetensors",
                     "mbart-large-50-mmt-subst-hfsample"),
    "GPT-2": (RECIPES / "gpt2.safetensors", "gpt2"),
    "ALBERT (factorized)": (MODELS / "albert-base-v2" / "model.safetensors", "albert-base-v2"),
    "LLaMA / Mistral (RoPE)": (MODELS / "llama-openllama-3b-subst-mistralv1" / "model.safetensors",
                               "llama-openllama-3b-subst-mistralv1"),
    "any model directory below": (MODELS / "deberta-v2-embproj", "deberta-v2-embproj"),
}


class ReadmeRecipeTests(CliCase):
    def test_every_recipe_row_as_written(self):
        rows = readme_recipe_rows()
        self.assertEqual(sorted(name for name, _ in rows), sorted(RECIPE_CASES))
        recipes = np.load(RECIPES / "recipes.npz")
        for name, flags in rows:
            path, golden = RECIPE_CASES[name]
            with self.subTest(name):
                args = [str(path) if a in ("W", "DIR") else a for a in flags]
                if golden in recipes:
                    ids, mask, pad, want = recipes["ids"], np.ones(recipes["ids"].shape, int), 0, recipes[golden]
                else:
                    g = np.load(GOLDENS / (golden + ".npz"))
                    ids, mask, pad, want = g["ids_right"], g["mask_right"], int(g["pad_id"]), g["out_right"]
                if "--pad-id" not in args:
                    args += ["--pad-id", str(pad)]
                out = self.tmp / "o.npz"
                self.ok("encode", *args, "--model", SPM, *ids_args(ids, mask), "--emit", "output", "-o", str(out))
                np.testing.assert_allclose(np.load(out)["output"], want, rtol=1e-5, atol=2e-5)

    def test_weights_holding_unused_tensors_get_one_line(self):
        w = MODELS / "xlm-roberta-base-subst-hfsample" / "model.safetensors"
        out = self.tmp / "o.npz"
        r = run("encode", "--weights", str(w), "--model", SPM, "--ids", "5,6", "-o", str(out))
        err = r.stderr.decode()
        self.assertEqual(r.returncode, 0, err)
        self.assertEqual(err.count("\n"), 1, err)
        for word in ("roberta.embeddings.position_embeddings.weight", "roberta.embeddings.LayerNorm.weight",
                     "roberta.embeddings.LayerNorm.bias", "--pe learned", "--layernorm", "--pretrained"):
            self.assertIn(word, err)
        self.ok("encode", "--weights", str(w), "--model", SPM, "--ids", "5,6", "-o", str(out), "--quiet")
        self.ok("encode", "--weights", str(w), "--model", SPM, "--ids", "5,6", "-o", str(out), "--pe", "learned",
                "--layernorm")

    def test_padding_idx_does_not_zero_a_loaded_row(self):
        w = MODELS / "xlm-roberta-base-subst-hfsample" / "model.safetensors"
        rows = []
        for extra in ([], ["--padding-idx", "5"]):
            doc = json.loads(self.ok("lookup", "--weights", str(w), "--ids", "5", "--format", "json",
                                     *extra).stdout)
            rows.append(np.array(doc["rows"], dtype=np.float32))
        np.testing.assert_array_equal(rows[0], rows[1])
        self.assertTrue(np.abs(rows[0]).sum() > 0)
        doc = json.loads(self.ok("lookup", "--d-model", "4", "--ids", "5", "--padding-idx", "5",
                                 "--format", "json").stdout)
        self.assertEqual(doc["rows"], [[0.0, 0.0, 0.0, 0.0]])


class PretrainedRopeTests(CliCase):
    def table(self, *args):
        out = self.tmp / "r.npy"
        self.ok("pe", *args, "--max-len", "40", "-o", str(out))
        return np.load(out)

    def test_the_models_own_rope_table(self):
        d = MODELS / "mistral-7b-instruct-v0.3"  # rope_theta 1e6, head_dim 16 / 2 heads
        got = self.table("--pretrained", str(d))
        # HF's LlamaRotaryEmbedding (Mistral's is a copy): inv_freq = 1 / base^(arange(0, dim, 2) / dim),
        # emb = cat(freqs, freqs), cos.
        dim, base = 8, 1e6
        inv_freq = 1.0 / (base ** (np.arange(0, dim, 2) / dim))
        freqs = np.outer(np.arange(40), inv_freq)
        want = np.cos(np.concatenate([freqs, freqs], axis=1))
        np.testing.assert_allclose(got, want, rtol=0, atol=1e-6)
        np.testing.assert_array_equal(got, self.table("--kind", "rope", "--d-model", "8", "--rope-theta", "1e6"))

    def test_rope_scaling_with_the_old_type_key(self):
        d = self.tmp / "llama"
        shutil.copytree(MODELS / "llama-openllama-3b-subst-mistralv1", d)
        cfg = json.loads((d / "config.json").read_text())
        cfg["rope_scaling"] = {"type": "linear", "factor": 2.0}
        (d / "config.json").write_text(json.dumps(cfg))
        got = self.table("--pretrained", str(d))
        want = self.table("--kind", "rope", "--d-model", "8", "--rope-scaling", "linear", "--rope-factor", "2")
        np.testing.assert_array_equal(got, want)
        self.assertFalse(np.array_equal(got, self.table("--kind", "rope", "--d-model", "8")))
        self.assertIn("--rope-scaling linear --rope-factor 2", self.ok("info", "--pretrained", str(d)).stdout.decode())

    def test_a_model_without_rope_is_refused(self):
        self.fails(2, "model_type t5 does not use RoPE", "pe", "--pretrained", str(MODELS / "t5-base-tarjimon"))
        for name in ("gpt2", "bert-base-uncased"):
            self.fails(2, "does not use RoPE", "pe", "--pretrained", str(MODELS / name))

    def test_llama3_qwen_and_mistral_nemo_tables(self):
        # LLaMA-3.1: rope_scaling llama3 with its four keys; Qwen2: rope_theta 1e6 and hidden / heads;
        # Qwen3 and Mistral-Nemo: head_dim given (8 after the shrink), rope_theta 1e6.
        for name, flags in (("llama-3.1-8b", ("--rope-theta", "500000", "--rope-scaling", "llama3", "--rope-factor", "8",
                                              "--rope-original-max-positions", "8192", "--rope-low-freq-factor", "1",
                                              "--rope-high-freq-factor", "4")),
                            ("qwen2.5-0.5b", ("--rope-theta", "1e6")), ("qwen3-0.6b", ("--rope-theta", "1e6")),
                            ("mistral-nemo-base-2407", ("--rope-theta", "1e6"))):
            with self.subTest(name=name):
                got = self.table("--pretrained", str(MODELS / name))
                np.testing.assert_array_equal(got, self.table("--kind", "rope", "--d-model", "8", *flags))

    def test_rope_tables_equal_transformers_own(self):
        # rope_cos: the cos that transformers v4.44.2's own *RotaryEmbedding module of the model computes
        # (float32) for positions 0..39; LLaMA-3.1's rope_scaling llama3 scales its lowest frequency by 1/8.
        names = [n for n in ISSUE47 if "rope_cos" in np.load(GOLDENS / (n + ".npz")).files]
        self.assertEqual(set(names), {"llama-3.1-8b", "qwen2.5-0.5b", "mistral-nemo-base-2407"})
        for name in names:
            with self.subTest(name=name):
                want = np.load(GOLDENS / (name + ".npz"))["rope_cos"]
                np.testing.assert_allclose(self.table("--pretrained", str(MODELS / name)), want, rtol=0, atol=2e-6)

    def test_rope_this_build_does_not_tabulate_is_refused_by_name(self):
        # Their positions are RoPE, but not one table: said, never guessed.
        for name, why in (("deepseek-v3", "qk_rope_head_dim"), ("gemma-3-1b", "rope_local_base_freq"),
                          ("gemma-3-4b", "rope_local_base_freq"),
                          ("modernbert-base", "local_rope_theta")):
            with self.subTest(name=name):
                err = self.fails(2, "uses RoPE that embedpe does not tabulate", "pe", "--pretrained",
                                 str(MODELS / name))
                self.assertIn(why, err)


class PretrainedWeightsTests(CliCase):
    def test_sharded_opens_only_the_shards_it_needs(self):
        src = MODELS / "xlm-roberta-sharded"
        d = self.tmp / "sharded"
        shutil.copytree(src, d)
        (d / "model-00003-of-00003.safetensors").unlink()  # holds only tensors the layer does not use
        g = np.load(GOLDENS / "xlm-roberta-sharded.npz")
        out = self.tmp / "o.npz"
        self.ok("encode", "--pretrained", str(d), "--model", SPM, *ids_args(g["ids_right"], g["mask_right"]),
                "--pad-id", str(int(g["pad_id"])), "--emit", "output", "-o", str(out))
        np.testing.assert_allclose(np.load(out)["output"], g["out_right"], rtol=1e-5, atol=2e-5)
        text = self.ok("info", "--pretrained", str(d)).stdout.decode()
        self.assertIn("lm_head.bias (in " + str(d / "model-00003-of-00003.safetensors") + ", not opened)", text)
        self.assertIn("roberta.embeddings.LayerNorm.bias (16,) F32 in " + str(d / "model-00002-of-00003.safetensors"),
                      text)

    def test_index_and_shards_must_agree(self):
        d = self.tmp / "sharded"
        shutil.copytree(MODELS / "xlm-roberta-sharded", d)
        index = json.loads((d / "model.safetensors.index.json").read_text())
        name = "roberta.embeddings.LayerNorm.weight"
        index["weight_map"][name] = "model-00001-of-00003.safetensors"
        (d / "model.safetensors.index.json").write_text(json.dumps(index))
        out = self.tmp / "o.npz"
        self.fails(2, "model-00001-of-00003.safetensors, which does not hold it", "encode", "--pretrained", str(d),
                   "--model", SPM, "--ids", "5,6", "-o", str(out), output=out)
        (d / "model-00001-of-00003.safetensors").unlink()
        self.fails(2, "names the shard model-00001-of-00003.safetensors", "encode", "--pretrained", str(d),
                   "--model", SPM, "--ids", "5,6", "-o", str(out), output=out)

    def test_a_pickle_is_refused_and_never_read(self):
        d = MODELS / "xlm-roberta-pickle"
        out = self.tmp / "o.npz"
        err = self.fails(2, "pytorch_model.bin, a pickle, which can run code", "encode", "--pretrained", str(d),
                         "--model", SPM, "--ids", "5,6", "-o", str(out), output=out)
        self.assertIn("convert", err)
        self.fails(2, "pytorch_model.bin", "info", "--pretrained", str(d))


class PretrainedRefusalTests(CliCase):
    def copy(self, name):
        d = self.tmp / name
        shutil.copytree(MODELS / name, d)
        return d

    def edit_config(self, d, **changes):
        cfg = json.loads((d / "config.json").read_text())
        cfg.update(changes)
        (d / "config.json").write_text(json.dumps(cfg))

    def refused(self, message, d, *extra):
        out = self.tmp / "o.npz"
        return self.fails(2, message, "encode", "--pretrained", str(d), "--model", SPM, "--ids", "5,6,7",
                          *extra, "-o", str(out), output=out)

    def test_missing_files_name_what_is_there(self):
        d = self.copy("t5-base-tarjimon")
        (d / "model.safetensors").unlink()
        self.refused("has no model.safetensors or model.safetensors.index.json (it holds config.json)", d)
        (d / "config.json").unlink()
        self.refused("has no config.json (it holds nothing)", d)
        self.refused("does not exist", self.tmp / "nowhere")

    def test_unreadable_files(self):
        d = self.copy("t5-base-tarjimon")
        (d / "config.json").write_text("{not json")
        self.refused("config.json is not valid JSON", d)
        d = self.copy("llama-openllama-3b-subst-mistralv1")
        w = d / "model.safetensors"
        w.write_bytes(w.read_bytes()[:200])
        self.refused(str(w), d)

    def test_unknown_model_type_lists_the_supported(self):
        d = self.copy("t5-base-tarjimon")
        self.edit_config(d, model_type="gpt_neox")
        err = self.refused("model_type gpt_neox is not supported; supported: ", d)
        for t in ("xlm-roberta", "m2m_100", "deberta-v2", "gemma", "bert", "gpt2", "qwen3", "modernbert",
                  "deepseek_v3", "gemma3_text"):
            self.assertIn(t, err)

    def test_config_that_disagrees_with_the_weights(self):
        d = self.copy("xlm-roberta-base-subst-hfsample")
        self.edit_config(d, hidden_size=32)
        self.refused("roberta.embeddings.word_embeddings.weight is (1002, 16) but config.json says (1002, 32)", d)
        self.edit_config(d, hidden_size=16, vocab_size=1000)
        self.refused("is (1002, 16) but config.json says (1000, 16)", d)
        self.edit_config(d, vocab_size=1002, max_position_embeddings=600)
        self.refused("roberta.embeddings.position_embeddings.weight is (514, 16) but config.json says (600, 16)", d)

    def test_issue_47_config_fields_mistyped_or_disagreeing(self):
        # One line naming the field, exit 2, nothing written. A field left out takes its config class's
        # default, as transformers does; where that disagrees with the weights, the shape check names it.
        for name, changes, message in (
                ("bert-base-uncased", {"type_vocab_size": "2"}, 'config.json: type_vocab_size is "2", not an integer'),
                ("bert-base-uncased", {"type_vocab_size": 3},
                 "bert.embeddings.token_type_embeddings.weight is (2, 16) but config.json says (3, 16) "
                 "(type_vocab_size × hidden_size)"),
                ("bert-base-uncased", {"layer_norm_eps": "1e-12"}, 'config.json: layer_norm_eps is "1e-12", not a number'),
                ("bert-base-uncased", {"max_position_embeddings": None},
                 "bert.embeddings.position_embeddings.weight is (512, 16) but config.json says (512, 16)"),
                ("all-minilm-l6-v2", {"max_position_embeddings": 256},
                 "embeddings.position_embeddings.weight is (512, 16) but config.json says (256, 16) "
                 "(max_position_embeddings × hidden_size)"),
                ("gpt2", {"n_positions": 1.5}, "config.json: n_positions is 1.5, not an integer"),
                ("gpt2", {"n_positions": 2048}, "wpe.weight is (1024, 16) but config.json says (2048, 16) "
                 "(n_positions × n_embd)"),
                ("gpt2", {"n_embd": None}, "config.json gives no n_embd"),
                ("gpt2", {"n_embd": -4}, "config.json: n_embd is -4, not a positive integer"),
                ("distilbert-base-uncased", {"dim": "16"}, 'config.json: dim is "16", not an integer'),
                ("modernbert-base", {"norm_bias": "false"}, 'config.json: norm_bias is "false", not true or false'),
                ("modernbert-base", {"norm_bias": True}, "the checkpoint holds no LayerNorm bias (looked for "
                 "model.embeddings.norm.bias or embeddings.norm.bias)"),
                ("modernbert-base", {"norm_eps": [1e-5]}, "config.json: norm_eps is [1e-05], not a number"),
                ("qwen3-0.6b", {"vocab_size": "1000"}, 'config.json: vocab_size is "1000", not an integer'),
                ("gemma-3-1b", {"hidden_size": 32}, "model.embed_tokens.weight is (1000, 24) but config.json says "
                 "(1000, 32)"),
                ("gemma-3-4b", {"text_config": None}, "config.json: model_type gemma3 gives no text_config object"),
                # The text model's fields are named where they are: under text_config.
                ("gemma-3-4b", {"text_config": {"vocab_size": "1000"}},
                 'config.json: text_config.vocab_size is "1000", not an integer'),
                ("gemma-3-4b", {"text_config": {"vocab_size": 1000, "hidden_size": -24}},
                 "config.json: text_config.hidden_size is -24, not a positive integer"),
                ("gemma-3-4b", {"text_config": {"vocab_size": 1000}},  # hidden_size: Gemma3TextConfig's 2304
                 "language_model.model.embed_tokens.weight is (1000, 24) but config.json says (1000, 2304)")):
            with self.subTest(name=name, changes=changes):
                d = self.tmp / name
                if d.exists():
                    shutil.rmtree(d)
                shutil.copytree(MODELS / name, d)
                cfg = json.loads((d / "config.json").read_text())
                for key, value in changes.items():
                    if value is None:
                        cfg.pop(key)
                    else:
                        cfg[key] = value
                (d / "config.json").write_text(json.dumps(cfg))
                if changes == {"max_position_embeddings": None}:  # left out: BertConfig's 512, the table's rows
                    self.ok("encode", "--pretrained", str(d), "--model", SPM, "--ids", "5,6,7", "--quiet",
                            "-o", str(self.tmp / "ok.npz"))
                    continue
                self.refused(message, d)

    def test_a_sequence_longer_than_the_position_table(self):
        d = MODELS / "mbart-large-50-mmt-subst-hfsample"
        ids = ",".join(["5"] * 1025)
        out = self.tmp / "o.npz"
        self.fails(2, "has 1026 rows; truncate with --seq-len (at most 1024)", "encode", "--pretrained", str(d), "--model", SPM,
                   "--ids", ids, "-o", str(out), output=out)


class HubNameTests(CliCase):
    """Issue 45, item 7: --pretrained ORG/NAME (as the README's examples write it) is found in the
    local Hugging Face cache, offline, as huggingface_hub finds it; a path that exists wins."""

    def cache(self, root, repo_id, commit="0123456789abcdef0123456789abcdef01234567"):
        repo = root / ("models--" + repo_id.replace("/", "--"))
        (repo / "refs").mkdir(parents=True)
        (repo / "refs" / "main").write_text(commit)  # as huggingface_hub writes it: no newline
        shutil.copytree(MODELS / "xlm-roberta-base-subst-hfsample", repo / "snapshots" / commit)
        return repo / "snapshots" / commit

    def embedpe(self, *args, env, cwd=None):
        import os
        import subprocess
        from cli_test import EMBEDPE
        full = {k: v for k, v in os.environ.items() if not k.startswith(("HF_", "HUGGINGFACE_", "XDG_CACHE"))}
        full.update(env)
        return subprocess.run([os.path.abspath(EMBEDPE), *args], capture_output=True, env=full, cwd=cwd, timeout=120,
                              stdin=subprocess.DEVNULL)

    def test_a_hub_name_is_found_in_the_local_cache(self):
        home = self.tmp / "hf-home"
        snapshot = self.cache(home / "hub", "FacebookAI/xlm-roberta-base")
        work = self.tmp / "work"
        work.mkdir()
        # Before: "FacebookAI/xlm-roberta-base does not exist".
        for env in ({"HF_HOME": str(home)}, {"HF_HUB_CACHE": str(home / "hub")},
                    {"HF_HOME": "/nowhere", "HUGGINGFACE_HUB_CACHE": str(home / "hub")},
                    {"XDG_CACHE_HOME": str(self.tmp), "HF_HOME": "${XDG_CACHE_HOME}/hf-home"}):
            with self.subTest(env=env):
                r = self.embedpe("info", "--pretrained", "FacebookAI/xlm-roberta-base", "--format", "json",
                                 env=env, cwd=work)
                self.assertEqual(r.returncode, 0, r.stderr.decode())
                self.assertEqual(json.loads(r.stdout)["pretrained"], str(snapshot))
        env = {"HF_HOME": str(home)}
        r = self.embedpe("encode", "--pretrained", "FacebookAI/xlm-roberta-base", "--ids", "0,5,2", "--quiet",
                         "--format", "json", env=env, cwd=work)
        self.assertEqual(r.returncode, 0, r.stderr.decode())
        # A path that exists wins over the cache: a local directory of that name.
        local = work / "FacebookAI" / "xlm-roberta-base"
        shutil.copytree(MODELS / "mbart-large-50-mmt-subst-hfsample", local)
        r = self.embedpe("info", "--pretrained", "FacebookAI/xlm-roberta-base", "--format", "json", env=env, cwd=work)
        self.assertEqual(json.loads(r.stdout)["model_type"], "mbart")
        # Not there: said plainly, one line, exit 2.
        r = self.embedpe("info", "--pretrained", "google/t5-small", env=env, cwd=work)
        err = r.stderr.decode()
        self.assertEqual(r.returncode, 2, err)
        self.assertEqual(err.count("\n"), 1, err)
        self.assertIn("--pretrained google/t5-small: no such file or directory, and the local Hugging Face cache "
                      f"has no snapshot of it ({home / 'hub' / 'models--google--t5-small' / 'refs' / 'main'}); "
                      "embedpe does not download", err)


def write_records(path, ids, mask, types=None):
    """Rows as Hugging Face dumps a batch, one JSON object per line: json.dumps(dict(enc))."""
    with open(path, "w") as f:
        for r in range(len(ids)):
            rec = {"input_ids": [int(i) for i in ids[r]], "attention_mask": [int(m) for m in mask[r]]}
            if types is not None:
                rec["token_type_ids"] = [int(t) for t in types[r]]
            f.write(json.dumps(rec) + "\n")


class IdsNeedNoTokenizerTests(CliCase):
    """Issue 45, item 5: ids index the embedding table's rows; no tokenizer is read or needed."""

    def test_a_directory_without_a_readable_tokenizer_takes_ids(self):
        # Before: refused, "MBart50Tokenizer reads sentencepiece.bpe.model, which is missing", or
        # for a class embedpe refuses "... --ids accepts ids made elsewhere" even with --ids.
        name = "mbart-large-50-mmt-subst-hfsample"
        g = np.load(GOLDENS / (name + ".npz"))
        refused = self.tmp / "refused"
        shutil.copytree(MODELS / name, refused)
        (refused / "tokenizer_config.json").write_text(json.dumps({"tokenizer_class": "BertTokenizer"}))
        for d in (MODELS / name, refused):
            with self.subTest(d=d.name):
                out = self.tmp / "o.npz"
                r = run("encode", "--pretrained", str(d), *ids_args(g["ids_right"], g["mask_right"]),
                        "--emit", "input_ids,attention_mask,output", "-o", str(out))
                self.assertEqual(r.returncode, 0, r.stderr.decode())
                self.assertIn("embedpe: note: the ids are used as given, without the directory's tokenizer",
                              r.stderr.decode())
                self.assertEqual(r.stderr.count(b"\n"), 1)
                got = np.load(out)
                # The directory's pad_token_id (1) pads, as config.json says.
                np.testing.assert_array_equal(got["input_ids"], g["ids_right"])
                np.testing.assert_allclose(got["output"], g["out_right"], rtol=1e-5, atol=2e-5)
                config = json.loads(str(got["config"]))
                self.assertIsNone(config["model"])
                self.assertEqual(config["input"], "ids")
                # No model recorded: decode asks for one instead of guessing.
                self.fails(2, "was made from ids with no tokenizer", "decode", str(out))
                self.ok("encode", "--pretrained", str(d), "--ids", "0,100,200,2", "--quiet", "-o", str(out))

    def test_ids_are_checked_against_the_tables_rows(self):
        name = "xlm-roberta-base-subst-hfsample"  # a (1002, 16) table
        table = f"{MODELS / name / 'model.safetensors'}:roberta.embeddings.word_embeddings.weight"
        # Before: "has 1002 rows but the model embedded default has 8000 pieces", as lookup did not say.
        doc = json.loads(self.ok("encode", "--weights", table, "--ids", "0,5,2,1001", "--scale", "none", "--no-token-type",
                                 "--pe", "none", "--emit", "input_ids,output", "--format", "json", "--quiet").stdout)
        rows = json.loads(self.ok("lookup", "--weights", table, "--ids", "0,5,2,1001", "--format", "json").stdout)
        np.testing.assert_array_equal(np.array(doc["output"][0], dtype=np.float32),
                                      np.array(rows["rows"], dtype=np.float32))
        self.assertIsNone(doc["config"]["model"])
        self.fails(2, "--ids 1: id 1002 is outside the embedding table " + table + " (0 to 1001)",
                   "encode", "--weights", table, "--ids", "0,1002", "--quiet")
        # Ids past a .model's pieces that the table has (DeBERTa's [PAD] 30001, mBART's 5759):
        # sp-test.model has 1000 pieces, the table 1002 rows. Before: "id 1001 is outside the
        # vocabulary of model sp-test.model (0 to 999)".
        doc = json.loads(self.ok("encode", "--weights", table, "--model", SPM, "--ids", "5,1001", "--format", "json",
                                 "--quiet").stdout)
        self.assertEqual(doc["input_ids"], [[5, 1001]])
        self.assertEqual(doc["tokens"][0][1], "")  # a row the .model has no piece for
        self.assertNotEqual(doc["tokens"][0][0], "")
        # Lines of input files alike, naming the line (exit 1: bad data).
        src = self.tmp / "ids.txt"
        src.write_text("5 6\n7 1002\n")
        self.fails(1, f"{src}:2: id 1002 is outside the embedding table", "encode", "--weights", table,
                   "--input-format", "ids", str(src), "--quiet")
        # A generated table's rows are the tokenizer's pieces: its own message stays.
        self.fails(2, "--ids 1: id 8000 is outside the vocabulary of model embedded default (0 to 7999)",
                   "encode", "--ids", "8000", "--d-model", "4")

    def test_hf_records_replay_every_golden_batch(self):
        # input_ids and attention_mask per line as HF dumps them; the mask says where the padding
        # is. No tokenizer, no --ids: any batch of any tokenizer goes through the directory's layer.
        names = model_names()
        for name in names:
            g = np.load(GOLDENS / (name + ".npz"))
            for side in ("right", "left", "inner"):
                with self.subTest(name=name, side=side):
                    src = self.tmp / "batch.jsonl"
                    write_records(src, g["ids_" + side], g["mask_" + side])
                    out = self.tmp / "o.npz"
                    self.ok("encode", "--pretrained", str(MODELS / name), "--input-format", "ids", str(src),
                            "--padding-side", "left" if side == "left" else "right", "--pad-id", str(int(g["pad_id"])),
                            "--emit", "input_ids,attention_mask,output", "--quiet", "-o", str(out))
                    got = np.load(out)
                    np.testing.assert_array_equal(got["input_ids"], g["ids_" + side])
                    np.testing.assert_array_equal(got["attention_mask"], g["mask_" + side])
                    if name in EXACT:
                        np.testing.assert_array_equal(got["output"], g["out_" + side])
                    else:
                        np.testing.assert_allclose(got["output"], g["out_" + side], rtol=1e-5, atol=2e-5)

    def test_a_record_padded_on_the_other_side_is_refused(self):
        g = np.load(GOLDENS / "xlm-roberta-base-subst-hfsample.npz")
        src = self.tmp / "batch.jsonl"
        write_records(src, g["ids_left"], g["mask_left"])
        self.fails(1, f"{src}:2: attention_mask pads on the left, and this run pads on the right: give "
                   "--padding-side left", "encode", "--pretrained", str(MODELS / "xlm-roberta-base-subst-hfsample"),
                   "--input-format", "ids", str(src), "--quiet", "-o", str(self.tmp / "o.npz"))

    def test_record_token_types_a_layer_cannot_add_are_refused(self):
        # GPT-2 has no token type table (GPT2Model would add wte[type]): a record's token_type_ids are
        # refused as --token-type-ids is, never dropped in silence; with --emit token_type_ids they are written.
        d = str(MODELS / "gpt2")
        src = self.tmp / "typed.jsonl"
        write_records(src, [[5, 6]], [[1, 1]], [[0, 1]])
        out = self.tmp / "o.npz"
        err = self.fails(2, "the records' token_type_ids would be ignored: the layer has no token type table", "encode",
                         "--pretrained", d, "--input-format", "ids", str(src), "--quiet", "-o", str(out), output=out)
        self.assertIn(str(src), err)
        self.ok("encode", "--pretrained", d, "--input-format", "ids", str(src), "--emit", "token_type_ids,output",
                "--quiet", "-o", str(out))
        np.testing.assert_array_equal(np.load(out)["token_type_ids"], [[0, 1]])

    def test_record_token_types_reach_the_layer(self):
        # ALBERT adds T[type]: a token's output depends only on its id, type and position, so a
        # record of mixed types equals, token by token, the runs of type 0 and of type 1.
        d = str(MODELS / "albert-base-v2")
        ids = [[5, 6, 7, 8, 9]]
        types = [0, 1, 1, 0, 1]
        src = self.tmp / "typed.jsonl"
        write_records(src, ids, [[1] * 5], [types])

        def output(*args):
            out = self.tmp / "o.npz"
            self.ok("encode", "--pretrained", d, *args, "--emit", "token_type_ids,output", "--quiet", "-o", str(out))
            return np.load(out)

        mixed = output("--input-format", "ids", str(src))
        np.testing.assert_array_equal(mixed["token_type_ids"], [types])
        zero = output("--ids", "5,6,7,8,9", "--token-type-ids", "0")["output"][0]
        one = output("--ids", "5,6,7,8,9", "--token-type-ids", "1")["output"][0]
        self.assertFalse(np.array_equal(zero, one))
        want = np.stack([one[l] if t else zero[l] for l, t in enumerate(types)])
        np.testing.assert_array_equal(mixed["output"][0], want)
        self.fails(2, "--token-type-ids is given, and the records give their own types: drop one", "encode",
                   "--pretrained", d, "--input-format", "ids", str(src), "--token-type-ids", "1", "--quiet",
                   "-o", str(self.tmp / "x.npz"))

    def test_pairs_with_token_type_ids_reach_bert(self):
        # Records of [CLS] A [SEP] B [SEP] with the template's token_type_ids (0 for [CLS] A [SEP], 1 for
        # B [SEP]): the golden is BertModel's hidden_states[0] given those types (transformers v4.44.2).
        names = [n for n in model_names() if "types_pair" in np.load(GOLDENS / (n + ".npz")).files]
        self.assertEqual(set(names), {"bert-base-uncased", "all-minilm-l6-v2", "bge-small-en-v1.5", "e5-small-v2"})
        for name in names:
            g = np.load(GOLDENS / (name + ".npz"))
            with self.subTest(name=name):
                src = self.tmp / "pairs.jsonl"
                write_records(src, g["ids_pair"], g["mask_pair"], g["types_pair"])
                out = self.tmp / "o.npz"
                self.ok("encode", "--pretrained", str(MODELS / name), "--input-format", "ids", str(src),
                        "--pad-id", str(int(g["pad_id"])), "--emit", "input_ids,attention_mask,token_type_ids,output",
                        "--quiet", "-o", str(out))
                got = np.load(out)
                np.testing.assert_array_equal(got["input_ids"], g["ids_pair"])
                np.testing.assert_array_equal(got["token_type_ids"], g["types_pair"])
                np.testing.assert_allclose(got["output"], g["out_pair"], rtol=1e-5, atol=2e-5)
                # The types matter: the same ids all of type 0 give another output.
                write_records(src, g["ids_pair"], g["mask_pair"])
                self.ok("encode", "--pretrained", str(MODELS / name), "--input-format", "ids", str(src),
                        "--pad-id", str(int(g["pad_id"])), "--emit", "output", "--quiet", "-o", str(out))
                self.assertFalse(np.allclose(np.load(out)["output"], g["out_pair"], rtol=1e-5, atol=2e-5))

    def test_bad_records_are_one_line_naming_the_line(self):
        d = str(MODELS / "xlm-roberta-base-subst-hfsample")
        for record, message in (
                ('{"input_ids": [[5, 6], [7, 8]]}', "input_ids holds arrays, a batch: write each sequence"),
                ('{"input_ids": [5, 6], "attention_mask": [1]}', "attention_mask has 1 values and input_ids 2"),
                ('{"input_ids": [5, 6, 7], "attention_mask": [1, 0, 1]}', "attention_mask has zeros between ones"),
                ('{"input_ids": [5, -6]}', "input_ids holds -6; expected whole numbers from 0 to 2147483647"),
                ('{"input_ids": [5, 6.5]}', "input_ids holds 6.5"),
                ('{"input_ids": [5], "attention_mask": [2]}', "attention_mask holds 2; expected whole numbers from 0 to 1"),
                ('{"input_ids": [5], "input_ids": [6]}', 'the key "input_ids" is given twice'),
                ('{"attention_mask": [1]}', "the record has no input_ids"),
                ('{"input_ids": "5 6"}', "input_ids is a JSON string, not an array"),
                ('{"input_ids": [5, 6]', "not a valid JSON record"),
                ('{"input_ids": [5, 6], "token_type_ids": [0]}', "token_type_ids has 1 values and input_ids 2")):
            with self.subTest(record=record):
                src = self.tmp / "bad.jsonl"
                src.write_text('{"input_ids": [5]}\n' + record + "\n")
                out = self.tmp / "o.npz"
                self.fails(1, f"{src}:2: {message}", "encode", "--pretrained", d, "--input-format", "ids",
                           str(src), "--quiet", "-o", str(out), output=out)


if __name__ == "__main__":
    unittest.main()
