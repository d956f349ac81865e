// embedpe pe: inspect positional-encoding tables — sinusoidal (any
// convention), RoPE, ALiBi — as a table, JSON, CSV, .npy/.npz or a PNG
// heatmap, and analyse them (--stats, --similarity, --audit).
#include <unistd.h>

#include <charconv>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "commands.h"
#include "common.h"
#include "embedpe/alibi.h"
#include "embedpe/error.h"
#include "embedpe/heatmap.h"
#include "json_writer.h"
#include "memory.h"
#include "embedpe/output_file.h"
#include "parallel.h"
#include "embedpe/pe_analysis.h"
#include "embedpe/positional_encoding.h"
#include "embedpe/rope.h"
#include "embedpe/tensor_io.h"
#include "embedpe/version.h"
#include "pe_flags.h"

namespace embedpe::cli {
namespace {

enum class Kind { sinusoidal, rope, alibi };
enum class Format { table, json, csv, npy, npz, png };
enum class RopeTable { cos, sin };

struct PeCommand {
  Kind kind = Kind::sinusoidal;
  std::optional<std::size_t> d_model;
  std::optional<std::size_t> max_len;
  std::optional<Span> positions;
  std::optional<Span> dims;
  std::optional<Format> format;
  std::string output = "-";
  SinusoidalFlags sinusoidal;
  RopeFlags rope;
  RopeTable rope_table = RopeTable::cos;
  std::size_t position_offset = 0;
  std::optional<std::size_t> padding_idx;
  std::size_t heads = 0;
  std::size_t head = 0;
  bool stats = false, show_similarity = false, audit = false;
};

using Range = Span;

constexpr std::size_t kMaxAuditDModel = 65536;

std::string span_text(Range r) { return std::to_string(r.first) + ":" + std::to_string(r.first + r.count); }

std::string shortest(double v) {
  char buf[32];
  auto r = std::to_chars(buf, buf + sizeof buf, static_cast<float>(v));
  return std::string(buf, r.ptr);
}

Format infer_format(const PeCommand& cmd) {
  if (cmd.format) return *cmd.format;
  return format_from_extension<Format>(cmd.output, {{".txt", Format::table},
                                                    {".json", Format::json},
                                                    {".csv", Format::csv},
                                                    {".npy", Format::npy},
                                                    {".npz", Format::npz},
                                                    {".png", Format::png}})
      .value_or(Format::table);
}

// A matrix with the labels of its rows and columns.
struct Labelled {
  xt::xtensor<float, 2> values;  // (rows, cols)
  std::string row_label, col_label;
  std::size_t row_first = 0, col_first = 0;
};

xt::xtensor<float, 2> slice_columns(const xt::xtensor<float, 2>& m, Range dims) {
  auto out = xt::xtensor<float, 2>::from_shape({m.shape()[0], dims.count});
  for (std::size_t r = 0; r < m.shape()[0]; ++r)
    for (std::size_t c = 0; c < dims.count; ++c) out(r, c) = m(r, dims.first + c);
  return out;
}

void write_matrix(OutputFile& out, Format format, const Labelled& m, const std::string& title,
                  const nlohmann::ordered_json& config, const std::string& name) {
  const std::size_t rows = m.values.shape()[0], cols = m.values.shape()[1];
  switch (format) {
    case Format::table: {
      std::string text = "# " + title + "\n";
      char cell[64];
      std::snprintf(cell, sizeof cell, "%10s", (m.row_label.substr(0, 3) + "\\" + m.col_label.substr(0, 3)).c_str());
      text += cell;
      for (std::size_t c = 0; c < cols; ++c) {
        std::snprintf(cell, sizeof cell, " %6zu", m.col_first + c);
        text += cell;
      }
      text += "\n";
      for (std::size_t r = 0; r < rows; ++r) {
        std::snprintf(cell, sizeof cell, "%10zu", m.row_first + r);
        text += cell;
        for (std::size_t c = 0; c < cols; ++c) {
          // Two decimals like the tables tutorials print; "-0.00" would only be noise.
          double v = m.values(r, c);
          if (std::abs(v) < 0.005) v = 0.0;
          std::snprintf(cell, sizeof cell, " %6.2f", v);
          text += cell;
        }
        text += "\n";
      }
      out.write(text);
      break;
    }
    case Format::csv: {
      std::string text = m.row_label;
      for (std::size_t c = 0; c < cols; ++c) text += "," + m.col_label + std::to_string(m.col_first + c);
      text += "\n";
      for (std::size_t r = 0; r < rows; ++r) {
        text += std::to_string(m.row_first + r);
        for (std::size_t c = 0; c < cols; ++c) text += "," + shortest(m.values(r, c));
        text += "\n";
        if (text.size() > (1u << 20)) {
          out.write(text);
          text.clear();
        }
      }
      out.write(text);
      break;
    }
    case Format::json: {
      nlohmann::ordered_json meta = {{"config", config},
                                     {m.row_label + "s", {{"first", m.row_first}, {"count", rows}}},
                                     {m.col_label + "s", {{"first", m.col_first}, {"count", cols}}}};
      write_json(out, meta, {tensor_ref(name, m.values)}, available_cores());
      break;
    }
    case Format::npy: write_npy(out, tensor_ref(name, m.values)); break;
    case Format::npz: write_npz(out, {tensor_ref(name, m.values)}); break;
    case Format::png:
      write_heatmap_png(out, {.values = m.values, .title = title, .row_label = m.row_label,
                              .col_label = m.col_label, .row_first = m.row_first, .col_first = m.col_first});
      break;
  }
}

void write_records(OutputFile& out, Format format, const std::vector<std::string>& columns,
                   const std::vector<std::vector<std::string>>& rows, const std::string& title,
                   const nlohmann::ordered_json& config, const std::string& key) {
  if (format == Format::json) {
    nlohmann::ordered_json list = nlohmann::ordered_json::array();
    for (const auto& r : rows) {
      nlohmann::ordered_json o;
      for (std::size_t k = 0; k < columns.size(); ++k) {
        const std::string& v = r[k];
        if (v == "yes" || v == "no") o[columns[k]] = v == "yes";
        else o[columns[k]] = nlohmann::ordered_json::parse(v);
      }
      list.push_back(o);
    }
    out.write(nlohmann::ordered_json{{"config", config}, {key, list}}.dump(1) + "\n");
    return;
  }
  if (format != Format::table && format != Format::csv) {
    throw UsageError("this analysis is written as table, csv or json");
  }
  std::string text;
  if (format == Format::csv) {
    for (std::size_t k = 0; k < columns.size(); ++k) text += (k ? "," : "") + columns[k];
    text += "\n";
    for (const auto& r : rows) {
      for (std::size_t k = 0; k < r.size(); ++k) text += (k ? "," : "") + r[k];
      text += "\n";
    }
  } else {
    text = "# " + title + "\n";
    std::vector<std::size_t> width(columns.size());
    for (std::size_t k = 0; k < columns.size(); ++k) {
      width[k] = columns[k].size();
      for (const auto& r : rows) width[k] = std::max(width[k], r[k].size());
    }
    auto line = [&](const std::vector<std::string>& cells) {
      for (std::size_t k = 0; k < cells.size(); ++k) {
        text += (k ? "  " : "") + std::string(width[k] - cells[k].size(), ' ') + cells[k];
      }
      text += "\n";
    };
    line(columns);
    for (const auto& r : rows) line(r);
  }
  out.write(text);
}

std::string fmt(double v, const char* spec = "%.6g") {
  char buf[64];
  std::snprintf(buf, sizeof buf, spec, v);
  return buf;
}

// --dims, or by default every dim (the first 8 in a table); within d.
Range shown_dims(const PeCommand& cmd, Format format, std::size_t d) {
  if (!cmd.dims) return {0, format == Format::table ? std::min<std::size_t>(d, 8) : d};
  if (cmd.dims->first + cmd.dims->count > d) {
    throw UsageError("--dims " + span_text(*cmd.dims) + " goes beyond d_model " + std::to_string(d) +
                     "; choose dims below " + std::to_string(d));
  }
  return *cmd.dims;
}

// The bytes a matrix of rows x cols takes as `format` output on top of its
// floats: the text of table/csv is built whole; JSON is rendered in chunks.
std::size_t text_bytes(Format format, std::size_t rows, std::size_t cols) {
  if (format == Format::table || format == Format::csv) {
    return checked_product({rows, cols, 16}, "the " + std::string(format == Format::table ? "table" : "CSV"));
  }
  return 0;
}

void run_sinusoidal(const PeCommand& cmd, Format format, Range positions, OutputFile& out) {
  const std::size_t d = *cmd.d_model;
  const std::size_t end = positions.first + positions.count + cmd.position_offset;
  const SinusoidalOptions options = sinusoidal_options(cmd.sinusoidal, d, end, cmd.padding_idx);
  const SinusoidalEncoding pe(options);
  nlohmann::ordered_json config = {{"embedpe_version", version()}, {"d_model", d},
                                   {"positional_encoding", sinusoidal_json(options)},
                                   {"position_offset", cmd.position_offset}};
  const std::string conv = options.layout == PeLayout::interleaved ? "interleaved" : "concat";
  if (cmd.stats) {
    std::vector<std::vector<std::string>> rows;
    for (const auto& s : frequency_stats(pe, positions.count)) {
      rows.push_back({std::to_string(s.pair), std::to_string(s.sin_dim), std::to_string(s.cos_dim), fmt(s.frequency),
                      fmt(s.wavelength), s.aliases ? "yes" : "no", s.incomplete ? "yes" : "no"});
    }
    write_records(out, format, {"pair", "sin_dim", "cos_dim", "frequency", "wavelength", "aliases", "incomplete"}, rows,
                  "sinusoidal PE d=" + std::to_string(d) + " (" + conv + "): frequency in radians/position, "
                  "wavelength in positions; aliases: wavelength < 2; incomplete: no full period in " +
                  std::to_string(positions.count) + " positions", config, "pairs");
    return;
  }
  if (cmd.audit) {
    std::vector<std::vector<std::string>> rows;
    for (const auto& b : audit_precision(options, positions.first + cmd.position_offset, positions.count)) {
      rows.push_back({std::to_string(b.first), std::to_string(b.last), std::to_string(b.sampled),
                      fmt(b.max_error[0], "%.6e"), fmt(b.mean_error[0], "%.6e"), fmt(b.max_error[1], "%.6e"),
                      fmt(b.mean_error[1], "%.6e"), fmt(b.max_error[2], "%.6e"), fmt(b.mean_error[2], "%.6e")});
    }
    write_records(out, format,
                  {"first", "last", "sampled", "f32_seed_max", "f32_seed_mean", "f16_max", "f16_mean", "bf16_max",
                   "bf16_mean"},
                  rows, "abs error against float64 per position band: float32 as the usual PyTorch recipe computes it, float16, "
                        "bfloat16 (embedpe itself writes the float64 value rounded to float32)",
                  config, "bands");
    return;
  }
  if (cmd.show_similarity) {
    const xt::xtensor<float, 2> table = pe.rows(positions.first + cmd.position_offset, positions.count);
    write_matrix(out, format, {similarity(table), "position", "position", positions.first, positions.first},
                 "PE.PE^T similarity, d=" + std::to_string(d), config, "similarity");
    return;
  }
  const Range dims = shown_dims(cmd, format, d);
  std::string title = "sinusoidal PE d=" + std::to_string(d) + " " + conv;
  if (format == Format::table && !cmd.dims && dims.count < d) {
    title += " (dims 0:" + std::to_string(dims.count) + " of " + std::to_string(d) + "; choose with --dims)";
  }
  // Only the shown columns are computed: `--dims 0:8` of a huge d_model is cheap.
  write_matrix(out, format,
               {pe.columns(positions.first + cmd.position_offset, positions.count, dims.first, dims.count), "position",
                "dim", positions.first, dims.first},
               title, config, "positional_encoding");
}

void run_rope(const PeCommand& cmd, Format format, Range positions, OutputFile& out) {
  RopeOptions o = cmd.rope.options;
  o.dim = *cmd.d_model;
  if (o.seq_len == 0) o.seq_len = positions.first + positions.count;
  const RopeFrequencies f = rope_frequencies(o);
  nlohmann::ordered_json config = {{"embedpe_version", version()}, {"rope", rope_json(o, f)},
                                   {"note", "RoPE is not added to the input: it rotates Q and K in attention"}};
  if (cmd.stats) {
    std::vector<std::vector<std::string>> rows;
    for (std::size_t i = 0; i < f.inv_freq.size(); ++i) {
      const double wl = 2.0 * 3.14159265358979323846 / f.inv_freq[i];
      rows.push_back({std::to_string(i), fmt(f.inv_freq[i], "%.9g"), fmt(wl), wl < 2 ? "yes" : "no",
                      wl > double(positions.count) ? "yes" : "no"});
    }
    write_records(out, format, {"pair", "inv_freq", "wavelength", "aliases", "incomplete"}, rows,
                  "RoPE inv_freq (attention_factor " + fmt(f.attention_factor) + ")", config, "pairs");
    return;
  }
  auto [cos, sin] = rope_tables(f, positions.first, positions.count);
  if (format == Format::json || format == Format::npz) {
    xt::xtensor<float, 1> inv = xt::xtensor<float, 1>::from_shape({f.inv_freq.size()});
    for (std::size_t i = 0; i < f.inv_freq.size(); ++i) inv(i) = static_cast<float>(f.inv_freq[i]);
    std::vector<TensorRef> tensors = {{"inv_freq", DType::float32, {inv.size()}, inv.data()},
                                      tensor_ref("cos", cos), tensor_ref("sin", sin)};
    if (format == Format::npz) {
      write_npz(out, tensors);
    } else {
      write_json(out, {{"config", config}, {"positions", {{"first", positions.first}, {"count", positions.count}}}},
                 tensors, available_cores());
    }
    return;
  }
  const bool is_cos = cmd.rope_table == RopeTable::cos;
  const Range dims = shown_dims(cmd, format, o.dim);
  write_matrix(out, format, {slice_columns(is_cos ? cos : sin, dims), "position", "dim", positions.first, dims.first},
               std::string("RoPE ") + (is_cos ? "cos" : "sin") + " dim=" + std::to_string(o.dim), config,
               is_cos ? "cos" : "sin");
}

void run_alibi(const PeCommand& cmd, Format format, Range positions, OutputFile& out) {
  if (cmd.heads == 0) throw UsageError("--kind alibi needs --heads H");
  const auto slopes = alibi_slopes(cmd.heads);
  nlohmann::ordered_json config = {{"embedpe_version", version()}, {"kind", "alibi"}, {"heads", cmd.heads},
                                   {"bias", "slope_h * (j - i); j > i is masked in causal attention"}};
  if (cmd.stats || format == Format::csv) {
    std::vector<std::vector<std::string>> rows;
    for (std::size_t h = 0; h < slopes.size(); ++h) rows.push_back({std::to_string(h), fmt(slopes[h], "%.9g")});
    write_records(out, format == Format::table || format == Format::csv ? format : Format::json, {"head", "slope"},
                  rows, "ALiBi slopes for " + std::to_string(cmd.heads) + " heads", config, "slopes");
    return;
  }
  if (cmd.head >= cmd.heads) throw UsageError("--head must be below --heads");
  auto bias = alibi_bias(slopes, positions.count);  // (heads, n, n)
  xt::xtensor<float, 1> s = xt::xtensor<float, 1>::from_shape({slopes.size()});
  for (std::size_t h = 0; h < slopes.size(); ++h) s(h) = static_cast<float>(slopes[h]);
  const std::vector<TensorRef> tensors = {{"slopes", DType::float32, {s.size()}, s.data()}, tensor_ref("bias", bias)};
  switch (format) {
    case Format::json:
      write_json(out, {{"config", config}, {"positions", {{"first", positions.first}, {"count", positions.count}}}},
                 tensors, available_cores());
      return;
    case Format::npz: write_npz(out, tensors); return;
    case Format::npy: write_npy(out, tensors[1]); return;
    default: break;
  }
  const std::size_t n = positions.count;
  auto head = xt::xtensor<float, 2>::from_shape({n, n});
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < n; ++j) head(i, j) = bias(cmd.head, i, j);
  write_matrix(out, format, {head, "query", "key", positions.first, positions.first},
               "ALiBi bias, head " + std::to_string(cmd.head) + " of " + std::to_string(cmd.heads) + ", slope " +
                   fmt(slopes[cmd.head]),
               config, "bias");
}

void run_pe(const PeCommand& cmd) {
  const Format format = infer_format(cmd);
  if (format == Format::npy || format == Format::npz || format == Format::png) {
    refuse_binary_to_terminal(cmd.output, format == Format::npy ? ".npy" : format == Format::npz ? ".npz" : "PNG");
  }
  if (int(cmd.stats) + int(cmd.show_similarity) + int(cmd.audit) > 1) {
    throw UsageError("--stats, --similarity and --audit are separate views; give one");
  }
  if (cmd.kind != Kind::alibi && !cmd.d_model) throw UsageError("--d-model is required");
  if (cmd.kind != Kind::sinusoidal && (cmd.show_similarity || cmd.audit)) {
    throw UsageError("--similarity and --audit apply to --kind sinusoidal");
  }
  Range positions{0, cmd.max_len.value_or(50)};
  if (cmd.positions) {
    if (cmd.max_len) throw UsageError("give --max-len N or --positions A:B, not both");
    positions = *cmd.positions;
  }
  // Positions stay below 2^53, where float64 holds every whole number exactly.
  if (positions.first + positions.count > kMaxPosition - cmd.position_offset) {
    throw UsageError("positions " + span_text(positions) + (cmd.position_offset ? " with --position-offset " +
                     std::to_string(cmd.position_offset) : "") + " go beyond " + std::to_string(kMaxPosition) +
                     " (2^53, where float64 positions stop being exact); lower --positions" +
                     (cmd.position_offset ? " or --position-offset" : ""));
  }
  if (cmd.kind != Kind::alibi && (cmd.stats || cmd.audit)) {
    // One record per dimension pair: their strings (and JSON objects) dominate.
    const std::size_t pairs = *cmd.d_model / 2 + 1;
    const std::string what = "--stats of " + std::to_string(pairs) + " dimension pairs";
    if (cmd.stats) check_allocation(checked_product({pairs, 1024}, what), what, "lower --d-model");
    // --audit evaluates up to 2000 sampled positions per band at every dim in
    // float64, float32, float16 and bfloat16: beyond this width it would run for hours.
    if (cmd.audit && *cmd.d_model > kMaxAuditDModel) {
      throw UsageError("--audit takes --d-model up to " + std::to_string(kMaxAuditDModel) + ", not " +
                       std::to_string(*cmd.d_model) + "; lower --d-model");
    }
  }
  if (cmd.kind != Kind::alibi && !cmd.stats && !cmd.audit && !cmd.show_similarity) {
    const std::size_t d = *cmd.d_model;
    const std::size_t cols = (cmd.kind == Kind::rope && (format == Format::json || format == Format::npz))
                                 ? 2 * d : shown_dims(cmd, format, d).count;
    const std::string what = "a PE table of " + std::to_string(positions.count) + " positions x " +
                             std::to_string(cols) + " dims";
    check_allocation(checked_sum({checked_product({positions.count, cols, sizeof(float)}, what),
                                  text_bytes(format, positions.count, cols)}, what),
                     what, "lower --d-model, show fewer positions (--max-len, --positions) or fewer --dims");
  }
  OutputFile out(cmd.output);
  switch (cmd.kind) {
    case Kind::sinusoidal: run_sinusoidal(cmd, format, positions, out); break;
    case Kind::rope: run_rope(cmd, format, positions, out); break;
    case Kind::alibi: run_alibi(cmd, format, positions, out); break;
  }
  out.commit();
}

}  // namespace

