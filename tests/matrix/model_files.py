"""A model directory's files are inputs (issue 45, items 2 and 3): every file
a --pretrained directory's tokenizer or layer reads goes through the one
reader of inputs (regular files only, a size cap, noted so that no output
replaces it, through -o or standard output), and its JSON through the one
JSON reader (a size and depth cap, a key twice refused, every value of the
type it is read as). Each refusal is one line naming the file (and key):
exit 2, as every bad input file."""
import json
import os
import shutil

from matrix import ABSENT, TESTS, UNCHANGED, Case

LLAMA = TESTS / "models" / "hf" / "llama-openllama-3b-subst-mistralv1"   # tokenizer files and config.json
SHARDED = TESTS / "models" / "hf_layer" / "xlm-roberta-sharded"          # config.json, an index and 3 shards
SPM = "{tests}/models/sp-test.model"
TOKENIZE = ["tokenize", "--pretrained", "{tmp}/d", "--text", "hi", "--format", "json"]


def copy(source, then=None):
    def setup(tmp):
        shutil.copytree(source, tmp / "d")
        if then:
            then(tmp / "d")
    return setup


def edit(name, change):
    """Copies LLAMA with d/NAME's JSON changed by `change(doc)` (which returns the new doc or text)."""
    def then(d):
        doc = json.loads((d / name).read_text()) if (d / name).exists() else {}
        new = change(doc)
        (d / name).write_text(new if isinstance(new, str) else json.dumps(new))
    return copy(LLAMA, then)


def replace_with(name, make):
    def then(d):
        (d / name).unlink()
        make(d / name)
    return then


def fifo(path):
    os.mkfifo(path)


def sparse(size):
    def make(path):
        with open(path, "wb") as f:
            f.truncate(size)
    return make


def set_key(key, value):
    def change(doc):
        doc[key] = value
        return doc
    return change


def raw_added_tokens(text):
    return edit("added_tokens.json", lambda doc: text)


def decoder_key(key):
    return edit("tokenizer_config.json",
                set_key("added_tokens_decoder", {key: {"content": "<x>", "special": True}}))


CASES = []

# ---- no output replaces a file the model reads: -o, and standard output appended to (>>)
for name in ("config.json", "tokenizer_config.json", "special_tokens_map.json", "added_tokens.json", "tokenizer.model"):
    CASES.append(Case(f"-o over the directory's {name} is refused",
                      [*TOKENIZE, "-o", "{tmp}/d/" + name], 2, "is the same file as the input",
                      files={"{tmp}/d/" + name: UNCHANGED}, setup=copy(LLAMA)))
    CASES.append(Case(f">> onto the directory's {name} is refused",
                      [*TOKENIZE], 2, "is the same file as the input", setup=copy(LLAMA),
                      stdout_file="{tmp}/d/" + name, stdout_mode="ab", files={"{tmp}/d/" + name: UNCHANGED}))
def with_tokenizer(d):
    for f in LLAMA.iterdir():
        if f.name != "config.json":
            shutil.copy(f, d / f.name)


for name in ("model.safetensors.index.json", "model-00001-of-00003.safetensors"):
    CASES.append(Case(f"tokenize -o over the model's {name} is refused, though the tokenizer does not read it",
                      # The format the name says (JSON for the index, .safetensors for a shard), so
                      # that only the input check can refuse it.
                      [*TOKENIZE[:-2], "-o", "{tmp}/d/" + name], 2, "is the same file as the input",
                      files={"{tmp}/d/" + name: UNCHANGED}, setup=copy(SHARDED, with_tokenizer)))
for name in ("config.json", "model.safetensors.index.json"):
    CASES.append(Case(f"encode -o over the model's {name} is refused",
                      ["encode", "--pretrained", "{tmp}/d", "--model", SPM, "--ids", "5,6", "-o", "{tmp}/d/" + name],
                      2, "is the same file as the input", files={"{tmp}/d/" + name: UNCHANGED},
                      setup=copy(SHARDED)))

# A tokenizer.json directory (the fast tokenizer): the rest of the model is an input there too,
# though the tokenizer reads none of it (a real all-MiniLM directory, with a weights file added).
MINILM = TESTS / "golden" / "tokenizer_json" / "all_minilm_l6_v2_st"
FAST_TOKENIZE = ["tokenize", "--pretrained", "{tmp}/d", "--text", "hi", "--format", "json"]


def with_weights(d):
    (d / "model.safetensors").write_bytes(b"\x08\x00\x00\x00\x00\x00\x00\x00{}      ")
    (d / "vocab.txt").write_text("[PAD]\nhi\n")


