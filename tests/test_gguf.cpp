// The GGUF reader (lib/src/io/gguf.h) on files built here byte by byte, as
// ggml's docs/gguf.md lays them out, and the SentencePiece model rebuilt from
// a file's tokenizer (lib/src/text/gguf_tokenizer.h).
#include <doctest/doctest.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "embedpe/error.h"
#include "embedpe/tokenizer.h"
#include "embedpe/weights.h"
#include "gguf.h"
#include "gguf_tokenizer.h"
#include "embedpe/pretrained_tokenizer.h"
#include "test_support.h"

using namespace embedpe;

namespace {

// A little-endian GGUF writer for the tests.
struct Writer {
  std::string b;
  template <class T>
  Writer& put(T v) {
    b.append(reinterpret_cast<const char*>(&v), sizeof v);
    return *this;
  }
  Writer& str(const std::string& s) {
    put<std::uint64_t>(s.size());
    b += s;
    return *this;
  }
  Writer& header(std::uint32_t version, std::uint64_t tensors, std::uint64_t kvs) {
    b += "GGUF";
    return put(version).put(tensors).put(kvs);
  }
  Writer& kv_u32(const std::string& key, std::uint32_t v) { return str(key).put<std::uint32_t>(4).put(v); }
  Writer& kv_str(const std::string& key, const std::string& v) { return str(key).put<std::uint32_t>(8).str(v); }
  // A tensor info: dims in ggml order.
  Writer& tensor(const std::string& name, std::vector<std::uint64_t> dims, std::uint32_t type, std::uint64_t offset) {
    str(name).put<std::uint32_t>(static_cast<std::uint32_t>(dims.size()));
    for (auto d : dims) put(d);
    return put(type).put(offset);
  }
  Writer& pad(std::size_t alignment) {
    while (b.size() % alignment) b += '\0';
    return *this;
  }
};

// A file with one (3, 4) F32 tensor "t" (ggml dims [4, 3]) holding 0..11.
std::string one_tensor(std::uint32_t version = 3) {
  Writer w;
  w.header(version, 1, 1).kv_str("general.architecture", "llama").tensor("t", {4, 3}, 0, 0).pad(32);
  for (int k = 0; k < 12; ++k) w.put(static_cast<float>(k));
  return w.b;
}

std::string error_of(const std::string& bytes) {
  try {
    gguf::parse(bytes, "f.gguf");
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("a GGUF file's header, metadata and tensor infos, v2 and v3") {
  for (std::uint32_t version : {2u, 3u}) {
    const std::string bytes = one_tensor(version);
    const gguf::Parsed p = gguf::parse(bytes, "f.gguf");
    CHECK(p.version == version);
    REQUIRE(p.metadata.size() == 1);
    CHECK(p.metadata[0].first == "general.architecture");
    CHECK(p.metadata[0].second.str == "llama");
    REQUIRE(p.tensors.size() == 1);
    const gguf::TensorInfo& t = p.tensors[0];
    CHECK(t.dims == std::vector<std::uint64_t>{4, 3});
    CHECK(t.numpy_shape() == std::vector<std::size_t>{3, 4});  // ggml's [n_embd, n_vocab] is NumPy's (n_vocab, n_embd)
    CHECK(t.size_bytes == 48);
    CHECK(p.data_offset % 32 == 0);
    float f;
    std::memcpy(&f, bytes.data() + t.file_offset + 4 * 5, 4);
    CHECK(f == 5.0f);
  }
}

TEST_CASE("every metadata value type, nested arrays, and general.alignment") {
  Writer w;
  w.header(3, 0, 5);
  w.str("a.i8").put<std::uint32_t>(1).put<std::int8_t>(-5);
  w.str("a.f64").put<std::uint32_t>(12).put(0.25);
  w.str("a.bools").put<std::uint32_t>(9).put<std::uint32_t>(7).put<std::uint64_t>(2).put<std::uint8_t>(1).put<std::uint8_t>(0);
  w.str("a.nested").put<std::uint32_t>(9).put<std::uint32_t>(9).put<std::uint64_t>(2);
  w.put<std::uint32_t>(8).put<std::uint64_t>(1).str("x");               // ["x"]
  w.put<std::uint32_t>(11).put<std::uint64_t>(2).put<std::int64_t>(-1).put<std::int64_t>(7);  // [-1, 7]
  w.kv_u32("general.alignment", 64);
  const gguf::Parsed p = gguf::parse(w.b, "f.gguf");
  CHECK(p.metadata[0].second.integer() == -5);
  CHECK(p.metadata[1].second.f == 0.25);
  CHECK(p.metadata[2].second.count == 2);
  CHECK(p.metadata[2].second.element(0).i == 1);
  const gguf::Value& nested = p.metadata[3].second;
  REQUIRE(nested.items.size() == 2);
  CHECK(nested.items[0].strings.at(0) == "x");
  CHECK(nested.items[1].element(1).integer() == 7);
  CHECK(p.alignment == 64);
}

TEST_CASE("bad files: one UsageError naming the file, never a crash or a huge allocation") {
  const std::string good = one_tensor();
  CHECK(error_of(good).empty());
  SUBCASE("truncated anywhere") {
    for (std::size_t n = 0; n < good.size(); ++n) {
      const std::string e = error_of(good.substr(0, n));
      CHECK_MESSAGE(e.rfind("f.gguf: not a valid GGUF file", 0) == 0, n);
    }
  }
  SUBCASE("counts larger than the file") {
    std::string b = good;
    const std::uint64_t huge = ~std::uint64_t{0};
    std::memcpy(&b[8], &huge, 8);
    CHECK(error_of(b).find("more than the file holds") != std::string::npos);
    b = good;
    std::memcpy(&b[16], &huge, 8);
    CHECK(error_of(b).find("more than the file holds") != std::string::npos);
  }
  SUBCASE("a string longer than the file") {
    std::string b = good;
    const std::uint64_t len = std::uint64_t{1} << 40;
    std::memcpy(&b[24], &len, 8);
    CHECK(error_of(b).find("bytes long") != std::string::npos);
  }
  SUBCASE("version 1, an unknown value type, an unknown tensor type") {
    std::string b = good;
    b[4] = 1;
    CHECK(error_of(b).find("version 1") != std::string::npos);
    b = good;
    b[24 + 8 + 20] = 13;  // the type after "general.architecture"
    CHECK(error_of(b).find("unknown value type 13") != std::string::npos);
    Writer w;
    w.header(3, 1, 0).tensor("t", {4}, 99, 0).pad(32).put(0.0f);
    CHECK(error_of(w.b).find("type 99") != std::string::npos);
  }
  SUBCASE("tensor infos") {
    Writer dup;
    dup.header(3, 2, 0).tensor("t", {4}, 0, 0).tensor("t", {4}, 0, 32).pad(32).b += std::string(64, '\0');
    CHECK(error_of(dup.b).find("appears twice") != std::string::npos);
    Writer dims;
    dims.header(3, 1, 0).tensor("t", {1, 1, 1, 1, 1}, 0, 0).pad(32).b += std::string(4, '\0');
    CHECK(error_of(dims.b).find("5 dimensions") != std::string::npos);
    Writer zero;
    zero.header(3, 1, 0).tensor("t", {4, 0}, 0, 0).pad(32);
    CHECK(error_of(zero.b).find("dimension of 0") != std::string::npos);
    Writer product;
    product.header(3, 1, 0).tensor("t", {1u << 31, 1u << 31, 1u << 31, 8}, 0, 0).pad(32);
    CHECK(error_of(product.b).find("overflows") != std::string::npos);
    Writer block;  // a Q4_0 row must hold whole blocks of 32
    block.header(3, 1, 0).tensor("t", {16}, 2, 0).pad(32).b += std::string(18, '\0');
    CHECK(error_of(block.b).find("not a multiple of its block of 32") != std::string::npos);
  }
  SUBCASE("offsets: misaligned, out of range, overlapping") {
    Writer mis;
    mis.header(3, 1, 0).tensor("t", {4}, 0, 4).pad(32).b += std::string(64, '\0');
    CHECK(error_of(mis.b).find("not a multiple of the alignment 32") != std::string::npos);
    Writer out;
    out.header(3, 1, 0).tensor("t", {4}, 0, 64).pad(32).b += std::string(64, '\0');
    CHECK(error_of(out.b).find("past the end") != std::string::npos);
    Writer overlap;
    overlap.header(3, 2, 0).tensor("a", {16}, 0, 0).tensor("b", {4}, 0, 32).pad(32).b += std::string(64, '\0');
    CHECK(error_of(overlap.b).find("tensors a and b overlap") != std::string::npos);
  }
  SUBCASE("arrays nested deeper than 8") {
    Writer w;
    w.header(3, 0, 1).str("deep").put<std::uint32_t>(9);
    for (int k = 0; k < 10; ++k) w.put<std::uint32_t>(9).put<std::uint64_t>(1);
    w.put<std::uint32_t>(0).put<std::uint64_t>(0);
    CHECK(error_of(w.b).find("deeper than 8") != std::string::npos);
  }
}

TEST_CASE("the names of a split's parts") {
  CHECK(gguf::split_paths("m-00002-of-00003.gguf") ==
        std::vector<std::string>{"m-00001-of-00003.gguf", "m-00002-of-00003.gguf", "m-00003-of-00003.gguf"});
  CHECK(gguf::split_paths("m.gguf").empty());
  CHECK(gguf::split_paths("m-0001-of-0003.gguf").empty());
}

namespace {

// A vocabulary-only file: pieces, scores and types (llama_token_type numbers), and more keys.
std::string vocab_file(const std::vector<std::string>& pieces, const std::vector<float>& scores,
                       const std::vector<std::int32_t>& types, const std::string& extra = "", std::uint64_t extra_kvs = 0) {
  Writer w;
  w.header(3, 0, 4 + extra_kvs).kv_str("tokenizer.ggml.model", "llama");
  w.str("tokenizer.ggml.tokens").put<std::uint32_t>(9).put<std::uint32_t>(8).put<std::uint64_t>(pieces.size());
  for (const auto& p : pieces) w.str(p);
  w.str("tokenizer.ggml.scores").put<std::uint32_t>(9).put<std::uint32_t>(6).put<std::uint64_t>(scores.size());
  for (float s : scores) w.put(s);
  w.str("tokenizer.ggml.token_type").put<std::uint32_t>(9).put<std::uint32_t>(5).put<std::uint64_t>(types.size());
  for (std::int32_t t : types) w.put(t);
  w.b += extra;
  const std::string path = test::temp_path("vocab.gguf");
  std::FILE* f = std::fopen(path.c_str(), "wb");
  REQUIRE(f);
  std::fwrite(w.b.data(), 1, w.b.size(), f);
  std::fclose(f);
  return path;
}

}  // namespace

TEST_CASE("a tokenizer rebuilt from tokenizer.ggml.*: SentencePiece BPE by score, BOS added, EOS not") {
  const std::string path = vocab_file({"<unk>", "<s>", "</s>", "\xE2\x96\x81", "a", "b", "\xE2\x96\x81" "a", "ab"},
                                      {0.0f, 0.0f, 0.0f, -1.0f, -2.0f, -3.0f, -0.5f, -0.4f}, {2, 3, 3, 1, 1, 1, 1, 1});
  const GgufSentencePiece g = gguf_sentencepiece(*gguf::File::open(path));
  CHECK(g.bos_id == 1);
  CHECK(g.eos_id == 2);
  CHECK(g.add_bos);
  CHECK_FALSE(g.add_eos);
  const Tokenizer tok = load_pretrained_tokenizer(path);
  // "▁ab": ab (-0.4) merges before ▁a (-0.5): ▁ ab
  CHECK(tok.encode("ab").ids == std::vector<int>{3, 7});
  EncodeOptions opt;
  const Batch b = tok.encode_batch({"ab"}, opt);
  CHECK(b.input_ids(0, 0) == 1);
  CHECK(b.seq_len() == 3);  // <s> ▁ ab, no </s>
  std::remove(path.c_str());
}

TEST_CASE("a GGUF vocabulary as convert_hf_to_gguf.py types it: <unk> CONTROL, added tokens USER_DEFINED, fillers UNUSED") {
  // llama.cpp's llm_tokenizer_spm over these: pairs merge into any piece of the highest score;
  // USER_DEFINED pieces are cut out of the text first and the run after one gets a leading space.
  const std::vector<std::string> pieces = {"<unk>", "<s>", "</s>", "\xE2\x96\x81", "a", "b", "\xE2\x96\x81" "a",
                                           "ab", "<x>", "[PAD9]", "<", ">", "x"};
  const std::vector<float> scores = {0, 0, 0, -1, -2, -3, -0.5f, -0.4f, -1000, -10000, -4, -4, -4};
  const std::vector<std::int32_t> types = {3, 3, 3, 1, 1, 1, 1, 1, 4, 5, 1, 1, 1};
  // The converter writes no unknown_token_id for LLaMA/Mistral: llama.cpp's default, 0.
  const std::string path = vocab_file(pieces, scores, types);
  const GgufSentencePiece g = gguf_sentencepiece(*gguf::File::open(path));
  CHECK(g.unk_id == 0);
  CHECK(g.unk_piece == "<unk>");
  const Tokenizer tok = load_pretrained_tokenizer(path);  // SentencePiece wanted an UNKNOWN piece
  CHECK(tok.info().unk_id == 0);
  // "a<x>b": ▁a, then <x> cut out, then "b" prefixed: ▁ b
  CHECK(tok.encode("a<x>b").ids == std::vector<int>{6, 8, 3, 5});
  // CONTROL and UNUSED pieces are not cut out of text: "<s>" is < s > (s as its byte: none here → refused)
  CHECK(tok.encode("<x><x>").ids == std::vector<int>{8, 8});
  CHECK_THROWS_AS(tok.encode("<s>"), UsageError);
  CHECK(tok.decode(std::vector<int>{1, 6, 8, 3, 5}) == "a<x> b");
  std::remove(path.c_str());
}

TEST_CASE("a GGUF vocabulary with a piece given twice is a bad file") {
  const std::string path = vocab_file({"<unk>", "a", "a"}, {0, 0, 0}, {2, 1, 1});
  CHECK_THROWS_WITH_AS(gguf_sentencepiece(*gguf::File::open(path)), doctest::Contains("token 2 (a)"), UsageError);
  std::remove(path.c_str());
}
