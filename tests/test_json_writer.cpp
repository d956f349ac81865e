#include <doctest/doctest.h>

#include <unistd.h>

#include <cmath>
#include <limits>

#include "embedpe/embedding.h"
#include "embedpe/error.h"
#include "json_writer.h"
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

TEST_CASE("JSON: a tensor of many chunks reads back exactly and does not depend on the thread count") {
  // 5 × 300 × 101 values: more than one chunk of rows, rows split unevenly.
  auto t = xt::xtensor<float, 3>::from_shape({5, 300, 101});
  for (std::size_t k = 0; k < t.size(); ++k) {
    t.data()[k] = static_cast<float>(std::ldexp(static_cast<double>(embedpe::splitmix64(k) >> 40), -20) - 8.0);
  }
  std::string texts[3];
  const std::size_t threads[3] = {1, 2, 3};
  for (int i = 0; i < 3; ++i) {
    const std::string path = test::temp_path("chunks" + std::to_string(i) + ".json");
    OutputFile out(path);
    write_json(out, nlohmann::ordered_json::object(), {tensor_ref("t", t)}, threads[i]);
    out.commit();
    texts[i] = test::read_file(path);
  }
  CHECK(texts[0] == texts[1]);
  CHECK(texts[0] == texts[2]);
  const auto parsed = nlohmann::json::parse(texts[0])["t"];
  REQUIRE(parsed.size() == 5);
  bool exact = true;
  for (std::size_t a = 0; a < 5; ++a)
    for (std::size_t b = 0; b < 300; ++b)
      for (std::size_t c = 0; c < 101; ++c) exact = exact && parsed[a][b][c].get<float>() == t(a, b, c);
  CHECK(exact);
}

TEST_CASE("JSON Lines: one-line tensors, including empty and 0-d ones") {
  auto line = [](const TensorRef& t) {
    std::string s = "x";
    append_tensor_json_line(s, t);
    return s;
  };
  xt::xtensor<float, 2> m = {{1.5f, -2}, {0.25f, 3}};
  CHECK(line(tensor_ref("m", m)) == "x[[1.5, -2], [0.25, 3]]");
  auto hollow = xt::xtensor<float, 3>::from_shape({2, 0, 3});
  CHECK(line(tensor_ref("h", hollow)) == "x[[], []]");
  auto flat = xt::xtensor<float, 2>::from_shape({2, 0});
  CHECK(line(tensor_ref("f", flat)) == "x[[], []]");
  const std::int64_t scalar = -7;
  CHECK(line({"s", DType::int64, {}, &scalar}) == "x-7");
}
