#include "segment_unigram.h"

#include <algorithm>
#include <array>
#include <cfloat>
#include <cmath>
#include <cstring>
#include <limits>
#include <new>

#include "byte_piece.h"
#include "charsmap.h"
#include "mapped_block.h"
#include "protobuf_fields.h"
#include "utf8.h"

namespace embedpe {
namespace {

using namespace model_proto;

constexpr std::string_view kSpaceSymbol = "\xE2\x96\x81";  // U+2581
constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD
constexpr float kUnkPenalty = 10.0f;

// SentencePiece's OneCharLen: the length its lead byte announces.
std::size_t one_char_len(char c) { return "\1\1\1\1\1\1\1\1\1\1\1\1\2\2\3\4"[(c & 0xFF) >> 4]; }

std::uint64_t hash_step(std::uint64_t h, unsigned char c) { return (h ^ c) * 0x100000001B3ULL; }
constexpr std::uint64_t kHashSeed = 0xCBF29CE484222325ULL;

std::uint64_t hash_bytes(std::string_view s) {
  std::uint64_t h = kHashSeed;
  for (char c : s) h = hash_step(h, static_cast<unsigned char>(c));
  return h;
}

bool is_reserved(std::uint8_t type) { return type == kControl || type == kUnknown || type == kByte; }

}  // namespace

struct SegmentUnigram::Shared {
  std::size_t max_bytes = kMaxBytes;
  std::atomic<std::uint64_t> segments{0}, replayed{0}, reruns{0};
};

// One thread's cached paths for one model, in one MappedBlock of max_bytes
// (huge pages: its first touch is one fault): an open-addressed table, at
// most 2/3 full, of entries pointing into an arena of records (a path's
// nodes, then the segment's bytes). All is emptied when either is full.
struct SegmentUnigram::Cache {
  struct Entry {
    std::uint64_t hash = 0;
    std::uint32_t at = 0;                      // the record, in the arena
    std::uint16_t size = 0, count = 0;         // the segment's bytes, the path's nodes
    float magnitude = 0;                       // M, rounded up
    double margin = 0;                         // m0
    bool used() const { return size != 0; }    // no segment is empty
    const Node* nodes(const char* base) const { return reinterpret_cast<const Node*>(base + at); }
    std::string_view segment(const char* base) const { return {base + at + count * sizeof(Node), size}; }
  };
  static_assert(kMaxSegmentBytes <= 0xFFFF);

  std::uint64_t owner = 0;
  std::uint64_t last_use = 0;
  MappedBlock block;
  Entry* table = nullptr;
  std::size_t mask = 0, entries = 0, most_entries = 0;
  char* arena = nullptr;
  std::size_t arena_size = 0, arena_used = 0;

  // For a budget of max_bytes: a quarter for the table, the rest for records.
  std::size_t budget = 0;  // the max_bytes the block was laid out for

  bool ready(std::size_t max_bytes) {
    if (block && budget == max_bytes) return true;
    entries = 0;
    arena_used = 0;
    block = MappedBlock(max_bytes, MappedBlock::kHugePage);
    budget = max_bytes;
    if (!block) return false;
    std::size_t slots = 16;
    while (2 * slots * sizeof(Entry) <= max_bytes / 4) slots *= 2;
    table = static_cast<Entry*>(block.data());
    mask = slots - 1;
    most_entries = 2 * slots / 3;
    arena = static_cast<char*>(block.data()) + slots * sizeof(Entry);
    arena_size = max_bytes > slots * sizeof(Entry) ? max_bytes - slots * sizeof(Entry) : 0;
    return true;
  }

  void clear() {
    if (entries) std::fill(table, table + mask + 1, Entry{});
    entries = 0;
    arena_used = 0;
  }

  const Entry* find(std::string_view segment, std::uint64_t hash) const {
    for (std::size_t s = hash & mask;; s = (s + 1) & mask) {
      const Entry& e = table[s];
      if (!e.used()) return nullptr;
      if (e.hash == hash && e.segment(arena) == segment) return &e;
    }
  }

