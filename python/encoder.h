// embedpe.Encoder: encode's options once, then texts to arrays.
#pragma once

#include <pybind11/pybind11.h>

namespace embedpe::python {

void bind_encoder(pybind11::module_& m);

}  // namespace embedpe::python
