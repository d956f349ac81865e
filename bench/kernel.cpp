// Times the fused input-layer kernel (E[ids] × scale + PE) against a memcpy
// of the same output bytes, in one process. Prints one JSON object.
//
//   bench_kernel [batch seq_len d_model threads]      (default 64 512 512 1)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "embedpe/embedding.h"
#include "embedpe/input_layer.h"
#include "embedpe/positional_encoding.h"

namespace {

template <class F>
double best_seconds(int repeats, F&& f) {
  double best = 1e30;
  for (int r = 0; r < repeats; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    const auto t1 = std::chrono::steady_clock::now();
    best = std::min(best, std::chrono::duration<double>(t1 - t0).count());
  }
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  const std::size_t batch = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 64;
  const std::size_t seq = argc > 2 ? std::strtoul(argv[2], nullptr, 10) : 512;
  const std::size_t d = argc > 3 ? std::strtoul(argv[3], nullptr, 10) : 512;
  const std::size_t threads = argc > 4 ? std::strtoul(argv[4], nullptr, 10) : 1;
  const std::int64_t vocab = 8000;

  auto ids = xt::xtensor<std::int64_t, 2>::from_shape({batch, seq});
  for (std::size_t i = 0; i < ids.size(); ++i) ids.data()[i] = static_cast<std::int64_t>((i * 2654435761u) % vocab);
  // A dense table (what --weights gives) and the default generated one.
  xt::xtensor<float, 2> weights = xt::xtensor<float, 2>::from_shape({static_cast<std::size_t>(vocab), d});
  embedpe::RandomNormalTable random(vocab, d, 0);
  for (std::int64_t r = 0; r < vocab; ++r) random.row(r, weights.data() + static_cast<std::size_t>(r) * d);
  embedpe::DenseTable dense(weights);
  embedpe::SinusoidalEncoding pe({.d_model = d, .max_len = std::max<std::size_t>(seq, 5000)});

  const std::size_t bytes = batch * seq * d * sizeof(float);
  std::vector<float> src(batch * seq * d, 1.0f), dst(batch * seq * d);
  const double memcpy_s = best_seconds(5, [&] {
    std::memcpy(dst.data(), src.data(), bytes);
    asm volatile("" ::"r"(dst.data()) : "memory");
  });
  const embedpe::InputLayer dense_layer(dense, pe, {});
  const embedpe::InputLayer random_layer(random, pe, {});
  const double dense_s = best_seconds(5, [&] { dense_layer.forward(ids, {}, threads); });
  const double random_s = best_seconds(3, [&] { random_layer.forward(ids, {}, threads); });
  std::printf(
      "{\"batch\": %zu, \"seq_len\": %zu, \"d_model\": %zu, \"threads\": %zu, \"bytes\": %zu, "
      "\"memcpy_s\": %.6f, \"dense_s\": %.6f, \"random_s\": %.6f}\n",
      batch, seq, d, threads, bytes, memcpy_s, dense_s, random_s);
  return 0;
}
