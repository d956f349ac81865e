from ._components import _Component, _no_such


class PreTokenizer(_Component):
    _kind = "pre_tokenizer"


class ByteLevel(PreTokenizer):
    # tokenizers 0.22.2: ByteLevel(add_prefix_space=True, trim_offsets=True, use_regex=True, **_kwargs)
    # (0.19.1, transformers 4.44.2's pin, had no trim_offsets argument: it only changes offsets).
    def __new__(cls, add_prefix_space=True, trim_offsets=True, use_regex=True, **_kwargs):
        if trim_offsets:
            return cls._build("ByteLevel", add_prefix_space=bool(add_prefix_space), use_regex=bool(use_regex))
        # the add-on's byteLevelPreTokenizer takes no trim_offsets: the core deserialises the state instead
        return cls._from_state({"type": "ByteLevel", "add_prefix_space": bool(add_prefix_space),
                                "trim_offsets": False, "use_regex": bool(use_regex)})


def __getattr__(name):
    _no_such("tokenizers.pre_tokenizers", name)
