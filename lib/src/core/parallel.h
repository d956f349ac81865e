// Splitting independent work over threads, on one pool shared by the process.
//
//   embedpe::parallel_for(rows, threads, [&](std::size_t begin, std::size_t end) {
//     for (std::size_t r = begin; r < end; ++r) work(r);
//   });
//
// [0, n) is cut into contiguous chunks, a few per thread, that the caller
// and up to `threads - 1` pool threads claim one at a time: a pool thread
// that is busy elsewhere (writing the previous batch, see batch_pipeline.h)
// leaves its share to the others instead of holding them up. Results must
// not depend on the split: every caller here writes disjoint rows, so outputs
// are identical for any thread count. Every chunk runs even if one throws,
// and the exception of the earliest chunk is rethrown, so errors are reported
// the same way too. If a pool thread cannot start, an embedpe::Error is thrown.
#pragma once

#include <cstddef>
#include <functional>
#include <system_error>
#include <thread>
#include <utility>

namespace embedpe {

void parallel_for(std::size_t n, std::size_t threads, const std::function<void(std::size_t, std::size_t)>& fn);

// Runs `task` on a pool thread, after the tasks posted before it. The pool
// grows to at least `workers` threads first (throws embedpe::Error if one
// cannot start). A task must not throw: it reports its errors itself.
void post_to_pool(std::function<void()> task, std::size_t workers = 1);

// Grows the pool to at least `workers` threads now (throws embedpe::Error if
// one cannot start), so that a later post_to_pool cannot fail for want of one.
void grow_pool(std::size_t workers);

// For work whose thread count nobody chose (a default, or a command with
// no threads parameter): `wanted`, or as many as can run when the pool
// cannot grow that far (a process or memory limit), at least 1, the caller.
// Such work is then slower, never refused: parallel_for's results do not
// depend on the thread count.
std::size_t usable_threads(std::size_t wanted);

// The embedpe::Error for a thread that could not start (out of memory for
// its stack, a process limit): "cannot start a thread: <reason>; lower --threads".
[[noreturn]] void throw_thread_error(const std::system_error& e);

// Blocks SIGINT, SIGTERM and SIGHUP in the calling thread for its lifetime,
// then restores the previous mask. Threads started meanwhile inherit the
// block, so those signals are handled on the main thread only, which holds
// them back while it creates and registers a temporary output.
class TerminationSignalsBlocked {
 public:
  TerminationSignalsBlocked();
  ~TerminationSignalsBlocked();
  TerminationSignalsBlocked(const TerminationSignalsBlocked&) = delete;
  TerminationSignalsBlocked& operator=(const TerminationSignalsBlocked&) = delete;

 private:
  alignas(8) unsigned char previous_[128];  // a sigset_t
};

// std::thread(fn, args...), started with the termination signals blocked;
// a thread that cannot start is an embedpe::Error instead of a
// std::system_error.
template <class Fn, class... Args>
std::thread start_thread(Fn&& fn, Args&&... args) {
  const TerminationSignalsBlocked held;
  try {
    return std::thread(std::forward<Fn>(fn), std::forward<Args>(args)...);
  } catch (const std::system_error& e) {
    throw_thread_error(e);
  }
}

// The cores this process may run on.
std::size_t available_cores();

}  // namespace embedpe
