// The segment cache against SentencePiece itself, line by line on real
// corpora: every line of every TEXT through every MODEL, Tokenizer::encode
// (cached where the model allows it) vs a SentencePieceProcessor loaded from
// the same file (the plain path). Ids and pieces must be identical.
// Unigram models are also run through a SegmentUnigram of their own with a
// small cache (64 KiB, so that it is emptied and refilled), whose segments
// are counted: how many took a cached path under another start score, and
// how many were encoded again because the margin did not prove it. Some must
// have been: the test fails if no segment took that fallback path.
//
//   segment_identity [--max-lines N] MODEL... -- TEXT...
//
// --max-lines checks at most N lines of each text (the sanitizer trees: the
// same paths under ASan in a fifth of the time; Release reads them whole).
// Lines are split at '\n' only and given as they are (BOM, '\r', invalid
// UTF-8 included), as spm_encode reads them. Models without the cache are
// checked on the first 500 lines of each text only (they are SentencePiece). Exit 0: identical; 1: a
// difference (the first few are printed); 77: no MODEL or TEXT exists (CTest
// reports a skip: the corpora are not in every checkout).
#include <sentencepiece_processor.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "embedpe/tokenizer.h"
#include "segment_unigram.h"

namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

bool exists(const std::string& path) { return std::ifstream(path).good(); }

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> models, texts;
  bool after = false;
  std::size_t max_lines = SIZE_MAX;
  std::vector<std::string> missing;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--max-lines" && i + 1 < argc) {
      max_lines = std::stoul(argv[++i]);
    } else if (arg == "--") {
      after = true;
    } else if (exists(arg)) {
      (after ? texts : models).push_back(arg);
    } else {
      missing.push_back(arg);
    }
  }
  if (models.empty() || texts.empty()) return 77;
  int failures = 0;
  std::size_t cached_models = 0, unigram_models = 0;
  std::uint64_t unigram_reruns = 0;
  for (const auto& model_path : models) {
    const auto tok = embedpe::Tokenizer::from_file(model_path);
    const std::string bytes = slurp(model_path);
    const auto uni = embedpe::SegmentUnigram::from_model(bytes, nullptr, std::size_t(64) << 10);
    unigram_models += uni.has_value();
    sentencepiece::SentencePieceProcessor plain;
    if (!plain.LoadFromSerializedProto(slurp(model_path)).ok()) {
      std::cout << model_path << ": SentencePiece cannot load it\n";
      return 1;
    }
    cached_models += tok.info().segment_cache;
    for (const auto& text_path : texts) {
      std::vector<std::string> lines;
      std::istringstream in(slurp(text_path));
      // A model without the cache takes SentencePiece's own path: its first
      // lines show that, the whole file would only repeat it.
      const std::size_t limit = std::min<std::size_t>(max_lines, tok.info().segment_cache ? SIZE_MAX : 500);
      for (std::string line; lines.size() < limit && std::getline(in, line);) lines.push_back(line);
      // Two threads share the tokenizer's cache, as encode_batch's do.
      std::vector<int> bad(2, 0);
      std::vector<std::size_t> tokens(2, 0);
      std::vector<std::thread> workers;
      for (std::size_t w = 0; w < 2; ++w) {
        workers.emplace_back([&, w] {
          for (std::size_t i = w; i < lines.size(); i += 2) {
            const embedpe::Encoding got = tok.encode(lines[i]);
            sentencepiece::ImmutableSentencePieceText spt;
            if (!plain.Encode(lines[i], spt.mutable_proto()).ok()) ++bad[w];
            std::vector<int> ids;
            std::vector<std::string> pieces;
            for (const auto& p : spt.pieces()) {
              ids.push_back(static_cast<int>(p.id()));
              pieces.push_back(p.piece());
            }
            tokens[w] += ids.size();
            if (got.ids != ids || got.pieces != pieces) {
              if (++bad[w] <= 3) std::printf("DIFFERENT: %s line %zu\n", text_path.c_str(), i + 1);
            }
            if (uni) {
              const auto direct = uni->encode(lines[i]);
              if (direct && (direct->ids != ids || direct->pieces != pieces)) {
                if (++bad[w] <= 3) std::printf("DIFFERENT (SegmentUnigram): %s line %zu\n", text_path.c_str(), i + 1);
              }
            }
          }
        });
      }
      for (auto& t : workers) t.join();
      const int n = bad[0] + bad[1];
      failures += n;
      std::printf("%s, %s: %zu lines, %zu tokens, segment cache %s, %d different\n", model_path.c_str(),
                  text_path.c_str(), lines.size(), tokens[0] + tokens[1], tok.info().segment_cache ? "on" : "off", n);
    }
    if (uni) {
      const auto c = uni->counts();
      unigram_reruns += c.reruns;
      std::printf("%s: SegmentUnigram: %llu segments, %llu cached paths replayed from another score, %llu encoded "
                  "again\n",
                  model_path.c_str(), static_cast<unsigned long long>(c.segments),
                  static_cast<unsigned long long>(c.replayed), static_cast<unsigned long long>(c.reruns));
    }
  }
  std::printf("%zu of %zu models cached; %d lines different\n", cached_models, models.size(), failures);
  if (unigram_models > 0 && unigram_reruns == 0) {
    std::printf("no unigram segment was encoded again: the fallback path was not compared\n");
    return 1;
  }
  if (cached_models == 0) {
    std::printf("no model uses the segment cache: the cached path was not compared\n");
    return 1;
  }
  if (failures) return 1;
  // What exists was compared; a missing model or text is not a pass: CTest
  // reports the case SKIPPED (SKIP_RETURN_CODE 77), naming what was missing.
  for (const auto& m : missing) std::printf("SKIPPED: missing %s\n", m.c_str());
  return missing.empty() ? 0 : 77;
}
