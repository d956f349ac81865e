// Reports: what a model and a weight file hold, and rows of a table, as
// text and JSON, with their refusals naming parameters (embedpe/report.h).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include "embedpe/error.h"
#include "embedpe/layer_spec.h"
#include "embedpe/report.h"
#include "test_support.h"

using namespace embedpe;

namespace {

// A (rows, cols) float32 .npy holding 0, 1, 2, ... as NumPy writes it.
std::string write_table(const std::string& name, std::size_t rows, std::size_t cols, float at_1_1) {
  std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (" + std::to_string(rows) + ", " +
                       std::to_string(cols) + "), }";
  header.append(64 - (10 + header.size() + 1) % 64, ' ');
  header += '\n';
  std::string file = std::string("\x93NUMPY\x01\x00", 8);
  file += static_cast<char>(header.size() & 0xff);
  file += static_cast<char>(header.size() >> 8);
  file += header;
  for (std::size_t i = 0; i < rows * cols; ++i) {
    const float v = i == cols + 1 ? at_1_1 : static_cast<float>(i);
    file.append(reinterpret_cast<const char*>(&v), sizeof v);
  }
  const std::string path = test::temp_path(name);
  std::ofstream(path, std::ios::binary) << file;
  return path;
}

// The error f throws (as an Error: check its class with CHECK_THROWS_AS).
template <class F>
Error thrown(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e;
  }
  FAIL("no embedpe::Error");
  return Error("");
}

}  // namespace

TEST_CASE("the model report: the run config's fields, and rows of text with the special pieces") {
  const Tokenizer tok = Tokenizer::default_model();
  const nlohmann::ordered_json json = model_report_json(tok);
  CHECK(json["vocab_size"] == tok.info().vocab_size);
  CHECK(json["size_bytes"] == tok.info().size_bytes);
  CHECK(json.contains("byte_fallback"));
  CHECK(model_report(tok, ReportFormat::json) == json.dump(2) + "\n");
  const std::string text = model_report(tok, ReportFormat::text);
  CHECK(text.starts_with("model                    embedded default\n"));  // the keys as wide as remove_extra_whitespaces
  CHECK(text.find("\nsha256                   " + tok.sha256() + "\n") != std::string::npos);
  CHECK(text.find("\nbos_id                   " + std::to_string(tok.info().bos_id) + "  " +
                  std::string(tok.id_to_piece(tok.info().bos_id)) + "\n") != std::string::npos);
  CHECK(text.find("\nadd_dummy_prefix         yes\nremove_extra_whitespaces yes\nsplit_digits             yes\n") !=
        std::string::npos);
  CHECK(json["add_dummy_prefix"] == true);
}

TEST_CASE("the weights report: tensors, the table encode would take, and no positions in a .npy") {
  const std::string path = write_table("report-weights.npy", 4, 3, 4.0f);
  const auto file = WeightFile::open(path);
  const nlohmann::ordered_json json = weights_report_json(*file, path);
  CHECK(json["format"] == "npy");
  CHECK(json["token_embedding"] == "(the array)");
  CHECK(json["position_embedding"] == "");
  CHECK(json["tensors"][0]["shape"] == std::vector<std::size_t>{4, 3});
  CHECK(json["tensors"][0]["bytes"] == 48);
  CHECK(json["tied"].is_null());
  const std::string text = weights_report(*file, path, ReportFormat::text);
  CHECK(text.starts_with("weights       " + path + " (npy, "));
  CHECK(text.find("\nembedding     (the array)\n") != std::string::npos);
  CHECK(text.ends_with("  (array)  (4, 3)  F32  48 bytes\n"));  // columns as wide as their widest entry
}

