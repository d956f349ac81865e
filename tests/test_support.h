// Helpers shared by the unit tests: where the goldens are, reading files.
#pragma once

#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "source_tree.h"

#include "embedpe/tensor_io.h"
#include "embedpe/weights.h"

namespace test {

// Appended in place, not with operator+ on a temporary: GCC 12 at -O3 warns
// falsely (-Warray-bounds, GCC PR 105329) on string + literal for some
// lengths of the source path, so a clone in another folder could fail to build.
inline std::string source_path(const std::string& relative) {
  std::string path = source_dir();
  path += '/';
  path += relative;
  return path;
}
inline std::string golden(const std::string& name) { return source_path("tests/golden/" + name); }

inline std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("test fixture missing: " + path);
  std::ostringstream buf;
  buf << in.rdbuf();
  return buf.str();
}

inline nlohmann::json read_json(const std::string& path) { return nlohmann::json::parse(read_file(path)); }

// A float64 .npy (written by NumPy) as shape + values.
struct F64Array {
  std::vector<std::size_t> shape;
  std::vector<double> values;
};

inline F64Array load_f64(const std::string& path) {
  const std::string file = read_file(path);
  embedpe::NpyHeader h = embedpe::parse_npy_header(file, path);
  if (h.descr != "<f8") throw std::runtime_error(path + " is not float64");
  F64Array a{h.shape, {}};
  a.values.resize((file.size() - h.data_offset) / 8);
  std::memcpy(a.values.data(), file.data() + h.data_offset, a.values.size() * 8);
  return a;
}

// A fresh directory for one test, under the build tree's temporary
// directory; CTest runs test files in parallel, so each test uses its own.
inline std::string temp_dir(const std::string& name) {
  const std::string dir = std::string(scratch_dir()) + "/" + name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

// A path in the build tree's temporary directory, unique per process.
inline std::string temp_path(const std::string& name) {
  static const std::string dir = temp_dir("unit-" + std::to_string(::getpid()));
  return dir + "/" + name;
}

// A (rows, cols) float table read through the library's weight reader.
inline xt::xtensor<float, 2> load_matrix(const std::string& path) {
  auto file = embedpe::WeightFile::open(path);
  const auto& t = file->tensors().front();
  if (t.shape.size() != 2) throw std::runtime_error(path + " is not 2-D");
  auto m = xt::xtensor<float, 2>::from_shape({t.shape[0], t.shape[1]});
  embedpe::read_floats(*file, t, 0, m.size(), m.data());
  return m;
}

}  // namespace test
