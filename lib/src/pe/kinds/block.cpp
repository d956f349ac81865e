// The block kind: block ("chunked") positional encoding for long documents.
// A position is split into its place within a block of block_size tokens
// and the block's index, and each gets a sinusoid of the paper's family
// (interleaved sin/cos, frequencies 1/base^(2i/d)):
//
//   PE_block(pos) = PE_base(pos mod B) + PE_block_base(pos div B)
//
// so that B positions repeat the table a model was trained on and the second
// term tells the blocks apart, as in hierarchical encoders of long documents
// (the two-level position of Transformer-XH / HIBERT-style models; the
// within-block term alone is the "reset per segment" encoding). Both terms
// are computed in float64 and their sum rounded once to float32.
#include <algorithm>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "embedpe/error.h"
#include "embedpe/pe_analysis.h"
#include "embedpe/pe_kind.h"
#include "embedpe/positional_encoding.h"
#include "embedpe/version.h"
#include "pe/kinds/kind_support.h"

namespace embedpe {
namespace {

using pe_support::fmt;
using Type = PeParam::Type;
using Use = PeParam::Use;

class BlockEncoding final : public PositionTable {
 public:
  BlockEncoding(std::size_t d_model, std::size_t max_len, std::size_t block_size, double base, double block_base)
      : block_size_(block_size),
        max_len_(max_len),
        within_({.d_model = d_model, .max_len = block_size, .base = base}),
        blocks_({.d_model = d_model, .max_len = (max_len + block_size - 1) / block_size + 1, .base = block_base}) {}

  std::size_t d_model() const override { return within_.d_model(); }
  std::size_t max_len() const override { return max_len_; }
  void row(std::size_t pos, float* out) const override {
    if (pos >= max_len_) throw Error("position " + std::to_string(pos) + " is beyond " + extent());
    thread_local std::vector<double> a, b;  // rows are computed on several threads at once
    a.resize(d_model());
    b.resize(d_model());
    row_f64(pos, out, a.data(), b.data());
  }
  std::string describe() const override { return "block"; }
  std::string extent() const override {
    return "the PE table (" + std::to_string(max_len_) + " positions, max_len)";
  }
  bool extensible() const override { return true; }

  const SinusoidalEncoding& within() const { return within_; }
  const SinusoidalEncoding& blocks() const { return blocks_; }
  std::size_t block_size() const { return block_size_; }

  // PE[pos] into `out`, with the caller's float64 scratch rows `a` and `b` (d_model each).
  void row_f64(std::size_t pos, float* out, double* a, double* b) const {
    within_.row_f64(pos % block_size_, a);
    blocks_.row_f64(pos / block_size_, b);
    for (std::size_t i = 0; i < d_model(); ++i) out[i] = static_cast<float>(a[i] + b[i]);
  }

 private:
  std::size_t block_size_, max_len_;
  SinusoidalEncoding within_, blocks_;
};

class Block final : public PeKind {
 public:
  Block()
      : PeKind({.name = "block", .label = "block (within-block + block index)", .layer_choice = true,
                .inspectable = true, .views = {PeViewKind::table, PeViewKind::stats, PeViewKind::similarity},
                .sized_by_max_len = true}) {}

  const std::vector<PeParam>& params() const override {
    static const std::vector<PeParam> p = {
        {.name = "block_size", .type = Type::integer, .min = 1, .max = double(kMaxPePosition),
         .help = "block: tokens per block B; PE(pos mod B) + PE_block(pos div B)", .value_name = "B"},
        {.name = "block_base", .default_value = 10000.0, .min = 1.001, .max = 1e12,
         .help = "block: sinusoid base of the block-index term"},
        {.name = "base", .default_value = 10000.0, .min = 1.001, .max = 1e12, .help = "Sinusoid base"},
    };
    return p;
  }

  LayerPe layer(const PeArgs& args, const LayerPeRequest& r) const override {
    LayerPe pe;
    pe.position_offset = position_offset(args, r);
    pe.pad_position = r.pad_position;
    pe.table = make(args, r.d_model, r.max_len);
    pe.config = to_json(args, r.max_len);
    pe_support::add_positions(pe.config, pe.position_offset, pe.pad_position);
    return pe;
  }