TEST_CASE("table rows: the dims asked for, as text and JSON, and refusals naming ids and dims") {
  const std::string path = write_table("report-rows.npy", 4, 3, 4.0f);
  const auto table = open_table(TableSpec{.weights = path}, nullptr);
  const std::vector<std::int64_t> ids = {2, 0};
  CHECK(table_rows_report(*table, ids, Dims{1, 2}, nullptr, ReportFormat::text) ==
        "# E[id] from " + table->describe() + ", d_model 3, dims 1:3\n2\t7\t8\n0\t1\t2\n");
  const auto json = nlohmann::json::parse(table_rows_report(*table, ids, std::nullopt, nullptr, ReportFormat::json));
  CHECK(json["rows"] == nlohmann::json::parse("[[6,7,8],[0,1,2]]"));
  CHECK(json["dims"]["count"] == 3);
  CHECK(!json.contains("pieces"));

  const Error beyond =
      thrown([&] { table_rows_report(*table, std::vector<std::int64_t>{4}, {}, nullptr, ReportFormat::text); });
  CHECK(std::string(beyond.what()) == "ids: 4 is outside the table's 4 rows");
  CHECK_THROWS_AS(table_rows_report(*table, std::vector<std::int64_t>{-1}, {}, nullptr, ReportFormat::text),
                  UsageError);
  CHECK(beyond.parameters() == std::vector<std::string>{"ids"});
  const Error wide = thrown([&] { table_rows_report(*table, ids, Dims{2, 2}, nullptr, ReportFormat::text); });
  CHECK(std::string(wide.what()) == "dims 2:4 goes beyond d_model 3; choose dims below 3");
  CHECK(wide.parameters() == std::vector<std::string>{"dims"});
  REQUIRE(wide.verbatim().size() == 1);  // the second "dims" is prose
  CHECK(wide.verbatim()[0].begin == std::string(wide.what()).rfind("dims"));
}

TEST_CASE("table rows: a NaN or infinity is text's nan/inf, and JSON refuses it") {
  for (const float bad : {std::numeric_limits<float>::quiet_NaN(), -std::numeric_limits<float>::infinity()}) {
    const std::string path = write_table("report-bad.npy", 3, 3, bad);
    const auto table = open_table(TableSpec{.weights = path}, nullptr);
    const std::vector<std::int64_t> row = {1};
    const std::string text = table_rows_report(*table, row, std::nullopt, nullptr, ReportFormat::text);
    CHECK(text.ends_with(std::isnan(bad) ? "\t3\tnan\t5\n" : "\t3\t-inf\t5\n"));
    const Error e = thrown([&] { table_rows_report(*table, row, std::nullopt, nullptr, ReportFormat::json); });
    CHECK(std::string(e.what()).find(std::isnan(bad) ? "holds NaN" : "holds an infinity") != std::string::npos);
    CHECK(e.parameters() == std::vector<std::string>{"format"});
    bool usage_error = false;  // the file's values, not how it was asked: a runtime error (exit 1)
    try {
      table_rows_report(*table, row, std::nullopt, nullptr, ReportFormat::json);
    } catch (const UsageError&) {
      usage_error = true;
    } catch (const Error&) {
    }
    CHECK(!usage_error);
    // The other rows are fine as JSON.
    CHECK_NOTHROW(
        table_rows_report(*table, std::vector<std::int64_t>{0, 2}, std::nullopt, nullptr, ReportFormat::json));
  }
}

TEST_CASE("the quantize report: sizes saved, both errors, and a projection left in the float file") {
  QuantizeReport r;
  r.input_bytes = 400;
  r.output_bytes = 100;
  r.max_abs_error = 0.5;
  r.mean_abs_error = 0.25;
  r.output_scale = 2;
  r.max_abs_output_error = 1;
  r.mean_abs_output_error = 0.5;
  WeightTensor t;
  t.name = "emb";
  t.shape = {10, 10};
  CHECK(quantize_report(r, "in.npy", t, "out.safetensors", "", ReportFormat::text) ==
        "wrote out.safetensors: int8 per-row symmetric, 10 x 10\n"
        "size           400 -> 100 bytes (75.0% saved)\n"
        "rows           max abs error 0.5, mean abs error 0.25\n"
        "output         max abs error 1, mean abs error 0.5 (embedding x 2, PE unchanged)\n");
  const auto json =
      nlohmann::json::parse(quantize_report(r, "in.npy", t, "out.safetensors", "p.weight", ReportFormat::json));
  CHECK(json["saved_percent"] == 75.0);
  CHECK(json["tensor"] == "emb");
  CHECK(json["output_scale"] == 2.0);
  CHECK(json["projection_not_in_output"] == "p.weight");
  const std::string long_path(3000, 'p');  // a path longer than any line buffer is written whole
  CHECK(quantize_report(r, "in.npy", t, long_path, "", ReportFormat::text)
            .starts_with("wrote " + long_path + ": int8 per-row symmetric, 10 x 10\n"));
  CHECK(!nlohmann::json::parse(quantize_report(r, "in.npy", t, "o", "", ReportFormat::json))
             .contains("projection_not_in_output"));
}

