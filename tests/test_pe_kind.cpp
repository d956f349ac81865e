// The positional-encoding registry: what every kind declares, the layer each
// builds (fairseq's position rules included), what those acting in attention
// say, and the T5 buckets against HF's _relative_position_bucket.
#include <doctest/doctest.h>

#include <algorithm>
#include <cctype>
#include <set>

#include "embedpe/error.h"
#include "embedpe/pe_kind.h"
#include "embedpe/rope.h"
#include "test_support.h"

using namespace embedpe;

namespace {

bool snake_case(const std::string& name) {
  return !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
  });
}

bool has_parameter(const Error& e, const std::string& name) {
  const auto& p = e.parameters();
  return std::find(p.begin(), p.end(), name) != p.end();
}

}  // namespace

TEST_CASE("every kind is registered once, with snake_case parameters that agree where they are shared") {
  std::set<std::string_view> names;
  std::map<std::string, PeParam::Type> types;
  for (const PeKind* k : pe_kinds()) {
    CHECK(names.insert(k->name()).second);
    CHECK(&find_pe_kind(k->name()) == k);
    for (const PeParam& p : k->params()) {
      INFO(k->name(), " ", p.name);
      CHECK(snake_case(p.name));
      CHECK_FALSE(p.help.empty());
      if (p.type == PeParam::Type::choice) CHECK_FALSE(p.choices.empty());
      if (p.type == PeParam::Type::integer || p.type == PeParam::Type::number) CHECK(p.min <= p.max);
      auto [it, fresh] = types.emplace(p.name, p.type);
      if (!fresh) CHECK(it->second == p.type);  // a shared name (head) is one flag
    }
  }
  for (auto k : {"sinusoidal", "learned", "none", "rope", "alibi", "t5"}) CHECK(names.count(k) == 1);
  CHECK(pe_kinds().front()->name() == "sinusoidal");  // the default
  CHECK_THROWS_WITH_AS(find_pe_kind("xpos"), doctest::Contains("choose from sinusoidal, learned"), UsageError);
}

TEST_CASE("sinusoidal layer: conventions, and fairseq's offset and padding rows from padding_idx") {
  const PeKind& k = find_pe_kind("sinusoidal");
  PeArgs args;
  LayerPe paper = k.layer(args, {.d_model = 8, .max_len = 16});
  CHECK(paper.position_offset == 0);
  CHECK_FALSE(paper.pad_position);
  CHECK(paper.config["layout"] == "interleaved");
  CHECK(paper.table->max_len() == 16);

  args.set("convention", std::string("fairseq"));
  LayerPe fairseq = k.layer(args, {.d_model = 8, .max_len = 16});
  CHECK(fairseq.position_offset == 2);  // padding_idx (default 1) + 1
  CHECK(*fairseq.pad_position == 1);
  CHECK(fairseq.config["zero_position"] == 1);
  CHECK(fairseq.config["frequencies"] == "fairseq");
  CHECK(k.position_offset(args, {.padding_idx = 0}) == 1);
  LayerPe given = k.layer(args, {.d_model = 8, .max_len = 16, .padding_idx = 0, .position_offset = 5, .pad_position = 3});
  CHECK(given.position_offset == 5);
  CHECK(*given.pad_position == 3);
  CHECK(given.config["zero_position"] == 0);

  args.set("layout", std::string("interleaved"));  // overrides the convention
  CHECK(k.layer(args, {.d_model = 8, .max_len = 16}).config["layout"] == "interleaved");
}

TEST_CASE("convention_options matches each framework's choice of layout and frequencies") {
  CHECK(convention_options(PeConvention::paper, 8, 4).layout == PeLayout::interleaved);
  CHECK(convention_options(PeConvention::marian, 8, 4).frequencies == PeFrequencies::paper);
  CHECK(convention_options(PeConvention::marian, 8, 4).layout == PeLayout::concat);
  CHECK(convention_options(PeConvention::tensor2tensor, 8, 4).frequencies == PeFrequencies::fairseq);
  CHECK_FALSE(convention_options(PeConvention::tensor2tensor, 8, 4).zero_position);
  CHECK(*convention_options(PeConvention::fairseq, 8, 4, 3).zero_position == 3);
}

