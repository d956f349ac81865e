#include <doctest/doctest.h>

#include <cmath>
#include <cstring>

#include "embedpe/dtype.h"
#include "embedpe/error.h"
#include "half.h"

using namespace embedpe;

TEST_CASE("the dtype table is indexed by the enum and spells each format's names") {
  for (const DTypeInfo& d : kDTypes) CHECK(&dtype_info(d.dtype) == &d);
  CHECK(std::string(dtype_name(DType::bfloat16)) == "bfloat16");
  CHECK(dtype_size(DType::float16) == 2);
  CHECK(dtype_size(DType::int64) == 8);
  CHECK(dtype_info(DType::bfloat16).numpy_descr == nullptr);  // NumPy has no bfloat16
  CHECK(std::string(dtype_info(DType::float32).numpy_descr) == "<f4");
  CHECK(std::string(dtype_info(DType::int8).safetensors) == "I8");
  CHECK(dtype_from_safetensors("BF16") == DType::bfloat16);
  CHECK(dtype_from_safetensors("F8_E4M3") == std::nullopt);
  CHECK(dtype_from_numpy("<f8") == DType::float64);
  CHECK(dtype_from_numpy(">f4") == std::nullopt);
  static_assert(dtype_size(DType::float64) == 8, "the table is usable at compile time");
}

TEST_CASE("diff's dtypes are answered only when asked for") {
  CHECK(dtype_from_numpy("<i4") == std::nullopt);  // never a weight, an output or a shard's
  CHECK(dtype_from_safetensors("BOOL") == std::nullopt);
  CHECK(dtype_from_numpy("<i4", DTypes::all) == DType::int32);
  CHECK(dtype_from_numpy("<i2", DTypes::all) == DType::int16);
  CHECK(dtype_from_numpy("|u1", DTypes::all) == DType::uint8);
  CHECK(dtype_from_safetensors("BOOL", DTypes::all) == DType::boolean);
  CHECK(dtype_from_name("bfloat16") == DType::bfloat16);
  CHECK(dtype_from_name("bool") == std::nullopt);
  CHECK(dtype_from_name("bool", DTypes::all) == DType::boolean);
  CHECK(dtype_from_name("wibble", DTypes::all) == std::nullopt);
  for (const DTypeInfo& d : kDTypes) {
    CHECK(dtype_from_name(d.name, DTypes::all) == d.dtype);
    CHECK(dtype_from_safetensors(d.safetensors, DTypes::all) == d.dtype);
  }
}

TEST_CASE("convert: float32 to the output dtypes") {
  const float v[] = {1.0f, -0.1f, 3.14159f, 0.0f};
  const TensorRef f32{"x", DType::float32, {2, 2}, v};
  TensorBuffer keep;
  SUBCASE("float32 is the tensor itself") {
    const TensorRef r = convert(f32, DType::float32, keep);
    CHECK(r.data == v);
    CHECK(keep.bytes.empty());
  }
  SUBCASE("float16 rounds to nearest even") {
    const TensorRef r = convert(f32, DType::float16, keep);
    CHECK(r.dtype == DType::float16);
    CHECK(r.shape == f32.shape);
    CHECK(r.bytes() == 8);
    for (std::size_t i = 0; i < 4; ++i) {
      std::uint16_t h;
      std::memcpy(&h, keep.bytes.data() + 2 * i, 2);
      CHECK(h == float_to_half(v[i]));
    }
  }
  SUBCASE("bfloat16 rounds to nearest even") {
    const TensorRef r = convert(f32, DType::bfloat16, keep);
    CHECK(r.dtype == DType::bfloat16);
    for (std::size_t i = 0; i < 4; ++i) {
      std::uint16_t b;
      std::memcpy(&b, keep.bytes.data() + 2 * i, 2);
      CHECK(b == float_to_bfloat16(v[i]));
    }
  }
  SUBCASE("float64 is exact") {
    convert(f32, DType::float64, keep);
    double d;
    std::memcpy(&d, keep.bytes.data() + 8, 8);
    CHECK(d == static_cast<double>(v[1]));
  }
}

TEST_CASE("convert: a value beyond float16's range is refused, naming the dtype parameter") {
  const float v[] = {1.0f, 70000.0f};
  TensorBuffer keep;
  try {
    convert({"output", DType::float32, {2}, v}, DType::float16, keep);
    FAIL("no error");
  } catch (const UsageError& e) {
    CHECK(std::string(e.what()) == "tensor output holds 70000.000000, beyond float16's range (65504); use dtype f32 or bf16");
    CHECK(e.parameters() == std::vector<std::string>{"dtype"});
  }
  // Infinities are not out of range: they stay infinities.
  const float inf[] = {INFINITY};
  CHECK_NOTHROW(convert({"x", DType::float32, {1}, inf}, DType::float16, keep));
}

TEST_CASE("convert: ids stay int64; no conversion between integer and float") {
  const std::int64_t ids[] = {1, 2};
  TensorBuffer keep;
  const TensorRef r = convert({"input_ids", DType::int64, {2}, ids}, DType::int64, keep);
  CHECK(r.data == ids);
  CHECK_THROWS_AS(convert({"input_ids", DType::int64, {2}, ids}, DType::float16, keep), Error);
}
