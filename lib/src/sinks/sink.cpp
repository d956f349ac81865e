#include "embedpe/sink.h"

namespace embedpe {

// Each format's description, defined in its own src/sinks/NAME_sink.cpp.
// sink_formats.inc is generated from EMBEDPE_SINKS in lib/CMakeLists.txt,
// so that a format is registered by one line there (its source file is
// compiled by the same line).
#define EMBEDPE_SINK(name) const SinkFormat& name##_sink_format();
#include "sink_formats.inc"
#undef EMBEDPE_SINK

const std::vector<const SinkFormat*>& sink_formats() {
  static const std::vector<const SinkFormat*> all = {
#define EMBEDPE_SINK(name) &name##_sink_format(),
#include "sink_formats.inc"
#undef EMBEDPE_SINK
  };
  return all;
}

const SinkFormat* find_sink_format(std::string_view name) {
  for (const SinkFormat* f : sink_formats()) {
    if (name == f->name) return f;
  }
  return nullptr;
}

std::vector<std::pair<std::string, std::string>> sink_extensions() {
  std::vector<std::pair<std::string, std::string>> out;
  for (const SinkFormat* f : sink_formats()) {
    for (const std::string& e : f->extensions) out.emplace_back(e, f->name);
  }
  return out;
}

std::vector<std::string> joinable_extensions(bool parts) {
  std::vector<std::string> out;
  for (const SinkFormat* f : sink_formats()) {
    if (f->join && (!parts || f->traits.joins_parts)) out.push_back(f->extensions.front());
  }
  return out;
}

}  // namespace embedpe
