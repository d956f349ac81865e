#include <doctest/doctest.h>

#include <cmath>
#include <limits>

#include "embedpe/embedding.h"
#include "embedpe/error.h"
#include "half.h"
#include "embedpe/positional_encoding.h"
#include "embedpe/quantize.h"
#include "embedpe/tensor_io.h"
#include "embedpe/weights.h"
#include "test_support.h"

using namespace embedpe;

namespace {
std::string weights(const std::string& name) { return test::golden("weights/" + name); }

std::vector<float> row_of(const EmbeddingTable& t, std::int64_t id) {
  std::vector<float> r(t.d_model());
  t.row(id, r.data());
  return r;
}
}  // namespace

TEST_CASE("half and bfloat16 conversions") {
  CHECK(half_to_float(0x3C00) == 1.0f);
  CHECK(half_to_float(0x7BFF) == 65504.0f);
  CHECK(half_to_float(0x0001) == std::ldexp(1.0f, -24));  // smallest subnormal
  CHECK(std::isinf(half_to_float(0x7C00)));
  CHECK(std::isnan(half_to_float(0x7E00)));
  CHECK(float_to_half(1.0f) == 0x3C00);
  CHECK(float_to_half(65504.0f) == 0x7BFF);
  CHECK(float_to_half(65520.0f) == 0x7C00);             // rounds up to infinity
  CHECK(float_to_half(std::ldexp(1.0f, -25)) == 0x0000);  // halfway to the smallest subnormal: ties to even
  CHECK(float_to_half(std::ldexp(1.5f, -25)) == 0x0001);
  CHECK(float_to_half(-0.0f) == 0x8000);
  for (std::uint32_t h = 0; h < 0x10000; ++h) {  // every finite half survives a round trip
    const float f = half_to_float(static_cast<std::uint16_t>(h));
    if (std::isfinite(f)) REQUIRE(float_to_half(f) == h);
  }
  CHECK(bfloat16_to_float(0x3F80) == 1.0f);
  CHECK(float_to_bfloat16(1.0f) == 0x3F80);
  CHECK(float_to_bfloat16(bits_to_float(0x3F808000)) == 0x3F80);  // tie: to even
  CHECK(float_to_bfloat16(bits_to_float(0x3F818000)) == 0x3F82);
}

TEST_CASE("PATH[:TENSOR] specs") {
  CHECK(parse_tensor_spec("a.safetensors").path == "a.safetensors");
  auto s = parse_tensor_spec("dir/a.safetensors:model.embed_tokens.weight");
  CHECK(s.path == "dir/a.safetensors");
  CHECK(s.tensor == "model.embed_tokens.weight");
  // An existing path with a colon is taken whole.
  const std::string odd = test::temp_path("odd:name.npy");
  { OutputFile o(odd); o.write("x"); o.commit(); }
  CHECK(parse_tensor_spec(odd).path == odd);
  CHECK(parse_tensor_spec(odd).tensor.empty());
}

TEST_CASE("issue: a tensor name containing ':' can be selected") {
  // The path is the longest existing prefix; the rest, colons and all, is the tensor.
  const std::string file = test::temp_path("w.safetensors");
  { OutputFile o(file); o.write("x"); o.commit(); }
  auto s = parse_tensor_spec(file + ":enc:emb");
  CHECK(s.path == file);
  CHECK(s.tensor == "enc:emb");
  const std::string odd = test::temp_path("a:b.safetensors");
  { OutputFile o(odd); o.write("x"); o.commit(); }
  s = parse_tensor_spec(odd + ":x:y");
  CHECK(s.path == odd);
  CHECK(s.tensor == "x:y");
  // Nothing exists: the path ends after the extension, so the error names it.
  s = parse_tensor_spec("missing.safetensors:enc:emb");
  CHECK(s.path == "missing.safetensors");
  CHECK(s.tensor == "enc:emb");
  s = parse_tensor_spec("missing:model.bin:t");
  CHECK(s.path == "missing:model.bin");
  CHECK(s.tensor == "t");
}

