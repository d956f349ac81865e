#include "tj_fields.h"

#include <limits>

#include "embedpe/error.h"
#include "model_files.h"
#include "tj_unicode.h"

namespace embedpe::tj {

void refuse(const std::string& field, const std::string& why) { throw UsageError(field + ": " + why); }

const nlohmann::json& member(const nlohmann::json& object, const char* key, const std::string& field) {
  if (!object.is_object()) refuse(field, "is " + json_value_text(object) + ", not an object");
  const auto it = object.find(key);
  if (it == object.end()) refuse(field, std::string("has no \"") + key + "\"");
  return *it;
}

const nlohmann::json* optional_member(const nlohmann::json& object, const char* key) {
  const auto it = object.find(key);
  return it == object.end() || it->is_null() ? nullptr : &*it;
}

bool boolean(const nlohmann::json& object, const char* key, const std::string& field) {
  const nlohmann::json& v = member(object, key, field);
  if (!v.is_boolean()) refuse(field + "." + key, "is " + json_value_text(v) + ", not true or false");
  return v.get<bool>();
}

bool boolean_or(const nlohmann::json& object, const char* key, bool fallback, const std::string& field) {
  if (!object.is_object() || !object.contains(key)) return fallback;
  return boolean(object, key, field);
}

std::string string(const nlohmann::json& object, const char* key, const std::string& field) {
  const nlohmann::json& v = member(object, key, field);
  if (!v.is_string()) refuse(field + "." + key, "is " + json_value_text(v) + ", not a string");
  return v.get<std::string>();
}

std::uint64_t unsigned_number(const nlohmann::json& value, const std::string& field) {
  if (value.is_number_unsigned()) return value.get<std::uint64_t>();
  if (value.is_number_integer() && value.get<std::int64_t>() >= 0) return static_cast<std::uint64_t>(value.get<std::int64_t>());
  refuse(field, "is " + json_value_text(value) + ", not a whole number of at least 0");
}

std::int32_t id(const nlohmann::json& value, const std::string& field) {
  const std::uint64_t v = unsigned_number(value, field);
  if (v > static_cast<std::uint64_t>(std::numeric_limits<std::int32_t>::max())) {
    refuse(field, "id " + std::to_string(v) + " is beyond int32 (2147483647)");
  }
  return static_cast<std::int32_t>(v);
}

std::string type_of(const nlohmann::json& object, const std::string& field) {
  return string(object, "type", field);
}

char32_t one_char(const nlohmann::json& object, const char* key, const std::string& field) {
  const std::string s = string(object, key, field);
  std::size_t i = 0;
  const char32_t c = s.empty() ? 0 : next_char(s, i);
  if (s.empty() || i != s.size()) refuse(field + "." + key, "is " + json_value_text(s) + ", not one character");
  return c;
}

}  // namespace embedpe::tj
