// app/errors.cpp: the one place where the library's parameter names become
// the command line's flags. It needs no CLI11, so it is tested here, against
// the lines users read before the library stopped naming flags.
#include <doctest/doctest.h>

#include <filesystem>
#include <string>

#include "embedpe/embedding.h"
#include "embedpe/error.h"
#include "embedpe/input_layer.h"
#include "embedpe/positional_encoding.h"
#include "embedpe/tokenizer.h"
#include "errors.h"
#include "test_support.h"

using embedpe::UsageError;
using embedpe::cli::flag_for;
using embedpe::cli::user_message;

namespace {

// What main() prints for the error `f` throws.
template <class F>
std::string printed(F&& f) {
  try {
    f();
  } catch (const embedpe::Error& e) {
    return user_message(e);
  }
  FAIL_CHECK("no embedpe::Error thrown");
  return {};
}

}  // namespace

TEST_CASE("flag_for: kebab case, unless the table says otherwise") {
  CHECK(flag_for("max_len") == "--max-len");
  CHECK(flag_for("seq_len") == "--seq-len");
  CHECK(flag_for("threads") == "--threads");
  CHECK(flag_for("output_path") == "--output");
  CHECK(flag_for("layer_norm.eps") == "--layernorm-eps");
  CHECK(flag_for("dropout.p") == "--dropout");
  CHECK(flag_for("add_bos=false") == "--no-bos");
  CHECK(flag_for("add_eos=false") == "--no-eos");
}

TEST_CASE("user_message respells the listed parameters, whole words only") {
  CHECK(user_message(UsageError("raise max_len (max_len 10)", {"max_len"})) == "raise --max-len (--max-len 10)");
  // Not listed: left alone, as in "the embedding table has d_model 64".
  CHECK(user_message(UsageError("d_model 64 but max_len 3", {"max_len"})) == "d_model 64 but --max-len 3");
  // Part of a longer word, or already a flag: left alone.
  CHECK(user_message(UsageError("max_lens, pre_max_len, --max-len", {"max_len"})) == "max_lens, pre_max_len, --max-len");
  CHECK(user_message(UsageError("seq_len 1; use 2, or add_bos=false/add_eos=false",
                                {"seq_len", "add_bos=false", "add_eos=false"})) ==
        "--seq-len 1; use 2, or --no-bos/--no-eos");
  CHECK(user_message(embedpe::Error("no parameters here: max_len")) == "no parameters here: max_len");
  CHECK(user_message(UsageError("empty name", {""})) == "empty name");
  CHECK(user_message(UsageError("raise max_len.", {"max_len"})) == "raise --max-len.");
  CHECK(user_message(UsageError("[max_len, seq_len]: max_len=3", {"max_len", "seq_len"})) ==
        "[--max-len, --seq-len]: --max-len=3");
}

TEST_CASE("user_message leaves the user's words alone: paths and quoted values that spell a parameter") {
  CHECK(user_message(UsageError("pad_id 9 is outside the vocabulary (0..7 for model /tmp/pad_id)", {"pad_id"})) ==
        "--pad-id 9 is outside the vocabulary (0..7 for model /tmp/pad_id)");
  CHECK(user_message(UsageError("scale must be sqrt, none or a number, not 'scale'", {"scale"})) ==
        "--scale must be sqrt, none or a number, not 'scale'");
  CHECK(user_message(UsageError("table seq_len.npy has 3 rows; lower seq_len", {"seq_len"})) ==
        "table seq_len.npy has 3 rows; lower --seq-len");
  // '/' joins alternatives only right after a respelled mention.
  CHECK(user_message(UsageError("use a/seq_len or seq_len/max_len", {"seq_len", "max_len"})) ==
        "use a/seq_len or --seq-len/--max-len");
}

TEST_CASE("user_message copies the spans an error marks verbatim as they are") {
  // A directory called output_dir, named next to the parameter output_dir.
  const std::string text = "output_dir output_dir exists; choose another output_dir";
  CHECK(user_message(UsageError(text, {"output_dir"}, {{11, 10}})) ==
        "--output-dir output_dir exists; choose another --output-dir");
  // Prose that spells a parameter, and a span at the very start.
  CHECK(user_message(UsageError("resume: run it again to resume, or not", {"resume"}, {{24, 6}})) ==
        "--resume: run it again to resume, or not");
  CHECK(user_message(UsageError("a resume/x is not a directory", {"resume"}, {{0, 10}})) ==
        "a resume/x is not a directory");
}

