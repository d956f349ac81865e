#include <doctest/doctest.h>

#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "embedpe/error.h"
#include "ggml_types.h"
#include "test_support.h"

using namespace embedpe;
using embedpe::ggml::Type;

namespace {

// A 2-D .npy golden (tests/golden/gguf/, tools/make_gguf_goldens.py): shape and raw bytes.
struct Array {
  std::size_t rows = 0, row_bytes = 0;
  std::string bytes;
  const unsigned char* row(std::size_t r) const {
    return reinterpret_cast<const unsigned char*>(bytes.data()) + r * row_bytes;
  }
};

Array load(const std::string& name, const std::string& descr) {
  const std::string path = test::golden("gguf/" + name);
  const std::string file = test::read_file(path);
  const NpyHeader h = parse_npy_header(file, path);
  REQUIRE_MESSAGE(h.descr == descr, path);
  REQUIRE(h.shape.size() == 2);
  const std::size_t item = descr == "|u1" ? 1 : 4;
  Array a{h.shape[0], h.shape[1] * item, file.substr(h.data_offset)};
  REQUIRE(a.bytes.size() == a.rows * a.row_bytes);
  return a;
}

// Where two float rows first differ bit for bit (NaN payloads and -0 included), or -1.
long first_difference(const float* got, const unsigned char* want, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) {
    if (std::memcmp(got + i, want + 4 * i, 4) != 0) return static_cast<long>(i);
  }
  return -1;
}

long first_byte_difference(const std::vector<unsigned char>& got, const unsigned char* want) {
  for (std::size_t i = 0; i < got.size(); ++i) {
    if (got[i] != want[i]) return static_cast<long>(i);
  }
  return -1;
}

const char* const kGoldenTypes[] = {"f32",  "f16",  "bf16", "q8_0", "q4_0", "q4_1", "q5_0",
                                    "q5_1", "q2_K", "q3_K", "q4_K", "q5_K", "q6_K"};

}  // namespace

TEST_CASE("quantize_row_ref and dequantize_row equal ggml's, bit for bit, on every golden row") {
  const nlohmann::json manifest = test::read_json(test::golden("gguf/manifest.json"));
  REQUIRE(manifest["types"].size() == std::size(kGoldenTypes));
  const Array inputs = load("inputs.npy", "<f4");
  const std::size_t n = inputs.row_bytes / 4;
  REQUIRE(n == manifest["row_length"].get<std::size_t>());
  REQUIRE(inputs.rows == manifest["rows"].size());
  std::size_t rows_checked = 0, random_rows_checked = 0;
  for (const char* name : kGoldenTypes) {
    const std::string type_name = name;
    CAPTURE(type_name);
    const ggml::TypeInfo* t = ggml::type_by_name(name);
    REQUIRE(t != nullptr);
    CHECK(std::string(t->name) == name);
    CHECK(t->quantizable);
    CHECK(t->dequantizable);
    const Array blocks = load(std::string(name) + ".blocks.npy", "|u1");
    const Array dequantized = load(std::string(name) + ".dequantized.npy", "<f4");
    REQUIRE(blocks.rows == inputs.rows);
    REQUIRE(blocks.row_bytes == ggml::row_bytes(t->type, n));
    std::vector<unsigned char> q(blocks.row_bytes);  // (row_bytes,)
    std::vector<float> in(n), out(n);                // (n,)
    for (std::size_t r = 0; r < inputs.rows; ++r) {
      CAPTURE(r);
      CAPTURE(manifest["rows"][r].get<std::string>());
      std::memcpy(in.data(), inputs.row(r), 4 * n);
      ggml::quantize_row_ref(t->type, in.data(), q.data(), n);
      CHECK(first_byte_difference(q, blocks.row(r)) == -1);
      // From ggml's blocks, so that a quantizer difference does not hide a dequantizer's.
      ggml::dequantize_row(t->type, blocks.row(r), out.data(), n);
      CHECK(first_difference(out.data(), dequantized.row(r), n) == -1);
      ++rows_checked;
    }
    // Arbitrary bytes: every bit pattern a file may hold, NaN and infinite scales included.
    const Array random_blocks = load(std::string(name) + ".random_blocks.npy", "|u1");
    const Array random_dequantized = load(std::string(name) + ".random_dequantized.npy", "<f4");
    const std::size_t rn = random_dequantized.row_bytes / 4;
    REQUIRE(random_blocks.row_bytes == ggml::row_bytes(t->type, rn));
    std::vector<float> rout(rn);  // (rn,)
    for (std::size_t r = 0; r < random_blocks.rows; ++r) {
      CAPTURE(r);
      ggml::dequantize_row(t->type, random_blocks.row(r), rout.data(), rn);
      CHECK(first_difference(rout.data(), random_dequantized.row(r), rn) == -1);
      ++random_rows_checked;
    }
  }
  CHECK(rows_checked == 13 * inputs.rows);
  MESSAGE(rows_checked << " golden rows quantized and dequantized, " << random_rows_checked
                       << " random block rows dequantized");
}

