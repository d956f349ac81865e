// embedpe lookup: rows of the embedding table, E[ids]: nn.Embedding is a
// lookup table (PyTorch documentation).
#include <memory>
#include <string>

#include "clikit/usage.h"
#include "commands.h"
#include "common.h"
#include "embedpe/error.h"
#include "embedpe/report_commands.h"
#include "errors.h"
#include "layer_flags.h"

namespace embedpe::cli {

void setup_lookup(CLI::App& app) {
  auto cmd = std::make_shared<LookupCommand>();
  auto* sub = app.add_subcommand("lookup", "Rows E[ids] of the embedding table (nn.Embedding is a lookup table)");
  option_group(*sub, kInputGroup);
  sub->add_option_function<std::string>(
         "--ids", [cmd](const std::string& v) { cmd->ids = parse_ids("--ids", v); }, "Token ids, comma-separated")
      ->type_name("ID,...")
      ->required();
  add_model_option(*sub, cmd->model);
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
  sub->callback([cmd, sub] {
    // Each table flag given replaces its own part of the --pretrained directory's table.
    const auto given = [sub](const char* parameter) { return sub->count(flag_for(parameter)) > 0; };
    const auto note = [](const Error& e) { note_without_tokenizer("no piece column", e); };
    run_lookup(*cmd, given, flag_for, note);
  });
}

}  // namespace embedpe::cli
