#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "embedpe/error.h"
#include "embedpe/output_file.h"
#include "embedpe/sink.h"
#include "embedpe/tensor_io.h"
#include "embedpe/weights.h"
#include "test_support.h"

using namespace embedpe;

namespace {

// Two sequences: "a b" (3 tokens with BOS) and "c" (2), padded to seq_len 3.
Batch two_rows() {
  Batch b;
  b.input_ids = {{1, 5, 6}, {1, 7, 0}};
  b.attention_mask = {{1, 1, 1}, {1, 1, 0}};
  b.pieces = {{"<s>", "a", "b"}, {"<s>", "c"}};
  b.untruncated_lengths = {3, 2};
  return b;
}

struct Written {
  Batch batch = two_rows();
  std::vector<TextLine> lines = {{"", 0, 1}, {"", 1, 4}};
  xt::xtensor<float, 3> output = xt::xtensor<float, 3>::from_shape({2, 3, 2});
  xt::xtensor<float, 2> pe = {{0.0f, 1.0f}, {0.5f, 0.25f}, {-1.0f, 2.0f}};
  Written() {
    for (std::size_t i = 0; i < output.size(); ++i) output.data()[i] = static_cast<float>(i) / 4.0f;
  }
  std::vector<TensorRef> tensors() const {
    return {tensor_ref("input_ids", batch.input_ids), tensor_ref("output", output),
            tensor_ref("positional_encoding", pe)};
  }
};

std::string write(const std::string& format, const std::string& name, const SinkRun& run,
                  const std::vector<std::vector<TensorRef>>& batches, const Written& w) {
  const std::string path = test::temp_path(name);
  auto sink = find_sink_format(format)->make(path);
  sink->begin(run);
  for (const auto& tensors : batches) sink->add({w.batch, w.lines, tensors});
  sink->finish();
  return test::read_file(path);
}

}  // namespace

TEST_CASE("the registry: each format once, by name, with its extensions (views for a terminal have none)") {
  std::vector<std::string> names;
  for (const SinkFormat* f : sink_formats()) {
    names.push_back(f->name);
    CHECK(find_sink_format(f->name) == f);
    CHECK(f->extensions.empty() == f->traits.view);
  }
  CHECK(find_sink_format("summary")->traits.view);
  CHECK(std::vector<std::string>(names.begin(), names.begin() + 4) ==
        std::vector<std::string>{"json", "jsonl", "npy", "npz"});
  CHECK(find_sink_format("parquet") == nullptr);
  CHECK(find_sink_format("json")->traits.whole_input);
  CHECK(find_sink_format("jsonl")->traits.streams);
  CHECK(find_sink_format("npy")->traits.one_tensor);
  CHECK(!find_sink_format("npz")->traits.bfloat16);  // NumPy has no bfloat16
}

TEST_CASE("json: config with the row counts, shapes, dtypes, tokens, then the tensors") {
  const Written w;
  SinkRun run;
  run.config = {{"model", "m"}};
  const nlohmann::json doc = nlohmann::json::parse(write("json", "s.json", run, {w.tensors()}, w));
  CHECK(doc["config"] == nlohmann::json{{"model", "m"}, {"sequences", 2}, {"truncated", 0}});
  CHECK(doc["shapes"]["output"] == nlohmann::json{2, 3, 2});
  CHECK(doc["dtypes"]["input_ids"] == "int64");
  CHECK(doc["tokens"][1] == nlohmann::json{"<s>", "c"});
  CHECK(doc["output"][1][2][1] == 11.0 / 4);
  CHECK(doc["positional_encoding"][2][0] == -1.0);
}

TEST_CASE("json: bfloat16 values are written as the float32 they widen to") {
  const Written w;
  TensorBuffer keep;
  const float v[] = {0.1f};
  const TensorRef bf = convert({"x", DType::float32, {1}, v}, DType::bfloat16, keep);
  const std::string text = write("json", "bf.json", {}, {{bf}}, w);
  CHECK(text.find("\"x\"") != std::string::npos);
  CHECK(text.find("[0.100097656]") != std::string::npos);  // bfloat16(0.1) = 0.10009765625, in its shortest float32 form
  CHECK(nlohmann::json::parse(text)["dtypes"]["x"] == "bfloat16");
}

TEST_CASE("jsonl: one record per row, unpadded without a fixed seq_len, per-position rows cut to length") {
  const Written w;
  SinkRun run;
  run.per_position = {"positional_encoding"};
  run.sources = {"a.txt", "b.txt"};
  const std::string text = write("jsonl", "s.jsonl", run, {w.tensors()}, w);
  const std::size_t nl = text.find('\n');
  REQUIRE(nl != std::string::npos);
  const nlohmann::json first = nlohmann::json::parse(text.substr(0, nl));
  const nlohmann::json second = nlohmann::json::parse(text.substr(nl + 1));
  CHECK(first["source"] == "a.txt");
  CHECK(first["line"] == 1);
  CHECK(second["source"] == "b.txt");
  CHECK(second["line"] == 4);
  CHECK(second["input_ids"] == nlohmann::json{1, 7});
  CHECK(second["output"].size() == 2);
  CHECK(second["positional_encoding"].size() == 2);
  SUBCASE("a fixed seq_len keeps the padding; one input has no source") {
    run.seq_len = 3;
    run.sources.clear();
    const std::string padded = write("jsonl", "p.jsonl", run, {w.tensors()}, w);
    const nlohmann::json rec = nlohmann::json::parse(padded.substr(padded.find('\n') + 1));
    CHECK(!rec.contains("source"));
    CHECK(rec["input_ids"] == nlohmann::json{1, 7, 0});
  }
}

