#include "tj_model.h"

#include <nlohmann/json.hpp>

#include "tj_json.h"
#include "tj_models.h"

namespace embedpe::tj {

std::string_view byte_level_char(unsigned char byte) {
  // GPT-2's bytes_to_unicode: printable Latin-1 bytes stand for themselves,
  // the others (0-32, 127-160, 173) for U+0100 + their rank among them.
  static const auto table = [] {
    struct Table {
      char bytes[256][3];
      unsigned char size[256];
    } t{};
    unsigned rank = 0;
    for (unsigned b = 0; b < 256; ++b) {
      const bool printable = (b >= 33 && b <= 126) || (b >= 161 && b <= 172) || (b >= 174);
      const unsigned cp = printable ? b : 256 + rank++;
      if (cp < 0x80) {
        t.bytes[b][0] = static_cast<char>(cp);
        t.size[b] = 1;
      } else {
        t.bytes[b][0] = static_cast<char>(0xC0 | (cp >> 6));
        t.bytes[b][1] = static_cast<char>(0x80 | (cp & 0x3F));
        t.size[b] = 2;
      }
    }
    return t;
  }();
  return {table.bytes[byte], table.size[byte]};
}

void Model::tokenize_bytes(std::string_view raw, std::vector<std::int32_t>& ids) const {
  std::string mapped;
  mapped.reserve(raw.size() * 2);
  for (const char c : raw) mapped.append(byte_level_char(static_cast<unsigned char>(c)));
  tokenize(mapped, ids);
}

std::unique_ptr<Model> load_model(std::string_view model_json, const std::string& shown) {
  // The type: HF writes it first; look further only if it is not.
  std::string type;
  {
    JsonReader r(model_json, shown, "model");
    r.begin_object();
    while (auto key = r.next_key()) {
      if (*key == "type") {
        r.push(".type");
        if (r.peek() != JsonReader::Kind::string) r.fail("expected a string");
        type = r.string();
        break;
      }
      r.skip();
    }
  }
  if (type.empty()) {
    JsonReader(model_json, shown, "model").fail("no 'type' (a model without one is not supported)");
  }
  if (type == "BPE") return load_bpe(model_json, shown);
  if (type == "WordPiece") return load_wordpiece(model_json, shown);
  if (type == "Unigram") return load_unigram(model_json, shown);
  JsonReader(model_json, shown, "model.type").fail(tj::quoted(type) + " is not a supported model (BPE, WordPiece, Unigram)");
}

std::unique_ptr<Model> load_model_dom(const nlohmann::json& model, const std::string& shown) {
  return load_model(std::string_view(model.dump()), shown);
}

}  // namespace embedpe::tj
