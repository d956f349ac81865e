#!/usr/bin/env python3
"""Checks of tools/tokenizers_shim against the core (needs Node and the add-on, not the test suite's):
  python3 tools/tokenizers_shim/selftest.py"""
import json
import pathlib
import sys

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import tokenizers  # noqa: E402
from tokenizers import AddedToken, Tokenizer, normalizers, pre_tokenizers, processors  # noqa: E402

GOLDENS = HERE.parent.parent / "tests/golden/tokenizer_json"


def raises(exc, f):
    try:
        f()
    except exc:
        return
    raise AssertionError(f"{f} did not raise {exc.__name__}")


tok = Tokenizer.from_file(str(GOLDENS / "fx_dir_llamafast_defaults/tokenizer.json"))
file = json.loads((GOLDENS / "fx_dir_llamafast_defaults/tokenizer.json").read_text())
# the core's JSON round trip
assert json.loads(tok.to_str())["model"]["vocab"] == file["model"]["vocab"]
# the setter replaces the section, as the core serialises it
pp = processors.TemplateProcessing(single="<s>:0 $A:0 </s>:0", pair="<s>:0 $A:0 $B:1", special_tokens=[("<s>", 757), ("</s>", 758)])
tok.post_processor = pp
assert json.loads(tok.to_str())["post_processor"] == json.loads(pp.__getstate__()), tok.to_str()[:200]
e = tok.encode("Hello", "world")
assert e.ids[0] == 757 and e.type_ids[-1] == 1 and len(e) == len(e.tokens) == len(e.offsets), e.ids
assert tok.decode(e.ids, skip_special_tokens=True) == tok.decode(e.ids[1:])
# AddedToken: unset options, equality of all fields, hash of the content
a = AddedToken("<x>", special=True)
assert a.normalized is False and AddedToken("<x>").normalized is True
assert a != AddedToken("<x>") and hash(a) == hash(AddedToken("<x>")) and a != "<x>"
n = tok.get_vocab_size()
assert tok.add_tokens(["zzqq", AddedToken("<y>", lstrip=True)]) == 2 and tok.get_vocab_size() == n + 2
assert tok.get_added_tokens_decoder()[n + 1].lstrip is True
assert tok.add_special_tokens([a]) == 1 and tok.get_added_tokens_decoder()[n + 2].special
# components from transformers' state round trips
bn = normalizers.BertNormalizer(**{"clean_text": True, "handle_chinese_chars": True, "strip_accents": None, "lowercase": False})
assert json.loads(bn.__getstate__()) == {"type": "BertNormalizer", "clean_text": True, "handle_chinese_chars": True, "strip_accents": None, "lowercase": False}
bl = pre_tokenizers.ByteLevel(**{"add_prefix_space": True, "trim_offsets": False, "use_regex": False})
assert json.loads(bl.__getstate__()) == {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": False, "use_regex": False}
rp = processors.RobertaProcessing(**{"sep": ["</s>", 2], "cls": ["<s>", 0], "trim_offsets": True, "add_prefix_space": False})
assert json.loads(rp.__getstate__())["sep"] == ["</s>", 2]
# encode_special_tokens: a special token in the text is tokenized as text
tok.encode_special_tokens = True
# here removing the special tokens would renumber "zzqq" and "<y>": not emulated, so it raises
raises(tokenizers.CoreError, lambda: tok.encode("a <x> b"))
t2 = Tokenizer.from_file(str(GOLDENS / "fx_dir_llamafast_defaults/tokenizer.json"))
t2.add_special_tokens([a])
x = t2.token_to_id("<x>")
t2.encode_special_tokens = True
assert x not in t2.encode("a <x> b").ids
assert t2.encode("a <x> b").ids == t2.encode("a <x> b", add_special_tokens=True).ids
t2.encode_special_tokens = False
assert x in t2.encode("a <x> b").ids
# loud failures
raises(NotImplementedError, lambda: tok.model)
raises(NotImplementedError, lambda: tok.num_special_tokens_to_add(False))
raises(NotImplementedError, lambda: Tokenizer(None))
raises(NotImplementedError, lambda: tokenizers.models.BPE())
raises(NotImplementedError, lambda: tok.encode(["pre", "tokenized"], is_pretokenized=True))
raises(AttributeError, lambda: normalizers.Sequence)
raises(tokenizers.CoreError, lambda: Tokenizer.from_str("{}"))
print("tokenizers shim: selftest ok")
