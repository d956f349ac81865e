// libFuzzer target: text → ids → tensors with the embedded model: any bytes
// either encode or are rejected with embedpe::Error, never crash.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "embedpe/error.h"
#include "embedpe/input_layer.h"
#include "embedpe/tokenizer.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const embedpe::Tokenizer tok = embedpe::Tokenizer::default_model();
  static const embedpe::RandomNormalTable table(tok.info().vocab_size, 8, 0);
  static const embedpe::SinusoidalEncoding pe({.d_model = 8, .max_len = 4096});
  std::vector<std::string> texts(1);
  for (std::size_t i = 0; i < size; ++i) {
    if (data[i] == '\n') {
      texts.emplace_back();
    } else {
      texts.back().push_back(static_cast<char>(data[i]));
    }
  }
  try {
    embedpe::EncodeOptions options;
    if (size > 0) options.seq_len = data[0] % 2 ? std::optional<std::size_t>(2 + data[0] % 64) : std::nullopt;
    const embedpe::Batch batch = tok.encode_batch(texts, options);
    const embedpe::InputLayer layer(table, pe, {});
    const auto out = layer.forward(batch.input_ids, batch.attention_mask);
    if (out.output.shape()[0] != texts.size()) __builtin_trap();
  } catch (const embedpe::Error&) {
  }
  return 0;
}
