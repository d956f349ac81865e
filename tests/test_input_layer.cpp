#include <doctest/doctest.h>

#include <cmath>

#include "embedpe/error.h"
#include "embedpe/input_layer.h"
#include "embedpe/tensor_io.h"
#include "error_support.h"
#include "test_support.h"

using namespace embedpe;

TEST_CASE("output equals the PyTorch embedding × √d_model + PE recipe (eval) for given weights") {
  const auto cases = test::read_json(test::golden("layer_cases.json"))["cases"];
  for (const auto& c : cases) {
    const std::string name = c["name"];
    SUBCASE(name.c_str()) {
      const std::size_t d = c["d_model"];
      DenseTable table(test::load_matrix(test::golden("layer_" + name + "_weights.npy")));
      SinusoidalEncoding pe({.d_model = d, .max_len = c["max_len"].get<std::size_t>()});
      InputLayer layer(table, pe, {.scale = Scale::parse(c["scale"].get<std::string>())});
      const auto ids_v = c["ids"].get<std::vector<std::vector<std::int64_t>>>();
      auto ids = xt::xtensor<std::int64_t, 2>::from_shape({ids_v.size(), ids_v[0].size()});
      for (std::size_t b = 0; b < ids_v.size(); ++b)
        for (std::size_t l = 0; l < ids_v[b].size(); ++l) ids(b, l) = ids_v[b][l];

      const auto out = layer.forward(ids).output;
      const auto file = test::read_file(test::golden("layer_" + name + "_output.npy"));
      const auto h = parse_npy_header(file, name);
      REQUIRE(h.shape == std::vector<std::size_t>(out.shape().begin(), out.shape().end()));
      const float* want = reinterpret_cast<const float*>(file.data() + h.data_offset);
      // PyTorch's float32 PE differs from the float64-rounded one by a few
      // ulps at these positions; |diff| <= 1e-5 · max(1, |value|).
      double worst = 0;
      for (std::size_t i = 0; i < out.size(); ++i) {
        const double diff = std::abs(double(out.data()[i]) - want[i]);
        worst = std::max(worst, diff / std::max(1.0, std::abs(double(want[i]))));
      }
      CAPTURE(worst);
      CHECK(worst <= 1e-5);
    }
  }
}

TEST_CASE("fused output = token_embeddings + positional_encoding, exactly") {
  RandomNormalTable table(100, 9, 3);
  SinusoidalEncoding pe({.d_model = 9, .max_len = 50});
  InputLayer layer(table, pe, {.want_token_embeddings = true});
  xt::xtensor<std::int64_t, 2> ids = {{1, 2, 3, 99}, {0, 0, 5, 6}};
  auto r = layer.forward(ids);
  REQUIRE(r.token_embeddings.shape() == r.output.shape());
  REQUIRE(r.positional_encoding.shape()[0] == 4);
  std::vector<float> row(9);
  table.row(99, row.data());
  const float scale = static_cast<float>(std::sqrt(9.0));
  for (std::size_t j = 0; j < 9; ++j) {
    CHECK(r.token_embeddings(0, 3, j) == row[j] * scale);
    CHECK(r.output(0, 3, j) == r.token_embeddings(0, 3, j) + r.positional_encoding(3, j));
  }
}

namespace {
xt::xtensor<std::int64_t, 2> id_grid(std::size_t batch, std::size_t seq_len, std::int64_t vocab, std::uint64_t salt) {
  auto ids = xt::xtensor<std::int64_t, 2>::from_shape({batch, seq_len});
  for (std::size_t i = 0; i < ids.size(); ++i) {
    ids.data()[i] = static_cast<std::int64_t>(splitmix64(salt + i) % static_cast<std::uint64_t>(vocab));
  }
  return ids;
}
}  // namespace

