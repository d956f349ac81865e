#include "tj_vocab.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <charconv>
#include <system_error>
#include <limits>
#include <memory>
#include <new>
#include <unordered_map>

#include "tj_json.h"

namespace embedpe::tj {

void Vocab::reserve(std::size_t tokens, std::size_t bytes) {
  starts_.reserve(tokens + 1);
  bytes_.reserve(bytes);
}

void Vocab::push(std::string_view token, std::int32_t id) {
  if (starts_.empty()) starts_.push_back(0);
  const std::size_t slot = size();
  bytes_.append(token);
  starts_.push_back(static_cast<std::uint32_t>(bytes_.size()));
  max_bytes_ = std::max(max_bytes_, token.size());
  if (dense_ == slot && static_cast<std::size_t>(id) == slot) {
    ++dense_;
  } else {
    sparse_ids_.push_back(id);
  }
  id_bound_ = static_cast<std::size_t>(id) + 1;
}

std::int32_t Vocab::index(bool last_wins) {
  std::size_t capacity = 16;
  while (capacity < 2 * size()) capacity *= 2;
  const std::size_t block_bytes = capacity * sizeof(Slot);
  block_ = MappedBlock(block_bytes, block_bytes >= MappedBlock::kHugePage / 2 ? block_bytes : 0);
  if (!block_) throw std::bad_alloc();
  slots_ = static_cast<Slot*>(block_.data());
  mask_ = capacity - 1;
  for (std::size_t k = 0; k < size(); ++k) {
    const std::string_view t = slot_token(k);
    const std::uint64_t hash = hash_bytes(t);
    const std::uint32_t tag = static_cast<std::uint32_t>(hash >> 32) | 1;
    for (std::uint64_t i = hash & mask_;; i = (i + 1) & mask_) {
      Slot& s = slots_[i];
      if (s.tag == 0) {
        s = Slot{tag, static_cast<std::uint32_t>(k)};
        break;
      }
      if (s.tag == tag && slot_token(s.slot) == t) {
        if (!last_wins) return id_of_slot(k);
        s.slot = static_cast<std::uint32_t>(k);
        break;
      }
    }
  }
  return -1;
}

void Vocab::find_many(const std::string_view* tokens, std::size_t n, std::int32_t* ids) const {
  constexpr std::size_t kStep = 64;
  std::uint64_t hashes[kStep];
  for (std::size_t first = 0; first < n; first += kStep) {
    const std::size_t count = std::min(kStep, n - first);
    // The slots, then the first candidate's bytes, then the look-ups.
    for (std::size_t i = 0; i < count; ++i) {
      hashes[i] = hash_bytes(tokens[first + i]);
      __builtin_prefetch(&slots_[hashes[i] & mask_]);
    }
    for (std::size_t i = 0; i < count; ++i) {
      const Slot& s = slots_[hashes[i] & mask_];
      if (s.tag != 0) __builtin_prefetch(bytes_.data() + starts_[s.slot]);
    }
    for (std::size_t i = 0; i < count; ++i) ids[first + i] = find(tokens[first + i], hashes[i]);
  }
}

Vocab read_vocab_object(JsonReader& r) {
  // While the ids increase (0, 1, 2, ..., as HF writes them; GPT-4o's with
  // holes), each token goes straight into the vocabulary; from the first id
  // out of order on, or where a token comes twice, the entries are collected
  // (in the file's order) and put in order below.
  Vocab vocab;
  struct Entry {
    std::int64_t id;
    std::uint32_t start, size;
  };
  std::vector<Entry> entries;
  std::string bytes;
  bool ordered = true;
  const auto collect = [&] {
    ordered = false;
    entries.reserve(vocab.size() * 2);
    bytes.reserve(vocab.bytes() * 2);
    // Slots are in the file's order while it was ordered.
    for (std::size_t k = 0; k < vocab.size(); ++k) {
      const std::string_view t = vocab.slot_token(k);
      entries.push_back({vocab.id_of_slot(k), static_cast<std::uint32_t>(bytes.size()), static_cast<std::uint32_t>(t.size())});
      bytes.append(t);
    }
  };
  r.begin_object();
  while (auto key = r.next_key()) {
    if ((ordered ? vocab.bytes() : bytes.size()) + key->size() > std::numeric_limits<std::uint32_t>::max())
      r.fail("the vocabulary is too large");
    const auto refuse = [&](const std::string& what) {
      r.push_key(*key);
      r.fail(what);
    };
    if (r.peek() != JsonReader::Kind::number) refuse("expected an integer id");
    const std::string_view digits = r.raw_number();  // (*key lives on: no string is read)
    std::int64_t id = 0;
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), id);
    if (end != digits.data() + digits.size()) refuse("expected an integer id, not " + std::string(digits.substr(0, 30)));
    if (ec != std::errc() || id < 0 || id > std::numeric_limits<std::int32_t>::max())
      refuse("id " + std::string(digits.substr(0, 30)) + (digits[0] == '-' ? " is negative" : " is beyond int32"));
    if (ordered) {
      if (static_cast<std::uint64_t>(id) >= vocab.id_bound()) {
        vocab.push(*key, static_cast<std::int32_t>(id));
        continue;
      }
      collect();
    }
    bytes.append(*key);
    entries.push_back({id, static_cast<std::uint32_t>(bytes.size() - key->size()), static_cast<std::uint32_t>(key->size())});
  }
  if (ordered && vocab.index(false) >= 0) collect();  // a token given twice
  if (!ordered) {
    const auto text = [&](const Entry& e) { return std::string_view(bytes).substr(e.start, e.size); };
    // A token given twice keeps its last id (serde's map), then the ids in order.
    std::unordered_map<std::string_view, std::size_t> last;
    last.reserve(entries.size());
    for (std::size_t i = 0; i < entries.size(); ++i) last[text(entries[i])] = i;
    std::vector<std::size_t> order;
    order.reserve(last.size());
    for (std::size_t i = 0; i < entries.size(); ++i)
      if (last[text(entries[i])] == i) order.push_back(i);
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return entries[a].id < entries[b].id; });
    for (std::size_t k = 1; k < order.size(); ++k) {
      const Entry& e = entries[order[k]];
      if (e.id != entries[order[k - 1]].id) continue;
      // The later of the two in the file is named.
      const std::size_t other = std::min(order[k], order[k - 1]), named = std::max(order[k], order[k - 1]);
      r.push_key(text(entries[named]));
      r.fail("id " + std::to_string(e.id) + " is also " + in_quotes(text(entries[other])) +
             "'s (HF tokenizers would decode it as either, varying from run to run)");
    }
    vocab = Vocab();
    vocab.reserve(order.size(), bytes.size());
    for (const std::size_t i : order) vocab.push(text(entries[i]), static_cast<std::int32_t>(entries[i].id));
    vocab.index(false);  // (no token is given twice now)
  }
  return vocab;
}

