// embedpe/encoder.h: choosing tensors, computing batches, and the run loop
// into a sink (batch sizes and resumed row ranges do not change the rows).
#include <doctest/doctest.h>

#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "embedpe/encode_request.h"
#include "embedpe/encoder.h"
#include "embedpe/error.h"
#include "errors.h"
#include "test_support.h"

using embedpe::TensorName;

namespace {

// Keeps every batch's output rows as floats, and the row ranges it was given.
class CollectingSink : public embedpe::TensorSink {
 public:
  void begin(const embedpe::SinkRun& run) override {
    begun = true;
    streamed = run.streamed;
  }
  void add_tables(const embedpe::SinkTables&) override {}
  void add(const embedpe::SinkBatch& b) override {
    for (const auto& t : b.tensors) {
      if (t.name != "output") continue;
      const auto* v = static_cast<const float*>(t.data);
      std::size_t n = 1;
      for (auto s : t.shape) n *= s;
      rows_seen += t.shape[0];
      values.insert(values.end(), v, v + n);
    }
  }
  void finish() override { finished = true; }
  bool begun = false, streamed = false, finished = false;
  std::size_t rows_seen = 0;
  std::vector<float> values;
};

std::vector<std::string> lines(std::size_t n) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < n; ++i) out.push_back("line number " + std::to_string(i));
  return out;
}

embedpe::EncoderSpec small_spec() {
  embedpe::EncoderSpec spec;
  spec.layer.table.d_model = 8;
  spec.tokenize.seq_len = 6;  // every batch the same width, so batches concatenate
  return spec;
}

}  // namespace

TEST_CASE("select_tensors: defaults, 'all', canonical order, and the messages a front end respells") {
  const auto* npy = embedpe::find_sink_format("npy");
  const auto* npz = embedpe::find_sink_format("npz");
  CHECK(embedpe::select_tensors({}, npy) == std::vector<TensorName>{TensorName::output});
  CHECK(embedpe::select_tensors({}, npz).size() == 3);
  CHECK(embedpe::select_tensors({"output", "input_ids", "output"}, npz) ==
        std::vector<TensorName>{TensorName::input_ids, TensorName::output});
  CHECK(embedpe::select_tensors({"all"}, nullptr).size() == 5);
  try {
    embedpe::select_tensors({"input_ids", "output"}, npy);
    FAIL("no error");
  } catch (const embedpe::UsageError& e) {
    CHECK(embedpe::cli::user_message(e) == ".npy holds one tensor but --emit names 2; use --format npz for several");
  }
  CHECK_THROWS_AS(embedpe::select_tensors({"bogus"}, npz), embedpe::UsageError);
}

TEST_CASE("training_dropout: dropout needs train, train needs the table's seed; the messages a front end respells") {
  embedpe::EncodeRequest request;
  embedpe::LayerSpec layer;
  CHECK_FALSE(embedpe::training_dropout(request, layer));
  const auto message = [&] {
    try {
      embedpe::training_dropout(request, layer);
    } catch (const embedpe::UsageError& e) {
      return embedpe::cli::user_message(e);
    }
    return std::string("no error");
  };
  request.dropout = 0.2;
  CHECK(message() == "--dropout only applies with --train (inference never drops)");
  request.train = true;
  CHECK(message() == "--train needs an explicit --seed, so that the dropout mask can be reproduced");
  layer.table.seed = 7;
  const std::optional<embedpe::Dropout> dropout = embedpe::training_dropout(request, layer);
  REQUIRE(dropout);
  CHECK(dropout->p == 0.2);
  CHECK(dropout->seed == 7);
}

TEST_CASE("ids_tokenizer: the embedded model's for a generated table, none for a table of weights alone") {
  const embedpe::ModelSource source;
  embedpe::LayerSpec layer;
  int notes = 0;
  const auto note = [&notes](const embedpe::Error&) { ++notes; };
  CHECK(embedpe::ids_tokenizer(source, layer, note));
  layer.table.weights = "table.npy";
  CHECK_FALSE(embedpe::ids_tokenizer(source, layer, note));
  CHECK(notes == 0);
}

