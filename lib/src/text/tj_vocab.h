// Private: what tokenizer.json's three models share: a vocabulary (tokens by
// id, ids by token), reading it from the model section, and each thread's
// word -> ids cache.
//
//   tj::Vocab vocab = tj::read_vocab_object(reader);    // BPE, WordPiece: {"token": id, ...}
//   std::int32_t id = vocab.find("hello");               // -1: not in it
//
// Ids may leave holes (GPT-4o's do, and HF tokenizers keeps them: an id no
// token has decodes to nothing); read_vocab_object refuses an id given to two
// tokens and ids beyond int32, each by field. Tokens are stored in id order:
// the first dense_ of them have ids 0 .. dense_ - 1 (every vocabulary without
// holes is all dense), the rest have the sorted ids in sparse_ids_.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "mapped_block.h"

namespace embedpe::tj {

class JsonReader;

// A fast hash of short strings (not for adversaries: the tables below probe
// linearly, so a pathological vocabulary is slow, never wrong).
inline std::uint64_t hash_bytes(const char* p, std::size_t n) {
  constexpr std::uint64_t k1 = 0x9E3779B97F4A7C15ull, k2 = 0xC2B2AE3D27D4EB4Full;
  std::uint64_t h = k2 ^ (n * k1);
  while (n >= 8) {
    std::uint64_t v;
    std::memcpy(&v, p, 8);
    h = (h ^ v) * k1;
    h ^= h >> 29;
    p += 8;
    n -= 8;
  }
  if (n > 0) {
    std::uint64_t v = 0;
    std::memcpy(&v, p, n);
    h = (h ^ v) * k1;
    h ^= h >> 29;
  }
  h *= k2;
  h ^= h >> 32;
  return h;
}
inline std::uint64_t hash_bytes(std::string_view s) { return hash_bytes(s.data(), s.size()); }

class Vocab {
 public:
  // The number of tokens (HF's get_vocab_size: holes are not counted).
  std::size_t size() const { return starts_.empty() ? 0 : starts_.size() - 1; }
  // One past the largest id (size() without holes).
  std::size_t id_bound() const { return id_bound_; }
  // The token of an id the vocabulary has (contains(id)).
  std::string_view token(std::int32_t id) const { return slot_token(slot_of(id)); }
  bool contains(std::int32_t id) const {
    if (id < 0) return false;
    if (static_cast<std::size_t>(id) < dense_) return true;
    return std::binary_search(sparse_ids_.begin(), sparse_ids_.end(), id);
  }
  // The id of `token`, or -1.
  std::int32_t find(std::string_view token) const { return find(token, hash_bytes(token)); }
  std::int32_t find(std::string_view token, std::uint64_t hash) const {
    const std::uint32_t tag = static_cast<std::uint32_t>(hash >> 32) | 1;
    for (std::uint64_t i = hash & mask_;; i = (i + 1) & mask_) {
      const Slot& s = slots_[i];
      if (s.tag == 0) return -1;
      if (s.tag == tag && token == slot_token(s.slot)) return id_of_slot(s.slot);
    }
  }
  // ids[i] = find(tokens[i]) for i < n, the look-ups overlapped (prefetched
  // together): for many at once, as loading the merges does.
  void find_many(const std::string_view* tokens, std::size_t n, std::int32_t* ids) const;
  // The length in bytes of the longest token.
  std::size_t max_token_bytes() const { return max_bytes_; }
  // The bytes of all tokens together.
  std::size_t bytes() const { return bytes_.size(); }

  // Building: tokens in increasing id order (push(token): the next id,
  // id_bound()), then index(). A token given twice is found as the last of
  // its ids when last_wins, else index() returns the first duplicate's later
  // id (and the vocabulary is not usable).
  void reserve(std::size_t tokens, std::size_t bytes);
  void push(std::string_view token) { push(token, static_cast<std::int32_t>(id_bound_)); }
  void push(std::string_view token, std::int32_t id);  // id >= id_bound()
  std::int32_t index(bool last_wins);

 private:
  friend Vocab read_vocab_object(JsonReader& r);
  struct Slot {
    std::uint32_t tag;   // the hash's high half | 1; 0: empty
    std::uint32_t slot;  // the token's place in bytes_/starts_
  };
  std::string_view slot_token(std::size_t slot) const {
    return {bytes_.data() + starts_[slot], starts_[slot + 1] - starts_[slot]};
  }
  std::int32_t id_of_slot(std::size_t slot) const {
    return slot < dense_ ? static_cast<std::int32_t>(slot) : sparse_ids_[slot - dense_];
  }
  std::size_t slot_of(std::int32_t id) const {
    if (static_cast<std::size_t>(id) < dense_) return static_cast<std::size_t>(id);
    return dense_ + static_cast<std::size_t>(std::lower_bound(sparse_ids_.begin(), sparse_ids_.end(), id) - sparse_ids_.begin());
  }
  std::string bytes_;
  std::vector<std::uint32_t> starts_;  // (size + 1): slot k spans bytes_[starts_[k], starts_[k + 1])
  std::size_t dense_ = 0;              // slots 0 .. dense_ - 1 have ids 0 .. dense_ - 1
  std::vector<std::int32_t> sparse_ids_;  // the ids of the slots from dense_ on, increasing
  std::size_t id_bound_ = 0;
  // Open addressing, in one MappedBlock of zeroed memory (huge pages for a
  // large vocabulary: LLaMA-3's 2 MB index is one page fault, not 512).
  static inline Slot none_[1] = {};  // before index(): one empty slot
  MappedBlock block_;
  Slot* slots_ = none_;
  std::uint64_t mask_ = 0;
  std::size_t max_bytes_ = 0;
};

// Reads {"token": id, ...} (the reader before the object), as HF's serde
// reads it into a map: a token given twice keeps its last id (the earlier one
// is a hole then). Refuses an id given to two tokens (HF's id -> token map of
// it is whichever its hash map yields, from run to run) and an id beyond
// int32, by field.
Vocab read_vocab_object(JsonReader& r);

// Each thread's cache of words' ids for one model: bounded (emptied when
// full), keyed by the word's bytes and a one-byte kind (so that two ways of
// reading words do not mix).
class WordCache {
 public:
  static constexpr std::size_t kMaxWordBytes = 256;  // HF's MAX_LENGTH: longer words are not kept
  // The cached ids of `word`, or false.
  bool find(std::string_view word, std::uint8_t kind, std::uint64_t hash, std::vector<std::int32_t>& ids) const;
  void insert(std::string_view word, std::uint8_t kind, std::uint64_t hash, const std::int32_t* ids, std::size_t count);

 private:
  struct Entry {
    std::uint64_t hash;
    std::uint32_t word, word_size, ids, ids_size;
    std::uint8_t kind;
  };
  void clear();
  static constexpr std::size_t kSlots = std::size_t(1) << 16;
  static constexpr std::size_t kMaxEntries = kSlots / 2;
  static constexpr std::size_t kMaxArenaBytes = std::size_t(4) << 20;
  std::vector<std::uint32_t> slots_;  // (kSlots): entry index + 1, 0: empty
  std::vector<Entry> entries_;
  std::string words_;
  std::vector<std::int32_t> ids_;
};

// The calling thread's WordCache for the model with this serial number
// (models take one from next_model_serial() when they load). A thread keeps
// the caches of its four models used last.
WordCache& thread_word_cache(std::uint64_t serial);
std::uint64_t next_model_serial();

}  // namespace embedpe::tj
