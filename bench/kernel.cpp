// Times the fused input-layer kernel (E[ids] × scale + PE) against a memcpy
// of the same output bytes, in one process. Prints one JSON object: best wall
// times, and for memcpy and the N(0,1) first pass also CPU times (all threads);
// for every pass, the minor page faults of its best run (fresh memory touched).
//
//   bench_kernel [batch seq_len d_model threads [only]]   (default 64 512 512 1)
//
// `only` = memcpy, dense or random times just that one, 40 times instead of
// 5, so that a perf recording (bench/profile.sh) is mostly the kernel.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <sys/resource.h>
#include <string>
#include <vector>

#include "embedpe/embedding.h"
#include "embedpe/input_layer.h"
#include "embedpe/positional_encoding.h"

namespace {

double cpu_seconds() {  // the process's CPU time, all threads
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

long minor_faults() {  // the process's minor page faults so far, all threads
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_minflt;
}

// The best wall time of `repeats` runs; `cpu`, if given, gets the best CPU
// time, the steadier figure when other processes share the cores; `faults`
// the minor page faults of the fastest run.
template <class F>
double best_seconds(int repeats, F&& f, double* cpu = nullptr, long* faults = nullptr) {
  double best = 1e30, best_cpu = 1e30;
  long best_faults = 0;
  for (int r = 0; r < repeats; ++r) {
    const double c0 = cpu_seconds();
    const long f0 = minor_faults();
    const auto t0 = std::chrono::steady_clock::now();
    f();
    const auto t1 = std::chrono::steady_clock::now();
    const long run_faults = minor_faults() - f0;
    best_cpu = std::min(best_cpu, cpu_seconds() - c0);
    const double seconds = std::chrono::duration<double>(t1 - t0).count();
    if (seconds < best) best = seconds, best_faults = run_faults;
  }
  if (cpu) *cpu = best_cpu;
  if (faults) *faults = best_faults;
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  const std::size_t batch = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 64;
  const std::size_t seq = argc > 2 ? std::strtoul(argv[2], nullptr, 10) : 512;
  const std::size_t d = argc > 3 ? std::strtoul(argv[3], nullptr, 10) : 512;
  const std::size_t threads = argc > 4 ? std::strtoul(argv[4], nullptr, 10) : 1;
  const std::string only = argc > 5 ? argv[5] : "";
  const std::int64_t vocab = 8000;

  auto ids = xt::xtensor<std::int64_t, 2>::from_shape({batch, seq});
  for (std::size_t i = 0; i < ids.size(); ++i) ids.data()[i] = static_cast<std::int64_t>((i * 2654435761u) % vocab);
  // A dense table (what --weights gives) and the default generated one.
  xt::xtensor<float, 2> weights = xt::xtensor<float, 2>::from_shape({static_cast<std::size_t>(vocab), d});
  if (only.empty() || only == "dense") {
    const embedpe::RandomNormalTable source(vocab, d, 1);
    for (std::int64_t r = 0; r < vocab; ++r) source.row(r, weights.data() + static_cast<std::size_t>(r) * d);
  }
  const embedpe::RandomNormalTable random(vocab, d, 0);
  embedpe::DenseTable dense(weights);
  embedpe::SinusoidalEncoding pe({.d_model = d, .max_len = std::max<std::size_t>(seq, 5000)});

  const std::size_t bytes = batch * seq * d * sizeof(float);
  std::vector<float> src(batch * seq * d, 1.0f), dst(batch * seq * d);
  auto wanted = [&](const char* name) { return only.empty() || only == name; };
  const int reps = only.empty() ? 5 : 40;
  double memcpy_cpu_s = 0, random_cold_cpu_s = 0;
  long memcpy_faults = 0, dense_faults = 0, random_cold_faults = 0, random_faults = 0;
  const double memcpy_s = !wanted("memcpy") ? 0 : best_seconds(reps, [&] {
    std::memcpy(dst.data(), src.data(), bytes);
    asm volatile("" ::"r"(dst.data()) : "memory");
  }, &memcpy_cpu_s, &memcpy_faults);
  const embedpe::InputLayer dense_layer(dense, pe, {});
  const embedpe::InputLayer random_layer(random, pe, {});
  // Output buffers are reused across calls, as when streaming batches.
  embedpe::InputLayerOutput out;
  const double dense_s = !wanted("dense") ? 0 : best_seconds(reps, [&] { dense_layer.forward_into(out, ids, {}, threads); }, nullptr, &dense_faults);
  // The generated table's first pass generates every distinct row; later
  // passes read the rows it kept.
  const double random_cold_s =
      !wanted("random") ? 0 : best_seconds(1, [&] { random_layer.forward_into(out, ids, {}, threads); }, &random_cold_cpu_s,
                                          &random_cold_faults);
  const double random_s = !wanted("random") ? 0 : best_seconds(reps, [&] { random_layer.forward_into(out, ids, {}, threads); }, nullptr, &random_faults);
  std::printf(
      "{\"batch\": %zu, \"seq_len\": %zu, \"d_model\": %zu, \"threads\": %zu, \"bytes\": %zu, "
      "\"memcpy_s\": %.6f, \"dense_s\": %.6f, \"random_cold_s\": %.6f, \"random_s\": %.6f, "
      "\"memcpy_cpu_s\": %.6f, \"random_cold_cpu_s\": %.6f, \"memcpy_minflt\": %ld, \"dense_minflt\": %ld, "
      "\"random_cold_minflt\": %ld, \"random_minflt\": %ld}\n",
      batch, seq, d, threads, bytes, memcpy_s, dense_s, random_cold_s, random_s, memcpy_cpu_s, random_cold_cpu_s,
      memcpy_faults, dense_faults, random_cold_faults, random_faults);
  return 0;
}
