// encode's progress: lines, tokens, rate and (when the input size is known)
// ETA on a terminal, and a summary at the end.
//
//   Progress progress(cmd.quiet, cmd.summary, source.reader());
//   progress.add(batch);   // after each batch
//   progress.finish();
#pragma once

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>

#include "embedpe/text_input.h"
#include "embedpe/tokenizer.h"

namespace embedpe {

// Lines, tokens, rate and (when the input size is known) ETA on a terminal;
// a summary at the end on a terminal or with --summary.
class Progress {
 public:
  // `reader` (null for given texts) tells how far through its input a run is.
  Progress(bool quiet, bool summary, const LineReader* reader)
      : reader_(reader), live_(!quiet && ::isatty(STDERR_FILENO)), summary_(summary || live_),
        start_(std::chrono::steady_clock::now()), last_(start_) {}

  void add(const Batch& b) {
    lines_ += b.size();
    truncated_ += b.truncated_count();
    for (const auto& p : b.pieces) tokens_ += p.size();
    const auto now = std::chrono::steady_clock::now();
    if (!live_ || now - last_ < std::chrono::milliseconds(200)) return;
    last_ = now;
    std::fprintf(stderr, "\r%s", line(now).c_str());
  }

  void finish() {
    if (!summary_) return;
    const auto now = std::chrono::steady_clock::now();
    const double secs = std::chrono::duration<double>(now - start_).count();
    std::fprintf(stderr, "%sembedpe: %zu %s, %zu tokens, %zu truncated, %zu empty, %.2f s\n",
                 live_ && lines_ ? "\r\033[K" : "", lines_, lines_ == 1 ? "line" : "lines", tokens_, truncated_,
                 reader_ ? reader_->empty_lines() : std::size_t(0), secs);
  }

 private:
  std::string line(std::chrono::steady_clock::time_point now) const {
    const double secs = std::max(1e-9, std::chrono::duration<double>(now - start_).count());
    char text[200];
    int n = std::snprintf(text, sizeof text, "%zu lines, %zu tokens, %.0f lines/s", lines_, tokens_,
                          static_cast<double>(lines_) / secs);
    if (reader_ && reader_->total_bytes() && *reader_->total_bytes() > 0) {
      const double done = static_cast<double>(reader_->bytes_read()) / static_cast<double>(*reader_->total_bytes());
      const double eta = done > 0 ? secs * (1 - done) / done : 0;
      std::snprintf(text + n, sizeof text - static_cast<std::size_t>(n), ", %.0f%%, ETA %.0f s\033[K",
                    std::min(100.0, done * 100), eta);
    }
    return text;
  }

  const LineReader* reader_;
  bool live_, summary_;
  std::chrono::steady_clock::time_point start_, last_;
  std::size_t lines_ = 0, tokens_ = 0, truncated_ = 0;
};

}  // namespace embedpe
