// libFuzzer target, differential: Tokenizer::encode with the segment cache
// (lib/src/segment_cache.h) against SentencePiece's own Encode of the same
// model, on arbitrary bytes. Ids and pieces must be identical; anything else
// traps.
//
// The first byte picks one of four variants of the committed Mistral v3
// model (BPE, identity normalizer): as it is (byte fallback); without byte
// fallback (unknown characters become <unk> pieces whose runs SentencePiece
// merges, also across segments); without byte fallback plus user-defined
// symbols, one ending and one starting with U+2581 (segments then go to
// SentencePiece, not to SegmentBpe); and with every score equal, so that
// SegmentBpe's merge order is the tie-break alone (fuzz/model_variants.h).
#include <sentencepiece_processor.h>

#include <cstddef>
#include <cstdint>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "embedpe/tokenizer.h"
#include "model_variants.h"
#include "source_tree.h"

namespace {

struct Variant {
  embedpe::Tokenizer cached;
  sentencepiece::SentencePieceProcessor plain;
};

std::vector<std::unique_ptr<Variant>> load_variants() {
  std::ifstream in(std::string(test::source_dir()) + "/tests/models/mistral-v3-tokenizer.model", std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string base = ss.str();
  const std::string no_byte_fallback = embedpe::variants::without_byte_fallback(base);
  std::string user_defined = no_byte_fallback;
  for (const char* piece : {"<x>", "b\xE2\x96\x81", "\xE2\x96\x81<y>", "\xE2\x98\x83\xE2\x98\x83"}) {
    user_defined = embedpe::variants::with_piece(user_defined, piece, 4);  // USER_DEFINED
  }
  std::vector<std::unique_ptr<Variant>> out;
  const std::string tied = embedpe::variants::with_scores(base, 0.0f);
  for (const std::string& bytes : {base, no_byte_fallback, user_defined, tied}) {
    auto v = std::unique_ptr<Variant>(new Variant{embedpe::Tokenizer::from_bytes(bytes, "fuzz model"), {}});
    if (!v->plain.LoadFromSerializedProto(bytes).ok()) __builtin_trap();
    // The target is pointless if the cache is not in use.
    if (!v->cached.info().segment_cache) __builtin_trap();
    out.push_back(std::move(v));
  }
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const auto variants = load_variants();
  if (size == 0) return 0;
  const Variant& v = *variants[data[0] % variants.size()];
  const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  const embedpe::Encoding got = v.cached.encode(text);
  sentencepiece::ImmutableSentencePieceText spt;
  if (!v.plain.Encode(text, spt.mutable_proto()).ok()) __builtin_trap();
  if (got.ids.size() != spt.pieces_size()) __builtin_trap();
  for (std::size_t i = 0; i < got.ids.size(); ++i) {
    const auto p = spt.pieces(static_cast<int>(i));
    if (got.ids[i] != static_cast<int>(p.id()) || got.pieces[i] != p.piece()) __builtin_trap();
  }
  return 0;
}