TEST_CASE("the same table in F32, F16, BF16 and F64 files reads as PyTorch upcasts it") {
  const auto f32 = test::load_matrix(weights("table_f32.npy"));
  auto st = WeightFile::open(weights("llama_f32.safetensors"));
  REQUIRE(st->format() == WeightFormat::safetensors);
  CHECK(st->tensors().size() == 2);
  const auto& emb = select_tensor(*st, "", kEmbeddingNames, "token embedding");
  CHECK(emb.name == "model.embed_tokens.weight");
  MappedTable t32(st, emb);
  CHECK(t32.vocab_size() == 1024);
  CHECK(t32.d_model() == 16);
  for (std::int64_t id : {0, 1, 500, 1023}) {
    const auto r = row_of(t32, id);
    for (std::size_t j = 0; j < 16; ++j) CHECK(r[j] == f32(static_cast<std::size_t>(id), j));
  }
  for (const char* name : {"llama_f16.safetensors", "table_f16.npy"}) {
    CAPTURE(name);
    auto table = open_embedding_table(weights(name));
    const auto r = row_of(*table, 77);
    for (std::size_t j = 0; j < 16; ++j) CHECK(r[j] == half_to_float(float_to_half(f32(77, j))));
  }
  auto bf = open_embedding_table(weights("llama_bf16.safetensors"));
  const auto r = row_of(*bf, 3);
  for (std::size_t j = 0; j < 16; ++j) CHECK(r[j] == bfloat16_to_float(float_to_bfloat16(f32(3, j))));
  auto f64 = open_embedding_table(weights("table_f64.npy"));
  CHECK(row_of(*f64, 9) == row_of(t32, 9));
  // Aligned F32 rows are read in place; converted dtypes have no float32 row to point at.
  const float* direct = t32.row_data(500);
  REQUIRE(direct != nullptr);
  CHECK(std::vector<float>(direct, direct + 16) == row_of(t32, 500));
  CHECK(bf->row_data(3) == nullptr);
  CHECK(f64->row_data(9) == nullptr);
}

TEST_CASE(".npy tables: int dtypes, other ranks and truncated data are refused") {
  CHECK_THROWS_WITH_AS(WeightFile::open(test::golden("numpy_i8_2x5.npy")), doctest::Contains("dtype <i8"), Error);
  CHECK_THROWS_WITH_AS(open_embedding_table(test::golden("numpy_f4_2x3x4.npy")), doctest::Contains("3 dimensions"),
                       Error);
  const std::string full = test::read_file(weights("table_f32.npy"));
  const std::string cut = test::temp_path("cut.npy");
  { OutputFile o(cut); o.write(full.substr(0, full.size() - 4)); o.commit(); }
  CHECK_THROWS_WITH_AS(WeightFile::open(cut), doctest::Contains("truncated"), Error);
}

TEST_CASE("padding_idx reads as zeros") {
  PaddingIdxTable t(open_embedding_table(weights("table_f32.npy")), 5);
  CHECK(row_of(t, 5) == std::vector<float>(16, 0.0f));
  CHECK(row_of(t, 6) != std::vector<float>(16, 0.0f));
  REQUIRE(t.row_data(5) != nullptr);
  REQUIRE(t.row_data(6) != nullptr);
  CHECK(std::vector<float>(t.row_data(5), t.row_data(5) + 16) == std::vector<float>(16, 0.0f));
  CHECK(std::vector<float>(t.row_data(6), t.row_data(6) + 16) == row_of(t, 6));
  CHECK_THROWS_AS(PaddingIdxTable(open_embedding_table(weights("table_f32.npy")), 1024), UsageError);
}

TEST_CASE("learned positions come from the file; beyond its rows is an error") {
  auto pe = open_position_table(weights("bert.safetensors"));
  CHECK(pe->max_len() == 64);
  CHECK(pe->d_model() == 16);
  std::vector<float> row(16);
  CHECK_NOTHROW(pe->row(63, row.data()));
  CHECK_THROWS_WITH_AS(pe->row(64, row.data()), doctest::Contains("truncate with seq_len"), UsageError);  // parameters, not flags (issue 12)
}

TEST_CASE("selecting tensors: explicit names, ambiguity, absence") {
  auto bert = WeightFile::open(weights("bert.safetensors"));
  CHECK(select_tensor(*bert, "", kEmbeddingNames, "token embedding").name == "embeddings.word_embeddings.weight");
  CHECK(select_tensor(*bert, "", kPositionNames, "position").name == "embeddings.position_embeddings.weight");
  CHECK_THROWS_WITH_AS(select_tensor(*bert, "nope", kEmbeddingNames, "token embedding"),
                       doctest::Contains("embeddings.position_embeddings.weight (64, 16) F32"), Error);
  auto ln = read_vector(*bert, *bert->find("embeddings.LayerNorm.weight"));
  CHECK(ln.size() == 16);
  CHECK_THROWS_AS(read_vector(*bert, *bert->find("embeddings.word_embeddings.weight")), Error);
}

