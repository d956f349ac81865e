"""A thin `tokenizers` (the Python API of HF tokenizers 0.19-0.22) over HF tokenizers 0.22.2's Rust
core, run as the Node add-on @anush008/tokenizers@0.6.0 in one long-lived process (_core.py,
../core_server.mjs). Only what transformers v4.44.2's PreTrainedTokenizerFast and its fast
subclasses use to load a tokenizer.json directory, encode and decode; everything else raises
NotImplementedError (or AttributeError for a missing name). This object holds only handles: every
encode, decode, vocabulary lookup, token addition and the tokenizer's JSON is the core's."""
import json as _json

from . import decoders, models, normalizers, pre_tokenizers, processors, trainers  # noqa: F401
from ._components import _Unsupported
from ._core import CoreError, core as _core, unsupported as _unsupported

__version__ = "0.19.1+shim.core0.22.2"


class Regex(_Unsupported):
    pass


class AddedToken:
    """tokenizers 0.22.2's PyAddedToken (bindings/python/src/tokenizer.rs): unset options stay unset
    (None) and read as tk::AddedToken::from(content, special)'s defaults (normalized = not special)."""

    __slots__ = ("_content", "_special", "_single_word", "_lstrip", "_rstrip", "_normalized")

    def __init__(self, content=None, **kwargs):
        self._content = "" if content is None else str(content)
        self._special = False
        self._single_word = self._lstrip = self._rstrip = self._normalized = None
        for key, value in kwargs.items():
            if key == "special":
                self._special = bool(value)
            elif key in ("single_word", "lstrip", "rstrip", "normalized"):
                setattr(self, "_" + key, bool(value))
            else:
                import sys
                print(f"Ignored unknown kwarg option {key}", file=sys.stderr)

    def _token(self):
        """tk::AddedToken fields as get_token() resolves them."""
        return {"content": self._content, "single_word": bool(self._single_word), "lstrip": bool(self._lstrip),
                "rstrip": bool(self._rstrip), "normalized": (not self._special) if self._normalized is None else self._normalized,
                "special": self._special}

    def _wire(self):
        """What the add-on's AddedToken constructor takes: only the options that are set."""
        return {"content": self._content, "special": self._special, "single_word": self._single_word,
                "lstrip": self._lstrip, "rstrip": self._rstrip, "normalized": self._normalized}

    @classmethod
    def _from_core(cls, d):
        t = cls(d["content"], single_word=d["single_word"], lstrip=d["lstrip"], rstrip=d["rstrip"],
                normalized=d["normalized"], special=d["special"])
        return t

    def __getstate__(self):
        return self._token()

    def __setstate__(self, state):
        if not isinstance(state, dict):
            raise TypeError("AddedToken.__setstate__ takes a dict")
        for key, value in state.items():
            if key == "content":
                self._content = value
            elif key == "special":
                self._special = bool(value)
            elif key in ("single_word", "lstrip", "rstrip", "normalized"):
                setattr(self, "_" + key, bool(value))

    def __reduce__(self):
        return (AddedToken, (self._content,), self.__getstate__())

    def __copy__(self):
        t = AddedToken.__new__(AddedToken)
        for s in AddedToken.__slots__:
            setattr(t, s, getattr(self, s))
        return t

    def __deepcopy__(self, memo):
        return self.__copy__()

    content = property(lambda self: self._content, lambda self, v: setattr(self, "_content", v))
    special = property(lambda self: self._special, lambda self, v: setattr(self, "_special", bool(v)))
    single_word = property(lambda self: self._token()["single_word"])
    lstrip = property(lambda self: self._token()["lstrip"])
    rstrip = property(lambda self: self._token()["rstrip"])
    normalized = property(lambda self: self._token()["normalized"])

    def __str__(self):
        return self._content

    def __repr__(self):
        t = self._token()
        b = lambda x: "True" if x else "False"  # noqa: E731
        return (f'AddedToken("{self._content}", rstrip={b(t["rstrip"])}, lstrip={b(t["lstrip"])}, '
                f'single_word={b(t["single_word"])}, normalized={b(t["normalized"])}, special={b(t["special"])})')

    def __eq__(self, other):
        if not isinstance(other, AddedToken):
            return NotImplemented
        return self._token() == other._token()

    def __ne__(self, other):
        if not isinstance(other, AddedToken):
            return NotImplemented
        return self._token() != other._token()

    def __hash__(self):
        return hash(self._content)  # tk::AddedToken hashes its content only


