#include <doctest/doctest.h>

#include "embedpe/error.h"
#include "embedpe/tokenizer.h"
#include "error_support.h"
#include "test_support.h"

using embedpe::Batch;
using embedpe::EncodeOptions;
using embedpe::Tokenizer;

namespace {
embedpe::Tokenizer model(const std::string& relative) {
  if (relative == "data/default.model") return Tokenizer::default_model();
  return Tokenizer::from_file(test::source_path(relative));
}
}  // namespace

TEST_CASE("ids and pieces equal Python SentencePiece's for every test model") {
  const auto golden = test::read_json(test::golden("encodings.json"));
  for (const auto& [path, expected] : golden["models"].items()) {
    SUBCASE(path.c_str()) {
      const Tokenizer tok = model(path);
      CHECK(tok.info().vocab_size == expected["vocab_size"].get<std::int64_t>());
      CHECK(tok.info().pad_id == expected["pad_id"].get<int>());
      CHECK(tok.info().bos_id == expected["bos_id"].get<int>());
      CHECK(tok.info().eos_id == expected["eos_id"].get<int>());
      CHECK(tok.info().unk_id == expected["unk_id"].get<int>());
      for (const auto& c : expected["cases"]) {
        const std::string text = c["text"];
        CAPTURE(text);
        const auto enc = tok.encode(text);
        CHECK(enc.ids == c["ids"].get<std::vector<int>>());
        CHECK(enc.pieces == c["pieces"].get<std::vector<std::string>>());
      }
    }
  }
}

TEST_CASE("the embedded default model is the file in data/") {
  const Tokenizer embedded = Tokenizer::default_model();
  const Tokenizer file = Tokenizer::from_file(test::source_path("data/default.model"));
  CHECK(embedded.sha256() == file.sha256());  // built-in constant vs computed
  CHECK(embedded.info().source == "embedded default");
}

TEST_CASE("the default model: ids pad=0 bos=1 eos=2 unk=3, byte fallback, no <unk> for Chinese or emoji") {
  const Tokenizer tok = Tokenizer::default_model();
  const auto& info = tok.info();
  CHECK(info.pad_id == 0);
  CHECK(info.bos_id == 1);
  CHECK(info.eos_id == 2);
  CHECK(info.unk_id == 3);
  CHECK(info.byte_fallback);
  CHECK(info.model_type == "unigram");
  for (const char* text : {"我爱北京天安门。今天天气很好。", "emoji 🙂 and café", "吾輩は猫である。", "龘 𠀀 ©"}) {
    CAPTURE(text);
    for (int id : tok.encode(text).ids) CHECK(id != info.unk_id);
  }
}

TEST_CASE("model info read from the ModelProto") {
  SUBCASE("sp-test") {
    const Tokenizer tok = model("tests/models/sp-test.model");
    const auto& info = tok.info();
    CHECK(info.model_type == "unigram");
    CHECK(info.normalizer == "nfkc");
    CHECK_FALSE(info.byte_fallback);
    CHECK(tok.sha256() == "4884d27bf50494e080aa99dbb868f27b68b6a3b6bd128da37ad6057c5e3cf5a2");
  }
  SUBCASE("mistral v3: BPE with byte fallback") {
    auto info = model("tests/models/mistral-v3-tokenizer.model").info();
    CHECK(info.model_type == "bpe");
    CHECK(info.byte_fallback);
    CHECK(info.normalizer == "identity");
  }
  SUBCASE("t5: nmt_nfkc, no BOS") {
    auto info = model("tests/models/t5-spiece.model").info();
    CHECK(info.normalizer == "nmt_nfkc");
    CHECK(info.bos_id == -1);
  }
}

TEST_CASE("batch: BOS/EOS, padding to the longest, attention mask") {
  const Tokenizer tok = Tokenizer::default_model();
  const Batch b = tok.encode_batch({"Hello, this is machine translation", "hi"}, {});
  const auto hello = tok.encode("Hello, this is machine translation").ids;
  REQUIRE(b.size() == 2);
  REQUIRE(b.seq_len() == hello.size() + 2);
  CHECK(b.input_ids(0, 0) == 1);
  for (std::size_t l = 0; l < hello.size(); ++l) CHECK(b.input_ids(0, l + 1) == hello[l]);
  CHECK(b.input_ids(0, b.seq_len() - 1) == 2);
  // "hi" is shorter: [1, ..., 2, 0, 0, ...], padded on the right.
  const std::size_t hi_len = tok.encode("hi").ids.size() + 2;
  CHECK(b.input_ids(1, hi_len - 1) == 2);
  for (std::size_t l = 0; l < b.seq_len(); ++l) {
    CHECK(b.attention_mask(1, l) == (l < hi_len ? 1 : 0));
    if (l >= hi_len) CHECK(b.input_ids(1, l) == 0);
  }
  CHECK(b.pieces[1].size() == hi_len);
  CHECK(b.pieces[1].front() == "<s>");
  CHECK(b.pieces[1].back() == "</s>");
  CHECK(b.truncated_count() == 0);
}

