from ._components import _Component, _no_such
from ._core import core


class Decoder(_Component):
    _kind = "decoder"

    def decode(self, tokens):
        return core("decoder_decode", c=self._c, tokens=list(tokens))


def __getattr__(name):
    _no_such("tokenizers.decoders", name)
