// Private: tokenizer.json's pre-tokenizers (Split, ByteLevel, Digits,
// Punctuation, Whitespace, WhitespaceSplit, Metaspace, BertPreTokenizer,
// Sequence), as HF tokenizers 0.22.2 computes them on a PreTokenizedString:
// each step splits every piece that is not yet an added token, and drops the
// empty pieces it makes.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace embedpe::tj {

// One piece of a text on its way to the model.
struct Piece {
  std::string text;
  std::int32_t id = -1;   // an added token's id; -1: text the model tokenizes
  // How many of the first bytes of `text` HF aligns with offset 0 of the original text (see
  // lead_after; Metaspace's prepend_scheme "first" asks NormalizedString::offsets_original().0 == 0
  // of a piece, that is whether `lead` > 0). Kept only when a step asks it (needs_lead), else 0.
  std::uint32_t lead = 0;
  bool bytes = false;     // raw bytes ByteLevel has yet to map to its characters (see ByteLevel)
};

// The lead of the piece that begins at byte `begin` of a piece with `lead`: a slice keeps the
// alignments of its bytes (NormalizedString::slice).
inline std::uint32_t lead_after(std::uint32_t lead, std::size_t begin) {
  return begin < lead ? lead - static_cast<std::uint32_t>(begin) : 0;
}

class PreTokenizer {
 public:
  virtual ~PreTokenizer() = default;
  virtual void pre_tokenize(std::vector<Piece>& pieces) const = 0;
  // Whether a step asks where the original text begins (Piece::lead): Metaspace "first".
  virtual bool needs_lead() const { return false; }
  // Whether this step ends with ByteLevel's mapping of bytes to characters;
  // that mapping is then left to the model (Piece::bytes, Model::tokenize_bytes).
  virtual bool ends_with_byte_level() const { return false; }
  virtual void leave_byte_mapping_to_model() {}
  // GPT2TokenizerFast's and RobertaTokenizerFast's rebuild (transformers v4.44.2): a ByteLevel
  // step made again with another add_prefix_space. False for any other step, which has no
  // add_prefix_space in the state transformers reads (a Sequence's ByteLevel included).
  virtual bool set_add_prefix_space(bool) { return false; }
};

std::unique_ptr<PreTokenizer> load_pre_tokenizer(const nlohmann::json& section, const std::string& field);

// ByteLevel's character of each byte of `text`.
std::string byte_level_map(std::string_view text);

}  // namespace embedpe::tj
