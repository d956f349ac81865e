// Times a tokenizer.json's model alone (lib/src/text/tj_model.h): reading the
// file, then tokenizing words, one per line of standard input, in one thread.
//
//   bench_tj_model TOKENIZER_JSON [raw|mapped] [ids] < words
//
// raw (default): each line is a pre-token's raw bytes, given to tokenize_bytes
// (as the engine does when ByteLevel is the last pre-tokenizer step); mapped:
// each line is already ByteLevel-mapped (or a plain word, for WordPiece and
// Unigram), given to tokenize. With `ids`, prints each word's ids (one line
// per word), as tools/make_tj_model_goldens.js's core prints them, to compare.
// Times are the process's CPU time (the machine is shared).
#include <cstdio>
#include <ctime>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "embedpe/error.h"
#include "tj_model.h"

namespace {
double cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}
}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: bench_tj_model TOKENIZER_JSON [raw|mapped] [ids] < words\n");
    return 2;
  }
  const std::string mode = argc > 2 ? argv[2] : "raw";
  const bool print = argc > 3 && std::string(argv[3]) == "ids";
  std::ifstream file(argv[1], std::ios::binary);
  std::stringstream buffer;
  buffer << file.rdbuf();
  const std::string text = buffer.str();
  try {
    const double t0 = cpu_seconds();
    const auto tj = embedpe::tj::read_tokenizer_json(text, argv[1]);
    const double t1 = cpu_seconds();
    std::fprintf(stderr, "read %zu bytes: %s model, %zu tokens, %.1f ms CPU\n", text.size(), tj.model->type(),
                 tj.model->vocab_size(), (t1 - t0) * 1e3);
    std::vector<std::string> words;
    for (std::string line; std::getline(std::cin, line);) words.push_back(line);
    std::vector<std::int32_t> ids;
    std::string out;
    std::size_t bytes = 0, count = 0;
    const double t2 = cpu_seconds();
    for (const std::string& w : words) {
      ids.clear();
      if (mode == "raw") tj.model->tokenize_bytes(w, ids);
      else tj.model->tokenize(w, ids);
      bytes += w.size();
      count += ids.size();
      if (print) {
        for (std::size_t i = 0; i < ids.size(); ++i) out += (i ? " " : "") + std::to_string(ids[i]);
        out += '\n';
      }
    }
    const double seconds = cpu_seconds() - t2;
    std::fprintf(stderr, "%zu words, %zu bytes, %zu ids in %.3f s CPU: %.1f MB/s\n", words.size(), bytes, count,
                 seconds, static_cast<double>(bytes) / seconds / 1e6);
    std::fwrite(out.data(), 1, out.size(), stdout);
  } catch (const embedpe::Error& e) {
    std::fprintf(stderr, "bench_tj_model: %s\n", e.what());
    return e.exit_code();
  }
  return 0;
}
