// Private: the tokenizer class that AutoTokenizer.from_pretrained(DIR) of
// transformers v4.44.2 picks from config.json's model_type when neither
// tokenizer_config.json nor config.json names a tokenizer_class
// (models/auto/tokenization_auto.py: TOKENIZER_MAPPING[type(config)], the fast
// class, else the slow one). The table (tj_auto_class.cpp) is written by
// tools/make_tj_auto_classes.py from transformers' own mapping tables.
#pragma once

#include <string_view>

namespace embedpe::tj {

struct AutoClass {
  std::string_view model_type;
  std::string_view tokenizer_class;  // "" where AutoTokenizer raises: no tokenizer for that model type
};

// nullptr for a model type transformers v4.44.2 does not know (AutoConfig raises).
const AutoClass* auto_class_of_model_type(std::string_view model_type);

}  // namespace embedpe::tj
