from ._components import _Component, _no_such
from ._core import unsupported


class PostProcessor(_Component):
    _kind = "post_processor"


def _pair(x, what):
    if not (isinstance(x, (tuple, list)) and len(x) == 2 and isinstance(x[0], str) and isinstance(x[1], int)):
        raise TypeError(f"{what} must be a (str, int) tuple")
    return [x[0], x[1]]


class TemplateProcessing(PostProcessor):
    # tokenizers 0.22.2: TemplateProcessing(single=None, pair=None, special_tokens=None); single/pair
    # as strings ("<s>:0 $A:0"), special_tokens as (token, id) tuples (the forms transformers uses).
    def __new__(cls, single=None, pair=None, special_tokens=None):
        if not isinstance(single, str) or not (pair is None or isinstance(pair, str)):
            unsupported("TemplateProcessing with a single/pair template that is not a string")
        specials = None if special_tokens is None else [_pair(t, "special_tokens item") for t in special_tokens]
        return cls._build("TemplateProcessing", single=single, pair=pair, special_tokens=specials)


class RobertaProcessing(PostProcessor):
    # tokenizers 0.22.2: RobertaProcessing(sep, cls, trim_offsets=True, add_prefix_space=True)
    def __new__(klass, sep, cls, trim_offsets=True, add_prefix_space=True):
        return klass._build("RobertaProcessing", sep=_pair(sep, "sep"), cls=_pair(cls, "cls"),
                            trim_offsets=bool(trim_offsets), add_prefix_space=bool(add_prefix_space))


class BertProcessing(PostProcessor):
    # tokenizers 0.22.2: BertProcessing(sep, cls)
    def __new__(klass, sep, cls):
        return klass._build("BertProcessing", sep=_pair(sep, "sep"), cls=_pair(cls, "cls"))


def __getattr__(name):
    _no_such("tokenizers.processors", name)