TEST_CASE("a stream of batches: reused buffers and kept PE rows give what fresh layers give") {
  RandomNormalTable table(300, 10, 4);
  SinusoidalEncoding pe({.d_model = 10, .max_len = 64});
  const InputLayerOptions options{.position_offset = 2, .want_token_embeddings = true};
  InputLayer streaming(table, pe, options);
  InputLayerOutput out;
  // Lengths that grow and shrink, so the kept PE rows are extended and then
  // only partly used; one thread and three.
  const std::size_t lengths[] = {3, 9, 2, 9, 17, 1};
  for (std::size_t k = 0; k < std::size(lengths); ++k) {
    CAPTURE(k);
    const auto ids = id_grid(k + 1, lengths[k], 300, k * 1000);
    streaming.forward_into(out, ids, {}, k % 2 ? 3 : 1);
    RandomNormalTable fresh_table(300, 10, 4);
    const auto want = InputLayer(fresh_table, pe, options).forward(ids);
    CHECK(out.output == want.output);
    CHECK(out.token_embeddings == want.token_embeddings);
    CHECK(out.positional_encoding == want.positional_encoding);
  }
}

TEST_CASE("an output larger than the caches (streaming stores) equals the cached path") {
  // 16 × 512 × 1024 floats = 32 MiB, the size from which rows bypass the
  // cache and are written position by position.
  RandomNormalTable table(1000, 1024, 1);
  SinusoidalEncoding pe({.d_model = 1024, .max_len = 600});
  const auto ids = id_grid(16, 512, 1000, 7);
  const auto big = InputLayer(table, pe, {}).forward(ids, {}, 2).output;
  const auto with_tok = InputLayer(table, pe, {.want_token_embeddings = true}).forward(ids, {}, 2);
  CHECK(big == with_tok.output);
  CHECK(big(15, 511, 1023) == with_tok.token_embeddings(15, 511, 1023) + with_tok.positional_encoding(511, 1023));
  // RoBERTa-style positions (offset 2, padding at position 1) on an odd thread split.
  xt::xtensor<std::int64_t, 2> mask = xt::ones<std::int64_t>({16, 512});
  for (std::size_t b = 0; b < 16; ++b)
    for (std::size_t l = 400 + b; l < 512; ++l) mask(b, l) = 0;
  const InputLayerOptions roberta{.position_offset = 2, .pad_position = 1};
  InputLayerOptions roberta_tok = roberta;
  roberta_tok.want_token_embeddings = true;
  CHECK(InputLayer(table, pe, roberta).forward(ids, mask, 3).output ==
        InputLayer(table, pe, roberta_tok).forward(ids, mask, 3).output);
}

TEST_CASE("scale: sqrt, none, a number; anything else is an error") {
  CHECK(Scale::parse("sqrt").factor(512) == static_cast<float>(std::sqrt(512.0)));
  CHECK(Scale::parse("none").factor(512) == 1.0f);
  CHECK(Scale::parse("0.5").factor(512) == 0.5f);
  CHECK(Scale::parse("-2").factor(3) == -2.0f);
  CHECK(Scale::parse("0.5").to_string() == "0.5");
  for (const char* bad : {"", "sqr", "1e999", "nan", "inf", "2x", " 1"}) {
    CAPTURE(bad);
    CHECK_THROWS_AS(Scale::parse(bad), UsageError);
  }
}

TEST_CASE("dropout: only in training, inverted, reproducible from the seed") {
  RandomNormalTable table(1000, 64, 0);
  SinusoidalEncoding pe({.d_model = 64, .max_len = 100});
  auto ids = xt::xtensor<std::int64_t, 2>::from_shape({8, 50});
  for (std::size_t i = 0; i < ids.size(); ++i) ids.data()[i] = static_cast<std::int64_t>(i % 1000);
  const auto eval = InputLayer(table, pe, {}).forward(ids).output;
  const auto a = InputLayer(table, pe, {.dropout = Dropout{0.25, 42}}).forward(ids).output;
  const auto b = InputLayer(table, pe, {.dropout = Dropout{0.25, 42}}).forward(ids).output;
  const auto c = InputLayer(table, pe, {.dropout = Dropout{0.25, 43}}).forward(ids).output;
  CHECK(a == b);
  CHECK(a != c);
  std::size_t dropped = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a.data()[i] == 0.0f) {
      ++dropped;
    } else {
      CHECK(a.data()[i] == eval.data()[i] * static_cast<float>(1.0 / 0.75));
    }
  }
  CHECK(double(dropped) / double(a.size()) == doctest::Approx(0.25).epsilon(0.05));
  const auto none = InputLayer(table, pe, {.dropout = Dropout{0.0, 42}}).forward(ids).output;
  CHECK(none == eval);
  CHECK_THROWS_AS(InputLayer(table, pe, {.dropout = Dropout{1.0, 1}}), UsageError);
  CHECK_THROWS_AS(InputLayer(table, pe, {.dropout = Dropout{-0.1, 1}}), UsageError);
}

