// The none kind: nothing is added to the input (RoPE and ALiBi models, whose
// positions act inside attention).
#include "embedpe/pe_kind.h"
#include "pe/kinds/kind_support.h"

namespace embedpe {
namespace {

class None final : public PeKind {
 public:
  None() : PeKind({.name = "none", .layer_choice = true}) {}
  const std::vector<PeParam>& params() const override {
    static const std::vector<PeParam> none;
    return none;
  }

  LayerPe layer(const PeArgs&, const LayerPeRequest& r) const override {
    LayerPe pe;
    pe.position_offset = r.position_offset.value_or(0);
    pe.pad_position = r.pad_position;
    pe.config = {{"kind", "none"}};
    pe_support::add_positions(pe.config, pe.position_offset, pe.pad_position);
    return pe;
  }
};

}  // namespace

const PeKind& none_kind() {
  static const None kind;
  return kind;
}

}  // namespace embedpe
