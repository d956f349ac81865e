// Encodes one sentence with the installed library's embedded model and
// prints the output shape and the first value. Includes only the umbrella
// header, as a library user would.
#include <cstdio>

#include <embedpe/embedpe.hpp>

int main() {
  auto tok = embedpe::Tokenizer::default_model();
  auto batch = tok.encode_batch({"Hello, this is machine translation"}, {});
  embedpe::RandomNormalTable table(tok.info().vocab_size, 16, 0);
  embedpe::SinusoidalEncoding pe({.d_model = 16, .max_len = 64});
  embedpe::InputLayer layer(table, pe, {});
  auto out = layer.forward(batch.input_ids).output;
  std::printf("%zu %zu %zu %.9g\n", out.shape()[0], out.shape()[1], out.shape()[2], double(out(0, 0, 0)));
  return 0;
}
