#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <unistd.h>

#include "embedpe/error.h"
#include "embedpe/output_file.h"
#include "embedpe/tensor_io.h"
#include "test_support.h"

using namespace embedpe;

namespace {
std::string write_with(const std::string& name, const std::function<void(OutputFile&)>& fn) {
  const std::string path = test::temp_path(name);
  OutputFile out(path);
  fn(out);
  out.commit();
  return test::read_file(path);
}
}  // namespace

TEST_CASE(".npy bytes equal numpy.save's") {
  SUBCASE("float32 (2, 3, 4)") {
    xt::xtensor<float, 3> t = xt::xtensor<float, 3>::from_shape({2, 3, 4});
    for (std::size_t i = 0; i < 24; ++i) t.data()[i] = static_cast<float>(i) / 7.0f;
    CHECK(write_with("f4.npy", [&](OutputFile& o) { write_npy(o, tensor_ref("x", t)); }) ==
          test::read_file(test::golden("numpy_f4_2x3x4.npy")));
  }
  SUBCASE("int64 (2, 5)") {
    xt::xtensor<std::int64_t, 2> t = {{-5, -4, -3, -2, -1}, {0, 1, 2, 3, 4}};
    CHECK(write_with("i8.npy", [&](OutputFile& o) { write_npy(o, tensor_ref("x", t)); }) ==
          test::read_file(test::golden("numpy_i8_2x5.npy")));
  }
  SUBCASE("1-D and empty shapes") {
    xt::xtensor<float, 1> v = {-1.0f, -0.5f, 0.0f, 0.5f, 1.0f};
    CHECK(write_with("f4_5.npy", [&](OutputFile& o) {
            write_npy(o, {"v", DType::float32, {5}, v.data()});
          }) == test::read_file(test::golden("numpy_f4_5.npy")));
    xt::xtensor<float, 2> e = xt::xtensor<float, 2>::from_shape({0, 3});
    CHECK(write_with("f4_0x3.npy", [&](OutputFile& o) { write_npy(o, tensor_ref("e", e)); }) ==
          test::read_file(test::golden("numpy_f4_0x3.npy")));
  }
}

TEST_CASE(".npy headers: parsed back, and malformed ones rejected") {
  xt::xtensor<float, 3> t = xt::xtensor<float, 3>::from_shape({2, 3, 4});
  const std::string header = npy_header(tensor_ref("x", t));
  CHECK(header.size() % 64 == 0);
  const auto h = parse_npy_header(header, "x");
  CHECK(h.descr == "<f4");
  CHECK_FALSE(h.fortran_order);
  CHECK(h.shape == std::vector<std::size_t>{2, 3, 4});
  CHECK(h.data_offset == header.size());

  const std::string magic = std::string("\x93NUMPY\x01\x00", 8);
  auto with_dict = [&](const std::string& dict) {
    std::string s = magic;
    s += static_cast<char>(dict.size() & 0xFF);
    s += static_cast<char>(dict.size() >> 8);
    return s + dict;
  };
  CHECK(parse_npy_header(with_dict("{'descr': '<f8', 'fortran_order': True, 'shape': (7,), }"), "ok").shape ==
        std::vector<std::size_t>{7});
  CHECK(parse_npy_header(with_dict("{'shape': (), 'descr': '<i8', 'fortran_order': False}"), "ok").shape.empty());
  for (const std::string bad : {"", "{", "{'descr': '<f4'}", "{'descr': '<f4', 'fortran_order': Maybe, 'shape': ()}",
                                "{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999999,)}",
                                "{'descr': '<f4', 'fortran_order': False, 'shape': (1, 2}",
                                "{'descr': '<f4, 'fortran_order': False, 'shape': ()}",
                                "{'descr': '<f4', 'fortran_order': False, 'shape': (-1,)}",
                                "{'evil': __import__('os'), 'descr': '<f4', 'fortran_order': False, 'shape': ()}"}) {
    CAPTURE(bad);
    CHECK_THROWS_AS(parse_npy_header(with_dict(bad), "bad.npy"), Error);
  }
  CHECK_THROWS_WITH_AS(parse_npy_header("PK\x03\x04 not numpy", "z.npy"), doctest::Contains("not a .npy file"), Error);
  std::string lying = magic + std::string("\xFF\xFF", 2) + "{}";  // header length beyond the file
  CHECK_THROWS_WITH_AS(parse_npy_header(lying, "t.npy"), doctest::Contains("truncated"), Error);
}

TEST_CASE(".npz is a stored zip of NAME.npy members") {
  xt::xtensor<std::int64_t, 2> ids = {{1, 2}, {3, 0}};
  xt::xtensor<float, 3> out = xt::xtensor<float, 3>::from_shape({2, 2, 3});
  out.fill(0.25f);
  const std::string z = write_with("t.npz", [&](OutputFile& o) {
    write_npz(o, {tensor_ref("input_ids", ids), tensor_ref("output", out)});
  });
  CHECK(z.substr(0, 4) == "PK\x03\x04");
  CHECK(z.find("input_ids.npy") != std::string::npos);
  CHECK(z.find("output.npy") != std::string::npos);
  CHECK(z.substr(z.size() - 22, 4) == "PK\x05\x06");  // end of central directory, no comment
  CHECK(static_cast<unsigned char>(z[z.size() - 22 + 10]) == 2);  // two entries
  // Same input, same bytes: the timestamp is fixed.
  CHECK(z == write_with("t2.npz", [&](OutputFile& o) {
          write_npz(o, {tensor_ref("input_ids", ids), tensor_ref("output", out)});
        }));
}

