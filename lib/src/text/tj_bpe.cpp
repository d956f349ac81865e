// tokenizer.json's BPE model, as HF tokenizers 0.22.2 computes it
// (tokenizers/src/models/bpe/{model.rs,word.rs,serialization.rs}).
//
// A word becomes one symbol per character (with continuing_subword_prefix on
// all but the first, end_of_word_suffix on the last), each looked up in the
// vocabulary; a character that is not in it becomes its bytes' <0xAB> tokens
// (byte_fallback, when all of them exist) or unk_token (runs fused with
// fuse_unk), or is dropped when there is no unk_token. Then the adjacent pair
// of lowest merge rank is merged, the leftmost among equal ranks, until no
// pair is in the merges: HF's priority queue of (rank, position), with its
// check that an entry still names the pair now at its position (word.rs
// merge_all), done here the same way, so that the result is HF's whatever the
// merges (several pairs may give one token: SentencePiece conversions do).
// O(n log n) in the word's length: one 200 KB word of one letter is fine.
//
// With ignore_merges (LLaMA-3), a word that is itself a token is that token.
// Words shorter than 256 bytes are cached per thread, as HF caches them.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <new>

#include "byte_piece.h"
#include "embedpe/error.h"
#include "mapped_block.h"
#include "tj_json.h"
#include "tj_models.h"
#include "tj_vocab.h"

namespace embedpe::tj {
namespace {

// The merges: (left id, right id) -> (rank, new id), open addressing in one
// MappedBlock of zeroed memory (slot key 0: empty; keys are stored plus one):
// huge pages where the kernel gives them, so that LLaMA-3's 8 MB table costs 4
// page faults and not 2,048 (10-20 us each on this VM), and its random probes
// few TLB misses.
class MergeMap {
 public:
  struct Value {
    std::uint32_t rank;
    std::int32_t new_id;
  };
  // Room for `merges` entries at a load of at most 3/4 (emptied).
  void reserve(std::size_t merges) {
    std::size_t capacity = 16;
    while (capacity * 3 < merges * 4) capacity *= 2;
    allocate(capacity);
  }
  static std::uint64_t key(std::int32_t a, std::int32_t b) {
    return static_cast<std::uint64_t>(static_cast<std::uint32_t>(a)) << 32 | static_cast<std::uint32_t>(b);
  }
  static std::uint64_t spread(std::uint64_t k) {
    k *= 0x9E3779B97F4A7C15ull;
    return k ^ (k >> 31);
  }
  // Later ranks of one pair replace earlier ones (HF collects them into a map).
  void set(std::uint64_t k, Value v) {
    if ((count_ + 1) * 4 > (mask_ + 1) * 3) grow();
    const std::uint64_t stored = k + 1;
    for (std::uint64_t i = spread(k) & mask_;; i = (i + 1) & mask_) {
      if (slots_[i].key == 0) {
        slots_[i] = Slot{stored, v};
        ++count_;
        return;
      }
      if (slots_[i].key == stored) {
        slots_[i].value = v;
        return;
      }
    }
  }
  const Value* find(std::int32_t a, std::int32_t b) const {
    const std::uint64_t k = key(a, b), stored = k + 1;
    for (std::uint64_t i = spread(k) & mask_;; i = (i + 1) & mask_) {
      const Slot& s = slots_[i];
      if (s.key == stored) return &s.value;
      if (s.key == 0) return nullptr;
    }
  }
  std::size_t size() const { return count_; }
  // Brings the slot where (a, b) would be into the cache: a long word's pairs
  // are prefetched together, so that their look-ups overlap (the table is MBs).
  void prefetch(std::int32_t a, std::int32_t b) const { __builtin_prefetch(&slots_[spread(key(a, b)) & mask_]); }

