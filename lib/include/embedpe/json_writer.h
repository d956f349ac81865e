// Streams the JSON document `encode --format json` writes: an object whose
// first members are given as small JSON values (config, shapes, dtypes,
// tokens) and whose remaining members are tensors written as nested arrays
// straight from memory, never built as one big DOM.
//
//   nlohmann::ordered_json meta = {{"config", ...}, {"shapes", ...}};
//   embedpe::write_json(out, meta, {embedpe::tensor_ref("output", t)});
//
// Floats are written in the shortest form that reads back to the same
// float32 (std::to_chars); a NaN or infinity is an error, since JSON has no
// way to write it. The innermost dimension of each tensor is one line.
#pragma once

#include <vector>

#include <nlohmann/json.hpp>

#include "embedpe/output_file.h"
#include "embedpe/tensor_io.h"

namespace embedpe {

void write_json(OutputFile& out, const nlohmann::ordered_json& meta, const std::vector<TensorRef>& tensors);

// One tensor as nested JSON arrays on a single line (for JSON Lines records).
void write_tensor_json_line(OutputFile& out, const TensorRef& tensor);

}  // namespace embedpe