TEST_CASE("issue 28 - an .npz with a member name twice is refused naming it") {
  xt::xtensor<std::int64_t, 2> a = {{1, 2}}, b = {{3, 4}};
  const std::string z = write_with("twice.npz", [&](OutputFile& o) {
    write_npz(o, {tensor_ref("input_ids", a), tensor_ref("input_ids", b)});
  });
  CHECK_THROWS_WITH_AS(read_npz(z, "twice.npz"),
                       "twice.npz is not a valid .npz: the member input_ids.npy is in the archive twice", Error);
  CHECK_THROWS_WITH_AS(embedpe::npz_entries(z, "twice.npz"), doctest::Contains("input_ids.npy is in the archive twice"),
                       Error);
}

TEST_CASE(".npz read back: members by name, CRC checked, truncation refused") {
  xt::xtensor<std::int64_t, 2> ids = {{1, 2}, {3, 0}};
  xt::xtensor<float, 1> f = {0.5f, -1.0f};
  const std::string z = write_with("r.npz", [&](OutputFile& o) {
    write_npz(o, {tensor_ref("input_ids", ids), tensor_ref("weights", f)});
  });
  const auto all = read_npz(z, "r.npz");
  REQUIRE(all.size() == 2);
  CHECK(all[0].name == "input_ids");
  CHECK(all[1].name == "weights");
  const NpyHeader h = parse_npy_header(all[0].npy, "input_ids");
  CHECK(h.descr == "<i8");
  CHECK(h.shape == std::vector<std::size_t>{2, 2});
  CHECK(all[0].npy.size() == h.data_offset + 4 * 8);
  CHECK(std::memcmp(all[0].npy.data() + h.data_offset, ids.data(), 32) == 0);

  const auto only = read_npz(z, "r.npz", {"weights"});
  REQUIRE(only.size() == 1);
  CHECK(only[0].name == "weights");

  std::string bad = z;
  bad[all[0].npy.size() / 2 + 40] ^= 0x01;  // inside input_ids.npy's bytes
  CHECK_THROWS_WITH_AS(read_npz(bad, "bad.npz"), doctest::Contains("CRC-32 mismatch"), Error);
  CHECK_THROWS_WITH_AS(read_npz(z.substr(0, z.size() - 30), "cut.npz"), doctest::Contains("not a valid .npz"), Error);
  CHECK_THROWS_WITH_AS(read_npz("hello", "tiny.npz"), doctest::Contains("not a valid .npz"), Error);

  // npz_entries: the same members, as views into `z` (merge uses them in place).
  const auto entries = embedpe::npz_entries(z, "r.npz");
  REQUIRE(entries.size() == 2);
  for (std::size_t k = 0; k < 2; ++k) {
    CHECK(entries[k].name == all[k].name);
    CHECK(entries[k].method == 0);
    CHECK(entries[k].size == all[k].npy.size());
    CHECK(entries[k].data == all[k].npy);
    CHECK(entries[k].data.data() >= z.data());
    CHECK(entries[k].data.data() + entries[k].data.size() <= z.data() + z.size());
  }
  CHECK_THROWS_WITH_AS(embedpe::npz_entries(z.substr(0, z.size() - 30), "cut.npz"),
                       doctest::Contains("not a valid .npz"), Error);
}

TEST_CASE("an .npz's text members: 0-d unicode arrays, as numpy.save writes a str, read back") {
  const std::string text = "a\xE2\x82\xAC\xF0\x9F\x98\x80";  // "a€😀": 1, 3 and 4 bytes of UTF-8
  xt::xtensor<std::int64_t, 1> ids = {7};
  const std::string z = write_with("text.npz", [&](OutputFile& o) {
    write_npz(o, {tensor_ref("input_ids", ids)}, {{"config", text}, {"empty", ""}});
  });
  const auto all = read_npz(z, "text.npz");
  REQUIRE(all.size() == 3);
  CHECK(all[1].name == "config");
  CHECK_FALSE(npy_holds_text(all[0].npy, "ids"));
  REQUIRE(npy_holds_text(all[1].npy, "config"));
  // numpy.save(f, np.array("a€😀")): descr <U3, shape (), then UTF-32LE code points
  const NpyHeader h = parse_npy_header(all[1].npy, "config");
  CHECK(h.descr == "<U3");
  CHECK(h.shape.empty());
  CHECK(all[1].npy.substr(h.data_offset) == std::string("a\0\0\0\xAC\x20\0\0\x00\xF6\x01\0", 12));
  CHECK(npy_text(all[1].npy, "config") == text);
  CHECK(npy_text(all[2].npy, "empty").empty());  // NumPy's '' is <U1 holding one NUL
  CHECK_THROWS_WITH_AS(npy_text(all[0].npy, "ids"), doctest::Contains("not a string"), Error);
}