TEST_CASE("batch: --no-bos / --no-eos and a custom pad id") {
  const Tokenizer tok = Tokenizer::default_model();
  EncodeOptions opt;
  opt.add_bos = false;
  opt.add_eos = false;
  opt.pad_id = 7;
  const Batch b = tok.encode_batch({"Hello world", "a"}, opt);
  const auto ids = tok.encode("Hello world").ids;
  REQUIRE(b.seq_len() == ids.size());
  CHECK(b.input_ids(0, 0) == ids[0]);
  CHECK(b.input_ids(1, b.seq_len() - 1) == 7);
  CHECK(b.pad_id == 7);
}

TEST_CASE("batch: fixed seq_len pads and truncates, keeping BOS and EOS") {
  const Tokenizer tok = Tokenizer::default_model();
  EncodeOptions opt;
  opt.seq_len = 5;
  const Batch b = tok.encode_batch({"Hello, this is machine translation", "hi"}, opt);
  const auto ids = tok.encode("Hello, this is machine translation").ids;
  REQUIRE(b.seq_len() == 5);
  CHECK(b.input_ids(0, 0) == 1);
  CHECK(b.input_ids(0, 1) == ids[0]);
  CHECK(b.input_ids(0, 3) == ids[2]);
  CHECK(b.input_ids(0, 4) == 2);  // EOS survives truncation
  CHECK(b.pieces[0].size() == 5);
  CHECK(b.untruncated_lengths[0] == ids.size() + 2);
  CHECK(b.truncated_count() == 1);
  for (std::size_t l = 0; l < 5; ++l) CHECK(b.attention_mask(0, l) == 1);
}

TEST_CASE("batch: seq_len equal to the specials keeps only BOS and EOS; smaller is an error") {
  const Tokenizer tok = Tokenizer::default_model();
  EncodeOptions opt;
  opt.seq_len = 2;
  const Batch b = tok.encode_batch({"Hello"}, opt);
  CHECK(b.input_ids(0, 0) == 1);
  CHECK(b.input_ids(0, 1) == 2);
  opt.seq_len = 1;
  CHECK_THROWS_WITH_AS(tok.encode_batch({"Hello"}, opt), doctest::Contains("leaves no room for BOS and EOS"),
                       embedpe::UsageError);
}

TEST_CASE("batch: a model without BOS (T5) gets only EOS, and its pad id 0") {
  const Tokenizer tok = model("tests/models/t5-spiece.model");
  const Batch b = tok.encode_batch({"Hello"}, {});
  const auto ids = tok.encode("Hello").ids;
  REQUIRE(b.seq_len() == ids.size() + 1);
  CHECK(b.input_ids(0, 0) == ids[0]);
  CHECK(b.input_ids(0, b.seq_len() - 1) == 1);  // T5's EOS
  CHECK(b.pad_id == 0);
}

TEST_CASE("batch: the empty text is BOS EOS; a pad id outside the vocabulary is an error") {
  const Tokenizer tok = Tokenizer::default_model();
  const Batch b = tok.encode_batch({""}, {});
  REQUIRE(b.seq_len() == 2);
  EncodeOptions opt;
  opt.pad_id = 8000;
  CHECK_THROWS_WITH_AS(tok.encode_batch({"x"}, opt), doctest::Contains("pad_id 8000 is outside the vocabulary"),
                       embedpe::UsageError);
}

TEST_CASE("pad_id: the option, else the model's pad id, else 0; the batch uses the same") {
  const Tokenizer tok = Tokenizer::default_model();
  CHECK(tok.pad_id({}) == 0);
  EncodeOptions opt;
  opt.pad_id = 5;
  CHECK(tok.pad_id(opt) == 5);
  CHECK(tok.encode_batch({"x"}, opt).pad_id == 5);
  // A model without a pad piece pads with 0, and the batch says so.
  const Tokenizer no_pad = model("tests/models/sp-test.model");
  REQUIRE(no_pad.info().pad_id == -1);
  CHECK(no_pad.pad_id({}) == 0);
  CHECK(no_pad.encode_batch({"x"}, {}).pad_id == 0);
}

