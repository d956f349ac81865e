#include <doctest/doctest.h>

#include <unistd.h>

#include <limits>

#include "embedpe/error.h"
#include "embedpe/json_writer.h"
#include "embedpe/output_file.h"
#include "test_support.h"

using namespace embedpe;

namespace {
std::string write_json_file(const std::string& name, const nlohmann::ordered_json& meta,
                            const std::vector<TensorRef>& tensors) {
  const std::string path = test::temp_path(name);
  OutputFile out(path);
  write_json(out, meta, tensors);
  out.commit();
  return test::read_file(path);
}
}  // namespace

TEST_CASE("JSON: shortest round-trip floats, nested arrays, meta first") {
  xt::xtensor<float, 2> t = {{0.1f, 1.0f / 3.0f}, {-2.5e-8f, 3e38f}};
  xt::xtensor<std::int64_t, 1> i = {1, -2};
  nlohmann::ordered_json meta = {{"config", {{"a", 1}}}, {"tokens", {{"▁hi"}}}};
  const std::string s = write_json_file("t.json", meta, {tensor_ref("x", t), {"i", DType::int64, {2}, i.data()}});
  CHECK(s == "{\n"
             "  \"config\": {\"a\":1},\n"
             "  \"tokens\": [[\"▁hi\"]],\n"
             "  \"x\": [\n"
             "    [0.1, 0.33333334],\n"
             "    [-2.5e-08, 3e+38]\n"
             "  ],\n"
             "  \"i\": [1, -2]\n"
             "}\n");
  const auto parsed = nlohmann::json::parse(s);
  CHECK(parsed["x"][0][1].get<float>() == 1.0f / 3.0f);
  CHECK(parsed["x"][1][0].get<float>() == -2.5e-8f);
}

TEST_CASE("JSON refuses NaN and infinity instead of writing invalid JSON") {
  xt::xtensor<float, 1> t = {1.0f, std::numeric_limits<float>::quiet_NaN()};
  const std::string path = test::temp_path("nan.json");
  ::unlink(path.c_str());
  {
    OutputFile o(path);
    CHECK_THROWS_WITH_AS(write_json(o, nlohmann::ordered_json::object(), {{"x", DType::float32, {2}, t.data()}}),
                         doctest::Contains("NaN"), Error);
  }
  CHECK(::access(path.c_str(), F_OK) != 0);  // nothing left behind
}

TEST_CASE("JSON: empty and 3-D tensors") {
  auto empty = xt::xtensor<float, 2>::from_shape({0, 4});
  auto cube = xt::xtensor<float, 3>::from_shape({1, 2, 2});
  for (std::size_t k = 0; k < 4; ++k) cube.data()[k] = static_cast<float>(k);
  const std::string s = write_json_file("e.json", nlohmann::ordered_json::object(),
                                        {tensor_ref("e", empty), tensor_ref("c", cube)});
  CHECK(s == "{\n  \"e\": [],\n  \"c\": [\n    [\n      [0, 1],\n      [2, 3]\n    ]\n  ]\n}\n");
  CHECK(nlohmann::json::parse(s)["c"][0][1][0] == 2);
}
