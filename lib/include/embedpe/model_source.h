// Where a command's model comes from, opened in one place: a SentencePiece
// .model (model), a Hugging Face model directory, GGUF file or
// tokenizer.json (pretrained), or the embedded default. It gives the
// tokenizer, the input layer (PretrainedModel: the LayerSpec and the weights
// it reads) and the files a run must not overwrite. Every file is read by the
// model readers (embedpe/pretrained_model.h, pretrained_tokenizer.h,
// tokenizer.h), each as an input: a regular file, under a size cap, noted so
// that no output replaces it.
//
//   embedpe::ModelSource source("", embedpe::resolve_model_path("xlm-roberta-base"));
//   const embedpe::PretrainedModel& m = source.pretrained();  // config.json and the weights' headers, read once
//   embedpe::Tokenizer tok = source.tokenizer();              // tokenizer.json, else the slow class
//   embedpe::Layer layer = embedpe::build_layer(m.spec, tok);
//
// A GGUF file is parsed once: the source keeps its mapping while it lives,
// and the tokenizer and the layer read that one.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "embedpe/error.h"
#include "embedpe/pretrained_model.h"
#include "embedpe/tokenizer.h"

namespace embedpe {

class WeightFile;

class ModelSource {
 public:
  // model: a SentencePiece .model ("": none); pretrained: a model directory,
  // a GGUF file or a tokenizer.json ("": none); kind: which of pretrained's
  // tokenizers. Nothing is read until asked.
  explicit ModelSource(std::string model = "", std::string pretrained = "",
                       PretrainedTokenizerKind kind = PretrainedTokenizerKind::fast_if_any);
  ~ModelSource();
  ModelSource(ModelSource&&) noexcept;
  ModelSource& operator=(ModelSource&&) noexcept;

  const std::string& model_path() const { return model_; }
  const std::string& pretrained_path() const { return pretrained_; }

  // pretrained's input layer: read on first use, then kept. Without
  // pretrained, a logic error.
  const PretrainedModel& pretrained() const;

  // The input layer a front end's values describe: without pretrained,
  // `given` itself; with it, the model's spec, its scale as it runs in `dtype`
  // (pretrained_scale), each part the front end was given replacing the
  // model's (override_layer_spec; is_given names the parameters given).
  LayerSpec layer_spec(const LayerSpec& given, DType dtype, const IsGiven& is_given) const;

  // The tokenizer: model's when given (it overrides pretrained's), else
  // pretrained's, else the embedded default.
  Tokenizer tokenizer() const;
  // pretrained's tokenizer alone (without pretrained, the embedded default).
  Tokenizer pretrained_tokenizer() const;

 private:
  std::string model_, pretrained_;
  PretrainedTokenizerKind kind_;
  mutable std::optional<PretrainedModel> read_;
  mutable std::shared_ptr<const WeightFile> gguf_;  // a GGUF file's one mapping, kept while the source lives
};

// The model a file names (an output's record names its model by path): a
// directory or a GGUF file gives its pretrained tokenizer, anything else is
// read as a SentencePiece .model.
Tokenizer tokenizer_at(const std::string& path);

// pretrained's value as given: a path that exists is what it names; so is a
// name of a file (.gguf, .model) or what is not a Hub model id. Else a Hub
// model id (NAME or ORG/NAME) found in the local Hugging Face cache,
// offline, as huggingface_hub finds it (HF_HUB_CACHE, HF_HOME, ...;
// models--ORG--NAME, the snapshot refs/main names): that snapshot's
// directory. A UsageError naming pretrained when neither is there.
std::string resolve_model_path(const std::string& given);

// The model the first of `outputs` that carries a record names, found at the
// path the record gives (as given, then relative to that output's directory)
// and checked by its SHA-256.
struct RecordedModel {
  std::optional<Tokenizer> tokenizer;  // none: no record names one, or `missing` says why not
  std::string place, output;           // with a tokenizer found by its record: where, and the output naming it
  // A record names a model that is not usable (not whole, none, not there,
  // changed): why, naming model and pretrained, for the caller to refuse or note.
  std::optional<UsageError> missing;
};
RecordedModel model_recorded_in(const std::vector<std::string>& outputs);

}  // namespace embedpe