TEST_CASE("kinds acting in attention refuse a layer in parameters, not flags") {
  for (auto name : {"rope", "alibi", "t5"}) {
    const PeKind& k = find_pe_kind(name);
    CHECK(k.acts_in_attention());
    CHECK_THROWS_AS(k.layer({}, {}), UsageError);
  }
  try {
    find_pe_kind("rope").layer({}, {});
  } catch (const UsageError& e) {
    CHECK(std::string(e.what()).find("--") == std::string::npos);
    CHECK(has_parameter(e, "pe"));
    CHECK(has_parameter(e, "emit"));
  }
  try {
    find_pe_kind("learned").layer({}, {});
    FAIL("learned without a table");
  } catch (const UsageError& e) {
    CHECK(has_parameter(e, "pe_weights"));
  }
  LayerPe none = find_pe_kind("none").layer({}, {.position_offset = 2});
  CHECK_FALSE(none.table);
  CHECK(none.config["kind"] == "none");
  CHECK(none.config["position_offset"] == 2);
}

TEST_CASE("rope_options reads the rope parameters, defaults included") {
  PeArgs args;
  RopeOptions o = rope_options(args);
  CHECK(o.theta == 10000.0);
  CHECK(o.scaling == RopeScaling::none);
  args.set("rope_scaling", std::string("llama3"));
  args.set("rope_theta", 500000.0);
  args.set("rope_original_max_positions", std::uint64_t(8192));
  o = rope_options(args);
  CHECK(o.scaling == RopeScaling::llama3);
  CHECK(o.theta == 500000.0);
  CHECK(o.original_max_positions == 8192);
}

TEST_CASE("t5 buckets equal HF's _relative_position_bucket, bidirectional and causal") {
  const auto cases = test::read_json(test::golden("t5/cases.json"));
  const PeKind& k = find_pe_kind("t5");
  int checked = 0;
  for (const auto& item : cases.items()) {  // no structured binding: clang 14's INFO cannot capture one
    const std::string name = item.key();
    const auto& c = item.value();
    if (!c.contains("buckets_by_distance")) continue;
    INFO(name);
    PeArgs args;
    args.set("num_buckets", c["num_buckets"].get<std::uint64_t>());
    args.set("max_distance", c["max_distance"].get<std::uint64_t>());
    if (!c["bidirectional"].get<bool>()) args.set("causal", true);
    const auto want = c["buckets_by_distance"].get<std::vector<std::int64_t>>();
    const std::size_t n = (want.size() + 1) / 2;
    PeInspection v = k.inspect(args, {.count = n, .whole = true});
    REQUIRE(v.tensors.size() == 1);
    const auto& buckets = std::get<xt::xtensor<std::int64_t, 2>>(v.tensors[0].values);  // (query, key)
    REQUIRE(buckets.shape()[0] == n);
    for (std::size_t q = 0; q < n; ++q)
      for (std::size_t key = 0; key < n; ++key) CHECK(buckets(q, key) == want[key + n - 1 - q]);
    ++checked;
  }
  CHECK(checked == 11);
}

TEST_CASE("t5 bias: the table's rows looked up at the buckets, per head; its rows give num_buckets") {
  const PeKind& k = find_pe_kind("t5");
  PeArgs args;
  args.set("weights", test::golden("t5/relative_attention_bias.npy"));
  args.set("head", std::uint64_t(3));
  PeInspection v = k.inspect(args, {.count = 20});
  REQUIRE(v.tensors.size() == 2);
  const auto& bias = std::get<xt::xtensor<float, 3>>(v.tensors[1].values);  // (heads, query, key)
  const auto want = test::load_matrix(test::golden("t5/relative_attention_bias.npy"));  // (32, 4)
  CHECK(bias.shape()[0] == 4);
  CHECK(v.config["num_buckets"] == 32);
  CHECK(v.config["heads"] == 4);
  CHECK(bias(2, 0, 0) == want(0, 2));   // distance 0: bucket 0
  CHECK(bias(1, 0, 1) == want(17, 1));  // key after query: bucket 16 + 1
  CHECK(v.matrix->values(5, 5) == bias(3, 5, 5));                       // the head drawn is head 3
  CHECK(v.npy_tensor == 1u);
}

TEST_CASE("t5 refuses nonsense in parameters: no exact bucket, max_distance within the exact range, head, table") {
  const PeKind& k = find_pe_kind("t5");
  auto fails_naming = [&](PeArgs args, const std::string& parameter) {
    try {
      k.inspect(args, {.count = 4});
      FAIL("accepted");
    } catch (const UsageError& e) {
      INFO(e.what());
      CHECK(has_parameter(e, parameter));
      CHECK(std::string(e.what()).find("--") == std::string::npos);
    }
  };
  PeArgs a;
  a.set("num_buckets", std::uint64_t(3));
  fails_naming(a, "num_buckets");  // bidirectional: 1 bucket per side, none exact
  a.set("causal", true);
  CHECK_NOTHROW(k.inspect(a, {.count = 4}));  // causal: 1 exact bucket, the rest log-spaced
  PeArgs m;
  m.set("max_distance", std::uint64_t(8));  // 32 buckets keep distances below 8 exact
  fails_naming(m, "max_distance");
  m.set("max_distance", std::uint64_t(9));
  CHECK_NOTHROW(k.inspect(m, {.count = 4}));
  PeArgs h;
  h.set("weights", test::golden("t5/relative_attention_bias.npy"));
  h.set("head", std::uint64_t(4));
  fails_naming(h, "head");
  PeArgs rows;
  rows.set("weights", test::golden("t5/relative_attention_bias.npy"));
  rows.set("num_buckets", std::uint64_t(16));
  fails_naming(rows, "num_buckets");
}

