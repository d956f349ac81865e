#include "json_difference.h"

namespace embedpe {
namespace {

using Json = nlohmann::ordered_json;

std::string text(const Json& v) { return v.dump(-1, ' ', false, Json::error_handler_t::replace); }

void differences(const Json& a, const Json& b, const std::string& at, std::vector<JsonDifference>& out) {
  if (a.is_object() && b.is_object()) {
    for (auto it = a.begin(); it != a.end(); ++it) {
      const std::string key = at.empty() ? it.key() : at + "." + it.key();
      const auto there = b.find(it.key());
      if (there == b.end()) {
        out.push_back({key, text(it.value()), "(none)"});
      } else {
        differences(it.value(), *there, key, out);
      }
    }
    for (auto it = b.begin(); it != b.end(); ++it) {
      if (!a.contains(it.key())) out.push_back({at.empty() ? it.key() : at + "." + it.key(), "(none)", text(it.value())});
    }
  } else if (a != b) {
    out.push_back({at, text(a), text(b)});
  }
}

}  // namespace

std::vector<JsonDifference> json_differences(const Json& a, const Json& b) {
  std::vector<JsonDifference> out;
  differences(a, b, "", out);
  return out;
}

}  // namespace embedpe