TEST_CASE("batch errors name the parameters, not a front end's flags") {
  const Tokenizer tok = Tokenizer::default_model();
  EncodeOptions opt;
  opt.pad_id = 8000;
  const test::Caught pad = test::caught([&] { tok.encode_batch({"x"}, opt); });
  CHECK(pad.message.rfind("pad_id 8000 is outside the vocabulary (0..7999 for model ", 0) == 0);
  CHECK(pad.parameters == std::vector<std::string>{"pad_id"});
  CHECK(pad.exit_code == 2);

  opt = {};
  opt.seq_len = 1;
  const test::Caught room = test::caught([&] { tok.encode_batch({"x"}, opt); });
  CHECK(room.message == "seq_len 1 leaves no room for BOS and EOS; use at least 2, or add_bos=false/add_eos=false");
  CHECK(room.parameters == std::vector<std::string>{"seq_len", "add_bos=false", "add_eos=false"});
}

TEST_CASE("batch: invalid UTF-8 is an error naming the text") {
  const Tokenizer tok = Tokenizer::default_model();
  CHECK_THROWS_WITH_AS(tok.encode_batch({"ok", "bad\xFF"}, {}), doctest::Contains("text 2: invalid UTF-8"),
                       embedpe::Error);
}

TEST_CASE("models that are empty, truncated or not SentencePiece are clear errors") {
  const std::string good = test::read_file(test::source_path("tests/models/sp-test.model"));
  CHECK_THROWS_WITH_AS(Tokenizer::from_bytes("", "empty.model"), doctest::Contains("model empty.model is empty"),
                       embedpe::Error);
  CHECK_THROWS_WITH_AS(Tokenizer::from_bytes(good.substr(0, good.size() / 2), "half.model"),
                       doctest::Contains("model half.model is not a SentencePiece model"), embedpe::Error);
  CHECK_THROWS_WITH_AS(Tokenizer::from_bytes("this is plain text, not a protobuf", "text.model"),
                       doctest::Contains("text.model"), embedpe::Error);
  CHECK_THROWS_WITH_AS(Tokenizer::from_file(test::temp_path("no-such.model")),
                       doctest::Contains("cannot open model"), embedpe::Error);
}

TEST_CASE("batch: padding_side left puts the pads first; first_token says where the tokens start") {
  const Tokenizer tok = Tokenizer::default_model();
  EncodeOptions opt;
  opt.padding_side = embedpe::Side::left;
  const Batch right = tok.encode_batch({"Hello, this is machine translation", "hi"}, {});
  const Batch left = tok.encode_batch({"Hello, this is machine translation", "hi"}, opt);
  REQUIRE(left.seq_len() == right.seq_len());
  const std::size_t n = left.pieces[1].size(), pads = left.seq_len() - n;
  CHECK(left.first_token(1) == pads);
  CHECK(right.first_token(1) == 0);
  for (std::size_t l = 0; l < pads; ++l) {
    CHECK(left.input_ids(1, l) == 0);
    CHECK(left.attention_mask(1, l) == 0);
  }
  for (std::size_t l = 0; l < n; ++l) {
    CHECK(left.input_ids(1, pads + l) == right.input_ids(1, l));
    CHECK(left.attention_mask(1, pads + l) == 1);
  }
}

TEST_CASE("batch: truncation_side left drops the text's first tokens, keeping BOS and EOS") {
  const Tokenizer tok = Tokenizer::default_model();
  EncodeOptions opt;
  opt.seq_len = 5;
  opt.truncation_side = embedpe::Side::left;
  const auto ids = tok.encode("Hello, this is machine translation").ids;
  const Batch b = tok.encode_batch({"Hello, this is machine translation"}, opt);
  CHECK(b.input_ids(0, 0) == 1);
  CHECK(b.input_ids(0, 1) == ids[ids.size() - 3]);
  CHECK(b.input_ids(0, 3) == ids.back());
  CHECK(b.input_ids(0, 4) == 2);
  CHECK(b.pieces[0][3] == tok.encode("Hello, this is machine translation").pieces.back());
  CHECK(b.truncated_count() == 1);
}

TEST_CASE("batch: pad_to_multiple_of rounds the longest up; a seq_len that is no multiple is refused") {
  const Tokenizer tok = Tokenizer::default_model();
  EncodeOptions opt;
  opt.pad_to_multiple_of = 8;
  CHECK(tok.encode_batch({"hi"}, opt).seq_len() == 8);
  const std::size_t n = tok.encode_batch({"hi"}, {}).seq_len();  // BOS, the text's tokens, EOS
  REQUIRE(n < 8);
  opt.pad_to_multiple_of = n;
  CHECK(tok.encode_batch({"hi"}, opt).seq_len() == n);  // already a multiple
  CHECK(tok.encode_batch({}, opt).seq_len() == 0);
  opt.pad_to_multiple_of = 4;
  opt.seq_len = 10;
  CHECK_THROWS_WITH_AS(tok.encode_batch({"hi"}, opt),
                       doctest::Contains("seq_len 10 is not a multiple of pad_to_multiple_of 4; give seq_len 8 or 12"),
                       embedpe::UsageError);
  opt.seq_len = 8;
  CHECK(tok.encode_batch({"hi"}, opt).seq_len() == 8);
  opt.pad_to_multiple_of = 0;
  CHECK_THROWS_AS(embedpe::check_padding(opt), embedpe::UsageError);
}