TEST_CASE("encode: the rows do not depend on the batch size, and skipped row ranges are neither computed nor written") {
  const auto* jsonl = embedpe::find_sink_format("jsonl");
  const embedpe::Encoder encoder(embedpe::Tokenizer::default_model(), small_spec());
  auto run = [&](std::size_t batch_size, std::function<bool(std::size_t, const std::vector<embedpe::TextLine>&)> skip) {
    embedpe::TextSource source = embedpe::TextSource::given(lines(10), "text");
    CollectingSink sink;
    embedpe::encode(encoder, source, *jsonl, sink, {.batch_size = batch_size, .skip = std::move(skip)});
    CHECK(sink.finished);
    return sink;
  };
  const CollectingSink whole = run(128, {});
  CHECK(whole.rows_seen == 10);
  CHECK(whole.values.size() == 10 * 6 * 8);

  // Given texts are one batch; an encoder computes any batch split alike.
  embedpe::EncodedBatch a, b;
  const auto texts = lines(10);
  encoder.compute({texts.begin(), texts.begin() + 4}, {}, 0, a);
  encoder.compute({texts.begin() + 4, texts.end()}, {}, 4, b);
  std::vector<float> split(a.layer.output.begin(), a.layer.output.end());
  split.insert(split.end(), b.layer.output.begin(), b.layer.output.end());
  CHECK(split == whole.values);

  const CollectingSink none = run(128, [](std::size_t, const auto&) { return true; });
  CHECK(none.rows_seen == 0);

  // Streamed from a file in batches of 3, with rows 3..5 already held: the
  // other rows are the same values, and the skipped range is asked for once.
  const std::string path = test::temp_path("encoder_rows.txt");
  {
    std::ofstream out(path);
    for (const auto& l : lines(10)) out << l << "\n";
  }
  embedpe::TextSource file(std::make_unique<embedpe::LineReader>(std::vector<std::string>{path}, embedpe::InputOptions{}));
  CollectingSink streamed;
  std::vector<std::size_t> asked;
  embedpe::encode(encoder, file, *jsonl, streamed,
                  {.batch_size = 3, .skip = [&](std::size_t row, const std::vector<embedpe::TextLine>& l) {
                     asked.push_back(row);
                     return row == 3 && l.size() == 3;
                   }});
  CHECK(streamed.streamed);
  CHECK(asked == std::vector<std::size_t>{0, 3, 6, 9});
  CHECK(streamed.rows_seen == 7);
  std::vector<float> expected(whole.values.begin(), whole.values.begin() + 3 * 48);
  expected.insert(expected.end(), whole.values.begin() + 6 * 48, whole.values.end());
  CHECK(streamed.values == expected);
}

TEST_CASE("compute: a row too long for the table names its origin, which stays the user's text") {
  embedpe::EncoderSpec spec = small_spec();
  spec.tokenize.seq_len.reset();
  spec.layer.max_len = 3;
  const embedpe::Encoder encoder(embedpe::Tokenizer::default_model(), spec);
  embedpe::EncodedBatch out;
  try {
    encoder.compute({"a", "a much longer line of text"}, {"seq_len:1", "seq_len:2"}, 0, out);
    FAIL("no error");
  } catch (const embedpe::UsageError& e) {
    const std::string m = embedpe::cli::user_message(e);
    CHECK(m.rfind("seq_len:2 is ", 0) == 0);
    CHECK(m.find("but the PE table has 3 positions; raise --max-len, or truncate with --seq-len") != std::string::npos);
  }
}

TEST_CASE("Encoder::config: what reproduces the rows") {
  embedpe::EncoderSpec spec = small_spec();
  spec.emit = {TensorName::input_ids, TensorName::rope_cos};
  spec.dtype = embedpe::DType::float16;
  const embedpe::Encoder encoder(embedpe::Tokenizer::default_model(), spec);
  const auto& c = encoder.config();
  CHECK(c["seq_len"] == 6);
  CHECK(c["d_model"] == 8);
  CHECK(c["training"] == false);
  CHECK(c["dtype"] == "float16");
  CHECK(c["emit"] == nlohmann::ordered_json::array({"input_ids", "rope_cos"}));
  CHECK(c.contains("rope"));
}

