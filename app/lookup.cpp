// embedpe lookup: rows of the embedding table, E[ids]: nn.Embedding is a
// lookup table (PyTorch documentation).
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "clikit/usage.h"
#include "commands.h"
#include "common.h"
#include "errors.h"
#include "embedpe/error.h"
#include "embedpe/output_file.h"
#include "embedpe/model_source.h"
#include "embedpe/report.h"
#include "layer_flags.h"

namespace embedpe::cli {
namespace {

struct LookupCommand {
  std::vector<std::int64_t> ids;
  std::string model;
  TableSpec table;
  std::string pretrained;
  const CLI::App* sub = nullptr;
  std::optional<Span> dims;  // --dims A:B, B excluded (as pe's --dims and --positions)
  ReportFormat format = ReportFormat::text;
};

// The table the flags name: with --pretrained, the directory's, each table flag given overriding its part.
TableSpec lookup_table(const LookupCommand& cmd, const ModelSource& source) {
  if (cmd.pretrained.empty()) return cmd.table;
  // Each table flag given replaces its own part of the directory's table.
  return override_table_spec(source.pretrained().spec.table, cmd.table,
                             [&cmd](const char* parameter) { return cmd.sub->count(flag_for(parameter)) > 0; });
}

void run_lookup(const LookupCommand& cmd) {
  const ModelSource source(cmd.model, cmd.pretrained);
  const TableSpec spec = lookup_table(cmd, source);
  refuse_outputs_over_inputs({"-"}, {{"--model", cmd.model}, {"--weights", spec.weights},
                                     {"--projection", spec.projection}});
  // The tokenizer names the pieces: --model's, the --pretrained directory's (a
  // note without one), or the default one for the N(0,1) table; a --weights
  // table given alone is looked up without one, as encode takes ids.
  LayerSpec layer;
  layer.table = spec;
  const auto note = [](const Error& e) {
    std::fprintf(stderr, "embedpe: note: no piece column, without the directory's tokenizer (%s)\n",
                 clikit::printable_line(e.what()).c_str());
  };
  std::optional<Tokenizer> tokenizer = ids_tokenizer(source, layer, note);
  const auto table = open_table(spec, tokenizer ? &*tokenizer : nullptr);
  std::optional<Dims> dims;
  if (cmd.dims) dims = Dims{cmd.dims->first, cmd.dims->count};
  OutputFile out("-");
  out.write(table_rows_report(*table, cmd.ids, dims, tokenizer ? &*tokenizer : nullptr, cmd.format));
  out.commit();
}

}  // namespace

void setup_lookup(CLI::App& app) {
  auto cmd = std::make_shared<LookupCommand>();
  auto* sub = app.add_subcommand("lookup", "Rows E[ids] of the embedding table (nn.Embedding is a lookup table)");
  option_group(*sub, kInputGroup);
  sub->add_option_function<std::string>(
         "--ids", [cmd](const std::string& v) { cmd->ids = parse_ids("--ids", v); }, "Token ids, comma-separated")
      ->type_name("ID,...")
      ->required();
  add_model_option(*sub, cmd->model);
  cmd->sub = sub;
  option_group(*sub, kEmbeddingGroup);
  add_pretrained_option(*sub, cmd->pretrained, nullptr,
                        "A Hugging Face model directory: its token embedding table, and its tokenizer names the "
                        "pieces; each table flag given overrides its part");
  add_table_flags(*sub, cmd->table);
  option_group(*sub, kOutputGroup);
  add_span(*sub, "--dims", cmd->dims, kMaxDModel, "Dimensions shown: A..B-1 (B excluded, as pe's --dims)")
      ->default_str("all");
  add_choice<ReportFormat>(*sub, "--format", [cmd](ReportFormat f) { cmd->format = f; },
                           {{"table", ReportFormat::text}, {"json", ReportFormat::json}},
                           "table: one line per id, tab-separated (id, piece, values); or json", "table");
  clikit::set_examples(*sub, {
                       "embedpe lookup --ids 1,262,2 --d-model 8",
                       "embedpe lookup --ids 262 --weights emb.npy"});
  sub->callback([cmd] { run_lookup(*cmd); });
}

}  // namespace embedpe::cli
