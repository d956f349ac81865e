// embedpe diff: is this the same tensor? Two outputs (or weight files)
// compared as numpy.allclose would, with where they part and which token that
// is. The comparison is the library's (embedpe/diff.h).
//
//   embedpe diff ours.npz theirs.npz                     every tensor both have
//   embedpe diff out.npz hidden_states_0.npy output=hidden_states_0
//   embedpe diff a.safetensors b.safetensors --format json --rtol 1e-3
//
// Exit status as cmp's and diff's: 0 the same within tolerance, 1 different,
// 2 trouble (an input that cannot be read, a bad option).
#include <cstdint>
#include <memory>
#include <new>
#include <optional>
#include <string>
#include <vector>

#include "clikit/usage.h"
#include "commands.h"
#include "common.h"
#include "embedpe/diff.h"
#include "embedpe/error.h"
#include "embedpe/output_file.h"
#include "embedpe/pretrained_tokenizer.h"

namespace embedpe::cli {
namespace {

enum class DiffFormat { table, json };

struct DiffCommand {
  std::vector<std::string> args;     // A B [A_NAME=B_NAME...]
  std::vector<std::string> tensors;  // --tensor NAME
  double atol = 1e-8, rtol = 1e-5;
  bool equal_nan = false, ignore_padding = false;
  std::string model, pretrained;
  PretrainedTokenizerKind kind = PretrainedTokenizerKind::fast_if_any;  // --tokenizer
  std::optional<std::size_t> threads;
  DiffFormat format = DiffFormat::table;
};

DiffOptions diff_options(const DiffCommand& cmd) {
  DiffOptions o{.atol = cmd.atol, .rtol = cmd.rtol, .equal_nan = cmd.equal_nan, .ignore_padding = cmd.ignore_padding};
  for (std::size_t k = 2; k < cmd.args.size(); ++k) {
    const std::string& p = cmd.args[k];
    const std::size_t eq = p.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == p.size()) {
      throw UsageError("'" + p + "' is not a pair of tensor names: give A_NAME=B_NAME");
    }
    o.pairs.emplace_back(p.substr(0, eq), p.substr(eq + 1));
  }
  for (const std::string& t : cmd.tensors) o.pairs.emplace_back(t, t);
  o.threads = cmd.threads.value_or(0);
  return o;
}

void run_diff(const DiffCommand& cmd) {
  if (cmd.args.size() < 2) throw UsageError("diff compares two files: embedpe diff A B");
  // `embedpe diff a.npy b.npy >> a.npy` would compare a file being written.
  refuse_outputs_over_inputs({"-"}, {{"A", cmd.args[0]}, {"B", cmd.args[1]}, {"--model", cmd.model}});
  std::string text;
  bool differs = false;
  // Every failure is trouble (2), apart from "different" (1): an unreadable
  // file included, which other commands report as 1.
  try {
    const DiffReport report = diff_files(cmd.args[0], cmd.args[1], diff_options(cmd));
    // Pieces need a model: --model, or the one A's or B's config names.
    const std::optional<Tokenizer> tokenizer =
        tokenizer_for_outputs(cmd.model, cmd.pretrained, {cmd.args[0], cmd.args[1]}, "diff", /*required=*/false,
                              cmd.kind);
    PieceFn piece;
    if (tokenizer) {
      piece = [&tokenizer](std::int64_t id) {
        return id >= 0 && id < tokenizer->info().vocab_size ? std::string(tokenizer->id_to_piece(static_cast<int>(id)))
                                                       : std::string("(not in the model)");
      };
    }
    text = cmd.format == DiffFormat::json ? diff_json(report, piece).dump(2) + "\n" : diff_table(report, piece);
    differs = report.differs();
  } catch (const UsageError&) {
    throw;
  } catch (const InternalError&) {
    throw;
  } catch (const Error& e) {
    throw UsageError(e.what(), e.parameters(), e.verbatim());
  } catch (const std::bad_alloc&) {
    throw UsageError("out of memory (a deflated .npz member or a JSON file is held whole)");
  }
  OutputFile out("-");
  out.write(text);
  out.commit();
  if (differs) throw ExitStatus{1};
}

}  // namespace

void setup_diff(CLI::App& app) {
  auto cmd = std::make_shared<DiffCommand>();
  auto* sub = app.add_subcommand(
      "diff", "Two outputs compared as numpy.allclose would: errors, cosine, where they part (exit 0 same, 1 different)");
  option_group(*sub, kInputGroup);
  sub->add_option("A B [A_NAME=B_NAME...]", cmd->args,
                  "Two files (.npy, .npz, .safetensors, embedpe's .json or .jsonl, or an --output-dir directory), "
                  "then pairs of tensors with different names")
      ->type_name("A B")
      ->required();
  sub->add_option("--tensor", cmd->tensors, "Compare only this tensor, repeatable (default: every name in both)")
      ->type_name("NAME");
  add_model_option(*sub, cmd->model);
  sub->get_option("--model")->default_str("the model A's or B's config names (found by path and SHA-256), else none: token ids without pieces");
  add_pretrained_option(*sub, cmd->pretrained, sub->get_option("--model"));
  add_tokenizer_kind_option(*sub, cmd->kind);
  option_group(*sub, kToleranceGroup);
  add_number(*sub, "--atol", cmd->atol, 0.0, 1e300, "Absolute tolerance: close when |a-b| <= atol + rtol*|b| "
                                                    "(numpy.allclose's rule and defaults; B is the reference)");
  add_number(*sub, "--rtol", cmd->rtol, 0.0, 1e300, "Relative tolerance");
  sub->add_flag("--equal-nan", cmd->equal_nan, "NaN in both is equal (numpy's equal_nan); by default NaN differs");
  sub->add_flag("--ignore-padding", cmd->ignore_padding,
                "Leave out positions where attention_mask (A's, else B's) is 0");
  option_group(*sub, kOutputGroup);
  add_choice<DiffFormat>(*sub, "--format", [cmd](DiffFormat f) { cmd->format = f; },
                         {{"table", DiffFormat::table}, {"json", DiffFormat::json}},
                         "table: a line per tensor; json: the same report for scripts", "table");
  add_number(*sub, "--threads", cmd->threads, 1, kMaxThreads, "Threads comparing (at most 1024)")
      ->default_str("the cores available");
  clikit::set_examples(*sub, {
                       "embedpe diff ours.npz theirs.npz                         # every tensor both have",
                       "embedpe diff out.npz hidden_states_0.npy output=hidden_states_0",
                       "embedpe diff a.npz b.npz --rtol 1e-3 --format json",
                       "embedpe diff a.npz b.npz --ignore-padding --model m.model # tokens named"});
  sub->callback([cmd] { run_diff(*cmd); });
}

}  // namespace embedpe::cli
