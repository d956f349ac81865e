// Private: the loaders of tokenizer.json's three models (tj_model.h's
// load_model calls the one its "type" names). Each reads the model section's
// JSON text (`json`, the value of "model") and refuses, by field, what HF
// would refuse or what is not reproduced.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "tj_model.h"

namespace embedpe::tj {

std::unique_ptr<Model> load_bpe(std::string_view json, const std::string& shown);
std::unique_ptr<Model> load_wordpiece(std::string_view json, const std::string& shown);
std::unique_ptr<Model> load_unigram(std::string_view json, const std::string& shown);

}  // namespace embedpe::tj
