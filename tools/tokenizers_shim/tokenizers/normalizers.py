from ._components import _Component, _no_such


class Normalizer(_Component):
    _kind = "normalizer"


class BertNormalizer(Normalizer):
    # tokenizers 0.22.2: BertNormalizer(clean_text=True, handle_chinese_chars=True, strip_accents=None, lowercase=True)
    def __new__(cls, clean_text=True, handle_chinese_chars=True, strip_accents=None, lowercase=True):
        return cls._build("BertNormalizer", clean_text=bool(clean_text), handle_chinese_chars=bool(handle_chinese_chars),
                          strip_accents=None if strip_accents is None else bool(strip_accents), lowercase=bool(lowercase))


def __getattr__(name):
    _no_such("tokenizers.normalizers", name)