 private:
  struct Slot {
    std::uint64_t key;  // the pair's key + 1 (ids are below 2^31); 0: empty
    Value value;
  };
  void allocate(std::size_t capacity) {
    const std::size_t bytes = capacity * sizeof(Slot);
    block_ = MappedBlock(bytes, bytes >= MappedBlock::kHugePage / 2 ? bytes : 0);
    if (!block_) throw std::bad_alloc();
    slots_ = static_cast<Slot*>(block_.data());
    mask_ = capacity - 1;
    count_ = 0;
  }
  void grow() {
    const MappedBlock old = std::move(block_);
    const Slot* old_slots = slots_;
    const std::size_t old_capacity = mask_ + 1;
    allocate(old_capacity * 2);
    for (std::size_t i = 0; i < old_capacity; ++i)
      if (old_slots[i].key != 0) set(old_slots[i].key - 1, old_slots[i].value);
  }
  static inline Slot none_[1] = {};  // before reserve: one empty slot (set grows first)
  MappedBlock block_;
  Slot* slots_ = none_;
  std::uint64_t mask_ = 0;
  std::size_t count_ = 0;
};

// The length of the UTF-8 character starting with byte c (words are valid UTF-8).
inline std::size_t char_bytes(unsigned char c) {
  return c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
}

class Bpe final : public VocabModel {
 public:
  void tokenize(std::string_view word, std::vector<std::int32_t>& ids) const override;
  void tokenize_bytes(std::string_view raw, std::vector<std::int32_t>& ids) const override;
  const char* type() const override { return "BPE"; }

  static std::unique_ptr<Model> load(JsonReader& r);

 private:
  // Merges on their way into merges_, resolved a batch at a time (their
  // vocabulary look-ups prefetched together: the tables are MBs).
  struct MergeBatch {
    static constexpr std::size_t kSize = 64;
    struct Item {
      std::size_t index;  // in model.merges
      std::uint32_t a, a_size, b, b_size;
    };
    std::vector<Item> items;
    std::string bytes;  // the items' tokens
    std::uint32_t next_rank = 0;
  };
  void add_merge(JsonReader& r, MergeBatch& batch, std::string_view a, std::string_view b, std::size_t index) {
    batch.items.push_back({index, static_cast<std::uint32_t>(batch.bytes.size()), static_cast<std::uint32_t>(a.size()), 0,
                           static_cast<std::uint32_t>(b.size())});
    batch.bytes.append(a);
    batch.items.back().b = static_cast<std::uint32_t>(batch.bytes.size());
    batch.bytes.append(b);
    if (batch.items.size() == MergeBatch::kSize) resolve_merges(r, batch);
  }
  // Each merge of the batch, in order: its ids, checked as HF's builder checks
  // them (the first merge that fails is the one refused, as one at a time).
  void resolve_merges(JsonReader& r, MergeBatch& batch);
  // The tables tokenize reads, once the vocabulary and the settings are known.
  void build_lookups();
  struct Symbol {
    std::int32_t id;
    std::int32_t prev, next;
    std::uint32_t len;  // bytes of the word; 0: merged into its left neighbour
  };
  // The word's symbols before merges, as merge_word builds them.
  void split(std::string_view word, std::vector<Symbol>& symbols) const;
  void add_unknown(std::string_view piece, std::uint32_t byte_len, std::vector<Symbol>& symbols,
                   std::int32_t& pending_unk, std::uint32_t& pending_len) const;
  void merge_all(std::vector<Symbol>& symbols) const;
  void encode(std::string_view word, std::vector<std::int32_t>& ids) const;
  void encode_bytes(std::string_view raw, std::vector<std::int32_t>& ids) const;  // tokenize_bytes, uncached
  static void add(std::vector<Symbol>& symbols, std::int32_t id, std::uint32_t len) {
    const auto n = static_cast<std::int32_t>(symbols.size());
    if (n > 0) symbols.back().next = n;
    symbols.push_back(Symbol{id, n - 1, -1, len});
  }

