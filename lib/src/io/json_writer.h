// Streams the JSON document `encode --format json` writes: an object whose
// first members are given as small JSON values (config, shapes, dtypes,
// tokens) and whose remaining members are tensors written as nested arrays
// straight from memory, never built as one big DOM.
//
//   nlohmann::ordered_json meta = {{"config", ...}, {"shapes", ...}};
//   embedpe::write_json(out, meta, {embedpe::tensor_ref("output", t)});
//
// Floats are written in the shortest form that reads back to the same
// float32 (std::to_chars), or with `precision` significant digits (1 to 9)
// when it is not 0; a NaN or infinity is an error, since JSON has no
// way to write it. The innermost dimension of each tensor is one line.
// Tensor text is rendered in chunks of rows on up to `threads` threads and
// written in order; the bytes do not depend on the thread count.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "embedpe/output_file.h"
#include "embedpe/tensor_io.h"

namespace embedpe {

void write_json(OutputFile& out, const nlohmann::ordered_json& meta, const std::vector<TensorRef>& tensors,
                std::size_t threads = 1, int precision = 0);

// A float32 as a JSON number in its shortest round-trip form (0.1, not
// 0.10000000149011612), for configs.
nlohmann::ordered_json float_json(float value);

// Appends one tensor as nested JSON arrays on a single line (for JSON Lines
// records, which callers may build on several threads).
void append_tensor_json_line(std::string& text, const TensorRef& tensor, int precision = 0);

}  // namespace embedpe
