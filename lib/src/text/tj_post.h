// Private: tokenizer.json's post-processors (TemplateProcessing,
// RobertaProcessing, BertProcessing, ByteLevel, Sequence) and decoders
// (ByteLevel, Metaspace, WordPiece, ByteFallback, Fuse, Strip, Replace,
// Sequence), as HF tokenizers 0.22.2 computes them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace embedpe::tj {

// One sequence of an encoding: its ids, tokens and type ids.
struct Encoded {
  std::vector<std::int32_t> ids;
  std::vector<std::string> tokens;
  std::vector<std::int32_t> types;
};

class PostProcessor {
 public:
  virtual ~PostProcessor() = default;
  // How many tokens process() adds (HF's added_tokens(is_pair)).
  virtual std::size_t added_tokens(bool pair) const = 0;
  // process_encodings: the one or two sequences, whose type ids are their
  // index, turned into what is then concatenated.
  virtual void process(std::vector<Encoded>& encodings, bool add_special_tokens) const = 0;
};

// nullptr for null. `id_of` gives the id of a token the processor names
// (Roberta's and Bert's cls/sep carry their own ids; a template's carry theirs).
std::unique_ptr<PostProcessor> load_post_processor(const nlohmann::json& section, const std::string& field);

class Decoder {
 public:
  virtual ~Decoder() = default;
  virtual void decode_chain(std::vector<std::string>& tokens) const = 0;
};

std::unique_ptr<Decoder> load_decoder(const nlohmann::json& section, const std::string& field);

// Rust's String::from_utf8_lossy: each maximal invalid subsequence becomes U+FFFD.
std::string utf8_lossy(std::string_view bytes);

}  // namespace embedpe::tj
