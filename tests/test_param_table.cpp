// embedpe/param_table.h: the specs' parameters as data, which front ends
// turn into their options (the CLI's registrar: app/pe_flags.cpp, add_params).
#include <doctest/doctest.h>

#include <cctype>
#include <set>
#include <string>
#include <variant>
#include <vector>

#include "embedpe/param_table.h"
#include "embedpe/pe_command.h"
#include "embedpe/sink.h"

using namespace embedpe;

namespace {

bool snake_case(const std::string& name) {
  if (name.empty()) return false;
  for (char c : name) {
    if (!(std::islower(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)) || c == '_')) {
      return false;
    }
  }
  return true;
}

// The texts a front end shows: no flag spelled, each {placeholder} a parameter name.
void check_texts(const Param& p) {
  for (const std::string& text : {p.help, p.default_text}) {
    INFO(p.name << ": " << text);
    CHECK(text.find("--") == std::string::npos);
    for (std::size_t open = text.find('{'); open != std::string::npos; open = text.find('{', open + 1)) {
      const std::size_t close = text.find('}', open);
      REQUIRE(close != std::string::npos);
      CHECK(snake_case(text.substr(open + 1, close - open - 1)));
    }
  }
}

void check_table(const std::vector<Param>& params) {
  std::set<std::string> names;
  for (const Param& p : params) {
    CHECK_MESSAGE(names.insert(p.name).second, p.name << " twice");
    CHECK(!p.group.empty());
    check_texts(p);
    // A parameter with a target has its help here; one without is the front end's.
    if (!std::holds_alternative<std::monostate>(p.target)) {
      CHECK_MESSAGE(snake_case(p.name), p.name);
      CHECK_MESSAGE(!p.help.empty(), p.name);
    }
  }
}

const Param& find(const std::vector<Param>& params, const std::string& name) {
  for (const Param& p : params) {
    if (p.name == name) return p;
  }
  FAIL("no parameter " << name);
  throw;
}

}  // namespace

TEST_CASE("every table: names once, snake_case, help without flags, placeholders naming parameters") {
  LayerSpec layer;
  TextSpec text;
  EncodeRequest request;
  check_table(table_params(layer.table));
  check_table(layer_params(layer));
  check_table(text_params(text));
  check_table(tokenize_params(request));
  check_table(request_params(request));
  EncodeCommand encode;
  check_table(encode_output_params(encode, request));
  PeCommand pe;
  check_table(pe_params(pe));
}

TEST_CASE("a parameter's target is the field of the spec the table was made for") {
  LayerSpec spec;
  const std::vector<Param> params = layer_params(spec);
  // The table's parameters are the layer's too, in their place.
  const auto& d_model = std::get<ParamNumber<std::optional<std::size_t>>>(find(params, "d_model").target);
  CHECK(d_model.target == &spec.table.d_model);
  CHECK(d_model.lo == 1);
  std::get<ParamChoice>(find(params, "position_ids").target).set(3);
  CHECK(spec.position_ids == PositionIds::padding_idx);
  const auto& init = std::get<ParamChoice>(find(params, "init").target);
  CHECK(init.words == std::vector<std::string>{"normal", "scaled-normal", "xavier-uniform", "uniform"});
  init.set(1);
  CHECK(spec.table.init == Init::scaled_normal);
  // padding_idx reads as an int: its range ends at INT_MAX.
  CHECK(std::get<ParamNumber<std::optional<std::int64_t>>>(find(params, "padding_idx").target).hi == 2147483647);

  EncodeRequest request;
  const auto tokenize = tokenize_params(request);  // held: the entries below refer into it
  const auto& no_bos = std::get<ParamSwitch>(find(tokenize, "no_bos").target);
  CHECK(no_bos.target == &request.tokenize.add_bos);
  CHECK_FALSE(no_bos.value);
  const auto request_table = request_params(request);
  const auto& dropout = std::get<ParamNumber<std::optional<double>>>(find(request_table, "dropout").target);
  CHECK(dropout.hi_open);
}

TEST_CASE("the commands' tables: encode's output and pipeline, pe's views and output") {
  EncodeCommand encode;
  EncodeRequest request;
  const auto output = encode_output_params(encode, request);
  CHECK(std::get<std::string*>(find(output, "output_path").target) == &encode.output.path);
  CHECK(find(output, "output_path").short_name == 'o');
  CHECK(find(output, "quiet").short_name == 'q');
  CHECK(std::get<ParamNumber<std::optional<std::size_t>>>(find(output, "threads").target).target == &request.threads);
  CHECK(std::get<ParamNumber<int>>(find(output, "precision").target).hi == 9);
  // format's words are the sinks', in their order; the word given sets the output's format.
  const auto& format = std::get<ParamChoice>(find(output, "format").target);
  REQUIRE(format.words.size() == sink_formats().size());
  format.set(1);
  CHECK(encode.output.format == sink_formats()[1]);
  std::get<ParamChoice>(find(output, "dtype").target).set(2);
  CHECK(request.dtype == DType::bfloat16);
  CHECK(std::holds_alternative<std::monostate>(find(output, "emit").target));  // a list: the front end's

  PeCommand pe;
  const auto params = pe_params(pe);
  const auto& formats = std::get<ParamChoice>(find(params, "format").target);
  CHECK(formats.words.front() == "table");
  formats.set(formats.words.size() - 1);
  REQUIRE(pe.format);
  CHECK(pe.format->name == formats.words.back());
  CHECK(std::get<ParamSwitch>(find(params, "audit").target).target == &pe.audit);
  for (const char* own : {"kind", "positions", "dims", "pe_params"}) {
    CHECK_MESSAGE(std::holds_alternative<std::monostate>(find(params, own).target), own);
  }
}