for name in ("config.json", "model.safetensors", "tokenizer.json", "tokenizer_config.json",
             "special_tokens_map.json", "vocab.txt"):
    # The format the name says for the weights, so that only the input check can refuse it.
    argv = FAST_TOKENIZE[:-2] if name.endswith(".safetensors") else FAST_TOKENIZE
    CASES.append(Case(f"tokenizer.json directory: -o over its {name} is refused",
                      [*argv, "-o", "{tmp}/d/" + name], 2, "is the same file as the input",
                      files={"{tmp}/d/" + name: UNCHANGED}, setup=copy(MINILM, with_weights)))
    CASES.append(Case(f"tokenizer.json directory: >> onto its {name} is refused",
                      [*FAST_TOKENIZE], 2, "is the same file as the input", setup=copy(MINILM, with_weights),
                      stdout_file="{tmp}/d/" + name, stdout_mode="ab", files={"{tmp}/d/" + name: UNCHANGED}))
CASES += [
    # An HF cache snapshot whose blob is gone: a link to nothing is a broken file, not an absent one
    # (the slow class beside it is never taken silently instead).
    Case("a tokenizer.json that links to nothing is refused, not skipped for the slow class",
         [*TOKENIZE], 2, "tokenizer.json: cannot open it: it is a symbolic link to nothing",
         setup=copy(LLAMA, lambda d: os.symlink("../blobs/missing", d / "tokenizer.json"))),
    Case("a tokenizer_config.json that links to nothing is refused, not read as absent",
         [*TOKENIZE], 2, "tokenizer_config.json: cannot open it: it is a symbolic link to nothing",
         setup=copy(LLAMA, replace_with("tokenizer_config.json", lambda p: os.symlink("../blobs/missing", p)))),
    Case("encode --pretrained of a tokenizer.json alone says it has no input layer",
         ["encode", "--pretrained", "{tmp}/d/tokenizer.json", "--text", "hi", "-o", "{tmp}/out.npz"], 2,
         "holds a tokenizer but no input layer", files={"{tmp}/out.npz": ABSENT}, setup=copy(MINILM)),
    Case("encode --pretrained of a directory of tokenizer files alone says it has no input layer",
         ["encode", "--pretrained", "{tmp}/d", "--text", "hi", "-o", "{tmp}/out.npz"], 2,
         "holds a tokenizer but no input layer", files={"{tmp}/out.npz": ABSENT},
         setup=copy(MINILM, lambda d: (d / "config.json").unlink())),
]

# ---- not a regular file, or too large: refused at once, never waited on or read whole
for command in (["encode", "--pretrained", "{tmp}/d", "--model", SPM, "--ids", "5,6", "-o", "{tmp}/out.npz"],
                ["info", "--pretrained", "{tmp}/d"],
                ["lookup", "--pretrained", "{tmp}/d", "--ids", "5"],
                ["quantize", "--pretrained", "{tmp}/d", "-o", "{tmp}/out.safetensors"]):
    for name in ("config.json", "model.safetensors.index.json"):
        CASES.append(Case(f"{command[0]}: {name} as a FIFO is refused, not waited on",
                          command, 2, f"d/{name} is not a regular file", timeout=20,
                          files={"{tmp}/out.npz": ABSENT, "{tmp}/out.safetensors": ABSENT},
                          setup=copy(SHARDED, replace_with(name, fifo))))
CASES += [
    Case("config.json as a link to /dev/zero is refused",
         ["info", "--pretrained", "{tmp}/d"], 2, "d/config.json is not a regular file", timeout=20,
         setup=copy(SHARDED, replace_with("config.json", lambda p: os.symlink("/dev/zero", p)))),
    Case("a 3 GB config.json is refused by its size, naming the cap",
         ["info", "--pretrained", "{tmp}/d"], 2, "more than a model's JSON file can be (16 MiB)", timeout=20,
         setup=copy(SHARDED, replace_with("config.json", sparse(3 << 30)))),
    Case("a 3 GB index is refused by its size",
         ["info", "--pretrained", "{tmp}/d"], 2, "model.safetensors.index.json is 3221225472 bytes", timeout=20,
         setup=copy(SHARDED, replace_with("model.safetensors.index.json", sparse(3 << 30)))),
    Case("tokenizer_config.json as a FIFO is refused, not ignored",
         TOKENIZE, 2, "d/tokenizer_config.json is not a regular file", timeout=20,
         setup=copy(LLAMA, replace_with("tokenizer_config.json", fifo))),
    Case("tokenizer_config.json as a directory is refused, not ignored",
         TOKENIZE, 2, "d/tokenizer_config.json is not a regular file",
         setup=copy(LLAMA, replace_with("tokenizer_config.json", os.mkdir))),
    Case("a 2.2 GB tokenizer.model inside the directory is refused by the 1 GiB cap",
         TOKENIZE, 2, "more than a SentencePiece model can be (1 GiB)", timeout=20,
         setup=copy(LLAMA, replace_with("tokenizer.model", sparse(2200 << 20)))),
    Case("a config.json nested 100,000 levels deep is refused by the depth cap",
         TOKENIZE, 2, "d/config.json nests more than 64 levels deep",
         setup=edit("config.json", lambda doc: '{"a": ' + "[" * 100000 + "]" * 100000 + "}")),
]

