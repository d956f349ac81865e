#include "embedpe/progress.h"

#include <algorithm>

namespace embedpe {

Progress::Progress(ProgressStyle style, const LineReader* reader, std::FILE* out)
    : reader_(reader), out_(out), live_(style.live), summary_(style.summary || style.live),
      start_(std::chrono::steady_clock::now()), last_(start_) {}

void Progress::add(const Batch& b) {
  lines_ += b.size();
  truncated_ += b.truncated_count();
  for (const auto& p : b.pieces) tokens_ += p.size();
  const auto now = std::chrono::steady_clock::now();
  if (!live_ || now - last_ < std::chrono::milliseconds(200)) return;
  last_ = now;
  std::fprintf(out_, "\r%s", line(now).c_str());
}

void Progress::finish() {
  if (!summary_) return;
  const auto now = std::chrono::steady_clock::now();
  const double secs = std::chrono::duration<double>(now - start_).count();
  std::fprintf(out_, "%sembedpe: %zu %s, %zu tokens, %zu truncated, %zu empty, %.2f s\n",
               live_ && lines_ ? "\r\033[K" : "", lines_, lines_ == 1 ? "line" : "lines", tokens_, truncated_,
               reader_ ? reader_->empty_lines() : std::size_t(0), secs);
}

std::string Progress::line(std::chrono::steady_clock::time_point now) const {
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

}  // namespace embedpe