TEST_CASE("ggml's type numbers, names and block sizes") {
  CHECK(ggml::type_info(0)->type == Type::F32);
  CHECK(ggml::type_info(4) == nullptr);  // Q4_2, retired
  CHECK(ggml::type_info(31) == nullptr);
  CHECK(ggml::type_info(43) == nullptr);
  CHECK(ggml::type_info(std::numeric_limits<std::uint32_t>::max()) == nullptr);
  CHECK(std::string(ggml::type_info(16)->name) == "iq2_xxs");
  CHECK(std::string(ggml::type_info(30)->name) == "bf16");
  const ggml::TypeInfo& q4k = ggml::type_info(Type::Q4_K);
  CHECK(std::string(q4k.name) == "q4_K");
  CHECK(q4k.block_elems == 256);
  CHECK(q4k.block_bytes == 144);  // 4.5 bits per weight
  CHECK(ggml::type_info(Type::Q6_K).block_bytes == 210);
  CHECK(ggml::type_info(Type::Q8_0).block_bytes == 34);
  CHECK(ggml::type_by_name("Q4_K") == &q4k);
  CHECK(ggml::type_by_name("q4_k") == &q4k);
  CHECK(ggml::type_by_name("F16")->type == Type::F16);
  CHECK(ggml::type_by_name("q4") == nullptr);
  CHECK(ggml::type_by_name("q4_k ") == nullptr);
  CHECK(ggml::type_by_name("") == nullptr);
}

TEST_CASE("row_bytes: whole blocks only, and no size that overflows") {
  CHECK(ggml::row_bytes(Type::Q4_0, 64) == 36);
  CHECK(ggml::row_bytes(Type::Q6_K, 512) == 420);
  CHECK(ggml::row_bytes(Type::F16, 3) == 6);
  CHECK(ggml::row_bytes(Type::Q4_0, 0) == 0);
  CHECK_THROWS_WITH_AS(ggml::row_bytes(Type::Q4_K, 300),
                       "a row of 300 elements cannot be stored as q4_K, whose blocks hold 256 elements each",
                       UsageError);
  CHECK_THROWS_AS(ggml::row_bytes(Type::Q8_0, 33), UsageError);
  CHECK_THROWS_WITH_AS(ggml::row_bytes(Type::F32, std::uint64_t(1) << 62), doctest::Contains("too large"),
                       UsageError);
  CHECK_THROWS_AS(ggml::row_bytes(Type::Q8_0, std::numeric_limits<std::uint64_t>::max() / 32 * 32), UsageError);
  std::vector<float> row(300);
  std::vector<unsigned char> out(1024);
  CHECK_THROWS_AS(ggml::quantize_row_ref(Type::Q4_K, row.data(), out.data(), 300), UsageError);
  CHECK_THROWS_AS(ggml::dequantize_row(Type::Q4_K, out.data(), row.data(), 300), UsageError);
}

TEST_CASE("types without a port are refused by name") {
  std::vector<float> row(256);
  std::vector<unsigned char> blocks(1024);
  CHECK_THROWS_WITH_AS(ggml::dequantize_row(Type::IQ2_XXS, blocks.data(), row.data(), 256),
                       "tensor type iq2_xxs is not supported; supported: f32, f16, q4_0, q4_1, q5_0, q5_1, q8_0, "
                       "q2_K, q3_K, q4_K, q5_K, q6_K, bf16",
                       UsageError);
  CHECK_THROWS_WITH_AS(ggml::dequantize_row(Type::Q8_K, blocks.data(), row.data(), 256),
                       doctest::Contains("tensor type q8_K is not supported"), UsageError);
  CHECK_THROWS_WITH_AS(ggml::quantize_row_ref(Type::MXFP4, row.data(), blocks.data(), 256),
                       doctest::Contains("quantizing to tensor type mxfp4 is not supported; supported: f32, f16"),
                       UsageError);
  CHECK_THROWS_AS(ggml::quantize_row_ref(Type::I8, row.data(), blocks.data(), 256), UsageError);
}
