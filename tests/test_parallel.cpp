#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "batch_pipeline.h"
#include "parallel.h"

namespace {

// Counts how often each index of [0, n) is visited.
std::vector<int> visits(std::size_t n, std::size_t threads) {
  std::vector<std::atomic<int>> seen(n);
  embedpe::parallel_for(n, threads, [&](std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) seen[i].fetch_add(1);
  });
  std::vector<int> out(n);
  for (std::size_t i = 0; i < n; ++i) out[i] = seen[i].load();
  return out;
}

}  // namespace

TEST_CASE("parallel_for visits every index once, for any size and thread count") {
  for (std::size_t threads : {1, 2, 3, 8, 64}) {
    for (std::size_t n : {0, 1, 2, 7, 100, 4097}) {
      CAPTURE(threads);
      CAPTURE(n);
      CHECK(visits(n, threads) == std::vector<int>(n, 1));
    }
  }
}

TEST_CASE("parallel_for runs every chunk and rethrows the earliest chunk's error") {
  std::atomic<std::size_t> ran{0};
  try {
    embedpe::parallel_for(1000, 4, [&](std::size_t begin, std::size_t end) {
      ran += end - begin;
      if (begin >= 500) throw std::runtime_error("late " + std::to_string(begin));
      if (begin >= 100) throw std::runtime_error("early " + std::to_string(begin));
    });
    FAIL("no exception");
  } catch (const std::runtime_error& e) {
    const std::string what = e.what();
    CHECK(what.rfind("early ", 0) == 0);
    // The earliest failing chunk is the first to begin at or after 100.
    std::size_t first = std::stoul(what.substr(6));
    CHECK(first >= 100);
    CHECK(first < 1000 / 16 + 100);  // within a chunk (at least 16 chunks) of 100
  }
  CHECK(ran.load() == 1000);
}

TEST_CASE("parallel_for nested in a pool thread and from two threads at once completes") {
  std::vector<std::vector<int>> results(2);
  std::thread other([&] { results[1] = visits(5000, 3); });
  std::atomic<std::size_t> inner{0};
  embedpe::parallel_for(8, 4, [&](std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) {
      embedpe::parallel_for(100, 4, [&](std::size_t b, std::size_t e) { inner += e - b; });
    }
  });
  results[0] = visits(5000, 2);
  other.join();
  CHECK(inner.load() == 800);
  CHECK(results[0] == std::vector<int>(5000, 1));
  CHECK(results[1] == std::vector<int>(5000, 1));
}

TEST_CASE("BatchPipeline writes slots in order, and computing goes on while a write is held up") {
  std::mutex m;
  std::condition_variable cv;
  bool release = false;
  std::vector<int> written;
  {
    embedpe::BatchPipeline<int> pipe([&](int& v) {
      if (v == 0) {
        std::unique_lock<std::mutex> lock(m);
        cv.wait(lock, [&] { return release; });  // the pool thread writing is busy
      }
      written.push_back(v);
    });
    pipe.next() = 0;
    pipe.submit();
    // Every pool thread may be the one held up by the write: the caller
    // computes alone rather than wait for it.
    CHECK(visits(10000, 2) == std::vector<int>(10000, 1));
    CHECK(visits(10000, 8) == std::vector<int>(10000, 1));
    {
      std::lock_guard<std::mutex> lock(m);
      release = true;
    }
    cv.notify_all();
    for (int v = 1; v < 50; ++v) {
      pipe.next() = v;
      pipe.submit();
    }
    pipe.finish();
  }
  std::vector<int> expected(50);
  for (int v = 0; v < 50; ++v) expected[v] = v;
  CHECK(written == expected);
}

TEST_CASE("BatchPipeline rethrows a write error and writes nothing after it") {
  std::vector<int> written;
  embedpe::BatchPipeline<int> pipe([&](int& v) {
    if (v == 3) throw std::runtime_error("disk full");
    written.push_back(v);
  });
  bool thrown = false;
  try {
    for (int v = 0; v < 20; ++v) {
      pipe.next() = v;
      pipe.submit();
    }
    pipe.finish();
  } catch (const std::runtime_error& e) {
    thrown = std::string(e.what()) == "disk full";
  }
  CHECK(thrown);
  CHECK(written == std::vector<int>{0, 1, 2});
}

TEST_CASE("BatchPipeline destroyed after a failed fill waits for the write in progress") {
  // The write is under way (it has begun and sleeps) when the fill fails;
  // the destructor must block until it ends, and must not write the slot
  // that was queued behind it. Were it not to wait, `finished` would still
  // be false when it returns.
  std::atomic<int> writes{0};
  std::atomic<bool> started{false};
  std::atomic<bool> finished{false};
  try {
    embedpe::BatchPipeline<int> pipe([&](int&) {
      started = true;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      ++writes;
      finished = true;
    });
    pipe.next() = 1;
    pipe.submit();
    pipe.next() = 2;  // the other slot is free: queued behind the write
    pipe.submit();
    while (!started) std::this_thread::yield();
    throw std::runtime_error("fill failed");
  } catch (const std::runtime_error&) {
  }
  CHECK(finished.load());      // the destructor returned only once the write had ended
  CHECK(writes.load() == 1);   // and the queued slot was not written
}