TEST_CASE("quantize: per-row symmetric int8 round trip") {
  auto file = WeightFile::open(weights("table_f32.npy"));
  const std::string out_path = test::temp_path("q.safetensors");
  QuantizeReport report;
  {
    OutputFile out(out_path);
    report = quantize_table(*file, file->tensors().front(), out, 4.0f);
    out.commit();
  }
  auto q = open_embedding_table(out_path);
  auto f = open_embedding_table(weights("table_f32.npy"));
  double worst = 0;
  for (std::int64_t id = 0; id < 1024; ++id) {
    const auto a = row_of(*q, id), b = row_of(*f, id);
    float amax = 0;
    for (float v : b) amax = std::max(amax, std::abs(v));
    for (std::size_t j = 0; j < 16; ++j) {
      worst = std::max(worst, double(std::abs(a[j] - b[j])));
      CHECK(std::abs(a[j] - b[j]) <= amax / 127.0f * 0.5f * 1.0001f);  // half a step
    }
  }
  CHECK(report.max_abs_error == doctest::Approx(worst).epsilon(1e-6));
  CHECK(report.max_abs_output_error == doctest::Approx(worst * 4.0).epsilon(1e-6));
  CHECK(report.output_bytes == test::read_file(out_path).size());
}

TEST_CASE("npy headers of format versions 2 and 3 are read") {
  for (char version : {'\x02', '\x03'}) {
    std::string dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }";
    dict.append(64 - (12 + dict.size() + 1) % 64, ' ');
    dict += '\n';
    std::string file = std::string("\x93NUMPY", 6) + version + '\0';
    const std::uint32_t n = static_cast<std::uint32_t>(dict.size());
    for (int i = 0; i < 4; ++i) file += static_cast<char>((n >> (8 * i)) & 0xFF);
    file += dict + std::string(24, '\0');
    const auto h = parse_npy_header(file, "v.npy");
    CHECK(h.major_version == version);
    CHECK(h.shape == std::vector<std::size_t>{2, 3});
    CHECK(h.data_offset == file.size() - 24);
  }
}

TEST_CASE("safetensors: I64 tensors (encode's ids and mask) are listed, not read as tables") {
  const std::string json = R"({"ids":{"dtype":"I64","shape":[1,2],"data_offsets":[0,16]}})";
  std::string bytes(8, '\0');
  bytes[0] = static_cast<char>(json.size());
  bytes += json + std::string(16, '\0');
  WeightFormat format{};
  const std::vector<WeightTensor> tensors = parse_weight_header(bytes, "ids.safetensors", format);
  REQUIRE(tensors.size() == 1);
  CHECK(tensors[0].dtype == DType::int64);
  CHECK(tensors[0].size_bytes == 16);
}

TEST_CASE("issue 28 - a safetensors header that lists a tensor twice is refused naming it") {
  // nlohmann::json keeps the last of two equal keys: the file would read as
  // one tensor, the first entry's bytes unreferenced.
  auto file = [](const std::string& json, std::size_t data) {
    std::string bytes(8, '\0');
    bytes[0] = static_cast<char>(json.size());
    return bytes + json + std::string(data, '\0');
  };
  WeightFormat format{};
  const std::string twice = file(R"({"emb":{"dtype":"F32","shape":[1,2],"data_offsets":[0,8]},)"
                                 R"("emb":{"dtype":"F32","shape":[1,2],"data_offsets":[8,16]}})",
                                 16);
  CHECK_THROWS_WITH_AS(parse_weight_header(twice, "two.safetensors", format),
                       "two.safetensors: the .safetensors header lists tensor \"emb\" twice; which entry is meant is "
                       "ambiguous (corrupt file)",
                       Error);
  CHECK_THROWS_WITH_AS(embedpe::read_safetensors_entries(twice, "two.safetensors"), doctest::Contains("\"emb\" twice"),
                       Error);
  // A key twice inside one entry is as ambiguous.
  const std::string inner =
      file(R"({"emb":{"dtype":"F32","dtype":"F16","shape":[1,2],"data_offsets":[0,8]}})", 8);
  CHECK_THROWS_WITH_AS(parse_weight_header(inner, "in.safetensors", format),
                       doctest::Contains("the key \"dtype\" twice in one object (under \"emb\")"), Error);
  // Equal keys in different objects are not.
  const std::string apart = file(R"({"a":{"dtype":"F32","shape":[1,2],"data_offsets":[0,8]},)"
                                 R"("b":{"dtype":"F32","shape":[1,2],"data_offsets":[8,16]}})",
                                 16);
  CHECK(parse_weight_header(apart, "ok.safetensors", format).size() == 2);
}

TEST_CASE("check_quantize_output: a file named *.safetensors, in any case, and nothing else") {
  CHECK_NOTHROW(embedpe::check_quantize_output("emb-int8.safetensors"));
  CHECK_NOTHROW(embedpe::check_quantize_output("dir/EMB.SafeTensors"));
  for (const char* bad : {"", "emb.npy", "safetensors", ".safetensors", "dir/.safetensors", "emb.safetensors/"}) {
    try {
      embedpe::check_quantize_output(bad);
      FAIL("accepted '" << bad << "'");
    } catch (const embedpe::UsageError& e) {
      CHECK(e.parameters() == std::vector<std::string>{"output_path"});
    }
  }
}