class Encoding:
    """tokenizers.Encoding, read-only, filled from the core's answer."""

    def __init__(self, d):
        self._d = d

    ids = property(lambda self: self._d["ids"])
    type_ids = property(lambda self: self._d["type_ids"])
    tokens = property(lambda self: self._d["tokens"])
    offsets = property(lambda self: [tuple(o) for o in self._d["offsets"]])
    attention_mask = property(lambda self: self._d["attention_mask"])
    special_tokens_mask = property(lambda self: self._d["special_tokens_mask"])
    word_ids = property(lambda self: self._d["word_ids"])
    words = property(lambda self: self._d["word_ids"])
    sequence_ids = property(lambda self: self._d["sequence_ids"])
    n_sequences = property(lambda self: self._d["n_sequences"])
    overflowing = property(lambda self: [Encoding(o) for o in self._d["overflowing"]])

    def __len__(self):
        return len(self._d["ids"])

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        _unsupported(f"Encoding.{name}")

    def __repr__(self):
        return f"Encoding(num_tokens={len(self)}, attributes=[ids, type_ids, tokens, offsets, attention_mask, special_tokens_mask, overflowing])"


_COMPONENTS = ("normalizer", "pre_tokenizer", "post_processor", "decoder")
_COMPONENT_CLASS = {"normalizer": normalizers.Normalizer, "pre_tokenizer": pre_tokenizers.PreTokenizer,
                    "post_processor": processors.PostProcessor, "decoder": decoders.Decoder}


def _encode_input(x, what):
    if not isinstance(x, str):
        _unsupported(f"{what} that is not a str (pre-tokenized or numpy input)")
    return x


