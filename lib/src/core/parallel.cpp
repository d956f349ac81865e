#include "parallel.h"

#include "embedpe/threads.h"

#include <pthread.h>
#include <sched.h>
#include <signal.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <cstring>
#include <exception>
#include <thread>
#include <vector>

#include "embedpe/error.h"

namespace embedpe {

namespace {

// Threads started on first use and kept until the process exits; tasks run
// in the order they were posted.
class Pool {
 public:
  static Pool& shared() {
    static Pool pool;
    return pool;
  }
  Pool(const Pool&) = delete;
  Pool& operator=(const Pool&) = delete;
  ~Pool() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
    }
    changed_.notify_all();
    for (auto& t : threads_) t.join();
  }

  // Starts threads until there are `workers`; throws embedpe::Error if one
  // cannot start (those that did stay).
  void grow(std::size_t workers) {
    std::lock_guard<std::mutex> lock(mutex_);
    while (threads_.size() < workers) threads_.push_back(start_thread([this] { run(); }));
  }

  // Grows toward `workers` threads, stopping at the first that cannot
  // start; returns how many there are.
  std::size_t grow_as_far_as(std::size_t workers) {
    std::lock_guard<std::mutex> lock(mutex_);
    try {
      while (threads_.size() < workers) threads_.push_back(start_thread([this] { run(); }));
    } catch (const Error&) {
    }
    return threads_.size();
  }

  void post(std::function<void()> task) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      tasks_.push_back(std::move(task));
    }
    changed_.notify_one();
  }

 private:
  Pool() = default;

  void run() {
    for (;;) {
      std::unique_lock<std::mutex> lock(mutex_);
      changed_.wait(lock, [&] { return !tasks_.empty() || stopping_; });
      if (tasks_.empty()) return;  // stopping, and nothing left
      std::function<void()> task = std::move(tasks_.front());
      tasks_.pop_front();
      lock.unlock();
      task();
    }
  }

  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<std::function<void()>> tasks_;
  std::vector<std::thread> threads_;
  bool stopping_ = false;
};

// One parallel_for's chunks, claimed by whoever comes first: the caller or a
// pool thread. Shared, because a pool thread may look at it after the caller
// has returned (it then finds nothing left to claim).
struct Job {
  std::size_t n = 0;
  std::size_t chunks = 0;
  const std::function<void(std::size_t, std::size_t)>* fn = nullptr;
  std::atomic<std::size_t> next{0};
  std::vector<std::exception_ptr> errors;
  std::mutex mutex;
  std::condition_variable all_done;
  std::size_t done = 0;

  // Runs chunks until none is left to claim.
  void work() {
    for (;;) {
      const std::size_t c = next.fetch_add(1);
      if (c >= chunks) return;
      try {
        (*fn)(n * c / chunks, n * (c + 1) / chunks);
      } catch (...) {
        errors[c] = std::current_exception();
      }
      std::lock_guard<std::mutex> lock(mutex);
      if (++done == chunks) all_done.notify_all();
    }
  }
};

// Chunks per thread: enough that a thread held up elsewhere delays little.
constexpr std::size_t kChunksPerThread = 4;

}  // namespace

void grow_pool(std::size_t workers) { Pool::shared().grow(workers); }

std::size_t usable_threads(std::size_t wanted) {
  if (wanted <= 1) return 1;
  return 1 + std::min(wanted - 1, Pool::shared().grow_as_far_as(wanted - 1));
}

void post_to_pool(std::function<void()> task, std::size_t workers) {
  grow_pool(std::max<std::size_t>(workers, 1));
  Pool::shared().post(std::move(task));
}

void parallel_for(std::size_t n, std::size_t threads, const std::function<void(std::size_t, std::size_t)>& fn) {
  if (threads <= 1 || n <= 1) {
    if (n > 0) fn(0, n);
    return;
  }
  auto job = std::make_shared<Job>();
  job->n = n;
  job->chunks = std::min(n, threads * kChunksPerThread);
  job->fn = &fn;
  job->errors.resize(job->chunks);
  const std::size_t helpers = std::min(threads, job->chunks) - 1;
  Pool::shared().grow(helpers);  // before any chunk can run elsewhere
  std::exception_ptr posting;
  try {
    for (std::size_t h = 0; h < helpers; ++h) Pool::shared().post([job] { job->work(); });
  } catch (...) {
    posting = std::current_exception();  // out of memory: fn must outlive the chunks posted so far
  }
  job->work();
  std::vector<std::exception_ptr> errors;
  {
    std::unique_lock<std::mutex> lock(job->mutex);
    job->all_done.wait(lock, [&] { return job->done == job->chunks; });
    // The chunks' exceptions become this thread's alone: a pool thread may
    // still hold the job (its task not yet destroyed), and must not be the
    // one that frees an exception this thread is reading (ThreadSanitizer
    // saw that race: exception_ptr's count lives in uninstrumented libstdc++).
    errors = std::move(job->errors);
  }
  if (posting) std::rethrow_exception(posting);
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

std::size_t default_threads() { return usable_threads(available_cores()); }

}  // namespace embedpe
