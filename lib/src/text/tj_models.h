// Private: the loaders of tokenizer.json's three models (tj_model.h's
// load_model calls the one its "type" names). Each reads the model object
// from `r` (which stands before it, its path "model") and refuses, by field,
// what HF would refuse or what is not reproduced.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "tj_json.h"
#include "tj_model.h"
#include "tj_vocab.h"

namespace embedpe::tj {

// What the three models share: their tokens by id, and the unknown token's
// id (-1: none, or not in the vocabulary).
class VocabModel : public Model {
 public:
  std::optional<std::int32_t> token_to_id(std::string_view token) const override {
    const std::int32_t id = vocab_.find(token);
    return id >= 0 ? std::optional<std::int32_t>(id) : std::nullopt;
  }
  std::optional<std::string_view> id_to_token(std::int32_t id) const override {
    return vocab_.contains(id) ? std::optional<std::string_view>(vocab_.token(id)) : std::nullopt;
  }
  std::size_t vocab_size() const override { return vocab_.size(); }
  std::size_t id_bound() const override { return vocab_.id_bound(); }
  std::optional<std::int32_t> unk_id() const override {
    return unk_id_ >= 0 ? std::optional<std::int32_t>(unk_id_) : std::nullopt;
  }

 protected:
  Vocab vocab_;
  std::int32_t unk_id_ = -1;
};

}  // namespace embedpe::tj