TEST_CASE("text reports spell out control bytes in names, and never cut a long one") {
  // A .safetensors whose tensor names hold a newline, an escape sequence, and 600 characters.
  const std::string evil = "evil\nname\x1b[31m", long_name(600, 'n');
  const nlohmann::json header = {
      {evil, {{"dtype", "F32"}, {"shape", {2, 2}}, {"data_offsets", {0, 16}}}},
      {long_name, {{"dtype", "F32"}, {"shape", {2, 2}}, {"data_offsets", {16, 32}}}}};
  const std::string text = header.dump();
  std::string file(8, '\0');
  for (int i = 0; i < 8; ++i) file[i] = static_cast<char>((text.size() >> (8 * i)) & 0xff);
  file += text + std::string(32, '\0');
  const std::string path = test::temp_path("report-names\n.safetensors");
  std::ofstream(path, std::ios::binary) << file;
  const auto weights = WeightFile::open(path);
  const std::string report = weights_report(*weights, path, ReportFormat::text);
  CHECK(report.find("evil\\nname\\x1b[31m") != std::string::npos);
  CHECK(report.find(long_name + "  (2, 2)") != std::string::npos);
  CHECK(report.find("report-names\\n.safetensors (safetensors, ") != std::string::npos);
  for (std::size_t i = 0; i < report.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(report[i]);
    const bool printable = (c >= 0x20 || c == '\n') && c != 0x7f;
    CHECK_MESSAGE(printable, "byte ", i);
  }
  CHECK(std::count(report.begin(), report.end(), '\n') == 4);  // weights, embedding, and one line per tensor

  // sp-test.model's piece 3 is "\r": a row of lookup's table stays one row of three columns and more.
  const Tokenizer tok = Tokenizer::from_file(test::source_path("tests/models/sp-test.model"));
  REQUIRE(tok.id_to_piece(3) == "\r");
  const auto table = open_table(TableSpec{.d_model = 2}, &tok);
  const std::vector<std::int64_t> three = {3};
  const std::string rows = table_rows_report(*table, three, std::nullopt, &tok, ReportFormat::text);
  CHECK(rows.substr(rows.find('\n') + 1).starts_with("3\t\\r\t"));
  CHECK(std::count(rows.begin(), rows.end(), '\r') == 0);
}

TEST_CASE("the weights report offers a .npy as the table only when it is 2-D, as lookup and encode take it") {
  for (const std::vector<std::size_t>& shape : {std::vector<std::size_t>{6}, std::vector<std::size_t>{2, 3, 1}}) {
    std::string dims;
    for (std::size_t n : shape) dims += std::to_string(n) + ", ";
    std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (" + dims + "), }";
    header.append(64 - (10 + header.size() + 1) % 64, ' ');
    header += '\n';
    std::string file = std::string("\x93NUMPY\x01\x00", 8);
    file += static_cast<char>(header.size() & 0xff);
    file += static_cast<char>(header.size() >> 8);
    file += header + std::string(6 * 4, '\0');
    const std::string path = test::temp_path("report-" + std::to_string(shape.size()) + "d.npy");
    std::ofstream(path, std::ios::binary) << file;
    const auto weights = WeightFile::open(path);
    CHECK(weights_report_json(*weights, path)["token_embedding"] == "");
    CHECK(weights_report(*weights, path, ReportFormat::text).find("(none: the array is not a (vocab, d_model) table)") !=
          std::string::npos);
    CHECK_THROWS_AS(open_table(TableSpec{.weights = path}, nullptr), Error);
  }
}

TEST_CASE("info_report: the model, the weights, or both in one document") {
  const Tokenizer tok = Tokenizer::default_model();
  const std::string path = write_table("report-info.npy", 4, 3, 4.0f);
  const auto file = WeightFile::open(path);
  // The model alone: its own fields, not nested.
  CHECK(nlohmann::ordered_json::parse(info_report(&tok, nullptr, "", ReportFormat::json)) == model_report_json(tok));
  // Both: one document with both members.
  const auto both = nlohmann::ordered_json::parse(info_report(&tok, file.get(), path, ReportFormat::json));
  CHECK(both["model"] == model_report_json(tok));
  CHECK(both["weights"] == weights_report_json(*file, path));
  const auto weights = nlohmann::ordered_json::parse(info_report(nullptr, file.get(), path, ReportFormat::json));
  CHECK_FALSE(weights.contains("model"));
  // Text: one report after the other, a blank line between.
  CHECK(info_report(&tok, file.get(), path, ReportFormat::text) ==
        model_report(tok, ReportFormat::text) + "\n" + weights_report(*file, path, ReportFormat::text));
}