TEST_CASE("a model whose path spells a parameter: the path reads as the user gave it") {
  const std::string dir = test::temp_dir("errors-model-path");
  const std::string path = dir + "/pad_id";
  std::filesystem::copy_file(test::source_path("tests/models/sp-test.model"), path);
  const embedpe::Tokenizer tok = embedpe::Tokenizer::from_file(path);
  embedpe::EncodeOptions opt;
  opt.pad_id = 5000;
  CHECK(printed([&] { tok.encode_batch({"x"}, opt); }) ==
        "--pad-id 5000 is outside the vocabulary (0..999 for model " + path + ")");
}

// Each line is what the command line printed when the library still named
// flags itself; the library's errors must read exactly so after respelling.
TEST_CASE("library errors read as before on the command line") {
  using namespace embedpe;
  CHECK(printed([] { RandomNormalTable(8, 0, 0); }) == "--d-model must be at least 1");
  CHECK(printed([] { PaddingIdxTable(std::make_unique<RandomNormalTable>(8, 4, 0), 8); }) ==
        "--padding-idx 8 is outside the table's 8 rows");
  CHECK(printed([] { Scale::parse("x"); }) == "--scale must be sqrt, none or a finite number, not 'x'");

  RandomNormalTable table(10, 4, 0);
  SinusoidalEncoding pe({.d_model = 4, .max_len = 3});
  CHECK(printed([&] { InputLayer(table, pe, {.dropout = Dropout{1.0, 1}}); }) == "--dropout must be in [0, 1)");
  CHECK(printed([&] { InputLayer(table, pe, {.layer_norm = LayerNorm{{1, 1, 1, 1}, {0, 0, 0, 0}, -1.0}}); }) ==
        "--layernorm-eps must be a positive number");
  CHECK(printed([&] { InputLayer(table, pe, {.pad_position = 3}).forward(xt::xtensor<std::int64_t, 2>({{1}})); }) ==
        "--pad-position 3 is beyond the position table");
  CHECK(printed([&] { InputLayer(table, pe, {}).forward(xt::xtensor<std::int64_t, 2>({{1, 2, 3, 4}})); }) ==
        "sequences are 4 tokens long but the PE table has 3 positions (--max-len); raise --max-len, or truncate "
        "with --seq-len");

  const Tokenizer tok = Tokenizer::default_model();
  EncodeOptions opt;
  opt.seq_len = 1;
  CHECK(printed([&] { tok.encode_batch({"x"}, opt); }) ==
        "--seq-len 1 leaves no room for BOS and EOS; use at least 2, or --no-bos/--no-eos");
  opt = {};
  opt.pad_id = 8000;
  CHECK(printed([&] { tok.encode_batch({"x"}, opt); }).rfind("--pad-id 8000 is outside the vocabulary (0..7999 for model ",
                                                             0) == 0);
}

TEST_CASE("issue 12 – a path spelled like a parameter is the user's text, never respelled") {
  // "shard needs a regular file, and shard is not one": the second "shard" is a file.
  const std::string head = "shard needs a regular file, and ";
  CHECK(user_message(UsageError(head + "shard is not one", {"shard"}, {{head.size(), 5}})) ==
        "--shard needs a regular file, and shard is not one");
  // A span at the start, then a respelled mention after it.
  CHECK(user_message(UsageError("max_len:3 is long; raise max_len", {"max_len"}, {{0, 9}})) ==
        "max_len:3 is long; raise --max-len");
  // An empty or out-of-range span changes nothing.
  CHECK(user_message(UsageError("raise max_len", {"max_len"}, {{0, 0}, {100, 3}})) == "raise --max-len");
}

TEST_CASE("a broken invariant is an InternalError: exit status 70, not a user's runtime error (1) or usage error (2)") {
  const embedpe::InternalError e("two parts claimed one index");
  CHECK(e.exit_code() == 70);
  CHECK(std::string(e.what()) == "internal error: two parts claimed one index (a bug in embedpe; please report it)");
  const embedpe::Error& as_error = e;  // caught where every library error is
  CHECK(as_error.exit_code() == 70);
}
