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
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "clikit/usage.h"
#include "commands.h"
#include "common.h"
#include "embedpe/diff.h"
#include "embedpe/encode_command.h"
#include "embedpe/error.h"
#include "embedpe/output_file.h"
#include "embedpe/pretrained_tokenizer.h"

namespace embedpe::cli {
namespace {

struct DiffCli {
  DiffCommand run;  // the files, pairs, tolerances and format
  std::string model, pretrained;
  PretrainedTokenizerKind kind = PretrainedTokenizerKind::fast_if_any;  // --tokenizer
  std::optional<std::size_t> threads;
};

void run_diff(const DiffCli& cli) {
  const std::vector<std::string>& files = cli.run.args;
  if (files.size() < 2) throw UsageError("diff compares two files: embedpe diff A B");
  // `embedpe diff a.npy b.npy >> a.npy` would compare a file being written.
  refuse_outputs_over_inputs({"-"}, {{"A", files[0]}, {"B", files[1]}, {"--model", cli.model}});
  DiffCommand cmd = cli.run;
  cmd.options.threads = cli.threads.value_or(0);
  // Pieces need a model: --model, or the one A's or B's config names.
  const DiffOutcome outcome = embedpe::run_diff(cmd, [&cli, &files] {
    return output_tokenizer(cli.model, cli.pretrained, cli.kind, {files[0], files[1]}, false, command_note("diff"));
  });
  OutputFile out("-");
  out.write(outcome.text);
  out.commit();
  if (outcome.differs) throw ExitStatus{1};
}

}  // namespace

void setup_diff(CLI::App& app) {
  auto cmd = std::make_shared<DiffCli>();
  DiffCommand& run = cmd->run;
  auto* sub = app.add_subcommand(
      "diff", "Two outputs compared as numpy.allclose would: errors, cosine, where they part (exit 0 same, 1 different)");
  option_group(*sub, kInputGroup);
  sub->add_option("A B [A_NAME=B_NAME...]", run.args,
                  "Two files (.npy, .npz, .safetensors, embedpe's .json or .jsonl, or an --output-dir directory), "
                  "then pairs of tensors with different names")
      ->type_name("A B")
      ->required();
  sub->add_option("--tensor", run.tensors, "Compare only this tensor, repeatable (default: every name in both)")
      ->type_name("NAME");
  add_model_option(*sub, cmd->model);
  sub->get_option("--model")->default_str("the model A's or B's config names (found by path and SHA-256), else none: token ids without pieces");
  add_pretrained_option(*sub, cmd->pretrained, sub->get_option("--model"));
  add_tokenizer_kind_option(*sub, cmd->kind);
  option_group(*sub, kToleranceGroup);
  add_number(*sub, "--atol", run.options.atol, 0.0, 1e300, "Absolute tolerance: close when |a-b| <= atol + rtol*|b| "
                                                    "(numpy.allclose's rule and defaults; B is the reference)");
  add_number(*sub, "--rtol", run.options.rtol, 0.0, 1e300, "Relative tolerance");
  sub->add_flag("--equal-nan", run.options.equal_nan,
                "NaN in both is equal (numpy's equal_nan); by default NaN differs");
  sub->add_flag("--ignore-padding", run.options.ignore_padding,
                "Leave out positions where attention_mask (A's, else B's) is 0");
  option_group(*sub, kOutputGroup);
  add_choice<bool>(*sub, "--format", [cmd](bool json) { cmd->run.json = json; }, {{"table", false}, {"json", true}},
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
