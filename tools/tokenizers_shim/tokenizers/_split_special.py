"""encode_special_tokens = True without the core's setter (the add-on has none).

In the core (tokenizers/src/tokenizer/added_vocabulary.rs, find_matches, v0.22.2) a match of a
special added token is skipped (`continue`) when encode_special_tokens is set: its text stays in
the text around it and goes through the normalizer, pre-tokenizer and model. The same computation
is the core's encode of this tokenizer WITHOUT its special added tokens when (checked here, else
this raises): every special token has normalized=false (they are matched on the raw text, in the
first pass); every other added token keeps its id; and in the text no occurrence of a special token
overlaps one of a non-special, non-normalized added token (then the leftmost-longest,
non-overlapping matches of the others are the same with or without the specials in the matcher).
Decoding, the vocabulary and the post-processor's special tokens stay the whole tokenizer's."""
import json

from ._core import CoreError, core

_cache = {}


def _occurrences(text, s):
    out, i = [], text.find(s)
    while i >= 0:
        out.append((i, i + len(s)))
        i = text.find(s, i + 1)
    return out


def encoder_without_specials(tok, texts):
    full = tok.to_str()
    hit = _cache.get(full)
    if hit is None:
        j = json.loads(full)
        specials = [t for t in j["added_tokens"] if t["special"]]
        others = [t for t in j["added_tokens"] if not t["special"]]
        for t in specials:
            if t["normalized"]:
                raise CoreError(f"encode_special_tokens: special token {t['content']!r} has normalized=true: not emulated")
        j["added_tokens"] = others
        h = core("from_str", json=json.dumps(j, ensure_ascii=False))
        for t in others:
            if core("token_to_id", h=h, token=t["content"]) != t["id"]:
                raise CoreError(f"encode_special_tokens: {t['content']!r} changes id without the special tokens")
        hit = (h, [t["content"] for t in specials], [t["content"] for t in others if not t["normalized"]])
        _cache[full] = hit
    h, specials, raw_others = hit
    for text in texts:
        for s in specials:
            for a, b in _occurrences(text, s):
                for o in raw_others:
                    for c, d in _occurrences(text, o):
                        if c < b and a < d:
                            raise CoreError(f"encode_special_tokens: {o!r} overlaps {s!r} in {text!r}: not emulated")
    return h