TEST_CASE("batch_from_ids: ids as given, no BOS/EOS, truncated and padded as text is, origins in errors") {
  const Tokenizer tok = Tokenizer::default_model();
  EncodeOptions opt;  // add_bos / add_eos are ignored for ids
  opt.seq_len = 3;
  opt.truncation_side = embedpe::Side::left;
  opt.padding_side = embedpe::Side::left;
  const Batch b = tok.batch_from_ids({{1, 262, 6523, 2}, {7}}, opt);
  CHECK(b.input_ids(0, 0) == 262);
  CHECK(b.input_ids(0, 2) == 2);
  CHECK(b.input_ids(1, 0) == 0);
  CHECK(b.input_ids(1, 2) == 7);
  CHECK(b.attention_mask(1, 1) == 0);
  CHECK(b.pieces[1] == std::vector<std::string>{std::string(tok.id_to_piece(7))});
  CHECK(b.untruncated_lengths[0] == 4);
  CHECK_THROWS_WITH_AS(tok.batch_from_ids({{1}, {8000}}, {}, {"a.txt:1", "a.txt:2"}),
                       doctest::Contains("a.txt:2: id 8000 is outside the vocabulary"), embedpe::Error);
  CHECK_THROWS_AS(tok.batch_from_ids({{-1}}, {}), embedpe::Error);
}

TEST_CASE("encode_pair_batch: [CLS] A [SEP] B [SEP], segment types on either padding side, longest_first") {
  const auto tok = embedpe::Tokenizer::from_file(test::source_path("tests/models/albert-spiece.model"));
  const int cls = 2, sep = 3;  // ALBERT's [CLS] and [SEP]
  REQUIRE(tok.id_to_piece(cls) == "[CLS]");
  REQUIRE(tok.id_to_piece(sep) == "[SEP]");
  const std::vector<int> a = tok.encode("the quick brown fox").ids, b = tok.encode("jumps").ids;
  embedpe::EncodeOptions o;
  o.padding_side = embedpe::Side::left;
  const auto batch = tok.encode_pair_batch({"the quick brown fox", "x"}, {"jumps", "y"}, o);
  const std::size_t n = a.size() + b.size() + 3, width = batch.seq_len();
  REQUIRE(width == n);
  CHECK(batch.input_ids(0, 0) == cls);
  CHECK(batch.input_ids(0, a.size() + 1) == sep);
  CHECK(batch.input_ids(0, n - 1) == sep);
  for (std::size_t l = 0; l < n; ++l) CHECK(batch.token_type_ids(0, l) == (l >= a.size() + 2 ? 1 : 0));
  // Row 1 is padded on the left: its segments follow its first token.
  const std::size_t first = batch.first_token(1);
  CHECK(batch.input_ids(1, first) == cls);
  for (std::size_t l = 0; l < first; ++l) CHECK(batch.token_type_ids(1, l) == 0);
  const std::size_t x = tok.encode("x").ids.size();
  CHECK(batch.input_ids(1, first + x + 1) == sep);
  for (std::size_t l = first; l < width; ++l) CHECK(batch.token_type_ids(1, l) == (l >= first + x + 2 ? 1 : 0));

  // longest_first: A (the longer) loses tokens until the pair fits; truncation_side left cuts its start.
  embedpe::EncodeOptions cut;
  cut.seq_len = b.size() + 3 + 2;
  cut.truncation_side = embedpe::Side::left;
  const auto t = tok.encode_pair_batch({"the quick brown fox"}, {"jumps"}, cut);
  CHECK(t.seq_len() == *cut.seq_len);
  CHECK(t.input_ids(0, 1) == a[a.size() - 2]);
  CHECK(t.input_ids(0, 2) == a[a.size() - 1]);
  CHECK(t.untruncated_lengths[0] == n);
  CHECK(t.truncated_count() == 1);
  CHECK_THROWS_AS(tok.encode_pair_batch({"a"}, {}, {}), embedpe::UsageError);
  CHECK_THROWS_AS(embedpe::Tokenizer::default_model().encode_pair_batch({"a"}, {"b"}, {}), embedpe::UsageError);
}