bool WordCache::find(std::string_view word, std::uint8_t kind, std::uint64_t hash,
                     std::vector<std::int32_t>& ids) const {
  if (slots_.empty()) return false;
  for (std::size_t i = hash & (kSlots - 1);; i = (i + 1) & (kSlots - 1)) {
    const std::uint32_t s = slots_[i];
    if (s == 0) return false;
    const Entry& e = entries_[s - 1];
    if (e.hash == hash && e.kind == kind && e.word_size == word.size() &&
        std::memcmp(words_.data() + e.word, word.data(), word.size()) == 0) {
      ids.insert(ids.end(), ids_.begin() + e.ids, ids_.begin() + e.ids + e.ids_size);
      return true;
    }
  }
}

void WordCache::clear() {
  std::fill(slots_.begin(), slots_.end(), 0u);
  entries_.clear();
  words_.clear();
  ids_.clear();
}

void WordCache::insert(std::string_view word, std::uint8_t kind, std::uint64_t hash, const std::int32_t* ids,
                       std::size_t count) {
  if (word.size() >= kMaxWordBytes) return;
  if (slots_.empty()) slots_.assign(kSlots, 0u);
  if (entries_.size() >= kMaxEntries || words_.size() + ids_.size() * 4 >= kMaxArenaBytes) clear();
  std::size_t i = hash & (kSlots - 1);
  while (slots_[i] != 0) i = (i + 1) & (kSlots - 1);
  entries_.push_back(Entry{hash, static_cast<std::uint32_t>(words_.size()), static_cast<std::uint32_t>(word.size()),
                           static_cast<std::uint32_t>(ids_.size()), static_cast<std::uint32_t>(count), kind});
  slots_[i] = static_cast<std::uint32_t>(entries_.size());
  words_.append(word);
  ids_.insert(ids_.end(), ids, ids + count);
}

std::uint64_t next_model_serial() {
  static std::atomic<std::uint64_t> serial{0};
  return ++serial;
}

WordCache& thread_word_cache(std::uint64_t serial) {
  struct Held {
    std::uint64_t serial = 0;
    std::unique_ptr<WordCache> cache;
  };
  thread_local std::array<Held, 4> held;  // most recently used first
  if (held[0].serial == serial) return *held[0].cache;
  std::size_t i = 1;
  while (i < held.size() && held[i].serial != serial) ++i;
  if (i == held.size()) {
    i = held.size() - 1;  // the least recently used gives way
    held[i].serial = serial;
    held[i].cache = std::make_unique<WordCache>();
  }
  std::rotate(held.begin(), held.begin() + static_cast<std::ptrdiff_t>(i), held.begin() + static_cast<std::ptrdiff_t>(i) + 1);
  return *held[0].cache;
}

}  // namespace embedpe::tj