// issue 13: pictures people read at a glance. The kinds say how their matrix is drawn.
TEST_CASE("sinusoidal pictures split sin and cos columns into panels, for either layout") {
  const PeKind& k = find_pe_kind("sinusoidal");
  for (const char* layout : {"interleaved", "concat"}) {
    INFO(layout);
    PeArgs args;
    args.set("layout", std::string(layout));
    const PeInspection v = k.inspect(args, {.d_model = 512, .count = 50, .dims_first = 0, .dims_count = 512});
    const auto& panels = v.matrix->look.panels;
    REQUIRE(panels.size() == 2);
    CHECK(panels[0].title == "sin");
    CHECK(panels[1].title == "cos");
    REQUIRE(panels[0].columns.size() == 256);
    REQUIRE(panels[1].columns.size() == 256);
    // Position 0: every sin is 0 and every cos is 1, so neither panel alternates column by column.
    for (std::size_t c : panels[0].columns) CHECK(v.matrix->values(0, c) == 0.0f);
    for (std::size_t c : panels[1].columns) CHECK(v.matrix->values(0, c) == 1.0f);
    // Within a panel, columns run from fast to slow: the angle at position 1 falls column by column.
    for (const auto& p : panels) {
      for (std::size_t i = 1; i < p.columns.size(); ++i) CHECK(p.columns[i] > p.columns[i - 1]);
    }
    CHECK(v.matrix->look.scale == ColourScale::diverging);
    CHECK(v.title.find(std::string(layout) + ", paper frequencies, base 10000") != std::string::npos);
  }
  SUBCASE("dims that hold only sins are one panel; the title carries what differs from the paper") {
    PeArgs args;
    args.set("convention", std::string("fairseq"));
    args.set("position_scale", 0.25);
    const PeInspection v = k.inspect(args, {.d_model = 16, .count = 4, .position_offset = 2, .dims_first = 0,
                                            .dims_count = 8});
    CHECK(v.matrix->look.panels.empty());  // concat: dims 0..7 of 16 are all sins
    CHECK(v.title.find("concat, fairseq frequencies, base 10000, position scale 0.25") != std::string::npos);
    CHECK(v.title.find("position offset 2") != std::string::npos);
  }
}

TEST_CASE("similarity is drawn on a sequential scale, T5 buckets on a categorical one; ALiBi and causal T5 mask the keys after the query") {
  const PeInspection sim = find_pe_kind("sinusoidal").inspect({}, {.d_model = 32, .count = 20, .view = PeViewKind::similarity});
  CHECK(sim.matrix->look.scale == ColourScale::sequential);
  CHECK(sim.title.find("d=32 interleaved, paper frequencies, base 10000") != std::string::npos);

  PeArgs alibi;
  alibi.set("heads", std::uint64_t(8));
  alibi.set("head", std::uint64_t(2));
  const PeInspection a = find_pe_kind("alibi").inspect(alibi, {.count = 6});
  CHECK(a.matrix->look.causal_mask);
  CHECK(a.matrix->look.scale == ColourScale::sequential);
  CHECK(a.matrix->values(0, 5) > 0);  // the matrix itself is unchanged: the mask is only drawn
  CHECK(a.title.find("head 2 of 8, slope 0.125 (2^-3)") != std::string::npos);
  CHECK(a.title.find("causal") != std::string::npos);

  const PeInspection t5 = find_pe_kind("t5").inspect({}, {.count = 6});
  CHECK(!t5.matrix->look.causal_mask);  // bidirectional: the encoder sees every key
  // Bucket indices are categories (issue 31): one colour each; the upper half (keys after the query) a second hue.
  CHECK(t5.matrix->look.scale == ColourScale::categorical);
  CHECK(t5.matrix->look.categories == 32);
  CHECK(t5.matrix->look.second_ramp == 16);
  PeArgs causal;
  causal.set("causal", true);
  const PeInspection decoder = find_pe_kind("t5").inspect(causal, {.count = 6});
  CHECK(decoder.matrix->look.causal_mask);
  CHECK(decoder.matrix->look.scale == ColourScale::categorical);
  CHECK(decoder.matrix->look.second_ramp == 0);  // one direction: one ramp
  causal.set("weights", test::golden("t5/relative_attention_bias.npy"));
  const PeInspection bias = find_pe_kind("t5").inspect(causal, {.count = 6});
  CHECK(bias.matrix->look.causal_mask);
  CHECK(bias.matrix->look.scale == ColourScale::diverging);  // learned biases of both signs around 0
}

