#include "embedpe/pe_kind.h"

#include <algorithm>
#include <stdexcept>

#include "embedpe/error.h"
#include "embedpe/dims.h"
#include "embedpe/message.h"

namespace embedpe {

// Each kind's file in pe/ defines `const PeKind& <name>_kind()`. Adding a
// kind is its file and one line here; the order is the one front ends list.
#define EMBEDPE_PE_KINDS(X) \
  X(sinusoidal)             \
  X(learned)                \
  X(none)                   \
  X(rope)                   \
  X(alibi)                  \
  X(t5)                     \
  X(block)                  \
  X(transformer_xl)         \
  /* one line per kind, above this one */

#define EMBEDPE_DECLARE_KIND(name) const PeKind& name##_kind();
#define EMBEDPE_LIST_KIND(name) &name##_kind(),
EMBEDPE_PE_KINDS(EMBEDPE_DECLARE_KIND)

const std::vector<const PeKind*>& pe_kinds() {
  static const std::vector<const PeKind*> kinds = {EMBEDPE_PE_KINDS(EMBEDPE_LIST_KIND)};
  return kinds;
}

const PeKind& find_pe_kind(std::string_view name) {
  std::string names;
  for (const PeKind* k : pe_kinds()) {
    if (k->name() == name) return *k;
    names += (names.empty() ? "" : ", ") + std::string(k->name());
  }
  throw UsageError("unknown positional encoding '" + std::string(name) + "'; choose from " + names);
}

std::vector<std::string> PeArgs::names() const {
  std::vector<std::string> out;
  for (const auto& [name, value] : values_) out.push_back(name);
  return out;
}

namespace {

bool takes(const PeKind& kind, std::string_view name, PeParam::Use use) {
  for (const PeParam& p : kind.params()) {
    if (p.name == name && (p.use == PeParam::Use::both || use == PeParam::Use::both || p.use == use)) return true;
  }
  return false;
}

}  // namespace

std::vector<std::pair<std::string, std::string>> PeKind::inputs(const PeArgs& args) const {
  std::vector<std::pair<std::string, std::string>> files;
  for (const PeParam& p : params()) {
    const PeValue* v = p.type == PeParam::Type::path ? args.find(p.name) : nullptr;
    if (v) files.emplace_back(p.name, std::get<std::string>(*v));
  }
  return files;
}

void check_pe_args(const PeArgs& args, const std::vector<const PeKind*>& in_use, PeParam::Use use,
                   const std::string& what) {
  for (const std::string& name : args.names()) {
    if (std::any_of(in_use.begin(), in_use.end(), [&](const PeKind* k) { return k && takes(*k, name, use); })) {
      continue;
    }
    std::string takers;
    for (const PeKind* k : pe_kinds()) {
      if (takes(*k, name, use)) takers += std::string(takers.empty() ? "" : " or ") + std::string(k->name());
    }
    const std::string chosen = in_use.empty() || !in_use.front() ? "none" : std::string(in_use.front()->name());
    throw UsageError(name + " applies to " + what + " " + (takers.empty() ? "no kind" : takers) + ", not " + chosen +
                         ": it would be ignored, so drop " + name,
                     {name, what});
  }
}

const PeValue* PeArgs::find(std::string_view name) const {
  auto it = values_.find(name);
  return it == values_.end() ? nullptr : &it->second;
}

PeArgs with_values(const PeKind& kind, PeArgs args, const std::vector<std::pair<std::string, std::string>>& values) {
  for (const auto& [name, value] : values) {
    if (args.find(name)) continue;  // given
    for (const PeParam& p : kind.params()) {
      if (p.name != name) continue;
      if (p.type == PeParam::Type::integer) args.set(name, static_cast<std::uint64_t>(std::stoull(value)));
      else if (p.type == PeParam::Type::number) args.set(name, std::stod(value));
      else args.set(name, value);
    }
  }
  return args;
}

LayerPe PeKind::layer(const PeArgs&, const LayerPeRequest&) const {
  throw UsageError(std::string(name()) + " is not added to the input: it acts inside attention");
}

std::size_t PeKind::position_offset(const PeArgs&, const LayerPeRequest& request) const {
  return request.position_offset.value_or(0);
}

namespace {

bool offers(const PeKind& kind, PeViewKind view) {
  return std::find(kind.views().begin(), kind.views().end(), view) != kind.views().end();
}

// "a, b or c": the inspectable kinds that offer `view`.
std::string kinds_offering(PeViewKind view) {
  std::vector<std::string> names;
  for (const PeKind* k : pe_kinds()) {
    if (k->inspectable() && offers(*k, view)) names.emplace_back(k->name());
  }
  return or_list(names);
}

}  // namespace

void PeKind::check_inspection(const PeArgs& args, const PeInspectRequest& r) const {
  if (needs_d_model() && !r.d_model) throw UsageError("d_model is required", {"d_model"});
  if (!needs_d_model() && r.d_model) {
    throw UsageError("d_model sets the width of a table, and kind " + std::string(name()) +
                         " has none: it would be ignored, so drop d_model",
                     {"d_model", "kind"});
  }
  if (r.view == PeViewKind::stats && !offers(*this, r.view)) {
    throw UsageError("stats applies to kind " + kinds_offering(r.view), {"stats", "kind"});
  }
  if (r.view != PeViewKind::table && !offers(*this, r.view)) {
    throw UsageError("similarity and audit apply to kind " + kinds_offering(r.view), {"similarity", "audit", "kind"});
  }
  if (needs_d_model() && r.view == PeViewKind::table) check_dims({r.dims_first, r.dims_count}, *r.d_model);
  // Positions stay below 2^53, where float64 holds every whole number exactly.
  if (r.count > kMaxPePosition || r.first > kMaxPePosition - r.count ||
      r.first + r.count > kMaxPePosition - std::min(r.position_offset, kMaxPePosition)) {
    const std::string span = std::to_string(r.first) + ":" + std::to_string(r.first + r.count);
    const std::string offset = std::to_string(r.position_offset);
    Message m;  // "positions" in prose, and the parameter after "lower"
    m << Verbatim{"positions " + span};
    if (r.position_offset) m << " with position_offset " << offset;
    m << " go beyond " << std::to_string(kMaxPePosition) << " (2^53, where float64 " << Verbatim{"positions"}
      << " stop being exact); lower positions" << (r.position_offset ? " or position_offset" : "");
    throw m.usage_error({"positions", "position_offset"});
  }
  check_inspect(args, r);
}

PeInspection PeKind::inspect(const PeArgs& args, const PeInspectRequest& request) const {
  check_inspection(args, request);
  return compute_inspection(args, request);
}

PeInspection PeKind::compute_inspection(const PeArgs&, const PeInspectRequest&) const {
  throw UsageError(std::string(name()) + " has no table to inspect");
}

std::size_t PeKind::view_columns(const PeArgs&, const PeInspectRequest& request) const { return request.dims_count; }

const PeParam& PeKind::param(std::string_view name) const {
  for (const PeParam& p : params()) {
    if (p.name == name) return p;
  }
  // A kind asking for a parameter it does not declare is a bug in the kind.
  throw InternalError("positional encoding " + std::string(this->name()) + " has no parameter " + std::string(name));
}

namespace {
template <class T>
std::optional<T> value_of(const PeArgs& args, const PeParam& p) {
  const PeValue* v = args.find(p.name);
  if (!v) v = p.default_value ? &*p.default_value : nullptr;
  if (!v) return std::nullopt;
  if (const T* t = std::get_if<T>(v)) return *t;
  throw InternalError("parameter " + p.name + " holds a value of another type");
}
}  // namespace

std::optional<std::uint64_t> PeKind::optional_integer(const PeArgs& args, std::string_view name) const {
  return value_of<std::uint64_t>(args, param(name));
}

std::uint64_t PeKind::integer(const PeArgs& args, std::string_view name) const {
  return optional_integer(args, name).value_or(0);
}

double PeKind::number(const PeArgs& args, std::string_view name) const {
  return value_of<double>(args, param(name)).value_or(0.0);
}

std::optional<std::string> PeKind::optional_text(const PeArgs& args, std::string_view name) const {
  return value_of<std::string>(args, param(name));
}

std::string PeKind::text(const PeArgs& args, std::string_view name) const {
  return optional_text(args, name).value_or("");
}

bool PeKind::flag(const PeArgs& args, std::string_view name) const {
  return value_of<bool>(args, param(name)).value_or(false);
}

}  // namespace embedpe