  void check_inspect(const PeArgs& args, const PeInspectRequest& r) const override {
    block_size(args);
    if (r.view == PeViewKind::stats) pe_support::check_pair_records(2 * r.d_model.value_or(0));
  }

  PeInspection compute_inspection(const PeArgs& args, const PeInspectRequest& r) const override {
    const std::size_t d = r.d_model.value_or(0);
    const std::size_t first = r.first + r.position_offset;
    const auto pe = make(args, d, first + r.count);
    PeInspection v;
    v.config = {{"embedpe_version", version()}, {"d_model", d}, {"positional_encoding", to_json(args, first + r.count)},
                {"position_offset", r.position_offset}};
    const std::string params = "block size " + std::to_string(pe->block_size()) + ", base " + fmt(number(args, "base")) +
                               ", block base " + fmt(number(args, "block_base"));
    switch (r.view) {
      case PeViewKind::stats: {
        // Each term's pairs: the within-block term over the positions a block holds, the block
        // term over the blocks shown (its wavelength is in blocks; times B in positions).
        PeRecords rec{{"term", "pair", "sin_dim", "cos_dim", "frequency", "wavelength", "aliases", "incomplete"}, {},
                      "pairs"};
        const std::size_t within_count = std::min(r.count, pe->block_size());
        const std::size_t block_count = (first + r.count + pe->block_size() - 1) / pe->block_size() - first / pe->block_size();
        for (const auto& [term, table, count] : {std::tuple{"within", &pe->within(), within_count},
                                                 std::tuple{"block", &pe->blocks(), block_count}}) {
          for (const auto& s : frequency_stats(*table, count)) rec.rows.push_back(pe_support::frequency_cells(s, {term}));
        }
        v.records = std::move(rec);
        v.title = "block PE d=" + std::to_string(d) + " (" + params +
                  "): per term and pair, frequency in radians per position (within) or per block (block), "
                  "wavelength in positions or blocks; aliases: wavelength < 2; incomplete: no full period in the "
                  "positions (within: one block) or blocks shown";
        return v;
      }
      case PeViewKind::similarity:
        pe_support::similarity_view(v, pe->rows(first, r.count), r, "block PE d=" + std::to_string(d) + " " + params);
        return v;
      default: break;
    }
    v.title = "block PE d=" + std::to_string(d) + " " + params;
    v.note_hidden_dims = true;
    auto table = xt::xtensor<float, 2>::from_shape({r.count, r.dims_count});
    std::vector<float> row(d);
    std::vector<double> a(d), b(d);
    for (std::size_t p = 0; p < r.count; ++p) {
      pe->row_f64(first + p, row.data(), a.data(), b.data());
      for (std::size_t c = 0; c < r.dims_count; ++c) table(p, c) = row[r.dims_first + c];
    }
    v.matrix = PeMatrix{std::move(table), "position", "dim", r.first, r.dims_first};
    // Both terms are interleaved: sin columns even, cos odd.
    pe_support::sin_cos_panels(*v.matrix, r.dims_first, [](std::size_t dim) { return dim % 2 == 0; });
    v.matrix_name = "positional_encoding";
    return v;
  }

 private:
  std::size_t block_size(const PeArgs& args) const {
    const auto b = optional_integer(args, "block_size");
    if (!b) throw UsageError("the block positional encoding needs block_size B (tokens per block)", {"block_size"});
    return *b;
  }

  std::unique_ptr<BlockEncoding> make(const PeArgs& args, std::size_t d, std::size_t max_len) const {
    return std::make_unique<BlockEncoding>(d, max_len, block_size(args), number(args, "base"),
                                           number(args, "block_base"));
  }

  nlohmann::ordered_json to_json(const PeArgs& args, std::size_t max_len) const {
    return {{"kind", "block"},
            {"block_size", block_size(args)},
            {"formula", "PE(pos mod block_size; base) + PE(pos div block_size; block_base), each the interleaved "
                        "sinusoid of Vaswani et al. 2017"},
            {"base", number(args, "base")},
            {"block_base", number(args, "block_base")},
            {"max_len", max_len}};
  }
};

}  // namespace

const PeKind& block_kind() {
  static const Block kind;
  return kind;
}

}  // namespace embedpe