  // The entry for `path`, or nullptr when its record alone would not fit.
  const Entry* add(std::string_view segment, std::uint64_t hash, const Path& path) {
    const std::size_t record = (path.nodes.size() * sizeof(Node) + segment.size() + 7) / 8 * 8;
    if (record > arena_size || path.nodes.size() > 0xFFFF) return nullptr;
    if (entries + 1 > most_entries || arena_used + record > arena_size) clear();
    char* at = arena + arena_used;
    std::memcpy(at, path.nodes.data(), path.nodes.size() * sizeof(Node));
    std::memcpy(at + path.nodes.size() * sizeof(Node), segment.data(), segment.size());
    float magnitude = static_cast<float>(path.magnitude);
    if (static_cast<double>(magnitude) < path.magnitude) magnitude = std::nextafter(magnitude, INFINITY);
    std::size_t s = hash & mask;
    while (table[s].used()) s = (s + 1) & mask;
    table[s] = {hash, static_cast<std::uint32_t>(arena_used), static_cast<std::uint16_t>(segment.size()),
                static_cast<std::uint16_t>(path.nodes.size()), magnitude, path.margin};
    arena_used += record;
    ++entries;
    return &table[s];
  }
};

namespace {
std::atomic<std::uint64_t> g_cache_owners{0};
}  // namespace

// The calling thread's cache for this model. A thread keeps two, so that two
// models used in turn (as a test does) keep theirs; the older is reused.
SegmentUnigram::Cache& SegmentUnigram::thread_cache() const {
  thread_local Cache caches[2];
  thread_local std::uint64_t uses = 0;
  Cache* pick = &caches[0];
  for (Cache& c : caches) {
    if (c.owner == cache_owner_) {
      pick = &c;
      break;
    }
    if (c.last_use < pick->last_use) pick = &c;
  }
  if (pick->owner != cache_owner_) {
    if (pick->block) pick->clear();
    pick->owner = cache_owner_;
  }
  pick->last_use = ++uses;
  return *pick;
}

SegmentUnigram::SegmentUnigram()
    : cache_owner_(g_cache_owners.fetch_add(1, std::memory_order_relaxed) + 1), shared_(std::make_unique<Shared>()) {}
SegmentUnigram::SegmentUnigram(SegmentUnigram&&) noexcept = default;
SegmentUnigram& SegmentUnigram::operator=(SegmentUnigram&&) noexcept = default;
SegmentUnigram::~SegmentUnigram() = default;

SegmentUnigram::Counts SegmentUnigram::counts() const {
  return {shared_->segments.load(), shared_->replayed.load(), shared_->reruns.load()};
}

// The ModelProto's fields this class reads, and whether it reproduces what
// SentencePiece does with them: a reason if not, nullptr if so.
const char* SegmentUnigram::read_proto(std::string_view serialized, std::string_view (&names)[4]) {
  std::uint64_t model_type = 1;
  bool suffix = false, escape = true, self_test = false, usable = true;
  std::string_view charsmap;
  std::vector<std::string_view>& texts = texts_;
  static constexpr std::string_view kDefaultNames[4] = {"<unk>", "<s>", "</s>", "<pad>"};
  std::copy(std::begin(kDefaultNames), std::end(kDefaultNames), names);
  protobuf::for_each_field(serialized, [&](const protobuf::Field& f) {
    if (f.wire_type != protobuf::kLengthDelimited) return;
    if (f.number <= kDenormalizerSpec && !protobuf::well_formed(f.bytes)) usable = false;
    if (f.number == kSelfTestData) self_test = true;
    if (f.number == kPieces) {
      std::string_view text;
      PieceInfo info;
      protobuf::for_each_field(f.bytes, [&](const protobuf::Field& p) {
        if (p.number == kPiece && p.wire_type == protobuf::kLengthDelimited) text = p.bytes;
        if (p.number == kScore && p.wire_type == protobuf::kFixed32) {
          const auto bits = static_cast<std::uint32_t>(p.value);
          std::memcpy(&info.score, &bits, sizeof bits);
        }
        if (p.number == kType && p.wire_type == protobuf::kVarint) {
          if (p.value < kNormal || p.value > kByte) usable = false;
          info.type = static_cast<std::uint8_t>(p.value);
        }
      });
      texts.push_back(text);
      pieces_.push_back(info);
    } else if (f.number == kTrainerSpec) {
      protobuf::for_each_field(f.bytes, [&](const protobuf::Field& t) {
        if (t.wire_type != protobuf::kVarint) return;
        if (t.number == kModelType) model_type = t.value;
        if (t.number == kTreatWhitespaceAsSuffix) suffix = t.value != 0;
        if (t.number == kByteFallback) byte_fallback_ = t.value != 0;
      });
      protobuf::for_each_field(f.bytes, [&](const protobuf::Field& t) {
        if (t.number >= kUnkPiece && t.number <= kPadPiece && t.wire_type == protobuf::kLengthDelimited) {
          const std::size_t i = t.number - kUnkPiece;
          names[i] = t.bytes.empty() ? kDefaultNames[i] : t.bytes.substr(0, t.bytes.find('\0'));
        }
      });
    } else if (f.number == kDenormalizerSpec) {
      protobuf::for_each_field(f.bytes, [&](const protobuf::Field& n) {
        if (n.number == kCharsmap && n.wire_type == protobuf::kLengthDelimited && !n.bytes.empty()) usable = false;
      });
    } else if (f.number == kNormalizerSpec) {
      protobuf::for_each_field(f.bytes, [&](const protobuf::Field& n) {
        if (n.number == kCharsmap && n.wire_type == protobuf::kLengthDelimited) charsmap = n.bytes;
        if (n.wire_type != protobuf::kVarint) return;
        if (n.number == kAddDummyPrefix) add_dummy_prefix_ = n.value != 0;
        if (n.number == kRemoveExtraWhitespaces) remove_extra_whitespaces_ = n.value != 0;
        if (n.number == kEscapeWhitespaces) escape = n.value != 0;
      });
    }
  });
  if (!usable) return "a field SentencePiece might read otherwise";
  if (model_type != 1) return "it is not a unigram model";
  if (self_test) return "it has self-test data";
  if (!escape) return "it does not escape whitespace";
  if (suffix) return "it treats whitespace as a suffix";
  if (pieces_.empty() || pieces_.size() > 0x7FFFFFF) return "its number of pieces";

  if (!charsmap.empty()) {
    charsmap_ = Charsmap::parse(charsmap, nullptr);
    if (!charsmap_) return "its charsmap is broken";
  }
  return nullptr;
}

// InitializePieces' checks; the unknown, byte and user-defined pieces, and the scores.
const char* SegmentUnigram::check_pieces() {
  const std::vector<std::string_view>& texts = texts_;
  int unknowns = 0;
  bool byte_found[256] = {};
  float min_score = FLT_MAX, max_score = FLT_MIN;
  std::size_t table_entries = 0;
  for (std::size_t id = 0; id < texts.size(); ++id) {
    const std::string_view text = texts[id];
    const PieceInfo& p = pieces_[id];
    if (text.empty()) return "a piece is empty";
    if (text.find('\0') != std::string_view::npos) return "a piece holds a NUL byte";
    if (text.substr(1).find(kSpaceSymbol) != std::string_view::npos) return "a piece holds U+2581 inside";
    if (std::isnan(p.score)) return "a score is not a number";
    if (p.type == kUnknown) {
      unk_id_ = static_cast<int>(id);
      ++unknowns;
    }
    if (p.type == kByte) {
      const int byte = byte_piece::sentencepiece_byte(text);
      if (!byte_fallback_ || byte < 0) return "its byte pieces";
      byte_found[byte] = true;
      byte_ids_[byte] = static_cast<std::int32_t>(id);
    }
    if (p.type == kNormal) {
      min_score = std::min(min_score, p.score);
      max_score = std::max(max_score, p.score);
    }
    if (p.type == kUserDefined) {
      user_defined_.push_back(text);
      max_user_defined_bytes_ = std::max(max_user_defined_bytes_, text.size());
    }
    if (!is_reserved(p.type)) {
      table_entries += text.size();
      max_piece_bytes_ = std::max(max_piece_bytes_, text.size());
    }
  }
  if (unknowns != 1) return "it has no single <unk>";
  if (byte_fallback_ && std::find(std::begin(byte_found), std::end(byte_found), false) != std::end(byte_found)) {
    return "its byte pieces";
  }
  // Reserved pieces (control, unknown, byte) defined twice: SentencePiece refuses the model.
  for (std::size_t id = 0; id < texts.size(); ++id) {
    if (is_reserved(pieces_[id].type)) reserved_.emplace_back(texts[id], static_cast<int>(id));
  }
  std::sort(reserved_.begin(), reserved_.end());
  for (std::size_t i = 1; i < reserved_.size(); ++i) {
    if (reserved_[i].first == reserved_[i - 1].first) return "a piece is defined twice";
  }
  if (table_entries == 0) return "it has no piece to match";
  unk_score_ = min_score - kUnkPenalty;
  max_score_ = max_score;
  return nullptr;
}

// Every piece and every prefix of one in the slots; a reason if a piece is defined twice.
const char* SegmentUnigram::build_table(std::string_view serialized) {
  const std::vector<std::string_view>& texts = texts_;
  SegmentUnigram& uni = *this;
  // At most 2/3 full. Sized for three entries a piece (a piece and the prefixes no other piece has
  // given: 2.6 in the default model, 1.8 in LLaMA-2's), grown when that is short: its pages are
  // first-touched at load, which costs more than the probes.
  uni.base_ = serialized.data();
  std::size_t capacity = 64;
  while (capacity < 3 * uni.pieces_.size()) capacity *= 2;
  const auto allocate = [&](std::size_t slots) {
    MappedBlock block(slots * sizeof(Slot), SIZE_MAX);
    if (!block) throw std::bad_alloc();
    uni.slot_block_ = std::move(block);
    uni.slots_ = static_cast<Slot*>(uni.slot_block_.data());
    uni.slot_mask_ = slots - 1;
  };
  allocate(capacity);
  std::size_t used = 0;
  const auto place = [&](const Slot& slot, std::uint64_t hash) -> Slot& {
    std::uint64_t s = hash & uni.slot_mask_;
    while (uni.slots_[s].tag != 0) s = (s + 1) & uni.slot_mask_;
    return uni.slots_[s] = slot;
  };
  const auto insert = [&](std::string_view bytes, std::uint64_t hash, std::int32_t id) {
    const std::uint32_t tag = static_cast<std::uint32_t>(hash >> 32) | 1;
    for (std::uint64_t s = hash & uni.slot_mask_;; s = (s + 1) & uni.slot_mask_) {
      Slot& slot = uni.slots_[s];
      if (slot.tag == 0) break;
      if (slot.tag == tag && std::string_view(uni.base_ + slot.offset, slot.size) == bytes) {
        if (id < 0) return true;          // a prefix already there
        if (slot.id >= 0) return false;   // a piece defined twice
        slot.id = id;
        return true;
      }
    }
    if (3 * (used + 1) > 2 * (uni.slot_mask_ + 1)) {
      MappedBlock old = std::move(uni.slot_block_);
      const Slot* old_slots = static_cast<const Slot*>(old.data());
      const std::size_t old_size = uni.slot_mask_ + 1;
      allocate(2 * old_size);
      for (std::size_t i = 0; i < old_size; ++i) {
        const Slot& o = old_slots[i];
        if (o.tag != 0) place(o, hash_bytes(std::string_view(uni.base_ + o.offset, o.size)));
      }
    }
    place({tag, static_cast<std::uint32_t>(bytes.data() - uni.base_), static_cast<std::uint32_t>(bytes.size()), id}, hash);
    ++used;
    return true;
  };
  for (std::size_t id = 0; id < texts.size(); ++id) {
    if (is_reserved(uni.pieces_[id].type)) continue;
    const std::string_view text = texts[id];
    std::uint64_t h = kHashSeed;
    for (std::size_t len = 1; len <= text.size(); ++len) {
      h = hash_step(h, static_cast<unsigned char>(text[len - 1]));
      const bool whole = len == text.size();
      if (!insert(text.substr(0, len), h, whole ? static_cast<std::int32_t>(id) : -2)) {
        return "a piece is defined twice";
      }
    }
  }
  return nullptr;
}

std::optional<SegmentUnigram> SegmentUnigram::from_model(std::string_view serialized, std::string* why_not,
                                                         std::size_t max_bytes) {
  const auto no = [&](const char* reason) -> std::optional<SegmentUnigram> {
    if (why_not) *why_not = reason;
    return std::nullopt;
  };
  if (!protobuf::well_formed(serialized)) return no("not a well-formed ModelProto");
  if (serialized.size() > 0xFFFFFFFF) return no("it is larger than 4 GiB");
  SegmentUnigram uni;
  uni.shared_->max_bytes = max_bytes;
  std::string_view names[4];
  if (const char* why = uni.read_proto(serialized, names)) return no(why);
  if (const char* why = uni.check_pieces()) return no(why);
  if (const char* why = uni.build_table(serialized)) return no(why);
  uni.find_plain_ascii();
  uni.special_ = model_proto::special_ids(
      names, [&](std::string_view name) { return uni.piece_to_id(name); },
      [&](int id) { return uni.pieces_[static_cast<std::size_t>(id)].type; });
  return uni;
}

int SegmentUnigram::piece_to_id(std::string_view text) const {
  const auto it = std::lower_bound(reserved_.begin(), reserved_.end(), text,
                                   [](const std::pair<std::string_view, int>& a, std::string_view b) { return a.first < b; });
  if (it != reserved_.end() && it->first == text) return it->second;
  const int id = find(text);
  return id >= 0 ? id : unk_id_;
}

int SegmentUnigram::find(std::string_view bytes) const {
  const std::uint64_t h = hash_bytes(bytes);
  for (std::uint64_t s = h & slot_mask_;; s = (s + 1) & slot_mask_) {
    const Slot& slot = slots_[s];
    if (slot.tag == 0) return -1;
    if (slot.tag == (static_cast<std::uint32_t>(h >> 32) | 1) && std::string_view(base_ + slot.offset, slot.size) == bytes) {
      return slot.id;
    }
  }
}

bool SegmentUnigram::normalize_prefix(std::string_view input, std::string_view& out, std::size_t& consumed) const {
  // User-defined symbols first, as they are: the longest that starts the input.
  if (!user_defined_.empty()) {
    std::size_t longest = 0;
    for (std::string_view u : user_defined_) {
      if (u.size() > longest && input.starts_with(u)) longest = u.size();
    }
    if (longest > 0) {
      out = input.substr(0, longest);
      consumed = longest;
      return true;
    }
  }
  // The charsmap's longest match (Darts-clone's commonPrefixSearch).
  std::size_t longest_length = 0;
  std::uint32_t longest_value = 0;
  if (charsmap_) {
    std::size_t found = 0;
    const bool inside = charsmap_->prefixes(input, [&](std::size_t length, std::uint32_t value) {
      longest_length = length;
      longest_value = value;
      return ++found <= 32;
    });
    // SentencePiece keeps 32 results; more would be read past its array.
    if (!inside || found > 32) return false;
  }
  if (longest_length == 0) {
    const std::size_t len = utf8::valid_length(input);
    if (len == 0) {
      out = kReplacement;
      consumed = 1;
    } else {
      out = input.substr(0, len);
      consumed = len;
    }
    return true;
  }
  const std::optional<std::string_view> form = charsmap_->string_at(longest_value);
  if (!form) return false;
  out = *form;
  consumed = longest_length;
  return true;
}

namespace {
constexpr auto kAsciiBytes = [] {
  std::array<char, 128> a{};
  for (int c = 0; c < 128; ++c) a[static_cast<std::size_t>(c)] = static_cast<char>(c);
  return a;
}();
}  // namespace

void SegmentUnigram::find_plain_ascii() {
  for (std::size_t c = 0; c < 128; ++c) {
    const std::string_view byte(kAsciiBytes.data() + c, 1);
    ascii_plain_[c] = false;
    if (std::any_of(user_defined_.begin(), user_defined_.end(), [&](std::string_view u) { return u[0] == byte[0]; })) {
      continue;
    }
    // A charsmap key longer than the byte starts with it when the byte's node has a child.
    if (charsmap_ && charsmap_->has_longer_key(byte)) continue;
    std::string_view form;
    std::size_t consumed = 0;
    if (!normalize_prefix(byte, form, consumed) || consumed != 1) continue;
    ascii_plain_[c] = true;
    ascii_form_[c] = form;
  }
}

bool SegmentUnigram::normalize(std::string_view input, std::string& normalized) const {
  normalized.clear();
  if (input.empty()) return true;
  std::string_view p;
  std::size_t n = 0;
  const auto next = [&](std::string_view in) {
    const auto c = static_cast<unsigned char>(in[0]);
    if (c < 0x80 && ascii_plain_[c]) {
      p = ascii_form_[c];
      n = 1;
      return true;
    }
    return normalize_prefix(in, p, n);
  };
  if (remove_extra_whitespaces_) {
    while (!input.empty()) {
      if (!next(input)) return false;
      if (p != " ") break;
      input.remove_prefix(n);
    }
  }
  if (input.empty()) return true;
  normalized.reserve(input.size() * 3);
  if (add_dummy_prefix_) normalized += kSpaceSymbol;
  bool prev_space = remove_extra_whitespaces_;
  while (!input.empty()) {
    if (!next(input)) return false;
    while (prev_space && p.starts_with(' ')) p.remove_prefix(1);
    if (!p.empty()) {
      for (char c : p) {
        if (c == ' ') {
          normalized += kSpaceSymbol;
        } else {
          normalized += c;
        }
      }
      prev_space = p.ends_with(' ');
    }
    input.remove_prefix(n);
    if (!remove_extra_whitespaces_) prev_space = false;
  }
  if (remove_extra_whitespaces_) {
    while (std::string_view(normalized).ends_with(kSpaceSymbol)) normalized.resize(normalized.size() - 3);
  }
  return true;
}

float SegmentUnigram::viterbi(std::string_view text, float p, Path& path) const {
  struct Best {
    int id = -1;
    float score = 0;
    int starts_at = -1;
    double win = 0, other = -std::numeric_limits<double>::infinity();
  };
  thread_local std::vector<Best> best;
  const int size = static_cast<int>(text.size());
  best.assign(static_cast<std::size_t>(size) + 1, Best{});
  best[0].score = p;
  double magnitude = std::fabs(static_cast<double>(p));
  const auto offer = [&](Best& target, double candidate, float stored, int start, int id) {
    magnitude = std::max(magnitude, std::fabs(candidate));
    if (target.starts_at == -1) {
      target = {id, stored, start, candidate, target.other};
    } else if (candidate > static_cast<double>(target.score)) {
      target.other = std::max(target.other, target.win);
      target.id = id;
      target.score = stored;
      target.starts_at = start;
      target.win = candidate;
    } else {
      target.other = std::max(target.other, candidate);
    }
  };
  for (int start = 0; start < size;) {
    const float till_here = best[static_cast<std::size_t>(start)].score;
    const int mblen = std::min<int>(static_cast<int>(one_char_len(text[static_cast<std::size_t>(start)])), size - start);
    bool single = false;
    std::uint64_t h = kHashSeed;
    for (int end = start + 1; end <= size && static_cast<std::size_t>(end - start) <= max_piece_bytes_; ++end) {
      h = hash_step(h, static_cast<unsigned char>(text[static_cast<std::size_t>(end - 1)]));
      const std::string_view key = text.substr(static_cast<std::size_t>(start), static_cast<std::size_t>(end - start));
      int id = -1;
      for (std::uint64_t s = h & slot_mask_;; s = (s + 1) & slot_mask_) {
        const Slot& slot = slots_[s];
        if (slot.tag == 0) {
          id = -1;
          break;
        }
        if (slot.tag == (static_cast<std::uint32_t>(h >> 32) | 1) && std::string_view(base_ + slot.offset, slot.size) == key) {
          id = slot.id;
          break;
        }
      }
      if (id == -1) break;
      if (id == -2) continue;
      const PieceInfo& piece = pieces_[static_cast<std::size_t>(id)];
      if (piece.type == kUnused) continue;
      const std::size_t length = static_cast<std::size_t>(end - start);
      const double score = piece.type == kUserDefined ? (static_cast<float>(length) * max_score_ - 0.1)
                                                      : static_cast<double>(piece.score);
      const double candidate = score + static_cast<double>(till_here);
      offer(best[static_cast<std::size_t>(end)], candidate, static_cast<float>(candidate), start, id);
      magnitude = std::max(magnitude, std::fabs(score));
      if (static_cast<int>(length) == mblen) single = true;
    }
    if (!single) {
      const float candidate = unk_score_ + till_here;
      offer(best[static_cast<std::size_t>(start + mblen)], static_cast<double>(candidate), candidate, start, unk_id_);
      magnitude = std::max(magnitude, std::fabs(static_cast<double>(unk_score_)));
    }
    start += mblen;
  }
  double margin = std::numeric_limits<double>::infinity();
  for (int i = 1; i <= size; ++i) {
    const Best& b = best[static_cast<std::size_t>(i)];
    if (b.starts_at >= 0) margin = std::min(margin, b.win - b.other);
  }
  path.nodes.clear();
  for (int end = size; end > 0;) {
    const Best& b = best[static_cast<std::size_t>(end)];
    path.nodes.push_back({b.id, static_cast<std::uint32_t>(end - b.starts_at)});
    end = b.starts_at;
  }
  std::reverse(path.nodes.begin(), path.nodes.end());
  path.margin = margin;
  path.magnitude = magnitude;
  return best[static_cast<std::size_t>(size)].score;
}

float SegmentUnigram::replay(const Node* nodes, std::size_t count, float p) const {
  for (std::size_t i = 0; i < count; ++i) {
    const Node& node = nodes[i];
    if (node.id == unk_id_) {
      p = unk_score_ + p;  // float, as SentencePiece adds an <unk> node's score
      continue;
    }
    const PieceInfo& piece = pieces_[static_cast<std::size_t>(node.id)];
    const double step = piece.type == kUserDefined ? static_cast<float>(node.length) * max_score_ - 0.1
                                                   : static_cast<double>(piece.score);
    p = static_cast<float>(step + static_cast<double>(p));
  }
  return p;
}

void SegmentUnigram::emit(const Node* nodes, std::size_t count, std::string_view segment, Encoding& out,
                          bool& prev_unknown, Pieces pieces) const {
  const bool keep = pieces == Pieces::keep;
  std::size_t pos = 0;
  for (std::size_t i = 0; i < count; ++i) {
    const Node& node = nodes[i];
    const std::string_view w = segment.substr(pos, node.length);
    pos += node.length;
    const bool unknown = node.id == unk_id_;
    if (unknown && byte_fallback_) {
      for (char c : w) {
        const auto b = static_cast<unsigned char>(c);
        out.ids.push_back(byte_ids_[b]);
        if (keep) out.pieces.emplace_back(byte_piece::Piece(b).view());
      }
    } else if (unknown && prev_unknown) {
      if (keep) out.pieces.back() += w;
    } else {
      out.ids.push_back(node.id);
      if (keep) out.pieces.emplace_back(w);
    }
    prev_unknown = unknown;
  }
}

std::optional<Encoding> SegmentUnigram::encode(std::string_view text, Pieces pieces) const {
  thread_local std::string normalized;
  if (!normalize(text, normalized)) return std::nullopt;
  Encoding out;
  if (normalized.empty()) return out;
  out.ids.reserve(normalized.size() / 3 + 1);
  if (pieces == Pieces::keep) out.pieces.reserve(normalized.size() / 3 + 1);
  const std::string_view all = normalized;
  Cache& cache = thread_cache();
  const bool caching = cache.ready(shared_->max_bytes);
  float p = 0;
  bool prev_unknown = false;
  thread_local Path fresh;
  std::uint64_t segments = 0, replayed = 0, reruns = 0;
  for (std::size_t start = 0; start < all.size();) {
    std::size_t end = all.find(kSpaceSymbol, start + 1);
    if (end == std::string_view::npos) end = all.size();
    const std::string_view seg = all.substr(start, end - start);
    start = end;
    ++segments;
    const Cache::Entry* cached = nullptr;
    if (caching && seg.size() <= kMaxSegmentBytes) {
      const std::uint64_t hash = hash_bytes(seg);
      cached = cache.find(seg, hash);
      if (!cached) {
        viterbi(seg, 0.0f, fresh);
        cached = cache.add(seg, hash, fresh);
      }
    }
    if (cached) {
      const Node* nodes = cached->nodes(cache.arena);
      const double bound = (2.0 * static_cast<double>(seg.size()) + 4.0) * 0x1p-24 *
                           (std::fabs(static_cast<double>(p)) + 2.0 * cached->magnitude);
      const bool own_start = p == 0.0f && !std::signbit(p);  // the cached run's own start
      if (own_start || cached->margin > bound) {
        replayed += !own_start;
        p = replay(nodes, cached->count, p);
        emit(nodes, cached->count, seg, out, prev_unknown, pieces);
        continue;
      }
      ++reruns;
    }
    p = viterbi(seg, p, fresh);
    emit(fresh.nodes.data(), fresh.nodes.size(), seg, out, prev_unknown, pieces);
  }
  shared_->segments.fetch_add(segments, std::memory_order_relaxed);
  if (replayed) shared_->replayed.fetch_add(replayed, std::memory_order_relaxed);
  if (reruns) shared_->reruns.fetch_add(reruns, std::memory_order_relaxed);
  return out;
}

}  // namespace embedpe
