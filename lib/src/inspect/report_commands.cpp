// info, lookup and quantize as their commands ask for them (report_commands.h).
#include "embedpe/report_commands.h"

#include <cctype>
#include <memory>

#include "embedpe/encode_request.h"
#include "embedpe/message.h"
#include "embedpe/model_source.h"
#include "embedpe/output_file.h"
#include "embedpe/projection.h"
#include "embedpe/quantize.h"
#include "embedpe/weights.h"

namespace embedpe {
namespace {

void write_out(const std::string& text) {
  OutputFile out("-");
  out.write(text);
  out.commit();
}

bool is_int8(const std::string& type) {
  std::string lower = type;
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return lower == "int8";
}

}  // namespace

void run_info(const InfoCommand& cmd, const ParameterName& name, const ParameterText& parameters) {
  if (!cmd.pretrained.empty()) {
    if (!cmd.model.empty() || !cmd.weights.empty()) {
      Message m;
      m << "pretrained describes a " << Verbatim{"model directory"} << "; model and weights describe single "
        << "files: give one or the other";
      throw m.usage_error({"pretrained", "model", "weights"});
    }
    write_out(pretrained_report(ModelSource("", cmd.pretrained), cmd.format, parameters));
    return;
  }
  refuse_outputs_over_inputs({"-"}, {{name("model"), cmd.model}, {name("weights"), cmd.weights}});
  // The default model when nothing is named.
  std::optional<Tokenizer> model;
  if (!cmd.model.empty() || cmd.weights.empty()) model = ModelSource(cmd.model).tokenizer();
  const std::shared_ptr<const WeightFile> weights = cmd.weights.empty() ? nullptr : WeightFile::open(cmd.weights);
  write_out(info_report(model ? &*model : nullptr, weights.get(), cmd.weights, cmd.format));
}

void run_lookup(const LookupCommand& cmd, const IsGiven& is_given, const ParameterName& name,
                const std::function<void(const Error&)>& note) {
  const ModelSource source(cmd.model, cmd.pretrained);
  // With pretrained, each table parameter given replaces its own part of the directory's table.
  LayerSpec layer;
  layer.table = cmd.pretrained.empty() ? cmd.table
                                       : override_table_spec(source.pretrained().spec.table, cmd.table, is_given);
  const TableSpec& spec = layer.table;
  refuse_outputs_over_inputs({"-"}, {{name("model"), cmd.model},
                                     {name("weights"), spec.weights},
                                     {name("projection"), spec.projection}});
  // The tokenizer names the pieces: model's, the pretrained directory's (a
  // note without one), or the default one for the N(0,1) table; a weights
  // table given alone is looked up without one, as encode takes ids.
  std::optional<Tokenizer> tokenizer = ids_tokenizer(source, layer, note);
  const auto table = open_table(spec, tokenizer ? &*tokenizer : nullptr);
  write_out(table_rows_report(*table, cmd.ids, cmd.dims, tokenizer ? &*tokenizer : nullptr, cmd.format));
}

void run_quantize(const QuantizeCommand& cmd, const ParameterName& name) {
  const bool int8 = is_int8(cmd.type);
  if (int8 && cmd.output.empty()) {
    throw UsageError("quantize needs output_path OUT.safetensors for int8 (the default type)", {"output_path", "type"});
  }
  if (!cmd.output.empty()) check_quantize_output(cmd.output);
  // A model directory names its token embedding and the scale its model applies to it (none for
  // most, Gemma's normalizer in the weights' dtype): weights and scale, when given, override them.
  std::optional<PretrainedModel> model;
  if (!cmd.pretrained.empty()) model = ModelSource("", cmd.pretrained).pretrained();
  const PretrainedModel* m = model ? &*model : nullptr;
  if (!cmd.output.empty()) {
    refuse_outputs_over_inputs({cmd.output, "-"}, {{name("weights"), quantize_weights(cmd.weights, m)}});
  }
  const std::optional<Scale> scale = cmd.scale ? std::optional(Scale::parse(*cmd.scale)) : std::nullopt;
  const QuantizeTable table = open_quantize_table(cmd.weights, m, scale);
  const WeightTensor& tensor = *table.tensor;
  const std::string projection = table.projection ? table.projection->weight_source : "";

  std::optional<OutputFile> out;
  if (!cmd.output.empty()) out.emplace(cmd.output);
  OutputFile report("-");
  if (int8) {
    const QuantizeReport r = quantize_table(*table.file, tensor, *out, table.scale);
    report.write(quantize_report(r, table.weights, tensor, cmd.output, projection, cmd.format));
  } else {
    const GgmlQuantizeReport r = quantize_table_ggml(*table.file, tensor, cmd.type, out ? &*out : nullptr, table.scale);
    report.write(ggml_quantize_report(r, table.weights, tensor, cmd.output, projection, cmd.format));
  }
  if (table.projection && cmd.format == ReportFormat::text) {
    report.write("projection     the projection " + projection + " is not in the output (only the table is " +
                 "quantized); encode with " + name("weights") + " " + cmd.output + " " + name("projection") + " " +
                 projection + "; the errors above are the unprojected rows'\n");
  }
  // The report first: if standard output fails, the run fails and leaves no file.
  report.commit();
  if (out) out->commit();
}

}  // namespace embedpe
