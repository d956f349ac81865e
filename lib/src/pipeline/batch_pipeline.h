// Computing batch n+1 while batch n is written: two slots, written in turn
// by a task on the thread pool of parallel.h, so that tokenizing and
// embedding overlap with the output's writes without a thread of their own.
// A pool thread that finishes a write goes on to help compute the next batch.
//
//   BatchPipeline<Slot> pipe([&](Slot& s) { write(s); });
//   while (more) {
//     Slot& s = pipe.next();   // waits until the writer has finished with it
//     fill(s);                 // s keeps its buffers from two batches ago
//     pipe.submit();
//   }
//   pipe.finish();             // waits for the last write; rethrows its error
//
// Slots are written in the order they were submitted, one at a time. An error
// in the writer (a full disk, a closed pipe) is rethrown by the next next()
// or finish(); an error while filling leaves the destructor to wait for a
// write in progress and to write nothing more.
#pragma once

#include <array>
#include <condition_variable>
#include <exception>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "embedpe/error.h"
#include "embedpe/sink.h"
#include "parallel.h"

namespace embedpe {

template <class Slot>
class BatchPipeline {
 public:
  // Throws embedpe::Error if the pool has no thread and none can start.
  explicit BatchPipeline(std::function<void(Slot&)> write) : write_(std::move(write)) {
    grow_pool(1);  // the writer's thread, started before any slot is filled
  }
  BatchPipeline(const BatchPipeline&) = delete;
  BatchPipeline& operator=(const BatchPipeline&) = delete;
  ~BatchPipeline() {
    std::unique_lock<std::mutex> lock(mutex_);
    stopping_ = true;
    changed_.wait(lock, [&] { return !writing_; });
  }

  Slot& next() {
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait(lock, [&] { return !full_[fill_] || error_; });
    if (error_) std::rethrow_exception(error_);
    return slots_[fill_];
  }

  void submit() {
    bool start = false;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      full_[fill_] = true;
      fill_ ^= 1;
      start = !writing_;
      writing_ = true;
    }
    if (!start) return;  // the running drain takes it
    try {
      post_to_pool([this] { drain(); });
    } catch (...) {
      std::lock_guard<std::mutex> lock(mutex_);
      writing_ = false;
      throw;
    }
  }

  void finish() {
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait(lock, [&] { return (!full_[0] && !full_[1] && !writing_) || error_; });
    if (error_) std::rethrow_exception(error_);
  }

 private:
  // Writes full slots in order until none is left; one drain runs at a time.
  void drain() {
    std::unique_lock<std::mutex> lock(mutex_);
    while (full_[drain_] && !stopping_ && !error_) {
      lock.unlock();
      try {
        write_(slots_[drain_]);
      } catch (...) {
        lock.lock();
        error_ = std::current_exception();
        break;
      }
      lock.lock();
      full_[drain_] = false;
      drain_ ^= 1;
      changed_.notify_all();
    }
    writing_ = false;
    changed_.notify_all();
  }

  std::function<void(Slot&)> write_;
  std::array<Slot, 2> slots_;
  std::array<bool, 2> full_{false, false};
  std::size_t fill_ = 0;
  std::size_t drain_ = 0;
  bool writing_ = false;  // a drain task is posted or running
  bool stopping_ = false;
  std::exception_ptr error_;
  std::mutex mutex_;
  std::condition_variable changed_;
};

// What a run's config says about pairs (encode and tokenize).
inline constexpr const char* kPairsConfig = "[CLS] A [SEP] B [SEP], token types 0 and 1";

// A document format with a size limit refuses `rows` rows of seq_len tokens of `token_bytes`
// each before any work, when they reach it (encoder.cpp).
void check_document_bytes(const SinkFormat& format, std::size_t rows, std::optional<std::size_t> seq_len,
                          long double token_bytes, const std::string& layer);

// A tokenizer's error about one text, the text named by its origin ("FILE:LINE") (encoder.cpp).
[[noreturn]] void throw_at_origin(const TextError& e, const std::vector<std::string>& origins);

// Out of memory while tokenizing `texts`: an Error blaming the longest line (encoder.cpp).
[[noreturn]] void out_of_memory_tokenizing(const std::vector<std::string>& texts, const std::vector<std::string>& origins,
                                           std::size_t max_line_bytes);

}  // namespace embedpe
