// embedpe/layer_spec.h: a layer built whole from plain values, its config,
// and the checks it makes before any file is read.
#include <doctest/doctest.h>

#include <string>
#include <utility>
#include <vector>

#include "embedpe/error.h"
#include "embedpe/layer_spec.h"
#include "embedpe/tokenizer.h"
#include "errors.h"

using embedpe::LayerSpec;

TEST_CASE("build_layer: the default spec is N(0,1) rows × sqrt(512) + sinusoidal PE, and says so") {
  const auto tok = embedpe::Tokenizer::default_model();
  const LayerSpec spec;
  const embedpe::Layer layer = embedpe::build_layer(spec, tok);
  CHECK(layer.d_model() == 512);
  CHECK(layer.table().vocab_size() == tok.info().vocab_size);
  REQUIRE(layer.positions() != nullptr);
  CHECK(layer.positions()->max_len() == 5000);
  CHECK(layer.config()["scale"] == "sqrt");
  CHECK(layer.config()["seed"] == 0);
  CHECK(layer.config()["layernorm"].is_null());
  const auto ids = tok.encode_batch({"hello"}, {}).input_ids;
  const auto out = layer.input_layer().forward(ids);
  CHECK(out.output.shape()[2] == 512);
}

TEST_CASE("build_layer: the layer owns its parts, so it can be moved and used") {
  const auto tok = embedpe::Tokenizer::default_model();
  LayerSpec spec;
  spec.table.d_model = 8;
  spec.layernorm = true;
  embedpe::Layer a = embedpe::build_layer(spec, tok);
  const auto ids = tok.encode_batch({"hello world"}, {}).input_ids;
  const auto expected = a.input_layer().forward(ids).output;
  const embedpe::Layer b = std::move(a);
  CHECK(b.input_layer().forward(ids).output == expected);
  CHECK(b.config()["layernorm"]["weight"] == "1");
}

TEST_CASE("check_seq_len: a fixed seq_len longer than the table is refused, naming parameters") {
  LayerSpec spec;
  spec.max_len = 10;
  CHECK_NOTHROW(embedpe::check_seq_len(spec, 10));
  CHECK_NOTHROW(embedpe::check_seq_len(spec, std::nullopt));
  try {
    embedpe::check_seq_len(spec, 11);
    FAIL("no error");
  } catch (const embedpe::UsageError& e) {
    CHECK(embedpe::cli::user_message(e) ==
          "--seq-len 11 is longer than the PE table (--max-len 10); raise --max-len or lower --seq-len");
  }
  spec.position_offset = 3;
  CHECK_THROWS_AS(embedpe::check_seq_len(spec, 8), embedpe::UsageError);
  CHECK_NOTHROW(embedpe::check_seq_len(spec, 7));
}

TEST_CASE("build_layer: files for a kind that reads none, and LayerNorm files without LayerNorm, are refused") {
  const auto tok = embedpe::Tokenizer::default_model();
  LayerSpec spec;
  spec.table.d_model = 8;
  spec.pe_weights = "wpe.npy";
  try {
    embedpe::build_layer(spec, tok);
    FAIL("no error");
  } catch (const embedpe::UsageError& e) {
    CHECK(embedpe::cli::user_message(e) == "--pe-weights needs --pe learned");
  }
  spec.pe_weights.clear();
  spec.layernorm_bias = "beta.npy";
  try {
    embedpe::build_layer(spec, tok);
    FAIL("no error");
  } catch (const embedpe::UsageError& e) {
    CHECK(embedpe::cli::user_message(e) == "--layernorm-weight and --layernorm-bias need --layernorm");
  }
}

TEST_CASE("layer_inputs: the files the spec names, by parameter, the PE kind's too") {
  embedpe::LayerSpec spec;
  CHECK(embedpe::layer_inputs(spec).empty());
  spec.table.weights = "w.safetensors:emb";
  spec.layernorm_bias = "b.npy";
  using Files = std::vector<std::pair<std::string, std::string>>;
  CHECK(embedpe::layer_inputs(spec) == Files{{"weights", "w.safetensors:emb"}, {"layernorm_bias", "b.npy"}});
  spec.pe = &embedpe::find_pe_kind("t5");
  spec.pe_args.set("weights", std::string("t5.npy"));
  CHECK(embedpe::layer_inputs(spec).back() == std::pair<std::string, std::string>{"weights", "t5.npy"});
}

TEST_CASE("build_layer: max_len given for a kind whose table it does not size is refused, before any file") {
  LayerSpec spec;
  spec.max_len = 8;
  spec.pe = &embedpe::find_pe_kind("learned");
  spec.pe_weights = "/nonexistent/pe.npy";  // never opened: the refusal comes first
  const embedpe::Tokenizer tok = embedpe::Tokenizer::default_model();
  try {
    embedpe::build_layer(spec, tok);
    FAIL("no error");
  } catch (const embedpe::UsageError& e) {
    CHECK(embedpe::cli::user_message(e) ==
          "--max-len sizes a PE table that embedpe computes (sinusoidal, block); --pe learned reads its table, whose "
          "rows are the positions there are: drop --max-len");
  }
  spec.pe = &embedpe::find_pe_kind("none");
  spec.pe_weights.clear();
  CHECK_THROWS_WITH_AS(embedpe::build_layer(spec, tok), doctest::Contains("none has none"), embedpe::UsageError);
  spec.max_len.reset();
  CHECK_NOTHROW(embedpe::build_layer(spec, tok));
}

TEST_CASE("a seed with weights draws nothing and is refused, before the file is read, unless it seeds dropout") {
  const embedpe::Tokenizer tok = embedpe::Tokenizer::default_model();
  LayerSpec spec;
  spec.table.weights = "/nonexistent/emb.npy";  // never opened: the refusal comes first
  spec.table.seed = 0;                          // given, even as the default value
  auto message = [&](auto&& call) -> std::string {
    try {
      call();
    } catch (const embedpe::UsageError& e) {
      return embedpe::cli::user_message(e);
    }
    return "";
  };
  CHECK(message([&] { embedpe::build_layer(spec, tok); }) ==
        "--seed draws the generated table (and with --train the dropout mask), and --weights gives the table: "
        "drop --seed");
  CHECK(message([&] { embedpe::open_table(spec.table, &tok); }) ==
        "--seed draws the generated table, and --weights gives the table: drop --seed");
  // Training: the seed draws the dropout mask, so it is the file that is missing now.
  spec.dropout = embedpe::Dropout{0.1, 0};
  CHECK_THROWS_WITH_AS(embedpe::build_layer(spec, tok), doctest::Contains("cannot open weight file"), embedpe::Error);
}