TEST_CASE("tokenize: ids and masks into a sink, streamed past a batch; the same ids as text lines") {
  const embedpe::Tokenizer tokenizer = embedpe::Tokenizer::default_model();
  const std::size_t n = embedpe::kTokenizeBatchLines + 5;  // two batches from a file
  const std::string path = test::temp_path("tokenize_rows.txt");
  {
    std::ofstream out(path);
    for (const auto& l : lines(n)) out << l << "\n";
  }
  auto file = [&] {
    return embedpe::TextSource(std::make_unique<embedpe::LineReader>(std::vector<std::string>{path}, embedpe::InputOptions{}));
  };
  // Keeps input_ids with the mask's padding dropped, row by row.
  class IdSink : public embedpe::TensorSink {
   public:
    void begin(const embedpe::SinkRun& run) override {
      streamed = run.streamed;
      config = run.config;
    }
    void add_tables(const embedpe::SinkTables&) override {}
    void add(const embedpe::SinkBatch& b) override {
      names.clear();
      for (const auto& t : b.tensors) names.push_back(t.name);
      for (std::size_t r = 0; r < b.batch.size(); ++r) {
        std::string row;
        for (std::size_t l = 0; l < b.batch.input_ids.shape(1); ++l) {
          if (b.batch.attention_mask(r, l) == 0) continue;
          if (!row.empty()) row += ' ';  // (piecewise: GCC 12 warns falsely on "x" + std::string, -Wrestrict)
          row += std::to_string(b.batch.input_ids(r, l));
        }
        rows.push_back(row);
      }
    }
    void finish() override { finished = true; }
    bool begun = false, streamed = false, finished = false;
    nlohmann::ordered_json config;
    std::vector<std::string> names, rows;
  };
  embedpe::TextSource source = file();
  IdSink sink;
  embedpe::tokenize(tokenizer, source, *embedpe::find_sink_format("jsonl"), sink, {});
  CHECK(sink.finished);
  CHECK(sink.streamed);
  CHECK(sink.names == std::vector<std::string>{"input_ids", "attention_mask"});
  CHECK(sink.config.contains("model"));
  CHECK(sink.config["input"] == "text");
  REQUIRE(sink.rows.size() == n);

  const std::string text_path = test::temp_path("tokenize_rows.ids");
  embedpe::TextSource again = file();
  embedpe::tokenize_to_text(tokenizer, again, embedpe::TokenText::ids, text_path, {});
  std::ifstream in(text_path);
  std::size_t i = 0;
  for (std::string line; std::getline(in, line); ++i) {
    REQUIRE(i < n);
    CHECK(line == sink.rows[i]);
    std::string plain;  // SentencePiece's ids, inside BOS/EOS
    for (int id : tokenizer.encode(lines(n)[i]).ids) {
      if (!plain.empty()) plain += ' ';
      plain += std::to_string(id);
    }
    CHECK(line.find(plain) != std::string::npos);
  }
  CHECK(i == n);

  // An empty file is refused unless it is allowed (one shard of many).
  const std::string empty = test::temp_path("tokenize_empty.txt");
  std::ofstream{empty};
  embedpe::TextSource none(std::make_unique<embedpe::LineReader>(std::vector<std::string>{empty}, embedpe::InputOptions{}));
  IdSink unused;
  CHECK_THROWS_AS(embedpe::tokenize(tokenizer, none, *embedpe::find_sink_format("jsonl"), unused, {}), embedpe::UsageError);
  CHECK(!unused.finished);
}

