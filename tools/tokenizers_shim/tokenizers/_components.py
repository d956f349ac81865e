"""Normalizer / PreTokenizer / PostProcessor / Decoder objects: handles on the core's own objects."""
import json

from ._core import core, unsupported


class _Component:
    _kind = None  # "normalizer", "pre_tokenizer", "post_processor", "decoder"

    @classmethod
    def _wrap(cls, handle):
        obj = object.__new__(cls)
        obj._c = handle
        return obj

    @classmethod
    def _build(klass, type_name, **args):
        return klass._wrap(core("new_component", kind=klass._kind, type=type_name, args=args))

    @classmethod
    def _from_state(cls, state):
        return cls._wrap(core("component_from_state", kind=cls._kind, state=state))

    def __getstate__(self):
        # PyNormalizer.__getstate__ & co.: serde_json of the component, as bytes
        state = core("component_state", kind=self._kind, c=self._c)
        return json.dumps(state, ensure_ascii=False, separators=(",", ":")).encode("utf-8")

    def __setstate__(self, state):
        unsupported(f"{type(self).__name__}.__setstate__")

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        unsupported(f"{type(self).__name__}.{name}")

    def __repr__(self):
        return f"{type(self).__name__}({self.__getstate__().decode()})"


def _no_such(module, name):
    raise AttributeError(f"tokenizers shim: {module}.{name} is not implemented (tools/tokenizers_shim/README.md)")


class _Unsupported:
    """A name transformers imports but our paths never call: any use raises."""

    def __init__(self, *args, **kwargs):
        unsupported(type(self).__qualname__)
