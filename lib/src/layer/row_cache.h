// Rows of a (rows, width) float table computed on first use and kept, for
// tables whose rows cost far more to compute than to read (generated rows,
// projected rows). One anonymous mapping, reserved but not committed: pages
// are touched only for rows computed, so creating a cache costs the same
// for any vocabulary. The rows, then one state byte per row (empty, filling,
// ready), used through std::atomic_ref: safe to use from several threads.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <thread>

#include "mapped_block.h"

namespace embedpe {

class RowCache {
 public:
  // No cache (enabled() false) when rows × width floats exceed limit_bytes,
  // or the mapping fails. Caches up to huge_page_limit bytes are given huge
  // pages: one fault per 2 MiB instead of per 4 KiB, which is most of a
  // first pass on a VM whose faults are slow. A larger cache keeps 4 KiB
  // pages, so that rows used sparsely commit only their own pages.
  RowCache(std::size_t rows, std::size_t width, std::size_t limit_bytes, std::size_t huge_page_limit);
  RowCache(const RowCache&) = delete;
  RowCache& operator=(const RowCache&) = delete;
  ~RowCache() = default;

  bool enabled() const { return cache_ != nullptr; }

  // Row `row`, computed by fill(float* slot) on first use; nullptr without a
  // cache. Another thread asking for a row being filled waits for it.
  template <class Fill>
  const float* get(std::size_t row, Fill&& fill) const {
    if (!cache_) return nullptr;
    enum : std::uint8_t { kEmpty, kFilling, kReady };
    float* slot = cache_ + row * width_;
    std::atomic_ref<std::uint8_t> state(state_[row]);
    std::uint8_t s = state.load(std::memory_order_acquire);
    if (s == kReady) return slot;
    if (s == kEmpty && state.compare_exchange_strong(s, kFilling, std::memory_order_acquire)) {
      fill(slot);
      state.store(kReady, std::memory_order_release);
      return slot;
    }
    while (state.load(std::memory_order_acquire) != kReady) std::this_thread::yield();  // a few microseconds
    return slot;
  }

 private:
  std::size_t width_ = 0;
  MappedBlock block_;
  float* cache_ = nullptr;
  std::uint8_t* state_ = nullptr;
};

}  // namespace embedpe