TEST_CASE("errors: sequence longer than the PE table, id outside the table, d_model mismatch, absurd sizes") {
  RandomNormalTable table(10, 4, 0);
  SinusoidalEncoding pe({.d_model = 4, .max_len = 3});
  InputLayer layer(table, pe, {});
  CHECK_THROWS_WITH_AS(layer.forward(xt::xtensor<std::int64_t, 2>({{1, 2, 3, 4}})),
                       doctest::Contains("raise max_len"), UsageError);  // parameters, not flags (issue 12)
  CHECK_THROWS_WITH_AS(layer.forward(xt::xtensor<std::int64_t, 2>({{1, 10}})),
                       doctest::Contains("token id 10"), UsageError);
  CHECK_THROWS_AS(layer.forward(xt::xtensor<std::int64_t, 2>({{-1}})), UsageError);
  SinusoidalEncoding pe8({.d_model = 8});
  CHECK_THROWS_AS(InputLayer(table, pe8, {}), UsageError);

  // 100000 × 2 × 65536 floats = 48.8 GiB: refused before allocating.
  RandomNormalTable wide(10, 65536, 0);
  SinusoidalEncoding pe_wide({.d_model = 65536, .max_len = 2});
  InputLayer huge(wide, pe_wide, {});
  auto many = xt::xtensor<std::int64_t, 2>::from_shape({100000, 2});
  many.fill(1);
  CHECK_THROWS_WITH_AS(huge.forward(many), doctest::Contains("would need 48.8 GiB"), UsageError);
  // A 2^40-wide encoding keeps no frequency table (it would be 8 TiB), so it
  // can be built; a full row of it is refused before it is allocated.
  SinusoidalEncoding pe_huge({.d_model = std::size_t(1) << 40});
  CHECK_THROWS_WITH_AS(pe_huge.rows(0, 1), doctest::Contains("would need 4096.0 GiB"), UsageError);
}

TEST_CASE("errors name the parameters, not a front end's flags") {
  RandomNormalTable table(10, 4, 0);
  SinusoidalEncoding pe({.d_model = 4, .max_len = 3});

  const test::Caught dropout = test::caught([&] { InputLayer(table, pe, {.dropout = Dropout{1.0, 1}}); });
  CHECK(dropout.message == "dropout.p must be in [0, 1)");
  CHECK(dropout.parameters == std::vector<std::string>{"dropout.p"});

  const test::Caught eps =
      test::caught([&] { InputLayer(table, pe, {.layer_norm = LayerNorm{{1, 1, 1, 1}, {0, 0, 0, 0}, 0.0}}); });
  CHECK(eps.message == "layer_norm.eps must be a positive number");
  CHECK(eps.parameters == std::vector<std::string>{"layer_norm.eps"});

  const test::Caught scale = test::caught([] { Scale::parse("sqr"); });
  CHECK(scale.message == "scale must be sqrt, none or a finite number, not 'sqr'");
  CHECK(scale.parameters == std::vector<std::string>{"scale"});

  const test::Caught pad = test::caught([&] {
    InputLayer(table, pe, {.pad_position = 3}).forward(xt::xtensor<std::int64_t, 2>({{1}}));
  });
  CHECK(pad.message == "pad_position 3 is beyond the position table");
  CHECK(pad.parameters == std::vector<std::string>{"pad_position"});

  // The table's hint says how to make it longer; the layer adds truncation.
  const test::Caught longer =
      test::caught([&] { InputLayer(table, pe, {}).forward(xt::xtensor<std::int64_t, 2>({{1, 2, 3, 4}})); });
  CHECK(longer.message.rfind("sequences are 4 tokens long but the PE table has 3 positions", 0) == 0);
  CHECK(longer.message.find("or truncate with seq_len") != std::string::npos);
  CHECK(longer.parameters == std::vector<std::string>{"max_len", "seq_len"});
}