  MergeMap merges_;
  std::string unk_token_;
  bool has_unk_token_ = false;
  std::string prefix_, suffix_;
  bool fuse_unk_ = false;
  bool byte_fallback_ = false;
  bool ignore_merges_ = false;
  std::int32_t byte_tokens_[256];    // <0xAB>'s id, or -1
  std::int32_t ascii_ids_[0x800];    // the id of the one-character token of code point < 0x800, or -1
  std::int32_t byte_level_ids_[256]; // the id of ByteLevel's character of each byte, or -1
  // tokenize_bytes may build symbols from bytes: no prefix or suffix, and
  // every byte's ByteLevel character is a token.
  bool raw_symbols_ = false;
};

void Bpe::add_unknown(std::string_view piece, std::uint32_t byte_len, std::vector<Symbol>& symbols,
                      std::int32_t& pending_unk, std::uint32_t& pending_len) const {
  if (byte_fallback_) {
    bool all = true;
    for (const char c : piece) all = all && byte_tokens_[static_cast<unsigned char>(c)] >= 0;
    if (all) {
      // As HF: a pending unk stays pending past these (it is added before the next known symbol).
      for (const char c : piece) add(symbols, byte_tokens_[static_cast<unsigned char>(c)], 1);
      return;
    }
  }
  if (!has_unk_token_) return;  // HF drops the character
  if (unk_id_ < 0) {
    throw UsageError(shown_ + ": model.unk_token: " + in_quotes(unk_token_) +
                         " is not in the vocabulary, and the text needs it (for " + in_quotes(piece) + ")",
                     {}, {TextSpan{0, shown_.size()}});
  }
  if (pending_unk >= 0) {
    if (fuse_unk_) {
      pending_len += byte_len;
      return;
    }
    add(symbols, pending_unk, pending_len);
  }
  pending_unk = unk_id_;
  pending_len = byte_len;
}

void Bpe::split(std::string_view word, std::vector<Symbol>& symbols) const {
  std::int32_t pending_unk = -1;
  std::uint32_t pending_len = 0;
  const bool plain = prefix_.empty() && suffix_.empty();
  std::string scratch;
  for (std::size_t i = 0; i < word.size();) {
    const unsigned char lead = static_cast<unsigned char>(word[i]);
    const std::size_t len = std::min(char_bytes(lead), word.size() - i);
    const std::string_view ch = word.substr(i, len);
    std::string_view s = ch;
    std::int32_t id;
    if (plain) {
      if (len == 1) {
        id = ascii_ids_[lead];
      } else if (len == 2) {
        id = ascii_ids_[(lead & 0x1F) << 6 | (static_cast<unsigned char>(word[i + 1]) & 0x3F)];
      } else {
        id = vocab_.find(ch);
      }
    } else {
      scratch.clear();
      if (i > 0) scratch += prefix_;
      scratch += ch;
      if (i + len == word.size()) scratch += suffix_;
      s = scratch;
      id = vocab_.find(s);
    }
    i += len;
    if (id >= 0) {
      if (pending_unk >= 0) {
        add(symbols, pending_unk, pending_len);
        pending_unk = -1;
      }
      add(symbols, id, static_cast<std::uint32_t>(len));
    } else {
      add_unknown(s, static_cast<std::uint32_t>(len), symbols, pending_unk, pending_len);
    }
  }
  if (pending_unk >= 0) add(symbols, pending_unk, pending_len);
}

void Bpe::merge_all(std::vector<Symbol>& symbols) const {
  // HF's queue: a min-heap of (rank, position), each entry with the new id it
  // expects, and here also the pair it was pushed for: while that pair is
  // still at its position, HF's check (the pair now there merges to the same
  // new id) holds without looking it up again.
  struct Entry {
    std::uint64_t order;  // rank << 32 | position
    std::int32_t new_id;
    std::int32_t left, right;
  };
  thread_local std::vector<Entry> heap;
  heap.clear();
  const auto later = [](const Entry& a, const Entry& b) { return a.order > b.order; };
  const auto entry = [](std::size_t pos, const MergeMap::Value& m, std::int32_t left, std::int32_t right) {
    return Entry{static_cast<std::uint64_t>(m.rank) << 32 | pos, m.new_id, left, right};
  };
  for (std::size_t i = 0; i + 1 < symbols.size(); ++i) merges_.prefetch(symbols[i].id, symbols[i + 1].id);
  for (std::size_t i = 0; i + 1 < symbols.size(); ++i) {
    if (const MergeMap::Value* m = merges_.find(symbols[i].id, symbols[i + 1].id))
      heap.push_back(entry(i, *m, symbols[i].id, symbols[i + 1].id));
  }
  std::make_heap(heap.begin(), heap.end(), later);
  while (!heap.empty()) {
    std::pop_heap(heap.begin(), heap.end(), later);
    const Entry top = heap.back();
    heap.pop_back();
    if (!heap.empty()) {
      // The next entry's merge, if it happens, looks up its new neighbours'
      // pairs: bring them into the cache while this one is done.
      const Entry& next = heap.front();
      const Symbol& at = symbols[static_cast<std::uint32_t>(next.order)];
      if (at.prev >= 0) merges_.prefetch(symbols[static_cast<std::size_t>(at.prev)].id, next.new_id);
      if (at.next >= 0) {
        const std::int32_t after = symbols[static_cast<std::size_t>(at.next)].next;
        if (after >= 0) merges_.prefetch(next.new_id, symbols[static_cast<std::size_t>(after)].id);
      }
    }
    const std::size_t pos = static_cast<std::uint32_t>(top.order);
    Symbol& cur = symbols[pos];
    if (cur.len == 0 || cur.next == -1) continue;
    const std::size_t next_pos = static_cast<std::size_t>(cur.next);
    const Symbol right = symbols[next_pos];
    if (cur.id != top.left || right.id != top.right) {
      const MergeMap::Value* now = merges_.find(cur.id, right.id);
      if (now == nullptr || now->new_id != top.new_id) continue;  // an expired entry
    }
    cur.id = top.new_id;
    cur.len += right.len;
    cur.next = right.next;
    symbols[next_pos].len = 0;
    if (right.next >= 0) symbols[static_cast<std::size_t>(right.next)].prev = static_cast<std::int32_t>(pos);
    if (cur.prev >= 0) {
      const std::size_t prev = static_cast<std::size_t>(cur.prev);
      if (const MergeMap::Value* m = merges_.find(symbols[prev].id, cur.id)) {
        heap.push_back(entry(prev, *m, symbols[prev].id, cur.id));
        std::push_heap(heap.begin(), heap.end(), later);
      }
    }
    if (cur.next >= 0) {
      const std::int32_t next_id = symbols[static_cast<std::size_t>(cur.next)].id;
      if (const MergeMap::Value* m = merges_.find(cur.id, next_id)) {
        heap.push_back(entry(pos, *m, cur.id, next_id));
        std::push_heap(heap.begin(), heap.end(), later);
      }
    }
  }
}

void Bpe::encode(std::string_view word, std::vector<std::int32_t>& ids) const {
  thread_local std::vector<Symbol> symbols;
  symbols.clear();
  split(word, symbols);
  merge_all(symbols);
  for (const Symbol& s : symbols)
    if (s.len != 0) ids.push_back(s.id);
}

void Bpe::tokenize(std::string_view word, std::vector<std::int32_t>& ids) const {
  if (word.empty()) return;
  const std::uint64_t hash = hash_bytes(word);
  if (ignore_merges_) {
    const std::int32_t id = vocab_.find(word, hash);
    if (id >= 0) {
      ids.push_back(id);
      return;
    }
  }
  cached(word, 0, hash, ids, [&] { encode(word, ids); });
}

void Bpe::tokenize_bytes(std::string_view raw, std::vector<std::int32_t>& ids) const {
  if (raw.empty()) return;
  // Cached by the raw bytes (kind 1: apart from tokenize's mapped words), so
  // that a word met before is never mapped.
  cached(raw, 1, hash_bytes(raw), ids, [&] { encode_bytes(raw, ids); });
}

void Bpe::encode_bytes(std::string_view raw, std::vector<std::int32_t>& ids) const {
  thread_local std::string mapped;
  if (!raw_symbols_ || ignore_merges_) {
    mapped.clear();
    for (const char c : raw) mapped.append(byte_level_char(static_cast<unsigned char>(c)));
  }
  std::int32_t whole = -1;  // ignore_merges: the mapped word's own id
  if (raw_symbols_ && ignore_merges_) whole = vocab_.find(mapped);
  if (whole >= 0) {
    ids.push_back(whole);
  } else if (!raw_symbols_) {
    tokenize(mapped, ids);
  } else {
    // Each byte is one ByteLevel character, whose token is byte_level_ids_[b].
    thread_local std::vector<Symbol> symbols;
    symbols.clear();
    for (const char c : raw) add(symbols, byte_level_ids_[static_cast<unsigned char>(c)], 1);
    merge_all(symbols);
    for (const Symbol& sym : symbols)
      if (sym.len != 0) ids.push_back(sym.id);
  }
}

void Bpe::resolve_merges(JsonReader& r, MergeBatch& batch) {
  const std::size_t n = batch.items.size();
  if (n == 0) return;
  // Every look-up of the batch: a, b, and their merge (a with b less
  // continuing_subword_prefix's length in bytes, as HF joins them).
  std::string_view tokens[3 * MergeBatch::kSize];
  std::int32_t ids[3 * MergeBatch::kSize];
  bool cut_ok[MergeBatch::kSize];
  thread_local std::string joined;
  joined.clear();
  std::size_t joined_at[MergeBatch::kSize];
  const std::size_t cut = prefix_.size();
  const std::string_view bytes = batch.bytes;
  for (std::size_t i = 0; i < n; ++i) {
    const MergeBatch::Item& it = batch.items[i];
    const std::string_view a = bytes.substr(it.a, it.a_size), b = bytes.substr(it.b, it.b_size);
    tokens[3 * i] = a;
    tokens[3 * i + 1] = b;
    // HF panics where the cut is not a character boundary of b.
    cut_ok[i] = cut <= b.size() && (cut == b.size() || (static_cast<unsigned char>(b[cut]) & 0xC0) != 0x80);
    joined_at[i] = joined.size();
    if (cut_ok[i]) {
      joined.append(a);
      joined.append(b.substr(cut));
    }
  }
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t end = i + 1 < n ? joined_at[i + 1] : joined.size();
    tokens[3 * i + 2] = std::string_view(joined).substr(joined_at[i], end - joined_at[i]);
  }
  vocab_.find_many(tokens, 3 * n, ids);
  for (std::size_t i = 0; i < n; ++i) {
    const MergeBatch::Item& it = batch.items[i];
    const auto refuse = [&](const std::string& what) {
      r.fail_at("model.merges[" + std::to_string(it.index) + "]", what);
    };
    if (ids[3 * i] < 0) refuse(in_quotes(tokens[3 * i]) + " is not in the vocabulary");
    if (ids[3 * i + 1] < 0) refuse(in_quotes(tokens[3 * i + 1]) + " is not in the vocabulary");
    if (!cut_ok[i])
      refuse(in_quotes(tokens[3 * i + 1]) + " cannot lose continuing_subword_prefix's " + std::to_string(cut) + " bytes");
    if (ids[3 * i + 2] < 0) refuse("their merge " + in_quotes(tokens[3 * i + 2]) + " is not in the vocabulary");
  }
  for (std::size_t i = 0; i < n; ++i) merges_.prefetch(ids[3 * i], ids[3 * i + 1]);
  for (std::size_t i = 0; i < n; ++i)
    merges_.set(MergeMap::key(ids[3 * i], ids[3 * i + 1]), MergeMap::Value{batch.next_rank++, ids[3 * i + 2]});
  batch.items.clear();
  batch.bytes.clear();
}

void Bpe::build_lookups() {
  const Vocab& vocab = vocab_;
  unk_id_ = has_unk_token_ ? vocab.find(unk_token_) : -1;
  for (int b = 0; b < 256; ++b) {
    byte_tokens_[b] = vocab.find(byte_piece::Piece(static_cast<unsigned char>(b)));
    byte_level_ids_[b] = vocab.find(byte_level_char(static_cast<unsigned char>(b)));
  }
  raw_symbols_ = prefix_.empty() && suffix_.empty();
  for (int b = 0; b < 256; ++b) raw_symbols_ = raw_symbols_ && byte_level_ids_[b] >= 0;
  for (std::uint32_t cp = 0; cp < 0x800; ++cp) {
    char utf8[2];
    std::size_t n = 1;
    if (cp < 0x80) {
      utf8[0] = static_cast<char>(cp);
    } else {
      utf8[0] = static_cast<char>(0xC0 | (cp >> 6));
      utf8[1] = static_cast<char>(0x80 | (cp & 0x3F));
      n = 2;
    }
    ascii_ids_[cp] = vocab.find(std::string_view(utf8, n));
  }
}

// model.merges, in HF's two forms: [["a", "b"], ...] or ["a b", ...] (an empty array is
// the first); take(a, b, index) for each.
template <class Take>
void read_merges(JsonReader& r, Take take) {
  r.begin_array();
  bool legacy = false;
  std::string first_token;
  for (std::size_t index = 0; r.next_element(); ++index) {
    const JsonReader::Kind kind = r.peek();
    if (index == 0) legacy = kind == JsonReader::Kind::string;
    const auto refuse = [&](const std::string& what) { r.fail_at("model.merges[" + std::to_string(index) + "]", what); };
    if (legacy) {
      if (kind != JsonReader::Kind::string) refuse("expected a string \"a b\", as the merges before it");
      const std::string_view line = r.string();
      if (line.substr(0, 8) == "#version") continue;  // as HF's merges.txt reader
      const std::size_t space = line.find(' ');
      if (space == std::string_view::npos || line.find(' ', space + 1) != std::string_view::npos)
        refuse(in_quotes(line) + " is not two tokens separated by one space");
      take(line.substr(0, space), line.substr(space + 1), index);
    } else {
      if (kind != JsonReader::Kind::array) refuse("expected a pair [\"a\", \"b\"], as the merges before it");
      r.begin_array();
      if (!r.next_element() || r.peek() != JsonReader::Kind::string) refuse("expected a pair of strings [\"a\", \"b\"]");
      first_token = r.string();
      if (!r.next_element() || r.peek() != JsonReader::Kind::string) refuse("expected a pair of strings [\"a\", \"b\"]");
      const std::string_view second = r.string();
      if (r.next_element()) refuse("expected a pair [\"a\", \"b\"], not more");
      take(first_token, second, index);
    }
  }
}

std::unique_ptr<Model> Bpe::load(JsonReader& r) {
  auto bpe = std::make_unique<Bpe>();
  Bpe& m = *bpe;
  m.shown_ = r.shown();
  bool have_vocab = false, have_merges = false;
  // Merges read before the vocabulary wait here (pairs of strings in an
  // arena, with their index in the array); HF writes the vocabulary first.
  struct Pending {
    std::size_t index;
    std::uint32_t a, a_size, b, b_size;
  };
  std::vector<Pending> pending;
  std::string pending_bytes;
  MergeBatch batch;
  const auto resolve = [&](std::string_view a, std::string_view b, std::size_t index) {
    m.add_merge(r, batch, a, b, index);
  };

  const auto optional_string = [&](std::string& out, bool& present) {
    present = false;
    if (r.at_null()) return;
    if (r.peek() != JsonReader::Kind::string) r.fail("expected a string or null");
    out = r.string();
    present = true;
  };
  const auto optional_bool = [&](bool& out) {
    if (r.at_null()) return;
    if (r.peek() != JsonReader::Kind::boolean) r.fail("expected true, false or null");
    out = r.boolean();
  };
  // continuing_subword_prefix decides how merges join, so merges are resolved
  // as they are read only once it is known too (HF writes it before both).
  bool have_prefix_field = false;

  read_fields(r, "BPE", [&](const std::string& key) {
    if (key == "dropout") {
      if (!r.at_null()) {
        if (r.peek() != JsonReader::Kind::number) r.fail("expected a number or null");
        const double p = r.number();
        if (p != 0) r.fail(std::to_string(p) + " is not supported (only null or 0: no dropout)");
      }
    } else if (key == "unk_token") {
      optional_string(m.unk_token_, m.has_unk_token_);
    } else if (key == "continuing_subword_prefix") {
      bool present = false;
      optional_string(m.prefix_, present);
      have_prefix_field = true;
    } else if (key == "end_of_word_suffix") {
      bool present = false;
      optional_string(m.suffix_, present);
    } else if (key == "fuse_unk") {
      optional_bool(m.fuse_unk_);
    } else if (key == "byte_fallback") {
      optional_bool(m.byte_fallback_);
    } else if (key == "ignore_merges") {
      optional_bool(m.ignore_merges_);
    } else if (key == "vocab") {
      if (have_vocab) r.fail("given twice");
      m.vocab_ = read_vocab_object(r);
      have_vocab = true;
    } else if (key == "merges") {
      if (have_merges) r.fail("given twice");
      have_merges = true;
      // Each merge is resolved as soon as the vocabulary is known.
      m.merges_.reserve(have_vocab ? m.vocab_.size() * 2 : 1024);
      const bool resolve_now = have_vocab && have_prefix_field;
      const auto take = [&](std::string_view a, std::string_view b, std::size_t index) {
        if (resolve_now) {
          resolve(a, b, index);
          return;
        }
        Pending p{index, static_cast<std::uint32_t>(pending_bytes.size()), static_cast<std::uint32_t>(a.size()), 0,
                  static_cast<std::uint32_t>(b.size())};
        pending_bytes.append(a);
        p.b = static_cast<std::uint32_t>(pending_bytes.size());
        pending_bytes.append(b);
        if (pending_bytes.size() > std::numeric_limits<std::uint32_t>::max()) r.fail("too large");
        pending.push_back(p);
      };
      try {
        read_merges(r, take);
      } catch (const UsageError&) {
        m.resolve_merges(r, batch);  // a merge before the one refused is refused first, as one at a time
        throw;
      }
      m.resolve_merges(r, batch);
    } else {
      return false;
    }
    return true;
  });
  if (!have_vocab) r.fail("no 'vocab'");
  if (!have_merges) r.fail("no 'merges'");
  if (!pending.empty()) {
    m.merges_.reserve(pending.size());
    for (const Pending& p : pending)
      resolve(std::string_view(pending_bytes).substr(p.a, p.a_size), std::string_view(pending_bytes).substr(p.b, p.b_size),
              p.index);
    m.resolve_merges(r, batch);
  }
  m.build_lookups();
  return bpe;
}

}  // namespace

std::unique_ptr<Model> load_bpe(JsonReader& r) { return Bpe::load(r); }

}  // namespace embedpe::tj
