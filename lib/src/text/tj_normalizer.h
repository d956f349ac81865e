// Private: tokenizer.json's normalizers (NFC, NFD, NFKC, NFKD, Lowercase,
// StripAccents, Strip, BertNormalizer, Nmt, Replace, Prepend, Precompiled,
// Sequence), each as HF tokenizers 0.22.2 computes it. HF tracks alignments as it goes; ids need
// only the text, so a normalizer here maps a string to a string, and, for Metaspace's
// prepend_scheme "first" alone, says which first bytes of it are aligned with offset 0 of the
// original text (normalize_lead).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include <nlohmann/json_fwd.hpp>

namespace embedpe::tj {

class Normalizer {
 public:
  virtual ~Normalizer() = default;
  virtual void normalize(std::string& text) const = 0;
  // normalize, and `lead` (the number of first bytes of `text` whose alignment starts at
  // original offset 0) made the number of first bytes of the result whose alignment does (HF's
  // NormalizedString::transform). This default holds for a normalizer that maps each character
  // (or each normalization segment) on its own, its output taking its alignment.
  virtual void normalize_lead(std::string& text, std::uint32_t& lead) const;
};

// The "normalizer" section; nullptr for null. UsageError naming `field` for a
// type we do not know or support (by name) and for a malformed one.
std::unique_ptr<Normalizer> load_normalizer(const nlohmann::json& section, const std::string& field);

class Regex;
// Replace's and Split's "pattern": {"String": s} (s itself) or {"Regex": r}.
Regex load_pattern(const nlohmann::json& object, const std::string& field);

}  // namespace embedpe::tj
