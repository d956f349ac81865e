// libFuzzer target: the GGUF parser (lib/src/io/gguf.h) and the invariants
// its readers rely on: every tensor's bytes inside the file, every array's
// elements inside it, nothing allocated beyond a small multiple of the input.
// A byte-level BPE vocabulary (tokenizer.ggml.model "gpt2", gguf_bpe.h) is then
// rebuilt as its tokenizer.json and run: refused in one line, or a tokenizer
// whose ids lie inside the vocabulary and decode.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "embedpe/error.h"
#include "gguf.h"
#include "gguf_bpe.h"
#include "tj_tokenizer.h"

unsigned g_sink = 0;

namespace {
void touch(const embedpe::gguf::Value& v, std::string_view bytes) {
  const auto inside = [bytes](std::string_view s) {
    return s.empty() || (s.data() >= bytes.data() && s.data() + s.size() <= bytes.data() + bytes.size());
  };
  if (!inside(v.str) || !inside(v.raw)) __builtin_trap();
  for (auto s : v.strings) {
    if (!inside(s)) __builtin_trap();
  }
  if (!v.raw.empty()) g_sink += static_cast<unsigned>(v.element(v.count - 1).u);
  for (const auto& item : v.items) touch(item, bytes);
}

void one_line(const embedpe::Error& e) {
  if (std::string_view(e.what()).find('\n') != std::string_view::npos) __builtin_trap();
}

void run_bpe(const embedpe::gguf::Parsed& p) {
  const embedpe::GgufKeys keys = [&p](std::string_view key) -> const embedpe::gguf::Value* {
    for (const auto& [k, v] : p.metadata) {
      if (k == key) return &v;
    }
    return nullptr;
  };
  const embedpe::gguf::Value* model = keys("tokenizer.ggml.model");
  if (!model || model->str != "gpt2") return;
  try {
    const embedpe::GgufBpe g = embedpe::gguf_bpe(keys, "fuzz.gguf");
    const auto tok = embedpe::tj::Tokenizer::load(g.tokenizer_json, g.shown);
    const embedpe::tj::Encoded e = tok->encode("hello <|endoftext|> world 123 \xC3\xA9", nullptr, false);
    for (const std::int32_t id : e.ids) {
      if (id < 0 || static_cast<std::size_t>(id) >= g.vocab_size) __builtin_trap();
    }
    g_sink += static_cast<unsigned>(tok->decode(e.ids, false).size());
  } catch (const embedpe::UsageError& e) {
    one_line(e);
  }
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  try {
    const embedpe::gguf::Parsed p = embedpe::gguf::parse(bytes, "fuzz.gguf");
    for (const auto& [key, v] : p.metadata) touch(v, bytes);
    for (const auto& t : p.tensors) {
      if (t.file_offset > size || t.size_bytes > size - t.file_offset) __builtin_trap();
      if (t.size_bytes) g_sink += static_cast<unsigned char>(bytes[t.file_offset + t.size_bytes - 1]);
    }
    run_bpe(p);
  } catch (const embedpe::Error&) {
  }
  return 0;
}
