// Times the two checksums a run's records use, on the same 64 MiB buffer in
// one process: SHA-256 (Nettle, what parts and inputs are identified by)
// and CRC-32 (zlib, what a file shard's record holds), against a memcpy of
// the same bytes. Prints one JSON object of best CPU times (the steadier
// figure when other processes share the cores) and throughputs.
//
//   bench_checksum [MiB]   (default 64)
#include <zlib.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <vector>

#include "sha256.h"

namespace {

double cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

template <class F>
double best_cpu_seconds(F&& f) {
  double best = 1e30;
  for (int r = 0; r < 7; ++r) {
    const double c0 = cpu_seconds();
    f();
    best = std::min(best, cpu_seconds() - c0);
  }
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  const std::size_t mib = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 64;
  std::vector<char> data(mib << 20), copy(mib << 20);
  for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<char>(i * 131 + (i >> 9));
  std::memcpy(copy.data(), data.data(), data.size());  // both buffers paged in before timing
  volatile unsigned long sink = 0;
  const double sha = best_cpu_seconds([&] { sink = sink + embedpe::sha256_hex({data.data(), data.size()}).size(); });
  const double crc = best_cpu_seconds([&] {
    sink = sink + ::crc32_z(::crc32(0L, Z_NULL, 0), reinterpret_cast<const Bytef*>(data.data()), data.size());
  });
  const double mem = best_cpu_seconds([&] {
    std::memcpy(copy.data(), data.data(), data.size());
    sink = sink + static_cast<unsigned char>(copy[data.size() / 2]);
  });
  const double gb = static_cast<double>(data.size()) / 1e9;
  std::printf("{\"bytes\": %zu, \"sha256_s\": %.6f, \"crc32_s\": %.6f, \"memcpy_s\": %.6f, "
              "\"sha256_gb_s\": %.3f, \"crc32_gb_s\": %.3f, \"memcpy_gb_s\": %.3f}\n",
              data.size(), sha, crc, mem, gb / sha, gb / crc, gb / mem);
}