TEST_CASE("npy: one batch is numpy.save's bytes; several are streamed and the header completed") {
  const Written w;
  const TensorRef out = tensor_ref("output", w.output);
  const std::string whole = write("npy", "one.npy", {}, {{out}}, w);
  {
    OutputFile direct(test::temp_path("direct.npy"));
    write_npy(direct, out);
    direct.commit();
  }
  CHECK(whole == test::read_file(test::temp_path("direct.npy")));

  SinkRun run;
  run.streamed = true;
  run.seq_len = 3;
  run.batch_size = 2;
  const std::string streamed = write("npy", "two.npy", run, {{out}, {out}}, w);
  const NpyHeader h = parse_npy_header(streamed, "two.npy");
  CHECK(h.shape == std::vector<std::size_t>{4, 3, 2});
  CHECK(streamed.size() - h.data_offset == 2 * out.bytes());
  CHECK(std::memcmp(streamed.data() + h.data_offset + out.bytes(), w.output.data(), out.bytes()) == 0);
}

TEST_CASE("npy: streaming is refused, naming parameters, without a fixed seq_len or a file to go back to") {
  SinkRun run;
  run.streamed = true;
  run.batch_size = 8;
  const std::string path = test::temp_path("refused.npy");
  try {
    find_sink_format("npy")->make(path)->begin(run);
    FAIL("no error");
  } catch (const UsageError& e) {
    CHECK(std::string(e.what()).find("more than batch_size 8 lines") != std::string::npos);
    CHECK(e.parameters() == std::vector<std::string>{"batch_size", "seq_len", "format", "output_dir"});
  }
  run.seq_len = 4;
  CHECK_THROWS_WITH_AS(find_sink_format("npy")->make("-")->begin(run),
                       doctest::Contains("which standard output cannot do: give output_path FILE"), UsageError);
  CHECK(!std::filesystem::exists(path));
}

TEST_CASE("npz: the tensors of one batch, as write_npz writes them, then the run's config and a record") {
  const Written w;
  SinkRun run;
  run.config = {{"d_model", 4}, {"source", "caf\xC3\xA9"}};
  run.record = [] { return std::optional<nlohmann::ordered_json>(nlohmann::ordered_json{{"shard", "1/2"}}); };
  const std::string sunk = write("npz", "s.npz", run, {w.tensors()}, w);
  {
    OutputFile direct(test::temp_path("direct.npz"));
    write_npz(direct, w.tensors(), {{"config", "{\"d_model\":4,\"source\":\"caf\xC3\xA9\"}"}, {"shard", "{\"shard\":\"1/2\"}"}});
    direct.commit();
  }
  CHECK(sunk == test::read_file(test::temp_path("direct.npz")));
  SUBCASE("a whole-input format refuses a second batch") {
    auto sink = find_sink_format("npz")->make(test::temp_path("twice.npz"));
    sink->begin({});
    sink->add({w.batch, w.lines, w.tensors()});
    CHECK_THROWS_AS(sink->add({w.batch, w.lines, w.tensors()}), Error);
  }
}

TEST_CASE("safetensors: every tensor in emit order, the config as a metadata string, read back by WeightFile") {
  const Written w;
  SinkRun run;
  run.config = {{"dtype", "bfloat16"}};
  TensorBuffer keep;
  std::vector<TensorRef> tensors = w.tensors();
  tensors[1] = convert(tensors[1], DType::bfloat16, keep);
  const std::string bytes = write("safetensors", "s.safetensors", run, {tensors}, w);
  std::uint64_t n = 0;
  for (int i = 0; i < 8; ++i) n |= std::uint64_t(static_cast<unsigned char>(bytes[i])) << (8 * i);
  CHECK((8 + n) % 8 == 0);
  const nlohmann::ordered_json header = nlohmann::ordered_json::parse(bytes.substr(8, n));
  std::vector<std::string> keys;
  for (const auto& [key, value] : header.items()) keys.push_back(key);
  CHECK(keys == std::vector<std::string>{"__metadata__", "input_ids", "output", "positional_encoding"});
  CHECK(nlohmann::json::parse(header["__metadata__"]["config"].get<std::string>()) ==
        nlohmann::json{{"dtype", "bfloat16"}, {"sequences", 2}, {"truncated", 0}});

  WeightFormat format{};
  const std::vector<WeightTensor> read = parse_weight_header(bytes, "s.safetensors", format);
  CHECK(format == WeightFormat::safetensors);
  REQUIRE(read.size() == 3);  // sorted by name
  for (const WeightTensor& t : read) {
    const auto it = std::find_if(tensors.begin(), tensors.end(), [&](const TensorRef& r) { return r.name == t.name; });
    REQUIRE(it != tensors.end());
    CHECK(t.dtype == it->dtype);
    CHECK(t.shape == it->shape);
    CHECK(bytes.compare(t.offset, t.size_bytes, static_cast<const char*>(it->data), it->bytes()) == 0);
  }
}