TEST_CASE("encode: several token types are one per given text, refused for files before the sink begins") {
  const auto* jsonl = embedpe::find_sink_format("jsonl");
  embedpe::EncoderSpec spec = small_spec();
  spec.emit = {TensorName::input_ids, TensorName::token_type_ids, TensorName::output};
  spec.token_type_ids = {0, 1, 1};
  const embedpe::Encoder encoder(embedpe::Tokenizer::default_model(), spec);
  const auto refusal = [&](embedpe::TextSource& source) {
    CollectingSink sink;
    try {
      embedpe::encode(encoder, source, *jsonl, sink, {});
    } catch (const embedpe::UsageError& e) {
      CHECK(!sink.begun);
      return embedpe::cli::user_message(e);
    }
    return std::string("no error");
  };
  embedpe::TextSource two = embedpe::TextSource::given(lines(2), "text");
  CHECK(refusal(two) == "--token-type-ids gives 3 types for 2 sequences: give one per sequence, or one for all");
  const std::string path = test::temp_path("encoder_types.txt");
  std::ofstream(path) << "a\nb\nc\n";
  embedpe::TextSource file(
      std::make_unique<embedpe::LineReader>(std::vector<std::string>{path}, embedpe::InputOptions{}));
  CHECK(refusal(file) ==
        "--token-type-ids with several values gives one per --text or --ids; for input files give one type for all");
  embedpe::TextSource three = embedpe::TextSource::given(lines(3), "text");
  CollectingSink sink;
  embedpe::encode(encoder, three, *jsonl, sink, {});
  CHECK(sink.rows_seen == 3);
}

TEST_CASE("check_encode_output: what an output cannot hold, refused in parameter names before any work") {
  using embedpe::DType;
  using embedpe::EncodeOutput;
  auto refusal = [](const EncodeOutput& out, DType dtype, int precision, bool given, bool seek) -> std::string {
    try {
      embedpe::check_encode_output(out, dtype, precision, given, seek);
    } catch (const embedpe::UsageError& e) {
      return embedpe::cli::user_message(e);
    }
    return "";
  };
  const auto* npy = embedpe::find_sink_format("npy");
  const auto* npz = embedpe::find_sink_format("npz");
  const auto* json = embedpe::find_sink_format("json");
  const auto* jsonl = embedpe::find_sink_format("jsonl");
  CHECK(refusal({.format = json}, DType::bfloat16, 0, false, false).empty());
  CHECK(refusal({}, DType::float32, 0, false, false) == "give --format for a file output");
  CHECK(refusal({.format = npy}, DType::bfloat16, 0, false, false).starts_with(
      "--dtype bf16: NumPy has no bfloat16 dtype, so .npy/.npz cannot hold it; use --format json"));
  CHECK(refusal({.format = npz, .output_dir = "d"}, DType::bfloat16, 0, false, false)
            .starts_with("--dtype bf16: NumPy has no bfloat16 dtype, so --output-dir's .npz parts cannot"));
  CHECK(refusal({.path = "x.npz", .format = npz, .output_dir = "d"}, DType::float32, 0, false, false) ==
        "give --output or --output-dir, not both");
  CHECK(refusal({.format = json, .output_dir = "d"}, DType::float32, 0, false, false) ==
        "--output-dir writes .npz parts; drop --format");
  CHECK(refusal({.format = npz, .output_dir = "d"}, DType::float32, 0, true, false) ==
        "--output-dir is for --input corpora");
  CHECK(refusal({.format = json, .resume = true}, DType::float32, 0, false, false) ==
        "--resume continues an --output-dir run");
  CHECK(refusal({.format = npz}, DType::float32, 4, false, false) ==
        "--precision rounds floats written as text (json, jsonl); .npz keeps them exact: drop --precision");
  CHECK(refusal({.format = json}, DType::float32, 4, false, false).empty());
  // JSON Lines of a seeking shard need a file beside which merge finds the record.
  CHECK(refusal({.format = jsonl}, DType::float32, 0, false, true).starts_with("--shard-seek numbers JSON Lines"));
  CHECK(refusal({.format = npy}, DType::float32, 0, false, true).empty());
}
