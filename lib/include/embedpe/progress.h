// An encode run's account of itself: lines, tokens, rate and (when the
// input's size is known) ETA while it runs, and a summary at the end.
// Counting and wording are the run's, whoever watches it; the caller says
// whether its stream is a live terminal (the line is then rewritten in
// place) and whether a summary is wanted.
//
//   Progress progress({.live = isatty(2), .summary = true}, source.reader(), stderr);
//   progress.add(batch);   // after each batch
//   progress.finish();
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdio>
#include <string>

#include "embedpe/text_input.h"
#include "embedpe/tokenizer.h"

namespace embedpe {

struct ProgressStyle {
  bool live = false;     // a line rewritten in place at most every 200 ms ("\r", erase to the end)
  bool summary = false;  // a closing line; always when live
};

class Progress {
 public:
  // `reader` (null for given texts) tells how far through its input a run is.
  Progress(ProgressStyle style, const LineReader* reader, std::FILE* out);

  void add(const Batch& b);
  void finish();

 private:
  std::string line(std::chrono::steady_clock::time_point now) const;

  const LineReader* reader_;
  std::FILE* out_;
  bool live_, summary_;
  std::chrono::steady_clock::time_point start_, last_;
  std::size_t lines_ = 0, tokens_ = 0, truncated_ = 0;
};

}  // namespace embedpe