TEST_CASE("positions_from_mask: left-padded tokens sit at 0..n-1, padding at pad_position or 0") {
  RandomNormalTable table(100, 6, 1);
  SinusoidalEncoding pe({.d_model = 6, .max_len = 50});
  const xt::xtensor<std::int64_t, 2> right_ids = {{1, 7, 8, 2}, {1, 9, 2, 0}};
  const xt::xtensor<std::int64_t, 2> right_mask = {{1, 1, 1, 1}, {1, 1, 1, 0}};
  const xt::xtensor<std::int64_t, 2> left_ids = {{1, 7, 8, 2}, {0, 1, 9, 2}};
  const xt::xtensor<std::int64_t, 2> left_mask = {{1, 1, 1, 1}, {0, 1, 1, 1}};
  const auto right = InputLayer(table, pe, {}).forward(right_ids, right_mask);
  const auto left = InputLayer(table, pe, {.positions_from_mask = true}).forward(left_ids, left_mask);
  for (std::size_t j = 0; j < 6; ++j) {
    for (std::size_t l = 0; l < 4; ++l) CHECK(left.output(0, l, j) == right.output(0, l, j));
    for (std::size_t l = 0; l < 3; ++l) CHECK(left.output(1, l + 1, j) == right.output(1, l, j));
  }
  // Padding at position 0 by default, at pad_position when given.
  std::vector<float> e(6), p0(6), p5(6);
  table.row(0, e.data());
  pe.row(0, p0.data());
  pe.row(5, p5.data());
  const float scale = static_cast<float>(std::sqrt(6.0));
  const auto at5 = InputLayer(table, pe, {.pad_position = 5, .positions_from_mask = true}).forward(left_ids, left_mask);
  for (std::size_t j = 0; j < 6; ++j) {
    CHECK(left.output(1, 0, j) == e[j] * scale + p0[j]);
    CHECK(at5.output(1, 0, j) == e[j] * scale + p5[j]);
  }
  // A mask of all ones (no padding) changes nothing.
  const auto same = InputLayer(table, pe, {.positions_from_mask = true}).forward(right_ids);
  CHECK(same.output == InputLayer(table, pe, {}).forward(right_ids).output);
}

TEST_CASE("positions_skip_id: positions count the ids other than the pad id, which sits at pad_position") {
  // HF create_position_ids_from_input_ids(ids, padding_idx 1): cumsum(ids != 1) * (ids != 1) + 1.
  RandomNormalTable table(100, 4, 2);
  SinusoidalEncoding pe({.d_model = 4, .max_len = 50});
  const xt::xtensor<std::int64_t, 2> ids = {{1, 1, 7, 8}, {7, 1, 8, 9}};
  const auto out = InputLayer(table, pe, {.scale = Scale{ScaleKind::none}, .position_offset = 2, .pad_position = 1,
                                          .positions_skip_id = 1})
                       .forward(ids);  // no mask: the ids alone decide
  const std::size_t want_positions[2][4] = {{1, 1, 2, 3}, {2, 1, 3, 4}};
  for (std::size_t b = 0; b < 2; ++b) {
    for (std::size_t l = 0; l < 4; ++l) {
      std::vector<float> e(4), p(4);
      table.row(ids(b, l), e.data());
      pe.row(want_positions[b][l], p.data());
      for (std::size_t j = 0; j < 4; ++j) CHECK(out.output(b, l, j) == e[j] + p[j]);
    }
  }
}

