#include "segment_bpe.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <string>

#include "byte_piece.h"
#include "protobuf_fields.h"
#include "utf8.h"

namespace embedpe {
namespace {

// ModelProto's field numbers and piece types (protobuf_fields.h).
using namespace model_proto;

constexpr std::string_view kSpaceSymbol = "\xE2\x96\x81";  // U+2581, SentencePiece's escaped ' '

bool is_reserved(std::uint8_t type) {
  return type == kControl || type == kUnknown || type == kByte;
}

std::uint64_t hash_bytes(std::string_view s) {
  constexpr std::uint64_t kMul = 0x9E3779B97F4A7C15ULL;
  std::uint64_t h = s.size() * kMul;
  const char* p = s.data();
  std::size_t n = s.size();
  for (; n >= 8; p += 8, n -= 8) {
    std::uint64_t w;
    std::memcpy(&w, p, 8);
    h = std::rotl((h ^ w) * kMul, 29);
  }
  std::uint64_t w = 0;
  std::memcpy(&w, p, n);
  h = (h ^ w) * kMul;
  return h ^ (h >> 31);
}

}  // namespace

bool SegmentBpe::Index::build(const std::vector<Piece>& pieces, bool reserved) {
  std::size_t count = 0;
  for (const Piece& p : pieces) count += is_reserved(p.type) == reserved;
  std::size_t capacity = 16;
  while (capacity < 2 * count) capacity *= 2;
  slots.assign(capacity, kEmpty);
  mask = capacity - 1;
  for (std::size_t id = 0; id < pieces.size(); ++id) {
    if (is_reserved(pieces[id].type) != reserved) continue;
    const std::uint64_t h = hash_bytes(pieces[id].text), tag = h & ~std::uint64_t(0xFFFFFFFF);
    for (std::uint64_t s = h & mask;; s = (s + 1) & mask) {
      if (slots[s] == kEmpty) {
        slots[s] = tag | id;
        break;
      }
      if ((slots[s] & ~std::uint64_t(0xFFFFFFFF)) == tag && pieces[slots[s] & 0xFFFFFFFF].text == pieces[id].text) {
        return false;
      }
    }
  }
  return true;
}

int SegmentBpe::Index::find(const std::vector<Piece>& pieces, std::string_view text) const {
  const std::uint64_t h = hash_bytes(text), tag = h & ~std::uint64_t(0xFFFFFFFF);
  for (std::uint64_t s = h & mask;; s = (s + 1) & mask) {
    const std::uint64_t slot = slots[s];
    if (slot == kEmpty) return -1;
    if ((slot & ~std::uint64_t(0xFFFFFFFF)) == tag && pieces[slot & 0xFFFFFFFF].text == text) {
      return static_cast<int>(slot & 0xFFFFFFFF);
    }
  }
}

std::optional<SegmentBpe> SegmentBpe::from_model(std::string_view serialized) {
  SegmentBpe bpe;
  // The names the processor looks its special ids up by (TrainerSpec kUnkPiece..kPadPiece;
  // empty means the default, and it reads a name up to a NUL).
  static constexpr std::string_view kDefaultNames[4] = {"<unk>", "<s>", "</s>", "<pad>"};
  std::string_view names[4] = {kDefaultNames[0], kDefaultNames[1], kDefaultNames[2], kDefaultNames[3]};
  // Anything SentencePiece's parser or loader might refuse or read otherwise makes `usable` false.
  bool usable = protobuf::well_formed(serialized);
  protobuf::for_each_field(serialized, [&](const protobuf::Field& f) {
    if (f.wire_type != protobuf::kLengthDelimited) return;
    if (f.number <= kDenormalizerSpec && !protobuf::well_formed(f.bytes)) usable = false;
    if (f.number == kPieces) {
      Piece piece;
      protobuf::for_each_field(f.bytes, [&](const protobuf::Field& p) {
        if (p.number == kPiece && p.wire_type == protobuf::kLengthDelimited) piece.text = p.bytes;
        if (p.number == kScore && p.wire_type == protobuf::kFixed32) {
          const auto bits = static_cast<std::uint32_t>(p.value);
          std::memcpy(&piece.score, &bits, sizeof bits);
        }
        if (p.number == kType && p.wire_type == protobuf::kVarint) {
          // An out-of-range value is an unknown field to protobuf, which keeps the type before it.
          if (p.value < kNormal || p.value > kByte) usable = false;
          piece.type = static_cast<std::uint8_t>(p.value);
        }
      });
      if (piece.text.empty() || std::isnan(piece.score) || piece.type == kUserDefined || piece.type == kUnused) {
        usable = false;
      }
      bpe.pieces_.push_back(piece);
    } else if (f.number == kTrainerSpec) {
      protobuf::for_each_field(f.bytes, [&](const protobuf::Field& t) {
        if (t.number == kByteFallback && t.wire_type == protobuf::kVarint) bpe.byte_fallback_ = t.value != 0;
        if (t.number >= kUnkPiece && t.number <= kPadPiece && t.wire_type == protobuf::kLengthDelimited) {
          const std::size_t i = t.number - kUnkPiece;
          names[i] = t.bytes.empty() ? kDefaultNames[i] : t.bytes.substr(0, t.bytes.find('\0'));
        }
      });
    } else if (f.number == kDenormalizerSpec) {  // a charsmap is a table the loader decodes
      protobuf::for_each_field(f.bytes, [&](const protobuf::Field& n) {
        if (n.number == kCharsmap && n.wire_type == protobuf::kLengthDelimited && !n.bytes.empty()) usable = false;
      });
    }
  });
  if (!usable || bpe.pieces_.empty() || bpe.pieces_.size() > 0x7FFFFFFF) return std::nullopt;
  // InitializePieces' checks: one <unk>; byte pieces only with byte fallback,
  // each one of the 256, and all 256 of them with it.
  int unknowns = 0;
  bool byte_found[256] = {};
  for (std::size_t id = 0; id < bpe.pieces_.size(); ++id) {
    const Piece& p = bpe.pieces_[id];
    if (p.type == kUnknown) {
      bpe.unk_id_ = static_cast<int>(id);
      ++unknowns;
    }
    if (p.type == kByte) {
      const int byte = byte_piece::sentencepiece_byte(p.text);
      if (!bpe.byte_fallback_ || byte < 0) return std::nullopt;
      byte_found[byte] = true;
    }
  }
  if (unknowns != 1) return std::nullopt;
  if (bpe.byte_fallback_ && std::find(std::begin(byte_found), std::end(byte_found), false) != std::end(byte_found)) {
    return std::nullopt;
  }
  // A piece defined twice is a model SentencePiece refuses: leave it to it.
  if (!bpe.normal_.build(bpe.pieces_, false) || !bpe.reserved_.build(bpe.pieces_, true)) return std::nullopt;
  for (int b = 0; b < 256; ++b) bpe.byte_ids_[b] = bpe.piece_to_id(byte_piece::Piece(static_cast<unsigned char>(b)));
  bpe.special_ = model_proto::special_ids(
      names, [&](std::string_view name) { return bpe.piece_to_id(name); },
      [&](int id) { return bpe.pieces_[static_cast<std::size_t>(id)].type; });
  return bpe;
}

int SegmentBpe::piece_to_id(std::string_view text) const {
  if (const int id = reserved_.find(pieces_, text); id >= 0) return id;
  if (const int id = normal_.find(pieces_, text); id >= 0) return id;
  return unk_id_;
}

std::optional<Encoding> SegmentBpe::encode(std::string_view segment) const {
  // The normalized text: ' ' escaped, nothing else changes (identity normalizer).
  std::string text;
  text.reserve(segment.size() + 8);
  for (char c : segment) {
    if (c == ' ') {
      text += kSpaceSymbol;
    } else {
      text += c;
    }
  }
  struct Symbol {
    int prev, next;
    std::uint32_t begin, size;  // in `text`; size 0: merged into the symbol before it
  };
  std::vector<Symbol> symbols;
  symbols.reserve(text.size());
  for (std::size_t pos = 0; pos < text.size();) {
    std::size_t len = 0;
    utf8::decode(text, pos, len);  // one byte of a text that is not well-formed
    const int index = static_cast<int>(symbols.size());
    symbols.push_back({index - 1, pos + len < text.size() ? index + 1 : -1, static_cast<std::uint32_t>(pos),
                       static_cast<std::uint32_t>(len)});
    pos += len;
  }
  struct Candidate {
    float score;
    int left, right;
    std::uint32_t size;
  };
  // std::priority_queue's order in SentencePiece: the top has the highest
  // score, and among equal scores the leftmost.
  const auto lower = [](const Candidate& a, const Candidate& b) {
    return a.score < b.score || (a.score == b.score && a.left > b.left);
  };
  std::vector<Candidate> agenda;
  agenda.reserve(symbols.size() * 2);
  const auto add = [&](int left, int right) {
    if (left < 0 || right < 0) return;
    const std::uint32_t size = symbols[left].size + symbols[right].size;
    const int id = normal_.find(pieces_, std::string_view(text).substr(symbols[left].begin, size));
    if (id < 0) return;
    agenda.push_back({pieces_[static_cast<std::size_t>(id)].score, left, right, size});
    std::push_heap(agenda.begin(), agenda.end(), lower);
  };
  for (std::size_t i = 1; i < symbols.size(); ++i) add(static_cast<int>(i - 1), static_cast<int>(i));
  while (!agenda.empty()) {
    std::pop_heap(agenda.begin(), agenda.end(), lower);
    const Candidate top = agenda.back();
    agenda.pop_back();
    Symbol& left = symbols[top.left];
    Symbol& right = symbols[top.right];
    if (left.size == 0 || right.size == 0 || left.size + right.size != top.size) continue;  // no longer there
    left.size += right.size;
    left.next = right.next;
    if (right.next >= 0) symbols[right.next].prev = top.left;
    right.size = 0;
    add(left.prev, top.left);
    add(top.left, left.next);
  }

  Encoding out;
  bool prev_unknown = false;
  for (int i = 0; i != -1; i = symbols[i].next) {
    const std::string_view w = std::string_view(text).substr(symbols[i].begin, symbols[i].size);
    const int id = piece_to_id(w);
    const std::uint8_t type = pieces_[static_cast<std::size_t>(id)].type;
    if (type == kControl) return std::nullopt;  // a control piece's empty surface: SentencePiece's business
    const bool unknown = type == kUnknown;
    if (unknown && byte_fallback_) {
      for (char c : w) {
        const auto b = static_cast<unsigned char>(c);
        out.ids.push_back(byte_ids_[b]);
        out.pieces.emplace_back(byte_piece::Piece(b).view());
      }
    } else if (unknown && prev_unknown) {
      out.pieces.back() += w;
    } else {
      out.ids.push_back(id);
      out.pieces.emplace_back(w);
    }
    prev_unknown = unknown;
  }
  return out;
}

}  // namespace embedpe
