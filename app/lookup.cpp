// embedpe lookup: rows of the embedding table, E[ids]: nn.Embedding is a
// lookup table (PyTorch documentation).
#include <charconv>
#include <cmath>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "clikit/usage.h"
#include "commands.h"
#include "common.h"
#include "embedpe/error.h"
#include "memory.h"
#include "embedpe/output_file.h"
#include "layer_flags.h"
#include "json_writer.h"

namespace embedpe::cli {
namespace {

enum class LookupFormat { table, json };

struct LookupCommand {
  std::vector<std::int64_t> ids;
  std::string model;
  TableSpec table;
  std::optional<Span> dims;  // --dims A:B, B excluded (as pe's --dims and --positions)
  LookupFormat format = LookupFormat::table;
  CLI::Option* seed_option = nullptr;  // to tell an explicit --seed
};

// The piece of `id` if the tokenizer has it (a table may have more rows).
std::string tokenizer_piece(const Tokenizer& tok, std::int64_t id) {
  return id < tok.info().vocab_size ? std::string(tok.id_to_piece(static_cast<int>(id))) : "(beyond the vocabulary)";
}

std::string shortest(float v) {
  char buf[32];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

void run_lookup(const LookupCommand& cmd) {
  refuse_outputs_over_inputs({"-"}, {{"--model", cmd.model}, {"--weights", cmd.table.weights},
                                     {"--projection", cmd.table.projection}});
  if (cmd.seed_option->count() && !cmd.table.weights.empty()) {
    throw UsageError("--seed draws the generated table, and --weights gives the table: drop --seed");
  }
  // A weight table is looked up on its own; the tokenizer (given, or the
  // default one for the N(0,1) table) names the pieces.
  std::optional<Tokenizer> tokenizer;
  if (!cmd.model.empty() || cmd.table.weights.empty()) tokenizer = load_tokenizer(cmd.model);
  const auto table = open_table(cmd.table, tokenizer ? &*tokenizer : nullptr);
  const std::size_t d = table->d_model();
  const Span dims = cmd.dims.value_or(Span{0, d});
  if (dims.first + dims.count > d) {
    throw UsageError("--dims " + std::to_string(dims.first) + ":" + std::to_string(dims.first + dims.count) +
                     " goes beyond d_model " + std::to_string(d) + "; choose dims below " + std::to_string(d));
  }
  // The rows, plus their text (at most ~16 bytes a value), before any work.
  const std::string what =
      std::to_string(cmd.ids.size()) + (cmd.ids.size() == 1 ? " row of " : " rows of ") + std::to_string(d) + " values";
  check_allocation(checked_product({cmd.ids.size(), d, sizeof(float) + 16}, what), what,
                   "lower --d-model or look up fewer --ids");
  std::vector<std::vector<float>> rows;
  for (std::int64_t id : cmd.ids) {
    if (id < 0 || id >= table->vocab_size()) {
      throw UsageError("--ids: " + std::to_string(id) + " is outside the table's " +
                       std::to_string(table->vocab_size()) + " rows");
    }
    rows.emplace_back(d);
    table->row(id, rows.back().data());
  }
  OutputFile out("-");
  const auto shown = [&](const std::vector<float>& r) {
    return std::span<const float>(r).subspan(dims.first, dims.count);
  };
  if (cmd.format == LookupFormat::json) {
    nlohmann::ordered_json doc = {{"table", table->describe()}, {"d_model", d}, {"ids", cmd.ids}};
    if (tokenizer) {
      nlohmann::ordered_json pieces = nlohmann::ordered_json::array();
      for (std::int64_t id : cmd.ids) pieces.push_back(tokenizer_piece(*tokenizer, id));
      doc["pieces"] = pieces;
    }
    doc["dims"] = {{"first", dims.first}, {"count", dims.count}};
    nlohmann::ordered_json json_rows = nlohmann::ordered_json::array();
    for (const auto& r : rows) {
      nlohmann::ordered_json jr = nlohmann::ordered_json::array();
      for (float v : shown(r)) {
        // As encode's JSON does: JSON has no NaN or infinity (nlohmann would write null).
        if (!std::isfinite(v)) {
          throw Error(table->describe() + " holds " + (std::isnan(v) ? "NaN" : "an infinity") +
                      " in the rows asked for, which JSON cannot represent; use --format table");
        }
        jr.push_back(float_json(v));
      }
      json_rows.push_back(jr);
    }
    doc["rows"] = json_rows;
    out.write(doc.dump() + "\n");
  } else {
    // Tab-separated columns: id, piece (when a model is known), then one per dim.
    std::string text = "# E[id] from " + table->describe() + ", d_model " + std::to_string(d);
    if (cmd.dims) text += ", dims " + std::to_string(dims.first) + ":" + std::to_string(dims.first + dims.count);
    text += "\n";
    for (std::size_t k = 0; k < rows.size(); ++k) {
      text += std::to_string(cmd.ids[k]) + (tokenizer ? "\t" + tokenizer_piece(*tokenizer, cmd.ids[k]) : "");
      for (float v : shown(rows[k])) text += "\t" + shortest(v);
      text += "\n";
    }
    out.write(text);
  }
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
  cmd->seed_option = add_table_flags(*sub, cmd->table);
  option_group(*sub, kOutputGroup);
  sub->add_option_function<std::string>(
         "--dims", [cmd](const std::string& v) { cmd->dims = parse_span("--dims", v, kMaxDModel); },
         "Dimensions shown: A..B-1 (B excluded, as pe's --dims)")
      ->type_name("A:B")
      ->default_str("all");
  add_choice<LookupFormat>(*sub, "--format", [cmd](LookupFormat f) { cmd->format = f; },
                           {{"table", LookupFormat::table}, {"json", LookupFormat::json}},
                           "table: one line per id, tab-separated (id, piece, values); or json", "table");
  clikit::set_examples(*sub, {
                       "embedpe lookup --ids 1,262,2 --d-model 8",
                       "embedpe lookup --ids 262 --weights emb.npy"});
  sub->callback([cmd] { run_lookup(*cmd); });
}

}  // namespace embedpe::cli
