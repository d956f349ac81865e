// Private: tokenizer.json's normalizers (NFC, NFD, NFKC, NFKD, Lowercase,
// StripAccents, Strip, BertNormalizer, Nmt, Replace, Prepend, Precompiled,
// Sequence), each as HF tokenizers 0.22.2 computes it. HF tracks alignments as it goes; ids need
// only the text, so a normalizer here maps a string to a string.
#pragma once

#include <memory>
#include <string>

#include <nlohmann/json_fwd.hpp>

namespace embedpe::tj {

class Normalizer {
 public:
  virtual ~Normalizer() = default;
  virtual void normalize(std::string& text) const = 0;
};

// The "normalizer" section; nullptr for null. UsageError naming `field` for a
// type we do not know or support (by name) and for a malformed one.
std::unique_ptr<Normalizer> load_normalizer(const nlohmann::json& section, const std::string& field);

class Regex;
// Replace's and Split's "pattern": {"String": s} (s itself) or {"Regex": r}.
Regex load_pattern(const nlohmann::json& object, const std::string& field);

}  // namespace embedpe::tj
