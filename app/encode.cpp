// embedpe encode: text → ids → E[ids] × scale + PE → a sink (sink.h: JSON,
// JSON Lines, .npy, .npz, ...). The flags, the output's format and the
// refusal of an output over an input; the library's run_encode
// (embedpe/encode_command.h) does the rest.

#include <unistd.h>

#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "clikit/usage.h"
#include "commands.h"
#include "common.h"
#include "embedpe/encode_command.h"
#include "embedpe/error.h"
#include "embedpe/model_source.h"
#include "embedpe/output_file.h"
#include "embedpe/param_table.h"
#include "embedpe/weights.h"
#include "errors.h"
#include "layer_flags.h"
#include "pe_flags.h"

namespace embedpe::cli {
namespace {

struct EncodeCli {
  EncodeCommand run;  // the texts, the output and pipeline (its request: tokenize's)
  TokenizeFlags tokenize;
  LayerFlags layer;
};

const SinkFormat& infer_format(const EncodeCli& cmd) {
  const EncodeOutput& output = cmd.run.output;
  if (output.format) {  // --format
    if (output.output_dir.empty()) refuse_contradicting_extension(output.path, output.format->name, sink_extensions());
    return *output.format;
  }
  if (!output.output_dir.empty()) return *find_sink_format("npz");  // its parts
  // A person at a terminal gets a summary; a pipe or a file gets the data.
  if (output.path == "-" && ::isatty(STDOUT_FILENO)) return *find_sink_format("summary");
  std::vector<std::pair<std::string, const SinkFormat*>> extensions;
  for (const SinkFormat* f : sink_formats()) {
    for (const std::string& e : f->extensions) extensions.emplace_back(e, f);
  }
  const std::optional<const SinkFormat*> named = format_from_extension(output.path, extensions);
  return named ? **named : *find_sink_format("json");
}

// The model the flags name, opened once: --pretrained's gives the layer and the tokenizer, --model's
// overrides the tokenizer.
ModelSource model_source(const EncodeCli& cmd) {
  return ModelSource(cmd.tokenize.model, cmd.layer.pretrained, cmd.tokenize.kind);
}

// The command the flags describe, the tokenization's flags among them.
EncodeCommand encode_command(const EncodeCli& cmd) {
  EncodeCommand run = cmd.run;
  run.request = cmd.tokenize.request;
  return run;
}

// The front end's way (TakeEncoder): the same checks of the flags, in the
// same order, and the Encoder handed over; texts and outputs are its own.
void take_encoder(const EncodeCli& cmd, const TakeEncoder& take) {
  const ModelSource source = model_source(cmd);
  const LayerSpec layer = layer_spec(cmd.layer, source, cmd.tokenize.request.dtype);
  take(command_encoder(encode_command(cmd), source, layer, cmd.layer.is_given()));
}

void run_encode(const EncodeCli& cmd) {
  const ModelSource source = model_source(cmd);
  // --pretrained's directory is read first: a bad one is refused before anything else.
  const LayerSpec layer = layer_spec(cmd.layer, source, cmd.tokenize.request.dtype);
  // An output that would overwrite an input is the first thing refused.
  EncodeCommand run = encode_command(cmd);
  const std::vector<std::pair<std::string, std::string>> inputs =
      as_flags(encode_inputs(run.text, cmd.tokenize.model, layer, cmd.layer.pretrained));
  if (run.output.output_dir.empty()) {
    refuse_outputs_over_inputs({run.output.path}, inputs);
  } else {
    refuse_inputs_in_parts_dir(run.output.output_dir, inputs);
    // On a terminal, over the progress line.
    run.output.interrupt_note = std::string(::isatty(STDERR_FILENO) ? "\r\x1b[K" : "") + "embedpe: interrupted; " +
                                run.output.output_dir + " keeps the parts written so far: run the same command " +
                                "with --resume to continue";
  }
  run.output.format = &infer_format(cmd);
  const auto note = [&run](const Error& e) {
    if (!run.quiet) note_without_tokenizer("the ids are used as given", e);
  };
  const EncodeResult result = embedpe::run_encode(run, source, layer, cmd.layer.is_given(), note);
  if (!cmd.run.quiet && result.unused_tensors) {
    std::fprintf(stderr, "embedpe: note: %s\n", user_message(*result.unused_tensors).c_str());
  }
  const std::optional<PartsDirStats>& stats = result.stats;
  // Said where the closing summary is: on a terminal, or with --summary; never with --quiet.
  if (stats && stats->kept && !cmd.run.quiet && (cmd.run.summary || ::isatty(STDERR_FILENO))) {
    std::fprintf(stderr, "embedpe: --resume: %zu of %zu parts kept from the interrupted run, %zu written\n",
                 stats->kept, stats->parts, stats->parts - stats->kept);
  }
  if (stats && cmd.run.summary) {
    std::fprintf(stderr, "embedpe: --output-dir: %zu parts; manifest and journal %.3f s, part hashes %.3f s\n",
                 stats->parts, stats->manifest_seconds, stats->part_hash_seconds);
  }
}

}  // namespace

void setup_encode(CLI::App& app, TakeEncoder take) {
  auto cmd = std::make_shared<EncodeCli>();
  auto* sub = app.add_subcommand("encode", "Text → token ids → embedding × scale + positional encoding");
  add_text_options(*sub, cmd->run.text);
  add_tokenize_flags(*sub, cmd->tokenize);
  add_layer_flags(*sub, cmd->layer);
  EncodeRequest& request = cmd->tokenize.request;
  const ParamHooks hooks = {
      {"token_type_ids", [sub, &request](const std::string&) {
         return sub
             ->add_option_function<std::string>(
                 "--token-type-ids",
                 [&request](const std::string& v) { request.token_type_ids = parse_ids("--token-type-ids", v); },
                 "Token types (BERT segments): one for every sequence, one per sequence, or "
                 "with --text-pair the types of the two segments")
             ->type_name("T,...")
             ->default_str("0; with --text-pair 0,1");
       }}};
  add_params(*sub, request_params(request), hooks);
  const ParamHooks output_hooks = {{"emit", [sub, cmd](const std::string& help) {
                                      CLI::Option* emit = sub->add_option("--emit", cmd->run.emit, help)->delimiter(',');
                                      clikit::set_completion_words(emit, tensor_words());
                                      return emit;
                                    }}};
  add_params(*sub, encode_output_params(cmd->run, request), output_hooks);
  clikit::set_examples(*sub, {
                       "embedpe encode --text \"Hello world\"                     # a summary on a terminal, JSON when piped",
                       "embedpe encode --input corpus.txt --seq-len 64 -o out.npz",
                       "embedpe encode --input corpus.txt --pe none --emit input_ids,rope_cos,rope_sin -o rope.safetensors"});
  sub->callback([cmd, take] {
    if (take) {
      take_encoder(*cmd, take);
    } else {
      run_encode(*cmd);
    }
  });
}

}  // namespace embedpe::cli
