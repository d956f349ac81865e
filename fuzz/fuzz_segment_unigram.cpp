// libFuzzer target, differential: unigram models encoded by SegmentUnigram
// (lib/src/text/segment_unigram.h), through Tokenizer::encode and directly
// with a cache of 4 KiB (emptied often), against SentencePiece's own Encode
// of the same model, on arbitrary bytes. Ids and pieces must be identical;
// anything else traps.
//
// The first byte picks the model: the default model (nmt_nfkc, byte
// fallback), T5's (nmt_nfkc, <unk> runs merged), ALBERT's (user-defined
// symbols, matched before normalization), sp-test-ja's (nfkc), and T5's with
// every score equal, where every decision is a tie settled by the earliest
// start. Each text is encoded alone and after a fixed text, so that its
// segments start from a score other than 0 and the cached paths are tried
// against the margin, and retried when it does not prove them.
// With EMBEDPE_FUZZ_COUNTS set, the counts of those (per model) are printed
// on stderr at exit: the retried ones are the fallback path, compared too.
#include <sentencepiece_processor.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "embedpe/tokenizer.h"
#include "model_variants.h"
#include "source_tree.h"
#include "segment_unigram.h"

namespace {

struct Variant {
  std::string bytes;
  embedpe::Tokenizer tokenizer;
  std::optional<embedpe::SegmentUnigram> direct;
  sentencepiece::SentencePieceProcessor plain;
};

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

const std::vector<std::unique_ptr<Variant>>& load_variants_result();

std::vector<std::unique_ptr<Variant>> load_variants() {
  const std::string dir = test::source_dir();
  const std::string t5 = slurp(dir + "/tests/models/t5-spiece.model");
  std::vector<std::string> models = {slurp(dir + "/data/default.model"), t5,
                                     slurp(dir + "/tests/models/albert-spiece.model"),
                                     slurp(dir + "/tests/models/sp-test-ja.model"),
                                     embedpe::variants::with_scores(t5, -1.0f)};
  std::vector<std::unique_ptr<Variant>> out;
  for (std::string& bytes : models) {
    auto v = std::unique_ptr<Variant>(new Variant{bytes, embedpe::Tokenizer::from_bytes(bytes, "fuzz model"), {}, {}});
    v->direct = embedpe::SegmentUnigram::from_model(v->bytes, nullptr, 4096);
    if (!v->plain.LoadFromSerializedProto(v->bytes).ok()) __builtin_trap();
    // The target is pointless if SegmentUnigram is not in use.
    if (!v->direct || !v->tokenizer.info().segment_cache) __builtin_trap();
    out.push_back(std::move(v));
  }
  if (std::getenv("EMBEDPE_FUZZ_COUNTS")) {
    std::atexit([] {
      for (const auto& v : load_variants_result()) {
        const auto c = v->direct->counts();
        std::fprintf(stderr, "segments %llu, replayed %llu, encoded again %llu\n",
                     static_cast<unsigned long long>(c.segments), static_cast<unsigned long long>(c.replayed),
                     static_cast<unsigned long long>(c.reruns));
      }
    });
  }
  return out;
}

// Never destroyed, so that the counts can be read at exit.
const std::vector<std::unique_ptr<Variant>>& load_variants_result() {
  static const auto* variants = new std::vector<std::unique_ptr<Variant>>(load_variants());
  return *variants;
}

void check(const Variant& v, std::string_view text) {
  sentencepiece::ImmutableSentencePieceText spt;
  if (!v.plain.Encode(text, spt.mutable_proto()).ok()) __builtin_trap();
  const auto same = [&](const embedpe::Encoding& got) {
    if (got.ids.size() != spt.pieces_size() || got.pieces.size() != got.ids.size()) __builtin_trap();
    for (std::size_t i = 0; i < got.ids.size(); ++i) {
      const auto p = spt.pieces(static_cast<int>(i));
      if (got.ids[i] != static_cast<int>(p.id()) || got.pieces[i] != p.piece()) __builtin_trap();
    }
  };
  same(v.tokenizer.encode(text));
  if (const auto direct = v.direct->encode(text)) same(*direct);
  // Ids alone: the same ids.
  const embedpe::Encoding ids = v.tokenizer.encode(text, embedpe::Pieces::drop);
  if (ids.ids.size() != spt.pieces_size()) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto& variants = load_variants_result();
  if (size == 0) return 0;
  const Variant& v = *variants[data[0] % variants.size()];
  const std::string text(reinterpret_cast<const char*>(data + 1), size - 1);
  check(v, text);
  check(v, "It was the best of times, it was the worst of times; 1.1.1 ... " + text);
  check(v, text + " " + text);
  return 0;
}