TEST_CASE("rope titles carry theta and the scaling's parameters") {
  PeArgs args;
  args.set("rope_theta", 500000.0);
  args.set("rope_scaling", std::string("llama3"));
  args.set("rope_factor", 8.0);
  args.set("rope_original_max_positions", std::uint64_t(8192));
  const PeInspection v = find_pe_kind("rope").inspect(args, {.d_model = 16, .count = 4, .dims_count = 16});
  CHECK(v.title.find("RoPE cos dim=16, theta 500000, llama3 scaling factor 8, original 8192 positions") !=
        std::string::npos);
  CHECK(v.title.find("low_freq_factor 1") != std::string::npos);
}

TEST_CASE("audit column names say what each measures: float32 computed naively, float16/bfloat16 stored") {
  const PeInspection v = find_pe_kind("sinusoidal").inspect({}, {.d_model = 8, .count = 100, .view = PeViewKind::audit});
  REQUIRE(v.records);
  CHECK(v.records->columns == std::vector<std::string>{"first", "last", "sampled", "f32_computed_max",
                                                       "f32_computed_mean", "f16_stored_max", "f16_stored_mean",
                                                       "bf16_stored_max", "bf16_stored_mean"});
  CHECK(v.config["columns"]["f32_computed"].get<std::string>().find("PyTorch") != std::string::npos);
  CHECK(v.config["columns"]["f16_stored"].get<std::string>().find("rounded to float16") != std::string::npos);
  CHECK(v.title.find("computed in float32 the naive way") != std::string::npos);
  for (const auto& column : v.records->columns) CHECK(column.find("seed") == std::string::npos);
}

TEST_CASE("inspect refuses, naming parameters, what a library caller could ask wrongly") {
  const PeKind& sinusoidal = find_pe_kind("sinusoidal");
  const auto refusal = [](const PeKind& k, const PeInspectRequest& r) -> Error {
    try {
      k.inspect({}, r);
    } catch (const Error& e) {
      CHECK(e.exit_code() == 2);
      // check_inspection alone refuses it the same way.
      CHECK_THROWS_WITH(k.check_inspection({}, r), e.what());
      return e;
    }
    FAIL("inspect did not refuse");
    return Error("");
  };
  const Error no_width = refusal(sinusoidal, {.count = 4});
  CHECK(std::string(no_width.what()) == "d_model is required");
  CHECK(has_parameter(no_width, "d_model"));
  const Error stats = refusal(find_pe_kind("t5"), {.count = 4, .view = PeViewKind::stats});
  CHECK(std::string(stats.what()).starts_with("stats applies to kind sinusoidal"));
  CHECK(has_parameter(stats, "stats"));
  const Error audit = refusal(find_pe_kind("alibi"), {.count = 4, .view = PeViewKind::audit});
  CHECK(std::string(audit.what()).starts_with("similarity and audit apply to kind sinusoidal"));
  const Error dims = refusal(sinusoidal, {.d_model = 8, .count = 4, .dims_first = 4, .dims_count = 5});
  CHECK(std::string(dims.what()) == "dims 4:9 goes beyond d_model 8; choose dims below 8");
  // Positions and their offset stay below 2^53, without overflowing on the way.
  const std::size_t top = kMaxPePosition;
  for (const PeInspectRequest& r :
       {PeInspectRequest{.d_model = 8, .first = top - 2, .count = 4, .dims_count = 8},
        PeInspectRequest{.d_model = 8, .first = top - 4, .count = 2, .position_offset = 3, .dims_count = 8},
        PeInspectRequest{.d_model = 8, .first = SIZE_MAX - 1, .count = 4, .dims_count = 8},
        PeInspectRequest{.d_model = 8, .count = 4, .position_offset = SIZE_MAX, .dims_count = 8}}) {
    const Error far = refusal(sinusoidal, r);
    CHECK(std::string(far.what()).find("go beyond 9007199254740992 (2^53") != std::string::npos);
    CHECK(has_parameter(far, "positions"));
    CHECK(std::string(far.what())
              .ends_with(r.position_offset ? "lower positions or position_offset" : "lower positions"));
  }
  CHECK_NOTHROW(
      sinusoidal.inspect({}, {.d_model = 8, .first = top - 4, .count = 2, .position_offset = 2, .dims_count = 8}));
}
