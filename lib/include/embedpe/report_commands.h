// info, lookup and quantize as their commands ask for them, once a front end
// has parsed what was given into these structs: which files, the checks in
// the order the tool has always made them, and the report (report.h) written
// to standard output. The front end names the parameters in what is written
// for it: the inputs a refusal names, and a report's advice.
//
//   run_info({.weights = "model.safetensors"}, flag_name, command_line);
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "embedpe/dims.h"
#include "embedpe/error.h"
#include "embedpe/layer_spec.h"
#include "embedpe/report.h"

namespace embedpe {

// How a front end names a parameter in text the library writes for it.
using ParameterName = std::function<std::string(std::string_view parameter)>;

struct InfoCommand {
  std::string model;       // a SentencePiece .model
  std::string weights;     // a weight file
  std::string pretrained;  // a model directory, GGUF file or tokenizer.json: alone
  ReportFormat format = ReportFormat::text;
};

// pretrained's report (its equivalent parameters spelled by `parameters`),
// else model's and weights' (the embedded model when neither is given).
void run_info(const InfoCommand& cmd, const ParameterName& name, const ParameterText& parameters);

struct LookupCommand {
  std::vector<std::int64_t> ids;
  std::string model;
  std::string pretrained;  // its table, each table parameter given (is_given) overriding its part
  TableSpec table;
  std::optional<Dims> dims;  // the columns shown; unset: all
  ReportFormat format = ReportFormat::text;
};

// Rows E[ids] of the table, each named by its piece where there is a
// tokenizer; `note` hears why pretrained's could not be read (rows then go
// without pieces).
void run_lookup(const LookupCommand& cmd, const IsGiven& is_given, const ParameterName& name,
                const std::function<void(const Error&)>& note);

struct QuantizeCommand {
  std::string weights;     // PATH[:TENSOR]; "": pretrained's token embedding
  std::string pretrained;  // a model directory: its table and the scale its model applies
  std::string output;      // the .safetensors to write; "": none (a ggml type only)
  std::optional<std::string> scale;  // sqrt, none or a number; unset: the model's, else sqrt
  std::string type = "int8";         // or a ggml type, in any case
  ReportFormat format = ReportFormat::text;
};

// The table quantized (or measured under a ggml type) into output, and the
// report written; output appears only once the report is written.
void run_quantize(const QuantizeCommand& cmd, const ParameterName& name);

}  // namespace embedpe
