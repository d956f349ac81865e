#include "tj_model.h"

#include <nlohmann/json.hpp>

#include <algorithm>

#include "embedpe/error.h"
#include "tj_json.h"

namespace embedpe::tj {
namespace {

// Reads the model object `r` stands before (its path "model").
std::unique_ptr<Model> read_model(JsonReader& r) {
  // The type: HF writes it first; look further only if it is not.
  const JsonReader::Mark start = r.mark();
  std::string type;
  bool found = false;
  r.begin_object();
  while (auto key = r.next_key()) {
    if (*key == "type") {
      r.push(".type");
      if (r.peek() != JsonReader::Kind::string) r.fail("expected a string");
      type = r.string();
      found = true;
      break;
    }
    r.skip();
  }
  if (!found) {
    // HF's ModelWrapper then tries each model in turn (serde's untagged
    // enum: BPE, WordPiece, WordLevel, Unigram) and takes the first that
    // reads; bert-base-uncased's tokenizer.json is such a file. WordLevel is
    // not supported: a section only it would read is refused.
    std::string errors[2];
    const auto said = [&r](const std::string& e) { return e.substr(std::min(e.size(), r.shown().size() + 2)); };
    int i = 0;
    for (auto* loader : {&load_bpe, &load_wordpiece, &load_unigram}) {
      r.restore(start);
      r.set_path("model");
      if (i == 2) {
        // WordLevel, third in HF's order, reads any object with a "vocab"
        // object (its other fields are optional, unknown ones ignored).
        bool vocab_object = false;
        r.begin_object();
        while (auto key = r.next_key()) {
          if (*key == "vocab") vocab_object = r.peek() == JsonReader::Kind::object;
          r.skip();
        }
        if (vocab_object) {
          r.restore(start);
          r.set_path("model");
          r.fail("no 'type'; HF reads it as WordLevel, which embedpe does not support (as BPE: " + said(errors[0]) +
                 "; as WordPiece: " + said(errors[1]) + ")");
        }
        r.restore(start);
        r.set_path("model");
      }
      try {
        return loader(r);
      } catch (const UsageError& e) {
        if (i < 2) errors[i] = e.what();
      }
      ++i;
    }
    r.restore(start);
    r.set_path("model");
    r.fail("no 'type', and it reads as none of BPE, WordPiece, Unigram (as BPE: " + said(errors[0]) + ")");
  }
  r.restore(start);
  r.set_path("model");
  if (type == "BPE") return load_bpe(r);
  if (type == "WordPiece") return load_wordpiece(r);
  if (type == "Unigram") return load_unigram(r);
  r.set_path("model.type");
  r.fail(in_quotes(type) + " is not a supported model (BPE, WordPiece, Unigram)");
}

}  // namespace

std::string_view byte_level_char(unsigned char byte) {
  // GPT-2's bytes_to_unicode: printable Latin-1 bytes stand for themselves,
  // the others (0-32, 127-160, 173) for U+0100 + their rank among them.
  static const auto table = [] {
    struct Table {
      char bytes[256][2];
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
  JsonReader r(model_json, shown, "model");
  std::unique_ptr<Model> model = read_model(r);
  r.set_path("model");
  r.end();
  return model;
}

std::unique_ptr<Model> load_model_dom(const nlohmann::json& model, const std::string& shown) {
  return load_model(std::string_view(model.dump()), shown);
}

std::map<std::string, std::string_view, std::less<>> object_members(std::string_view json, const std::string& shown) {
  JsonReader r(json, shown, "");
  std::map<std::string, std::string_view, std::less<>> members;
  if (r.peek() != JsonReader::Kind::object) r.fail_at("(top level)", "expected an object");
  r.begin_object();
  while (auto key = r.next_key()) {
    std::string name(*key);
    r.peek();  // skips whitespace
    const std::size_t start = r.offset();
    r.skip();
    if (!members.emplace(name, json.substr(start, r.offset() - start)).second)
      r.fail_at(name, "the key is given twice");
  }
  r.end();
  return members;
}

TokenizerJson read_tokenizer_json(std::string_view json, const std::string& shown) {
  JsonReader r(json, shown, "");
  TokenizerJson out;
  if (r.peek() != JsonReader::Kind::object) r.fail_at("(top level)", "expected an object");
  r.begin_object();
  bool have_model = false;
  while (auto key = r.next_key()) {
    std::string name(*key);
    r.peek();  // skips whitespace
    const std::size_t start = r.offset();
    if (name == "model") {
      if (have_model) r.fail_at(name, "the key is given twice");
      r.set_path("model");
      out.model = read_model(r);
      r.set_path("");
      have_model = true;
    } else {
      r.skip();
    }
    if (!out.members.emplace(name, json.substr(start, r.offset() - start)).second)
      r.fail_at(name, "the key is given twice");
  }
  r.end();
  if (!have_model) r.fail_at("(top level)", "no 'model'");
  return out;
}

}  // namespace embedpe::tj
