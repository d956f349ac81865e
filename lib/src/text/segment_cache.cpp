#include "segment_cache.h"

#include <cstring>
#include <mutex>
#include <unordered_map>

#include "protobuf_fields.h"
#include "utf8.h"

namespace embedpe {
namespace {

constexpr char32_t kSpaceSymbol = 0x2581;  // ▁, SentencePiece's escaped ' '
using utf8::kInvalid;  // also "no code point before"

// True if the float32 with these bits is a NaN.
bool is_nan_bits(std::uint64_t bits) {
  return (bits & 0x7F800000) == 0x7F800000 && (bits & 0x007FFFFF) != 0;
}

char32_t escaped(char32_t cp) { return cp == U' ' ? kSpaceSymbol : cp; }

// Index in the small bitmap, or -1.
int small_index(char32_t cp) {
  if (cp < 128) return static_cast<int>(cp);
  return cp == kSpaceSymbol ? 128 : -1;
}
constexpr std::size_t kSmall = 129;

std::uint64_t pair_key(char32_t a, char32_t b) { return ((std::uint64_t(a) << 21) | b) + 1; }

std::uint64_t mix(std::uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  return x;
}

namespace field = model_proto;

}  // namespace

const char* SegmentRules::read_spec(std::string_view serialized, SegmentRules& rules) {
  if (!protobuf::well_formed(serialized)) return "not a well-formed ModelProto";
  // Proto defaults, overridden by what the model says (the last value wins).
  std::uint64_t model_type = 1;
  bool suffix = false, remove_extra = true, escape = true, self_test = false;
  std::string_view name, charsmap;
  protobuf::for_each_field(serialized, [&](const protobuf::Field& f) {
    if (f.wire_type != protobuf::kLengthDelimited) return;
    if (f.number == field::kSelfTestData) self_test = true;
    if (f.number == field::kTrainerSpec) {
      protobuf::for_each_field(f.bytes, [&](const protobuf::Field& t) {
        if (t.wire_type != protobuf::kVarint) return;
        if (t.number == field::kModelType) model_type = t.value;
        if (t.number == field::kTreatWhitespaceAsSuffix) suffix = t.value != 0;
        if (t.number == field::kByteFallback) rules.byte_fallback_ = t.value != 0;
      });
    } else if (f.number == field::kNormalizerSpec) {
      protobuf::for_each_field(f.bytes, [&](const protobuf::Field& n) {
        if (n.number == field::kName && n.wire_type == protobuf::kLengthDelimited) name = n.bytes;
        if (n.number == field::kCharsmap && n.wire_type == protobuf::kLengthDelimited) charsmap = n.bytes;
        if (n.wire_type != protobuf::kVarint) return;
        if (n.number == field::kAddDummyPrefix) rules.dummy_prefix_ = n.value != 0;
        if (n.number == field::kRemoveExtraWhitespaces) remove_extra = n.value != 0;
        if (n.number == field::kEscapeWhitespaces) escape = n.value != 0;
      });
    }
  });
  if (self_test) return "it has self-test data";
  if (model_type != field::kModelBpe) return "it is not a BPE model";
  if (name != "identity" || !charsmap.empty()) return "its normalizer is not the identity";
  if (remove_extra) return "it removes extra whitespace";
  if (!escape) return "it does not escape whitespace";
  if (suffix) return "it treats whitespace as a suffix";
  return nullptr;
}

bool SegmentRules::spec_allows(std::string_view serialized) {
  SegmentRules rules;
  return read_spec(serialized, rules) == nullptr;
}

std::optional<SegmentRules> SegmentRules::from_model(std::string_view serialized, std::string* why_not) {
  const auto no = [&](const char* reason) -> std::optional<SegmentRules> {
    if (why_not) *why_not = reason;
    return std::nullopt;
  };
  SegmentRules rules;
  const char* refused = read_spec(serialized, rules);
  if (refused) return no(refused);
  // Calls visit(piece) for the text of every piece, in order, without copying.
  const auto for_each_piece = [&](auto&& visit) {
    protobuf::for_each_field(serialized, [&](const protobuf::Field& f) {
      if (f.number != field::kPieces || f.wire_type != protobuf::kLengthDelimited) return;
      std::string_view piece;
      protobuf::for_each_field(f.bytes, [&](const protobuf::Field& p) {
        if (p.number == field::kPiece && p.wire_type == protobuf::kLengthDelimited) piece = p.bytes;
        if (p.number == field::kType && p.wire_type == protobuf::kVarint && p.value == field::kUnused) {
          refused = "it has UNUSED pieces";
        }
        if (p.number == field::kScore && p.wire_type == protobuf::kFixed32 && is_nan_bits(p.value)) {
          refused = "a score is not a number";
        }
      });
      visit(piece);
    });
  };

  // Two passes over the pieces' code points: count the pairs the small
  // table cannot hold, so that the hash table is sized by them (at most
  // half full) rather than by the vocabulary's bytes: most pieces of most
  // models are ASCII, and every page of a table is first-touched at load.
  const auto for_each_pair = [&](auto&& visit) {
    for_each_piece([&](std::string_view piece) {
      char32_t prev = kInvalid;
      while (!piece.empty()) {
        std::size_t len = 0;
        const char32_t cp = utf8::decode(piece, 0, len);
        if (prev != kInvalid) visit(prev, cp);
        prev = cp;
        piece.remove_prefix(len);
      }
    });
  };
  std::size_t large = 0;
  for_each_piece([&](std::string_view piece) {
    if (piece.find(' ') != std::string_view::npos) refused = "a piece contains ' '";
    for (std::string_view rest = piece; !rest.empty() && !refused;) {
      std::size_t len = 0;
      if (utf8::decode(rest, 0, len) == kInvalid) refused = "a piece is not valid UTF-8";
      rest.remove_prefix(len);
    }
  });
  if (refused) return no(refused);
  for_each_pair([&](char32_t a, char32_t b) { large += small_index(a) < 0 || small_index(b) < 0; });
  rules.small_pairs_.assign((kSmall * kSmall + 63) / 64, 0);
  std::size_t capacity = 64;
  while (capacity < 2 * large) capacity *= 2;
  rules.pairs_.assign(capacity, 0);
  rules.pair_mask_ = capacity - 1;
  for_each_pair([&](char32_t a, char32_t b) { rules.add_pair(a, b); });
  return rules;
}

void SegmentRules::add_pair(char32_t a, char32_t b) {
  const int i = small_index(a), j = small_index(b);
  if (i >= 0 && j >= 0) {
    const std::size_t bit = std::size_t(i) * kSmall + std::size_t(j);
    small_pairs_[bit / 64] |= std::uint64_t(1) << (bit % 64);
    return;
  }
  const std::uint64_t key = pair_key(a, b);
  for (std::uint64_t slot = mix(key) & pair_mask_;; slot = (slot + 1) & pair_mask_) {
    if (pairs_[slot] == key) return;
    if (pairs_[slot] == 0) {
      pairs_[slot] = key;
      return;
    }
  }
}

bool SegmentRules::joined(char32_t a, char32_t b) const {
  a = escaped(a);
  b = escaped(b);
  const int i = small_index(a), j = small_index(b);
  if (i >= 0 && j >= 0) {
    const std::size_t bit = std::size_t(i) * kSmall + std::size_t(j);
    return (small_pairs_[bit / 64] >> (bit % 64)) & 1;
  }
  const std::uint64_t key = pair_key(a, b);
  for (std::uint64_t slot = mix(key) & pair_mask_;; slot = (slot + 1) & pair_mask_) {
    if (pairs_[slot] == key) return true;
    if (pairs_[slot] == 0) return false;
  }
}

std::vector<std::string_view> SegmentRules::split(std::string_view text) const {
  std::vector<std::string_view> segments;
  std::size_t start = 0, pos = 0;
  char32_t prev = kInvalid;
  while (pos < text.size()) {
    std::size_t len = 0;
    const char32_t cp = utf8::decode(text, pos, len);
    if (cp == kInvalid) return {};
    if (prev != kInvalid && !joined(prev, cp)) {
      segments.push_back(text.substr(start, pos - start));
      start = pos;
    }
    prev = cp;
    pos += len;
  }
  if (pos > start) segments.push_back(text.substr(start));
  return segments;
}

namespace {

struct Hash {
  using is_transparent = void;
  std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};

// What an entry costs, roughly: key, pieces, ids and node overhead.
std::size_t entry_bytes(std::string_view key, const Encoding& e) {
  std::size_t n = 96 + key.size() + e.ids.size() * (sizeof(int) + sizeof(std::string));
  for (const auto& p : e.pieces) n += p.size() > 15 ? p.size() + 1 : 0;
  return n;
}

constexpr std::size_t kShards = 32;

}  // namespace

struct SegmentEncoder::Shard {
  mutable std::mutex mutex;
  std::unordered_map<std::string, Encoding, Hash, std::equal_to<>> map;
  std::size_t bytes = 0;
};

SegmentEncoder::SegmentEncoder(SegmentRules rules, int unk_id, std::optional<SegmentBpe> bpe, std::size_t max_bytes)
    : rules_(std::move(rules)),
      unk_id_(unk_id),
      bpe_(std::move(bpe)),
      max_bytes_(max_bytes),
      shards_(std::make_unique<Shard[]>(kShards)) {}
SegmentEncoder::~SegmentEncoder() = default;

std::size_t SegmentEncoder::cached_segments() const {
  std::size_t n = 0;
  for (std::size_t s = 0; s < kShards; ++s) {
    std::lock_guard lock(shards_[s].mutex);
    n += shards_[s].map.size();
  }
  return n;
}

void SegmentEncoder::append(Encoding& out, const Encoding& segment, Pieces pieces) const {
  std::size_t first = 0;
  // SentencePiece merges a run of <unk> pieces into one (its piece is the
  // run's text); a run can straddle two segments. With byte fallback an
  // unknown piece becomes bytes instead and nothing merges.
  if (!rules_.byte_fallback() && !out.ids.empty() && !segment.ids.empty() && out.ids.back() == unk_id_ &&
      segment.ids.front() == unk_id_) {
    if (pieces == Pieces::keep) out.pieces.back() += segment.pieces.front();
    first = 1;
  }
  out.ids.insert(out.ids.end(), segment.ids.begin() + static_cast<std::ptrdiff_t>(first), segment.ids.end());
  if (pieces == Pieces::keep) {
    out.pieces.insert(out.pieces.end(), segment.pieces.begin() + static_cast<std::ptrdiff_t>(first),
                      segment.pieces.end());
  }
}

Encoding SegmentEncoder::encode_fresh(std::string_view segment,
                                      const std::function<Encoding(std::string_view)>& encode_segment) const {
  if (bpe_) {
    if (std::optional<Encoding> e = bpe_->encode(segment)) return std::move(*e);
  }
  return encode_segment(segment);
}

Encoding SegmentEncoder::encode(std::string_view text, const std::function<Encoding(std::string_view)>& encode_segment,
                                Pieces pieces) const {
  if (text.empty()) return {};  // SentencePiece adds no prefix to an empty text
  std::string prefixed;
  if (rules_.dummy_prefix()) {
    prefixed.reserve(text.size() + 1);
    prefixed += ' ';
    prefixed += text;
    text = prefixed;
  }
  const auto segments = rules_.split(text);
  if (segments.empty()) return encode_segment(text);
  Encoding out;
  out.ids.reserve(text.size() / 3 + 1);
  if (pieces == Pieces::keep) out.pieces.reserve(text.size() / 3 + 1);
  for (std::string_view seg : segments) {
    if (seg.size() > kMaxSegmentBytes) {
      append(out, encode_fresh(seg, encode_segment), pieces);
      continue;
    }
    Shard& shard = shards_[Hash{}(seg) % kShards];
    {
      std::lock_guard lock(shard.mutex);
      const auto it = shard.map.find(seg);
      if (it != shard.map.end()) {
        append(out, it->second, pieces);
        continue;
      }
    }
    Encoding fresh = encode_fresh(seg, encode_segment);  // outside the lock: the slow part
    append(out, fresh, pieces);
    const std::size_t cost = entry_bytes(seg, fresh);
    std::lock_guard lock(shard.mutex);
    if (shard.bytes + cost > max_bytes_ / kShards) {
      shard.map.clear();
      shard.bytes = 0;
    }
    if (shard.map.try_emplace(std::string(seg), std::move(fresh)).second) {
      shard.bytes += cost;
    }
  }
  return out;
}

}  // namespace embedpe
