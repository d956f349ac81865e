"""transformers imports these names at module level (convert_slow_tokenizer, integrations/ggml);
building a model from Python is not part of the shim: any use raises."""
from ._components import _Unsupported, _no_such


class Model(_Unsupported):
    pass


class BPE(Model):
    pass


class Unigram(Model):
    pass


class WordPiece(Model):
    pass


class WordLevel(Model):
    pass


def __getattr__(name):
    _no_such("tokenizers.models", name)
