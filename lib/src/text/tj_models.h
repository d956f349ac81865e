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
#include <vector>

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
  // `word`'s ids from the calling thread's cache of this model (kind: which
  // of the model's ways of reading words), else appended by encode() and kept.
  template <class Encode>
  void cached(std::string_view word, std::uint8_t kind, std::uint64_t hash, std::vector<std::int32_t>& ids,
              Encode encode) const {
    WordCache& cache = thread_word_cache(serial_);
    if (cache.find(word, kind, hash, ids)) return;
    const std::size_t before = ids.size();
    encode();
    cache.insert(word, kind, hash, ids.data() + before, ids.size() - before);
  }
  // The model object's members (`r` before it), as HF's serde reads them:
  // "type", if given, must be `type`; field(key) reads the value of a key it
  // knows and returns true; any other key is skipped, as HF ignores it.
  template <class Field>
  static void read_fields(JsonReader& r, const char* type, Field field) {
    const std::size_t base = r.path_size();
    bool typed = false;
    r.begin_object();
    while (auto key_view = r.next_key()) {
      const std::string key(*key_view);
      r.push("." + key);
      if (key == "type") {
        // HF reads "type" as serde's internal tag, which refuses it twice (the Rust core 0.22.2
        // refuses such a file, the two the same or not).
        if (typed) r.fail("the key is given twice");
        if (r.peek() != JsonReader::Kind::string || r.string() != type) r.fail("expected \"" + std::string(type) + "\"");
        typed = true;
      } else if (!field(key)) {
        r.skip();
      }
      r.pop(base);
    }
  }

  Vocab vocab_;
  std::int32_t unk_id_ = -1;
  std::string shown_;  // the file, as messages name it
  std::uint64_t serial_ = next_model_serial();  // which WordCache is this model's
};

}  // namespace embedpe::tj