# ---- a shard name is a plain file name in the directory
CASES.append(Case("a NUL in a weight_map shard name is refused, never cut to the name before it",
                  ["info", "--pretrained", "{tmp}/d"], 2, "not a file beside the index",
                  setup=copy(SHARDED, lambda d: (d / "model.safetensors.index.json").write_text(
                      (d / "model.safetensors.index.json").read_text().replace(
                          '"model-00001-of-00003.safetensors"', '"model-00001-of-00003.safetensors\\u0000x"', 1)))))

# ---- a key twice in one object, in every JSON file of the directory
CASES += [
    Case("model_type twice in config.json",
         ["info", "--pretrained", "{tmp}/d"], 2, 'config.json gives the key "model_type" twice',
         setup=copy(SHARDED, lambda d: (d / "config.json").write_text(
             (d / "config.json").read_text().replace("{", '{"model_type": "llama", ', 1)))),
    Case("a tensor twice in the index's weight_map",
         ["info", "--pretrained", "{tmp}/d"], 2, 'gives the key "roberta.embeddings.word_embeddings.weight" twice',
         setup=copy(SHARDED, lambda d: (d / "model.safetensors.index.json").write_text(
             (d / "model.safetensors.index.json").read_text().replace(
                 '"weight_map": {', '"weight_map": {"roberta.embeddings.word_embeddings.weight": "x", ', 1)))),
    Case("a key twice in tokenizer_config.json",
         TOKENIZE, 2, 'tokenizer_config.json gives the key "add_bos_token" twice',
         setup=edit("tokenizer_config.json", lambda doc: json.dumps(doc).replace("{", '{"add_bos_token": false, ', 1))),
    Case("a key twice in special_tokens_map.json",
         TOKENIZE, 2, 'special_tokens_map.json gives the key "eos_token" twice',
         setup=edit("special_tokens_map.json", lambda doc: json.dumps(doc).replace("{", '{"eos_token": "<s>", ', 1))),
    Case("a token twice in added_tokens.json",
         TOKENIZE, 2, 'added_tokens.json gives the key "[PAD]" twice', setup=raw_added_tokens('{"[PAD]": 32000, "[PAD]": 5}')),
]

# ---- ids: integers from 0 to 2^31-1, never wrapped, cut or rounded
for value in ("4294967301", "1099511627776", "32000.5", "-3", "2147483648", '"5"'):
    CASES.append(Case(f"an id of {value} in added_tokens.json is refused",
                      TOKENIZE, 2, f'added_tokens.json: the id of "[PAD]" is {value.replace(chr(34), chr(34))}',
                      setup=raw_added_tokens('{"[PAD]": ' + value + "}")))
for key in ("abc", "4294967303", "-1", ""):
    CASES.append(Case(f"added_tokens_decoder's key {key!r} is refused",
                      TOKENIZE, 2, f"added_tokens_decoder's key \"{key}\" is not an id", setup=decoder_key(key)))

# ---- each setting of the type its class reads it as
for key, value, expected in (("add_bos_token", 0, "true or false"), ("padding_side", "middle", '"right" or "left"'),
                             ("truncation_side", "up", '"right" or "left"'), ("tokenizer_class", 7, "a class name"),
                             ("legacy", "yes", "true or false"), ("model_max_length", "long", "a number"),
                             ("clean_up_tokenization_spaces", 1, "true or false")):
    CASES.append(Case(f"tokenizer_config.json's {key} of {value!r} is refused",
                      TOKENIZE, 2, f"tokenizer_config.json: {key} is {json.dumps(value)}, not {expected}",
                      setup=edit("tokenizer_config.json", set_key(key, value))))
CASES += [
    Case("a special token's lstrip that is not true or false is refused",
         TOKENIZE, 2, "gives lstrip 1, not true or false",
         setup=edit("special_tokens_map.json", set_key("eos_token", {"content": "</s>", "lstrip": 1}))),
    Case("a special token whose content is not a string is refused",
         TOKENIZE, 2, "has a content that is not a string",
         setup=edit("special_tokens_map.json", set_key("eos_token", {"content": 5}))),
]

# ---- config.json's numbers: the value given, named
for value in ("-16", "0", "18446744073709551615", "7.5", '"768"'):
    CASES.append(Case(f"config.json's hidden_size of {value} is named",
                      ["info", "--pretrained", "{tmp}/d"], 2, f"config.json: hidden_size is {value}",
                      setup=copy(SHARDED, lambda d, v=value: (d / "config.json").write_text(
                          json.dumps({**json.loads((d / "config.json").read_text()), "hidden_size": json.loads(v)})))))