// --- tables: named tensors that are not rows of text (pe's), given whole ---

namespace {

std::string write_tables(const std::string& format, const std::string& name, const SinkTables& tables) {
  const std::string path = test::temp_path(name);
  auto sink = find_sink_format(format)->make(path);
  sink->begin({});
  sink->add_tables(tables);
  sink->finish();
  return test::read_file(path);
}

struct Tables {
  xt::xtensor<std::int64_t, 2> buckets = {{0, 17}, {1, 0}};  // (query, key)
  xt::xtensor<float, 1> slopes = {0.5f, 0.25f};                // (heads,)
  SinkTables tables() const {
    return {.members = {{"config", {{"kind", "t5"}}}, {"positions", {{"first", 3}, {"count", 2}}}},
            .tensors = {tensor_ref("buckets", buckets), tensor_ref("slopes", slopes)}};
  }
};

}  // namespace

TEST_CASE("tables: every file format but jsonl holds them") {
  for (const SinkFormat* f : sink_formats()) {
    INFO(f->name);
    CHECK(f->traits.tables == (std::string(f->name) != "jsonl" && !f->traits.view));
  }
  auto sink = find_sink_format("jsonl")->make(test::temp_path("t.jsonl"));
  sink->begin({});
  CHECK_THROWS_AS(sink->add_tables(Tables().tables()), Error);
}

TEST_CASE("tables as json: the members in order, then the tensors, int64 as integers; no shapes or tokens") {
  const Tables t;
  const std::string text = write_tables("json", "t.json", t.tables());
  const nlohmann::ordered_json doc = nlohmann::ordered_json::parse(text);
  std::vector<std::string> keys;
  for (const auto& [key, value] : doc.items()) keys.push_back(key);
  CHECK(keys == std::vector<std::string>{"config", "positions", "buckets", "slopes"});
  CHECK(doc["config"] == nlohmann::ordered_json{{"kind", "t5"}});  // no sequences: tables are not rows of text
  CHECK(doc["buckets"] == nlohmann::ordered_json{{0, 17}, {1, 0}});
  CHECK(text.find("17.") == std::string::npos);
  CHECK(doc["slopes"][1] == 0.25);
}

TEST_CASE("tables as safetensors: each member a metadata string, the tensors' bytes as npz holds them") {
  const Tables t;
  const std::string bytes = write_tables("safetensors", "t.safetensors", t.tables());
  std::uint64_t n = 0;
  for (int i = 0; i < 8; ++i) n |= std::uint64_t(static_cast<unsigned char>(bytes[i])) << (8 * i);
  const nlohmann::json header = nlohmann::json::parse(bytes.substr(8, n));
  CHECK(nlohmann::json::parse(header["__metadata__"]["config"].get<std::string>()) == nlohmann::json{{"kind", "t5"}});
  CHECK(nlohmann::json::parse(header["__metadata__"]["positions"].get<std::string>()) ==
        nlohmann::json{{"first", 3}, {"count", 2}});
  CHECK(header["buckets"]["dtype"] == "I64");
  WeightFormat format{};
  const std::vector<WeightTensor> read = parse_weight_header(bytes, "t.safetensors", format);
  REQUIRE(read.size() == 2);
  CHECK(read[0].name == "buckets");
  CHECK(bytes.compare(read[0].offset, read[0].size_bytes, reinterpret_cast<const char*>(t.buckets.data()),
                      t.buckets.size() * 8) == 0);
}

TEST_CASE("tables as npz and npy: the tensors, as write_npz and write_npy write them; npz with the members as text") {
  const Tables t;
  const SinkTables tables = t.tables();
  {
    OutputFile direct(test::temp_path("direct_t.npz"));
    std::vector<NpzText> members;
    for (const auto& [key, value] : tables.members.items()) members.push_back({key, value.dump()});
    REQUIRE_FALSE(members.empty());
    write_npz(direct, tables.tensors, members);
    direct.commit();
  }
  CHECK(write_tables("npz", "t.npz", tables) == test::read_file(test::temp_path("direct_t.npz")));
  SinkTables one = tables;
  one.tensors.resize(1);
  {
    OutputFile direct(test::temp_path("direct_t.npy"));
    write_npy(direct, one.tensors[0]);
    direct.commit();
  }
  CHECK(write_tables("npy", "t.npy", one) == test::read_file(test::temp_path("direct_t.npy")));
  auto sink = find_sink_format("npy")->make(test::temp_path("two.npy"));
  sink->begin({});
  CHECK_THROWS_AS(sink->add_tables(tables), Error);  // a .npy holds one tensor
}
