#include "parallel.h"

#include <pthread.h>
#include <sched.h>
#include <signal.h>

#include <algorithm>
#include <cstring>
#include <exception>
#include <thread>
#include <vector>

#include "embedpe/error.h"

namespace embedpe {

void parallel_for(std::size_t n, std::size_t threads, const std::function<void(std::size_t, std::size_t)>& fn) {
  const std::size_t chunks = std::max<std::size_t>(1, std::min(threads, n));
  if (chunks == 1) {
    if (n > 0) fn(0, n);
    return;
  }
  std::vector<std::exception_ptr> errors(chunks);
  auto run = [&](std::size_t c) {
    try {
      fn(n * c / chunks, n * (c + 1) / chunks);
    } catch (...) {
      errors[c] = std::current_exception();
    }
  };
  std::vector<std::thread> pool;
  pool.reserve(chunks - 1);
  // A std::thread destroyed while joinable calls std::terminate: if one
  // cannot start, join those that did before reporting it.
  try {
    for (std::size_t c = 1; c < chunks; ++c) pool.push_back(start_thread(run, c));
  } catch (...) {
    for (auto& t : pool) t.join();
    throw;
  }
  run(0);
  for (auto& t : pool) t.join();
  for (auto& e : errors) {
    if (e) std::rethrow_exception(e);
  }
}

static_assert(sizeof(sigset_t) <= 128, "TerminationSignalsBlocked keeps a sigset_t");

TerminationSignalsBlocked::TerminationSignalsBlocked() {
  sigset_t block;
  sigemptyset(&block);
  sigaddset(&block, SIGINT);
  sigaddset(&block, SIGTERM);
  sigaddset(&block, SIGHUP);
  pthread_sigmask(SIG_BLOCK, &block, reinterpret_cast<sigset_t*>(previous_));
}

TerminationSignalsBlocked::~TerminationSignalsBlocked() {
  pthread_sigmask(SIG_SETMASK, reinterpret_cast<const sigset_t*>(previous_), nullptr);
}

void throw_thread_error(const std::system_error& e) {
  throw Error(std::string("cannot start a thread: ") + std::strerror(e.code().value()) + "; lower threads",
              {"threads"});
}

std::size_t available_cores() {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0) {
    const int n = CPU_COUNT(&set);
    if (n > 0) return static_cast<std::size_t>(n);
  }
  return std::max(1u, std::thread::hardware_concurrency());
}

}  // namespace embedpe
