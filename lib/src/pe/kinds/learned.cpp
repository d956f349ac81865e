// The learned kind: a (max_len, d_model) table read from a weight file
// (GPT-2 wpe, BERT position_embeddings, BART/fairseq embed_positions), added
// to the input like a sinusoidal one. Nothing to inspect beyond the file.
#include "embedpe/error.h"
#include "embedpe/pe_kind.h"
#include "embedpe/positional_encoding.h"
#include "embedpe/weights.h"
#include "pe/kinds/kind_support.h"

namespace embedpe {
namespace {

class Learned final : public PeKind {
 public:
  Learned() : PeKind({.name = "learned", .layer_choice = true, .reads_pe_weights = true}) {}
  const std::vector<PeParam>& params() const override {
    static const std::vector<PeParam> none;
    return none;
  }

  LayerPe layer(const PeArgs&, const LayerPeRequest& r) const override {
    std::string spec = r.pe_weights;
    if (spec.empty()) {
      // Checkpoints keep the position table beside the token table: look there.
      if (r.weights.empty()) throw UsageError("pe learned needs pe_weights PATH[:TENSOR]", {"pe", "pe_weights"});
      spec = parse_tensor_spec(r.weights).path;
    }
    LayerPe pe;
    pe.table = open_position_table(spec);
    pe.position_offset = r.position_offset.value_or(0);
    pe.pad_position = r.pad_position;
    pe.config = {{"kind", "learned"}, {"table", pe.table->describe()}, {"max_len", pe.table->max_len()}};
    pe_support::add_positions(pe.config, pe.position_offset, pe.pad_position);
    return pe;
  }
};

}  // namespace

const PeKind& learned_kind() {
  static const Learned kind;
  return kind;
}

}  // namespace embedpe
