#include "embedpe/quantize.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <vector>

#include <nlohmann/json.hpp>

#include "embedpe/error.h"
#include "ggml_types.h"
#include "file_name.h"
#include "memory.h"
#include "embedpe/message.h"

namespace embedpe {

void check_quantize_output(const std::string& path) {
  // A name, not only the extension: "x.safetensors", never ".safetensors" or "dir/.safetensors".
  const std::string ext = lower_extension(path);
  const std::size_t slash = path.rfind('/');
  const std::size_t name_size = slash == std::string::npos ? path.size() : path.size() - slash - 1;
  if (ext != ".safetensors" || name_size == ext.size()) {
    throw (Message() << "output_path " << Verbatim{path} << ": quantize writes .safetensors; name the file "
                     << "OUT.safetensors")
        .usage_error({"output_path"});
  }
}

QuantizeReport quantize_table(const WeightFile& file, const WeightTensor& tensor, OutputFile& out, float output_scale) {
  if (tensor.shape.size() != 2 || tensor.shape[0] == 0 || tensor.shape[1] == 0) {
    throw Error(file.path() + ": only a non-empty (vocab, d_model) table can be quantized");
  }
  if (tensor.dtype == DType::int8) throw UsageError(file.path() + ": the table is int8 already");
  const std::size_t vocab = tensor.shape[0], d = tensor.shape[1];
  const std::string name = tensor.name.empty() ? "weight" : tensor.name;
  std::vector<float> row(d);   // (d_model,)
  std::vector<float> scales(vocab);  // (vocab,)

  // Pass 1: the scales, so that they can precede the values in the file.
  for (std::size_t r = 0; r < vocab; ++r) {
    read_floats(file, tensor, r * d, d, row.data());
    float amax = 0;
    for (float v : row) {
      if (!std::isfinite(v)) {
        throw Error(file.path() + ": row " + std::to_string(r) + " holds NaN or infinity; it cannot be quantized");
      }
      amax = std::max(amax, std::abs(v));
    }
    scales[r] = amax / 127.0f;
    // Within a few ulps of the float32 maximum, q × scale = 127 × scale rounds up to infinity.
    if (!std::isfinite(127.0f * scales[r])) {
      char value[32];
      std::snprintf(value, sizeof value, "%.9g", double(amax));
      throw Error(file.path() + ": row " + std::to_string(r) + " holds " + value +
                  ", so close to the float32 maximum that its int8 form would read back as infinity; it cannot be "
                  "quantized");
    }
  }

  const std::size_t scale_bytes = checked_product({vocab, 4}, "scales");
  const std::size_t value_bytes = checked_product({vocab, d}, "int8 table");
  nlohmann::ordered_json header = {
      {"__metadata__", {{"format", "embedpe-int8"}, {"scheme", "per-row symmetric: E = q * scale, scale = max|row|/127"},
                        {"source", file.path() + (tensor.name.empty() ? "" : ":" + tensor.name)}}},
      {name + ".scale", {{"dtype", dtype_info(DType::float32).safetensors}, {"shape", {vocab}}, {"data_offsets", {0, scale_bytes}}}},
      {name, {{"dtype", dtype_info(DType::int8).safetensors}, {"shape", {vocab, d}}, {"data_offsets", {scale_bytes, scale_bytes + value_bytes}}}},
  };
  std::string text = header.dump();
  text.append((8 - text.size() % 8) % 8, ' ');  // keep the data 8-byte aligned
  std::string prefix(8, '\0');
  for (int i = 0; i < 8; ++i) prefix[i] = static_cast<char>((std::uint64_t(text.size()) >> (8 * i)) & 0xFF);
  out.write(prefix);
  out.write(text);
  out.write(scales.data(), scale_bytes);

  // Pass 2: the values, and how far the reconstruction is from the input.
  QuantizeReport report;
  std::vector<std::int8_t> q(d);  // (d_model,)
  double error_sum = 0;
  for (std::size_t r = 0; r < vocab; ++r) {
    read_floats(file, tensor, r * d, d, row.data());
    const float s = scales[r];
    for (std::size_t j = 0; j < d; ++j) {
      const float v = s > 0 ? std::nearbyint(row[j] / s) : 0.0f;
      q[j] = static_cast<std::int8_t>(std::clamp(v, -127.0f, 127.0f));
      const double err = std::abs(double(static_cast<float>(q[j]) * s) - double(row[j]));
      report.max_abs_error = std::max(report.max_abs_error, err);
      error_sum += err;
    }
    out.write(q.data(), d);
  }
  report.input_bytes = tensor.size_bytes;
  report.output_bytes = 8 + text.size() + scale_bytes + value_bytes;
  report.mean_abs_error = error_sum / static_cast<double>(vocab * d);
  report.output_scale = output_scale;
  report.max_abs_output_error = report.max_abs_error * std::abs(output_scale);
  report.mean_abs_output_error = report.mean_abs_error * std::abs(output_scale);
  return report;
}

std::string ggml_quantize_types() {
  std::string list;
  for (std::uint32_t v = 0; v < 64; ++v) {
    const ggml::TypeInfo* t = ggml::type_info(v);
    if (t && t->quantizable && t->dequantizable) list += (list.empty() ? "" : ", ") + std::string(t->name);
  }
  return list;
}

GgmlQuantizeReport quantize_table_ggml(const WeightFile& file, const WeightTensor& tensor, const std::string& type,
                                       OutputFile* out, float output_scale) {
  const ggml::TypeInfo* t = ggml::type_by_name(type);
  if (!t || !t->quantizable || !t->dequantizable) {
    throw (Message() << "type " << Verbatim{type} << " is not one embedpe quantizes; choose int8 or one of "
                     << Verbatim{ggml_quantize_types()})
        .usage_error({"type"});
  }
  if (tensor.shape.size() != 2 || tensor.shape[0] == 0 || tensor.shape[1] == 0) {
    throw Error(file.path() + ": only a non-empty (vocab, d_model) table can be quantized");
  }
  if (tensor.dtype == DType::int8) throw UsageError(file.path() + ": the table is int8 already");
  const std::size_t vocab = tensor.shape[0], d = tensor.shape[1];
  if (d % t->block_elems != 0) {
    throw (Message() << "type " << Verbatim{t->name} << " stores rows in blocks of "
                     << std::to_string(t->block_elems) << " values, and the rows of " << Verbatim{file.path()}
                     << " hold " << std::to_string(d) << " (not a multiple); choose a type with smaller blocks")
        .usage_error({"type"});
  }
  GgmlQuantizeReport report;
  report.type = t->name;
  report.block_elems = t->block_elems;
  report.bits_per_weight = 8.0 * static_cast<double>(t->block_bytes) / static_cast<double>(t->block_elems);
  report.rows = vocab;
  report.d_model = d;
  const std::size_t row_bytes = ggml::row_bytes(t->type, d);
  report.quantized_bytes = checked_product({vocab, row_bytes}, "quantized table");
  const std::size_t value_bytes = checked_product({vocab, d, 4}, "dequantized table");

  std::string text;
  if (out) {
    const std::string name = tensor.name.empty() ? "weight" : tensor.name;
    nlohmann::ordered_json header = {
        {"__metadata__", {{"format", "embedpe-dequantized"}, {"ggml_type", t->name},
                          {"scheme", std::string("ggml quantize_row_") + t->name + "_ref, then dequantize_row_" +
                                         t->name + ", as float32"},
                          {"source", file.path() + (tensor.name.empty() ? "" : ":" + tensor.name)}}},
        {name, {{"dtype", dtype_info(DType::float32).safetensors}, {"shape", {vocab, d}},
                {"data_offsets", {0, value_bytes}}}},
    };
    text = header.dump();
    text.append((8 - text.size() % 8) % 8, ' ');  // keep the data 8-byte aligned
    std::string prefix(8, '\0');
    for (int i = 0; i < 8; ++i) prefix[i] = static_cast<char>((std::uint64_t(text.size()) >> (8 * i)) & 0xFF);
    out->write(prefix);
    out->write(text);
    report.output_bytes = 8 + text.size() + value_bytes;
  }

  std::vector<float> row(d), back(d);           // (d_model,)
  std::vector<unsigned char> blocks(row_bytes);  // (row_bytes,)
  double abs_sum = 0, square_sum = 0, input_square_sum = 0;
  for (std::size_t r = 0; r < vocab; ++r) {
    read_floats(file, tensor, r * d, d, row.data());
    for (float v : row) {
      if (!std::isfinite(v)) {
        throw Error(file.path() + ": row " + std::to_string(r) + " holds NaN or infinity; it cannot be quantized");
      }
    }
    ggml::quantize_row_ref(t->type, row.data(), blocks.data(), d);
    ggml::dequantize_row(t->type, blocks.data(), back.data(), d);
    double row_max = 0;
    for (std::size_t j = 0; j < d; ++j) {
      double err = std::abs(double(back[j]) - double(row[j]));
      if (!std::isfinite(back[j])) {
        err = std::numeric_limits<double>::infinity();
        ++report.non_finite_values;
      }
      row_max = std::max(row_max, err);
      abs_sum += err;
      square_sum += err * err;
      input_square_sum += double(row[j]) * double(row[j]);
    }
    if (row_max > report.worst_row_max_abs_error) {
      report.worst_row_max_abs_error = row_max;
      report.worst_row = r;
    }
    if (out) out->write(back.data(), 4 * d);
  }
  const double n = static_cast<double>(vocab) * static_cast<double>(d);
  report.input_bytes = tensor.size_bytes;
  report.max_abs_error = report.worst_row_max_abs_error;
  report.mean_abs_error = abs_sum / n;
  report.rms_error = std::sqrt(square_sum / n);
  report.relative_rms_error = input_square_sum > 0 ? std::sqrt(square_sum / input_square_sum) : 0.0;
  report.output_scale = output_scale;
  report.max_abs_output_error = report.max_abs_error * std::abs(output_scale);
  report.mean_abs_output_error = report.mean_abs_error * std::abs(output_scale);
  return report;
}

std::string quantize_weights(const std::string& weights, const PretrainedModel* model) {
  if (!weights.empty()) return weights;
  if (!model) throw UsageError("quantize needs weights PATH[:TENSOR] or pretrained DIR", {"weights", "pretrained"});
  return model->spec.table.weights;
}

QuantizeTable open_quantize_table(const std::string& weights, const PretrainedModel* model,
                                  const std::optional<Scale>& scale) {
  QuantizeTable t{.weights = quantize_weights(weights, model)};
  const TensorSpec spec = parse_tensor_spec(t.weights);
  t.file = WeightFile::open(spec.path);
  t.tensor = &select_tensor(*t.file, spec.tensor, kEmbeddingNames, "token embedding");
  if (t.tensor->shape.size() != 2) throw Error(t.weights + " is not a (vocab, d_model) table");
  const std::size_t width = t.tensor->shape[1];
  t.scale = (scale ? *scale : model ? pretrained_scale(*model, t.tensor->dtype) : Scale::parse("sqrt")).factor(width);
  // The directory's projection goes with the directory's table.
  if (model && weights.empty() && !model->spec.table.projection.empty()) {
    t.projection = read_projection(model->spec.table.projection, t.weights, width);
  } else if (spec.tensor.empty()) {
    t.projection = read_projection("", t.weights, width);
  }
  return t;
}

}  // namespace embedpe
