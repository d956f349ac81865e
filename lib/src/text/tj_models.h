// Private: the loaders of tokenizer.json's three models (tj_model.h's
// load_model calls the one its "type" names). Each reads the model object
// from `r` (which stands before it, its path "model") and refuses, by field,
// what HF would refuse or what is not reproduced.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "tj_json.h"
#include "tj_model.h"

namespace embedpe::tj {

std::unique_ptr<Model> load_bpe(JsonReader& r);
std::unique_ptr<Model> load_wordpiece(JsonReader& r);
std::unique_ptr<Model> load_unigram(JsonReader& r);

}  // namespace embedpe::tj
