#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "embedpe/error.h"
#include "embedpe/output_file.h"
#include "embedpe/pe_view.h"
#include "embedpe/sink.h"
#include "test_support.h"

using namespace embedpe;

namespace {

std::string view_text(PeView view, const PeInspection& v, const std::string& name) {
  const std::string path = test::temp_path(name);
  OutputFile out(path);
  write_pe_view(out, view, v);
  out.commit();
  return test::read_file(path);
}

PeInspection buckets() {
  PeInspection v;
  v.config = {{"kind", "t5"}};
  v.title = "buckets";
  v.matrix = PeMatrix{{{0.0f, 17.0f}, {1.0f, 0.0f}}, "query", "key", 4, 4, /*integers=*/true};
  v.matrix_name = "buckets";
  v.tensors.push_back({"buckets", xt::xtensor<std::int64_t, 2>{{0, 17}, {1, 0}}});
  v.npy_tensor = 0;
  return v;
}

PeInspection stats() {
  PeInspection v;
  v.config = {{"kind", "sinusoidal"}};
  v.title = "pairs";
  v.records = PeRecords{{"pair", "wavelength", "aliases"}, {{"0", "6.28319", "no"}, {"1", "62.8319", "yes"}}, "pairs"};
  return v;
}

}  // namespace

TEST_CASE("issue 12 – T5's bucket indices print as integers in the table and CSV, not as 17.00") {
  const PeInspection v = buckets();
  const std::string table = view_text(PeView::table, v, "b.txt");
  CHECK(table == "# buckets\n   que\\key      4      5\n         4      0     17\n         5      1      0\n");
  CHECK(view_text(PeView::csv, v, "b.csv") == "query,key4,key5\n4,0,17\n5,1,0\n");
  SUBCASE("floats keep two decimals, and -0.00 is shown as 0.00") {
    PeInspection f = v;
    f.matrix->integers = false;
    f.matrix->values(1, 0) = -0.001f;
    const std::string text = view_text(PeView::table, f, "f.txt");
    CHECK(text.find("  17.00") != std::string::npos);
    CHECK(text.find("-0.00") == std::string::npos);
  }
}

TEST_CASE("records: an aligned table under its title, CSV, or JSON with yes/no as booleans") {
  const PeInspection v = stats();
  CHECK(view_text(PeView::table, v, "r.txt") ==
        "# pairs\npair  wavelength  aliases\n   0     6.28319       no\n   1     62.8319      yes\n");
  CHECK(view_text(PeView::csv, v, "r.csv") == "pair,wavelength,aliases\n0,6.28319,no\n1,62.8319,yes\n");
  const std::string path = test::temp_path("r.json");
  {
    OutputFile out(path);
    write_pe_records(out, *find_sink_format("json"), v);
    out.commit();
  }
  const nlohmann::json doc = test::read_json(path);
  CHECK(doc["config"]["kind"] == "sinusoidal");
  CHECK(doc["pairs"][1] == nlohmann::json{{"pair", 1}, {"wavelength", 62.8319}, {"aliases", true}});
  SUBCASE("a binary format or a PNG refuses records unless the kind gives them as JSON") {
    OutputFile out(test::temp_path("r.npz"));
    CHECK_THROWS_WITH_AS(write_pe_records(out, *find_sink_format("npz"), v),
                         "this analysis is written as table, csv or json", UsageError);
    CHECK_THROWS_AS(write_pe_view(out, PeView::png, v), UsageError);
    CHECK_THROWS_AS(pe_tables(v, 0, 2, find_sink_format("json")->traits), UsageError);
  }
}

TEST_CASE("pe_tables: every tensor with the positions, the npy tensor alone, else the matrix with its axes") {
  const PeInspection v = buckets();
  const SinkTables all = pe_tables(v, 4, 2, find_sink_format("npz")->traits);
  REQUIRE(all.tensors.size() == 1);
  CHECK(all.tensors[0].dtype == DType::int64);
  CHECK(all.members == nlohmann::ordered_json{{"config", v.config}, {"positions", {{"first", 4}, {"count", 2}}}});
  const SinkTables one = pe_tables(v, 4, 2, find_sink_format("npy")->traits);
  REQUIRE(one.tensors.size() == 1);
  CHECK(one.tensors[0].name == "buckets");
  PeInspection matrix_only = v;
  matrix_only.tensors.clear();
  matrix_only.npy_tensor.reset();
  const SinkTables m = pe_tables(matrix_only, 4, 2, find_sink_format("safetensors")->traits);
  REQUIRE(m.tensors.size() == 1);
  CHECK(m.tensors[0].shape == std::vector<std::size_t>{2, 2});
  CHECK(m.members["querys"] == nlohmann::ordered_json{{"first", 4}, {"count", 2}});
  CHECK(m.members["keys"] == nlohmann::ordered_json{{"first", 4}, {"count", 2}});
}

TEST_CASE("write_pe_inspection: a table's default columns, the title's hint in the front end's words, refusals") {
  const PeKind& kind = find_pe_kind("sinusoidal");
  const std::string path = test::temp_path("inspection.txt");
  PeInspectJob job{.request = {.d_model = 16, .first = 0, .count = 3}, .format = pe_formats().front()};
  job.dims_label = "--dims";
  write_pe_inspection(kind, {}, job, path);
  const std::string text = test::read_file(path);
  CHECK(text.find("(dims 0:8 of 16; choose with --dims)") != std::string::npos);
  CHECK(std::count(text.begin(), text.end(), '\n') == 5);  // title, header, 3 positions

  // Columns given: those, and no hint.
  job.request.dims_first = 2;
  job.request.dims_count = 3;
  write_pe_inspection(kind, {}, job, path);
  CHECK(test::read_file(path).find("choose with") == std::string::npos);

  // A binary format keeps floats exact: precision is refused, naming it, and nothing is written.
  PeInspectJob png{.request = {.d_model = 16}, .format = pe_format_extensions().back().second, .precision = 3};
  for (const auto& [ext, f] : pe_format_extensions()) {
    if (ext == ".png") png.format = f;
  }
  const std::string png_path = test::temp_path("refused.png");
  try {
    write_pe_inspection(kind, {}, png, png_path);
    FAIL("precision with PNG was accepted");
  } catch (const UsageError& e) {
    CHECK(std::string(e.what()) == "precision sets the digits of text (table, csv, json); PNG keeps floats exact: "
                                   "drop precision");
    CHECK(e.parameters() == std::vector<std::string>{"precision"});
  }
  CHECK_FALSE(std::filesystem::exists(png_path));
}
