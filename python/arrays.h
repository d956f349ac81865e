// NumPy arrays over tensors computed in C++, without a copy: every array's
// base is one capsule that owns what was computed, freed when the last
// array that uses it goes. The arrays are C-ordered and writable, so that
// torch.from_numpy shares them as well.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include "embedpe/dtype.h"
#include "embedpe/sink.h"

namespace embedpe::python {

// A capsule that keeps `owner` alive.
pybind11::capsule owning_capsule(std::shared_ptr<void> owner);

// An array over `tensor`'s bytes, whose memory `base` (a capsule) keeps.
pybind11::array array_over(const TensorRef& tensor, const pybind11::handle& base);

// What a sink was given, kept in memory: each tensor's bytes, once.
struct CapturedTensors {
  std::vector<TensorBuffer> tensors;
};

// A format like `like` (its traits: what it holds, one tensor or many),
// whose sink keeps the tensors in `into` instead of writing a file; no size
// limit of a file applies.
SinkFormat capturing_format(const SinkFormat& like, std::shared_ptr<CapturedTensors> into);

// The captured tensors as arrays (by name), which own them.
pybind11::dict arrays_of(std::shared_ptr<CapturedTensors> captured);

}  // namespace embedpe::python