TEST_CASE("mask_output zeroes padding; DeBERTa's order normalizes the projected sum") {
  const std::int64_t vocab = 20;
  const std::size_t e = 3, d = 5;
  RandomNormalTable table(vocab, e, 4);
  const Projection proj = generated_projection(vocab, e, d, 4);
  LayerNorm ln{std::vector<float>(d, 1.5f), std::vector<float>(d, 0.25f), 1e-5};
  const xt::xtensor<std::int64_t, 2> ids = {{3, 4, 0}};
  const xt::xtensor<std::int64_t, 2> mask = {{1, 1, 0}};
  const auto out = InputLayer(table, nullptr,
                              {.scale = Scale{ScaleKind::none}, .mask_output = true, .layer_norm = ln,
                               .projection = &proj, .layer_norm_after_projection = true})
                       .forward(ids, mask);
  for (std::size_t l = 0; l < 2; ++l) {
    std::vector<float> x(e), y(d);
    table.row(ids(0, l), x.data());
    proj.apply(x.data(), y.data());
    double mean = 0, var = 0;
    for (float v : y) mean += v;
    mean /= d;
    for (float v : y) var += (v - mean) * (v - mean);
    var /= d;
    for (std::size_t j = 0; j < d; ++j) {
      CHECK(out.output(0, l, j) == doctest::Approx((y[j] - mean) / std::sqrt(var + 1e-5) * 1.5 + 0.25).epsilon(1e-6));
    }
  }
  for (std::size_t j = 0; j < d; ++j) CHECK(out.output(0, 2, j) == 0.0f);
}

TEST_CASE("factorized: a projected table's rows, and ALBERT's order projecting each token's sum last") {
  const std::int64_t vocab = 50;
  const std::size_t e = 5, d = 7;
  const Projection proj = generated_projection(vocab, e, d, 3);
  REQUIRE(proj.weight.size() == e * d);
  REQUIRE(proj.bias.size() == d);
  auto ids = xt::xtensor<std::int64_t, 2>::from_shape({3, 9});
  for (std::size_t i = 0; i < ids.size(); ++i) ids.data()[i] = static_cast<std::int64_t>((i * 17) % vocab);
  SinusoidalEncoding pe_e({.d_model = e, .max_len = 16});

  SUBCASE("ProjectedTable: row = W·E[id] + b, cached rows equal computed ones, across threads") {
    ProjectedTable table(std::make_unique<RandomNormalTable>(vocab, e, 3), proj);
    RandomNormalTable inner(vocab, e, 3);
    std::vector<float> x(e), want(d), got(d);
    for (std::int64_t id : {0, 7, 49}) {
      inner.row(id, x.data());
      for (std::size_t o = 0; o < d; ++o) {
        double s = proj.bias[o];
        for (std::size_t k = 0; k < e; ++k) s += double(x[k]) * proj.weight[o * e + k];
        want[o] = static_cast<float>(s);
      }
      table.row(id, got.data());
      CHECK(got == want);
      const float* cached = table.row_data(id);
      REQUIRE(cached);
      CHECK(std::vector<float>(cached, cached + d) == want);
    }
    SinusoidalEncoding pe_d({.d_model = d, .max_len = 16});
    InputLayer layer(table, pe_d, {});
    CHECK(layer.forward(ids, {}, 1).output == layer.forward(ids, {}, 4).output);
  }

  SUBCASE("projection last: Linear(LayerNorm(E×scale + PE)) token by token, E-wide terms") {
    RandomNormalTable table(vocab, e, 3);
    const LayerNorm ln{std::vector<float>(e, 1.5f), std::vector<float>(e, 0.25f), 1e-12};
    InputLayer unprojected(table, pe_e, {.scale = Scale::parse("2"), .layer_norm = ln, .want_token_embeddings = true});
    InputLayer albert(table, pe_e,
                      {.scale = Scale::parse("2"), .layer_norm = ln, .projection = &proj, .want_token_embeddings = true});
    const auto sum = unprojected.forward(ids);
    for (std::size_t threads : {1, 3}) {
      const auto out = albert.forward(ids, {}, threads);
      REQUIRE(out.output.shape()[2] == d);
      CHECK(out.token_embeddings == sum.token_embeddings);
      CHECK(out.positional_encoding == sum.positional_encoding);
      std::vector<float> y(d);
      bool same = true;
      for (std::size_t t = 0; t < ids.size(); ++t) {
        proj.apply(sum.output.data() + t * e, y.data());
        same = same && std::equal(y.begin(), y.end(), out.output.data() + t * d);
      }
      CHECK(same);
    }
    Projection wrong = proj;
    wrong.in = e + 1;
    CHECK_THROWS_WITH_AS(InputLayer(table, pe_e, {.projection = &wrong}),
                         "the projection takes 6 values but the embedding table's rows have 5", UsageError);
  }
}
