// Computing batch n+1 while batch n is written: two slots and one writer
// thread, so that tokenizing and embedding overlap with the output's writes.
//
//   BatchPipeline<Slot> pipe([&](Slot& s) { write(s); });
//   while (more) {
//     Slot& s = pipe.next();   // waits until the writer has finished with it
//     fill(s);                 // s keeps its buffers from two batches ago
//     pipe.submit();
//   }
//   pipe.finish();             // waits for the last write; rethrows its error
//
// Slots are written in the order they were submitted. An error in the writer
// (a full disk, a closed pipe) is rethrown by the next next() or finish();
// an error while filling leaves the destructor to stop the writer.
#pragma once

#include <array>
#include <condition_variable>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>

#include "parallel.h"

namespace embedpe {

template <class Slot>
class BatchPipeline {
 public:
  // Throws embedpe::Error if the writer thread cannot start.
  explicit BatchPipeline(std::function<void(Slot&)> write)
      : write_(std::move(write)), writer_(start_thread([this] { run(); })) {}
  BatchPipeline(const BatchPipeline&) = delete;
  BatchPipeline& operator=(const BatchPipeline&) = delete;
  ~BatchPipeline() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
    }
    changed_.notify_all();
    writer_.join();
  }

  Slot& next() {
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait(lock, [&] { return !full_[fill_] || error_; });
    if (error_) std::rethrow_exception(error_);
    return slots_[fill_];
  }

  void submit() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      full_[fill_] = true;
      fill_ ^= 1;
    }
    changed_.notify_all();
  }

  void finish() {
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait(lock, [&] { return (!full_[0] && !full_[1]) || error_; });
    if (error_) std::rethrow_exception(error_);
  }

 private:
  void run() {
    std::size_t drain = 0;
    for (;;) {
      std::unique_lock<std::mutex> lock(mutex_);
      changed_.wait(lock, [&] { return full_[drain] || stopping_; });
      if (stopping_) return;  // finish() was not reached: the run failed, write nothing more
      lock.unlock();
      try {
        write_(slots_[drain]);
      } catch (...) {
        lock.lock();
        error_ = std::current_exception();
        changed_.notify_all();
        return;
      }
      lock.lock();
      full_[drain] = false;
      drain ^= 1;
      changed_.notify_all();
    }
  }

  std::function<void(Slot&)> write_;
  std::array<Slot, 2> slots_;
  std::array<bool, 2> full_{false, false};
  std::size_t fill_ = 0;
  bool stopping_ = false;
  std::exception_ptr error_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::thread writer_;  // last: starts once everything above exists
};

}  // namespace embedpe