void setup_pe(CLI::App& app) {
  auto cmd = std::make_shared<PeCommand>();
  auto* sub = app.add_subcommand("pe", "Inspect positional encodings: sinusoidal (any convention), RoPE, ALiBi");
  add_choice<Kind>(*sub, "--kind", [cmd](Kind k) { cmd->kind = k; },
                   {{"sinusoidal", Kind::sinusoidal}, {"rope", Kind::rope}, {"alibi", Kind::alibi}},
                   "sinusoidal (default), rope or alibi");
  add_number(*sub, "--d-model", cmd->d_model, 1, kMaxDModel, "Width (the rotary dimension for RoPE)");
  add_number(*sub, "--max-len", cmd->max_len, 1, kMaxPosition, "Positions 0..N-1 (default 50)");
  sub->add_option_function<std::string>(
         "--positions", [cmd](const std::string& v) { cmd->positions = parse_span("--positions", v, kMaxPosition); },
         "Positions A..B-1, e.g. 999990:1000000")
      ->type_name("A:B");
  sub->add_option_function<std::string>(
         "--dims", [cmd](const std::string& v) { cmd->dims = parse_span("--dims", v, kMaxDModel); },
         "Dimensions A..B-1 (table: default 0:8)")
      ->type_name("A:B");
  add_choice<Format>(*sub, "--format", [cmd](Format f) { cmd->format = f; },
                     {{"table", Format::table}, {"json", Format::json}, {"csv", Format::csv}, {"npy", Format::npy},
                      {"npz", Format::npz}, {"png", Format::png}},
                     "Output format (default: from --output's extension, else table)");
  add_output_option(*sub, cmd->output);
  add_sinusoidal_flags(*sub, cmd->sinusoidal);
  add_number(*sub, "--position-offset", cmd->position_offset, 0, kMaxPosition - 1, "Row l shows position l+K")
      ->type_name("K");
  add_number(*sub, "--padding-idx", cmd->padding_idx, 0, kMaxPosition - 1,
             "fairseq convention: this position's row is zero (default 1)");
  add_rope_flags(*sub, cmd->rope);
  add_choice<RopeTable>(*sub, "--rope-table", [cmd](RopeTable t) { cmd->rope_table = t; },
                        {{"cos", RopeTable::cos}, {"sin", RopeTable::sin}},
                        "RoPE table for table/csv/npy/png (json and npz hold inv_freq, cos and sin)");
  add_number(*sub, "--heads", cmd->heads, 1, 65536, "ALiBi: attention heads")->type_name("H");
  add_number(*sub, "--head", cmd->head, 0, 65535, "ALiBi: the head drawn by table/png (default 0)")->type_name("H");
  sub->add_flag("--stats", cmd->stats, "Per dimension pair: frequency, wavelength, aliasing, incomplete periods");
  sub->add_flag("--similarity", cmd->show_similarity, "The PE . PE^T matrix of the positions");
  sub->add_flag("--audit", cmd->audit, "Error of float32 (as the usual PyTorch recipe computes it), float16, bfloat16 vs float64");
  sub->callback([cmd] { run_pe(*cmd); });
}

}  // namespace embedpe::cli