class Tokenizer:
    """tokenizers.Tokenizer over a core tokenizer handle."""

    def __init__(self, model=None):
        _unsupported("Tokenizer(model) (build it with Tokenizer.from_file / from_str)")

    @classmethod
    def _wrap(cls, handle):
        t = object.__new__(cls)
        t._h = handle
        t._encode_special_tokens = False
        t._json = None  # the core's to_str(), kept until a change (every change goes through this object)
        t._parsed = None
        return t

    @classmethod
    def from_file(cls, path):
        return cls._wrap(_core("from_file", path=str(path)))

    @classmethod
    def from_str(cls, json):
        return cls._wrap(_core("from_str", json=json))

    @classmethod
    def from_buffer(cls, buffer):
        return cls.from_str(bytes(buffer).decode("utf-8"))

    @classmethod
    def from_pretrained(cls, *args, **kwargs):
        _unsupported("Tokenizer.from_pretrained (no network)")

    def to_str(self, pretty=False):
        if pretty:
            return _core("to_str", h=self._h, pretty=True)
        if self._json is None:
            self._json = _core("to_str", h=self._h, pretty=False)
        return self._json

    def _changed(self):
        self._json = None
        self._parsed = None

    def _state(self):
        """The core's JSON, parsed (cached with it)."""
        if self._json is None or self._parsed is None:
            self._parsed = _json.loads(self.to_str())
        return self._parsed

    def save(self, path, pretty=True):
        with open(path, "w", encoding="utf-8") as f:
            f.write(self.to_str(pretty))

    def __getstate__(self):
        return self.to_str().encode("utf-8")

    def __setstate__(self, state):
        self._h = _core("from_str", json=bytes(state).decode("utf-8"))
        self._encode_special_tokens = False
        self._json = None
        self._parsed = None

    def __deepcopy__(self, memo):
        # the Python binding deep-copies through its JSON state (pickle); encode_special_tokens is not in it
        return Tokenizer.from_str(self.to_str())

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        _unsupported(f"Tokenizer.{name}")

    # -- components: the core's objects; the setter is the core's (with_normalizer & co.) --
    def _get_component(self, kind):
        c = _core("get_component", h=self._h, kind=kind)
        return None if c is None else _COMPONENT_CLASS[kind]._wrap(c)

    def _set_component(self, kind, value):
        if value is None:
            _unsupported(f"Tokenizer.{kind} = None")
        if not isinstance(value, _COMPONENT_CLASS[kind]):
            raise TypeError(f"{kind} must be a {_COMPONENT_CLASS[kind].__name__}")
        _core("set_component", h=self._h, kind=kind, c=value._c)
        self._changed()

    normalizer = property(lambda self: self._get_component("normalizer"), lambda self, v: self._set_component("normalizer", v))
    pre_tokenizer = property(lambda self: self._get_component("pre_tokenizer"), lambda self, v: self._set_component("pre_tokenizer", v))
    post_processor = property(lambda self: self._get_component("post_processor"), lambda self, v: self._set_component("post_processor", v))
    decoder = property(lambda self: self._get_component("decoder"), lambda self, v: self._set_component("decoder", v))

    @property
    def model(self):
        _unsupported("Tokenizer.model")

    # -- truncation / padding: the core's settings, read from its JSON --
    def _section(self, name):
        return self._state()[name]

    @property
    def truncation(self):
        t = self._section("truncation")
        if t is None:
            return None
        # PyTokenizer.get_truncation: max_length, stride, strategy, direction (lower-case names)
        return {"max_length": t["max_length"], "stride": t["stride"],
                "strategy": {"LongestFirst": "longest_first", "OnlyFirst": "only_first", "OnlySecond": "only_second"}[t["strategy"]],
                "direction": t["direction"].lower()}

    @property
    def padding(self):
        p = self._section("padding")
        if p is None:
            return None
        strategy = p["strategy"]
        length = strategy["Fixed"] if isinstance(strategy, dict) else None
        return {"length": length, "pad_to_multiple_of": p["pad_to_multiple_of"], "pad_id": p["pad_id"],
                "pad_token": p["pad_token"], "pad_type_id": p["pad_type_id"], "direction": p["direction"].lower()}

    def no_truncation(self):
        _core("no_truncation", h=self._h)
        self._changed()

    def no_padding(self):
        _core("no_padding", h=self._h)
        self._changed()

    def enable_truncation(self, max_length, stride=0, strategy="longest_first", direction="right"):
        # PyTokenizer.enable_truncation (0.22.2): the same names and checks
        strategies = {"longest_first": "LongestFirst", "only_first": "OnlyFirst", "only_second": "OnlySecond"}
        if strategy not in strategies:
            raise ValueError("Unknown `strategy`: `{}`. Use one of `longest_first`, `only_first`, `only_second`".format(strategy))
        if direction not in ("left", "right"):
            raise ValueError("Unknown `direction`: `{}`. Use one of `left` or `right`.".format(direction))
        _core("enable_truncation", h=self._h, max_length=int(max_length), stride=int(stride),
              strategy=strategies[strategy], direction=direction)
        self._changed()

    def enable_padding(self, direction="right", pad_id=0, pad_type_id=0, pad_token="[PAD]", length=None,
                       pad_to_multiple_of=None):
        if direction not in ("left", "right"):
            raise ValueError("Unknown `direction`: `{}`. Use one of `left` or `right`".format(direction))
        _core("enable_padding", h=self._h, direction=direction, pad_id=int(pad_id), pad_type_id=int(pad_type_id),
              pad_token=str(pad_token), length=None if length is None else int(length),
              pad_to_multiple_of=None if pad_to_multiple_of is None else int(pad_to_multiple_of))
        self._changed()

    # -- vocabulary --
    def get_vocab(self, with_added_tokens=True):
        return _core("get_vocab", h=self._h, with_added_tokens=bool(with_added_tokens))

    def get_vocab_size(self, with_added_tokens=True):
        return _core("get_vocab_size", h=self._h, with_added_tokens=bool(with_added_tokens))

    def token_to_id(self, token):
        return _core("token_to_id", h=self._h, token=token)

    def id_to_token(self, id):
        if not isinstance(id, int) or id < 0:
            raise OverflowError(f"id_to_token: {id!r} is not a u32")
        return _core("id_to_token", h=self._h, id=id)

    def get_added_tokens_decoder(self):
        # the core's added vocabulary, from its JSON (ids, contents and the 5 flags as the core keeps them)
        out = {}
        for t in self._state()["added_tokens"]:
            out[t["id"]] = AddedToken._from_core(t)
        return dict(sorted(out.items()))

    def _add(self, tokens, special):
        wire = []
        for t in tokens:
            if isinstance(t, str):
                # add_tokens: PyAddedToken::from(content, Some(false)); add_special_tokens: tk::AddedToken::from(content, true)
                wire.append({"content": t, "special": special, "single_word": None, "lstrip": None,
                             "rstrip": None, "normalized": None})
            elif isinstance(t, AddedToken):
                if special:
                    t.special = True  # PyTokenizer.add_special_tokens sets it on the caller's object
                wire.append(t._wire())
            else:
                raise TypeError("Input must be a List[Union[str, AddedToken]]")
        # tk Tokenizer::add_special_tokens and add_tokens are the same call in the core
        # (AddedVocabulary::add_special_tokens = add_tokens), which the add-on's addAddedTokens makes
        n = _core("add_tokens", h=self._h, tokens=wire)
        self._changed()
        return n

    def add_tokens(self, tokens):
        return self._add(tokens, False)

    def add_special_tokens(self, tokens):
        return self._add(tokens, True)

    # -- encode / decode --
    @property
    def encode_special_tokens(self):
        return self._encode_special_tokens

    @encode_special_tokens.setter
    def encode_special_tokens(self, value):
        self._encode_special_tokens = bool(value)

    def _encoder(self, texts):
        """The handle that encodes: this one, or, with encode_special_tokens (the add-on has no setter
        for it), the same tokenizer without its special added tokens; see _split_special."""
        if not self._encode_special_tokens:
            return self._h
        from ._split_special import encoder_without_specials
        return encoder_without_specials(self, texts)

    def encode(self, sequence, pair=None, is_pretokenized=False, add_special_tokens=True):
        if is_pretokenized:
            _unsupported("encode(is_pretokenized=True)")
        text = _encode_input(sequence, "encode's sequence")
        p = None if pair is None else _encode_input(pair, "encode's pair")
        h = self._encoder([text] + ([] if p is None else [p]))
        return Encoding(_core("encode", h=h, text=text, pair=p, add_special_tokens=bool(add_special_tokens)))

    def encode_batch(self, input, is_pretokenized=False, add_special_tokens=True):
        if is_pretokenized:
            _unsupported("encode_batch(is_pretokenized=True)")
        items = []
        for x in input:
            if isinstance(x, (tuple, list)):
                if len(x) != 2:
                    raise ValueError("encode_batch: a pair must have 2 items")
                items.append((_encode_input(x[0], "a batch item"), _encode_input(x[1], "a batch pair")))
            else:
                items.append((_encode_input(x, "a batch item"), None))
        h = self._encoder([t for it in items for t in it if t is not None])
        # one request per item, in order: the core's encode_batch is encode of each (in parallel)
        return [Encoding(_core("encode", h=h, text=t, pair=p, add_special_tokens=bool(add_special_tokens))) for t, p in items]

    def decode(self, ids, skip_special_tokens=True):
        return _core("decode", h=self._h, ids=[int(i) for i in ids], skip_special_tokens=bool(skip_special_tokens))

    def decode_batch(self, sequences, skip_special_tokens=True):
        return [self.decode(s, skip_special_tokens) for s in sequences]

    def num_special_tokens_to_add(self, is_pair):
        _unsupported("Tokenizer.num_special_tokens_to_add (the add-on cannot answer it)")
