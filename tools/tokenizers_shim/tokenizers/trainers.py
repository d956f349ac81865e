"""transformers imports these names at module level (tokenization_utils_fast): any use raises."""
from ._components import _Unsupported, _no_such


class Trainer(_Unsupported):
    pass


class BpeTrainer(Trainer):
    pass


class UnigramTrainer(Trainer):
    pass


class WordLevelTrainer(Trainer):
    pass


class WordPieceTrainer(Trainer):
    pass


def __getattr__(name):
    _no_such("tokenizers.trainers", name)
