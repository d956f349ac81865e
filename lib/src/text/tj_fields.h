// Private: reading tokenizer.json's small sections (normalizer, pre_tokenizer,
// post_processor, decoder, added_tokens) from nlohmann DOMs, each refusal a
// UsageError of one line naming the field ("tokenizer.json: normalizer.type:
// 'Foo' is not a normalizer embedpe knows (...)").
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace embedpe::tj {

// `field` names the value in messages ("tokenizer.json: pre_tokenizer.pretokenizers[1]").
[[noreturn]] void refuse(const std::string& field, const std::string& why);
const nlohmann::json& member(const nlohmann::json& object, const char* key, const std::string& field);
const nlohmann::json* optional_member(const nlohmann::json& object, const char* key);  // null if absent or null
bool boolean(const nlohmann::json& object, const char* key, const std::string& field);
bool boolean_or(const nlohmann::json& object, const char* key, bool fallback, const std::string& field);
std::string string(const nlohmann::json& object, const char* key, const std::string& field);
std::int32_t id(const nlohmann::json& value, const std::string& field);   // 0 .. INT32_MAX
std::uint64_t unsigned_number(const nlohmann::json& value, const std::string& field);
// The "type" of a component object.
std::string type_of(const nlohmann::json& object, const std::string& field);
// The one character of `key` (Metaspace's replacement, Strip's content).
char32_t one_char(const nlohmann::json& object, const char* key, const std::string& field);

}  // namespace embedpe::tj
