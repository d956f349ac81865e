// embedpe.Encoder(pretrained=None, model=None, weights=None, **options):
// encode's options read by encode's own definition (app/encode.cpp through
// commands.h's TakeEncoder), the library's Encoder kept, and each call's
// texts computed as `embedpe encode -o x.npz` computes them (encode_whole),
// with the GIL released; the arrays hold the computed buffers.
#include "encoder.h"

#include <climits>
#include <cstdint>
#include <exception>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <pybind11/numpy.h>

#include "arrays.h"
#include "commands.h"
#include "embedpe/encoder.h"
#include "embedpe/error.h"
#include "embedpe/text_input.h"
#include "errors.h"
#include "options.h"

namespace embedpe::python {
namespace py = pybind11;

namespace {

// encode's options that are keywords: those of the tokenizer, the layer, the
// positional encoding and RoPE, --dtype, --threads and --emit (the calls'
// default: some options apply only to some tensors, as rope_theta to the
// RoPE tables); not those that say where the texts come from or where the
// tensors go (the call's arguments and its result).
bool encoder_keyword(const CLI::Option& o) {
  const std::string group = o.get_group();
  const std::string name = o.get_lnames().empty() ? "" : o.get_lnames().front();
  if (name == "dtype" || name == "threads" || name == "emit") return true;
  return group != "Input" && group != "Output" && group != "Pipeline" && name != "help";
}

// What one call computed: the arrays' memory.
struct Computed {
  EncodedBatch batch;
  std::vector<TensorBuffer> keep;  // converted copies (float16)
};

// texts: a str, or a list or tuple of str; bytes is not str.
std::vector<std::string> texts_of(const py::handle& texts, const char* name, bool& single) {
  auto utf8 = [&](const py::handle& item, const std::string& where) {
    if (!PyUnicode_Check(item.ptr())) {
      throw py::type_error(where + " must be str, not " +
                           py::str(py::type::handle_of(item).attr("__name__")).cast<std::string>());
    }
    Py_ssize_t size = 0;
    const char* data = PyUnicode_AsUTF8AndSize(item.ptr(), &size);
    if (!data) throw py::error_already_set();  // a lone surrogate: UnicodeEncodeError
    return std::string(data, static_cast<std::size_t>(size));
  };
  single = PyUnicode_Check(texts.ptr());
  if (single) return {utf8(texts, name)};
  if (!py::isinstance<py::list>(texts) && !py::isinstance<py::tuple>(texts)) {
    throw py::type_error(std::string(name) + " must be a str or a list of str, not " +
                         py::str(py::type::handle_of(texts).attr("__name__")).cast<std::string>());
  }
  std::vector<std::string> out;
  std::size_t i = 0;
  for (const py::handle item : texts) out.push_back(utf8(item, std::string(name) + "[" + std::to_string(i++) + "]"));
  return out;
}

// ids (or a mask) as int64, refusing what a cast would change: floats (1.5
// is not id 1), and unsigned values past int64's range (not wrapped).
py::array_t<std::int64_t, py::array::c_style | py::array::forcecast> integer_ids(const py::handle& ids,
                                                                                 const std::string& name) {
  py::array raw;
  try {
    raw = py::module_::import("numpy").attr("asarray")(ids);
  } catch (const py::error_already_set&) {
    throw py::type_error(name + " must be a sequence of ids or a batch of them of one length (a list of lists, a "
                                "2-d array)");
  }
  const char kind = raw.dtype().kind();
  if (raw.size() > 0 && kind != 'i' && kind != 'u' && kind != 'b') {
    throw py::type_error(name + " must be integers, not " + py::str(raw.dtype()).cast<std::string>());
  }
  if (kind == 'u' && raw.itemsize() == 8 && raw.size() > 0 &&
      raw.attr("max")().cast<std::uint64_t>() > static_cast<std::uint64_t>(INT64_MAX)) {
    throw py::value_error(name + ": " + py::str(raw.attr("max")()).cast<std::string>() + " is not an id");
  }
  return py::array_t<std::int64_t, py::array::c_style | py::array::forcecast>::ensure(raw);
}

// text_pair as texts: a str for a str, a list of as many for a list.
void check_pairs(bool single, std::size_t texts, bool pair_single, std::size_t pairs) {
  if (single && !pair_single) throw py::type_error("texts is a str: text_pair must be a str too");
  if (!single && pair_single) throw py::type_error("texts is a list: text_pair must be a list of as many str");
  if (pairs != texts) {
    throw py::value_error("text_pair gives one second text per text: " + std::to_string(pairs) + " for " +
                          std::to_string(texts));
  }
}

// texts, and text_pair's second texts (none, or one per text); an empty batch is refused, naming `doing`.
struct Texts {
  std::vector<std::string> texts, pairs;
};
Texts texts_and_pairs(const py::handle& texts, const py::handle& text_pair, const char* doing) {
  bool single = false;
  Texts out{texts_of(texts, "texts", single), {}};
  if (!text_pair.is_none()) {
    bool pair_single = false;
    out.pairs = texts_of(text_pair, "text_pair", pair_single);
    check_pairs(single, out.texts.size(), pair_single, out.pairs.size());
  }
  if (out.texts.empty()) throw py::value_error(std::string("texts is empty: nothing to ") + doing);
  return out;
}

class PyEncoder {
 public:
  PyEncoder(const py::object& pretrained, const py::object& model, const py::object& weights, const py::kwargs& options)
      : given_(options) {
    py::dict all;
    if (!pretrained.is_none()) all["pretrained"] = pretrained;
    if (!model.is_none()) all["model"] = model;
    if (!weights.is_none()) all["weights"] = weights;
    for (const auto& [k, v] : options) all[k] = v;
    given_ = all;
    args_ = command().arguments(all, "Encoder");
    paths_ = command().paths(args_);
    base_ = build(args_);
    // The arrays are NumPy's: refused as for -o x.npz (no bfloat16).
    try {
      EncodeOutput npz;
      npz.format = find_sink_format("npz");
      check_encode_output(npz, base_->spec().dtype, 0, true, false);
    } catch (...) {
      raise_python(std::current_exception(), command().flags(), paths_);
    }
  }

  py::dict encode(const py::handle& texts, const py::handle& text_pair, const py::handle& emit) {
    const std::shared_ptr<const Encoder> encoder = for_emit(emit);
    Texts t = texts_and_pairs(texts, text_pair, "encode");
    auto computed = std::make_shared<Computed>();
    std::vector<TensorRef> refs;
    run_released(std::move(t.texts), [&](TextSource& source) {
      encode_whole(*encoder, source, computed->batch, encoder->spec().threads, t.pairs);
      refs = encoder->tensors(computed->batch, computed->keep);
      release_converted(*encoder, *computed);
    });
    py::capsule base = owning_capsule(computed);
    py::dict out;
    for (const TensorRef& r : refs) out[py::str(r.name)] = array_over(r, base);
    return out;
  }

  py::dict tokenize(const py::handle& texts, const py::handle& text_pair) {
    Texts t = texts_and_pairs(texts, text_pair, "tokenize");
    TokenizeRunOptions options{.tokenize = base_->spec().tokenize, .threads = base_->spec().threads};
    options.text_pairs = std::move(t.pairs);
    auto captured = std::make_shared<CapturedTensors>();
    run_released(std::move(t.texts), [&](TextSource& source) {
      // What `embedpe tokenize -o x.npz` holds: input_ids, attention_mask (and token_type_ids where it writes them).
      const SinkFormat format = capturing_format(*find_sink_format("npz"), captured);
      std::unique_ptr<TensorSink> sink = format.make("");
      embedpe::tokenize(tokenizer(), source, format, *sink, options);
    });
    return arrays_of(captured);
  }

  // ids: one sequence (a str back, as SentencePiece's decode) or a batch (a
  // list of str), or a dict as encode and tokenize return it (input_ids,
  // padding dropped by its attention_mask, as `embedpe decode out.npz`).
  py::object decode(py::object ids, py::object attention_mask, bool skip_special_tokens) {
    if (py::isinstance<py::dict>(ids)) {
      py::dict d = ids;
      if (!d.contains("input_ids")) throw py::value_error("ids: the dict holds no input_ids");
      if (attention_mask.is_none() && d.contains("attention_mask")) attention_mask = d["attention_mask"];
      ids = d["input_ids"];
    }
    using Ids = py::array_t<std::int64_t, py::array::c_style | py::array::forcecast>;
    const bool text = py::isinstance<py::str>(ids) || py::isinstance<py::bytes>(ids);
    const Ids a = text ? Ids::ensure(py::none()) : integer_ids(ids, "ids");
    if (text || !a || (a.ndim() != 1 && a.ndim() != 2)) {
      throw py::type_error("ids must be a sequence of ids or a batch of them (a list of lists, a 2-d array)");
    }
    const bool one = a.ndim() == 1;
    const std::size_t rows = one ? 1 : static_cast<std::size_t>(a.shape(0));
    const std::size_t cols = static_cast<std::size_t>(one ? a.shape(0) : a.shape(1));
    std::optional<Ids> mask;
    if (!attention_mask.is_none()) {
      mask = integer_ids(attention_mask, "attention_mask");
      if (!*mask || mask->ndim() != a.ndim() || mask->size() != a.size()) {
        throw py::value_error("attention_mask must have the shape of ids");
      }
    }
    std::vector<std::vector<int>> seqs(rows);
    const std::int64_t* p = a.data();
    const std::int64_t* m = mask ? mask->data() : nullptr;
    for (std::size_t r = 0; r < rows; ++r) {
      for (std::size_t c = 0; c < cols; ++c) {
        const std::size_t k = r * cols + c;
        if (m && m[k] == 0) continue;
        if (p[k] < INT_MIN || p[k] > INT_MAX) {
          throw py::value_error("ids " + std::to_string(r + 1) + ": id " + std::to_string(p[k]) +
                                " is outside the vocabulary of model " + tokenizer().info().source + " (0 to " +
                                std::to_string(tokenizer().info().vocab_size - 1) + ")");
        }
        seqs[r].push_back(static_cast<int>(p[k]));
      }
    }
    std::vector<std::string> texts(rows);
    std::exception_ptr error;
    {
      py::gil_scoped_release released;
      try {
        for (std::size_t r = 0; r < rows; ++r) {
          const std::string origin = "ids " + std::to_string(r + 1);
          tokenizer().check_ids(seqs[r], origin);
          try {
            texts[r] = tokenizer().decode(seqs[r], skip_special_tokens);
          } catch (const Error& e) {
            throw Error(origin + ": " + e.what());
          }
        }
      } catch (...) {
        error = std::current_exception();
      }
    }
    if (error) raise_python(error, command().flags(), paths_);
    if (one) return py::str(texts[0]);
    py::list out;
    for (const std::string& t : texts) out.append(py::str(t));
    return out;
  }

  std::string repr() const {
    const nlohmann::ordered_json& c = base_->config();
    std::string s = "embedpe.Encoder(";
    bool first = true;
    for (const auto& [k, v] : given_) {
      if (v.is_none()) continue;
      s += (first ? "" : ", ") + k.cast<std::string>() + "=" + py::repr(v).cast<std::string>();
      first = false;
    }
    s += ")  # model: " + tokenizer().info().source + " (vocab " +
         std::to_string(tokenizer().info().vocab_size) + "); layer: d_model " +
         std::to_string(base_->layer().d_model());
    if (c.contains("positional_encoding") && c["positional_encoding"].contains("kind")) {
      s += ", pe " + c["positional_encoding"]["kind"].get<std::string>();
    }
    for (const char* key : {"embedding", "scale", "dtype"}) {
      if (c.contains(key)) s += ", " + std::string(key) + " " + (c[key].is_string() ? c[key].get<std::string>() : c[key].dump());
    }
    return s;
  }

  // Texts in: there is always a tokenizer (an Encoder has none only for ids).
  const Tokenizer& tokenizer() const { return *base_->tokenizer(); }

  std::string config() const { return base_->config().dump(); }
  std::size_t d_model() const { return base_->layer().d_model(); }
  std::int64_t vocab_size() const { return tokenizer().info().vocab_size; }

  static const Command& command() {
    static const Command c("encode", [](CLI::App& app) { cli::setup_encode(app, taker()); }, encoder_keyword);
    return c;
  }

 private:
  // Runs `work` over `texts` as one source with the GIL released; its error is raised as Python's.
  template <class Work>
  void run_released(std::vector<std::string> texts, Work&& work) {
    std::exception_ptr error;
    {
      py::gil_scoped_release released;
      try {
        TextSpec spec;
        spec.texts = std::move(texts);
        TextSource source = open_text_source(spec);
        work(source);
      } catch (...) {
        error = std::current_exception();
      }
    }
    if (error) raise_python(error, command().flags(), paths_);
  }

  // Where encode's callback hands the Encoder (per thread: two Python
  // threads may build encoders at once).
  static std::optional<Encoder>& taken() {
    thread_local std::optional<Encoder> e;
    return e;
  }
  static cli::TakeEncoder taker() {
    return [](Encoder&& e) { taken().emplace(std::move(e)); };
  }

  static std::shared_ptr<const Encoder> build(const std::vector<std::string>& args) {
    taken().reset();
    command().run(args);
    auto e = std::make_shared<const Encoder>(std::move(*taken()));
    taken().reset();
    return e;
  }

  // The encoder of `emit` (--emit's words): this one for its own tensors
  // (the constructor's emit, by default the .npz's), else one built with
  // --emit, kept for the next call.
  std::shared_ptr<const Encoder> for_emit(const py::handle& emit) {
    if (emit.is_none()) return base_;
    std::vector<std::string> words;
    if (py::isinstance<py::str>(emit)) {
      words.push_back(emit.cast<std::string>());
    } else if (py::isinstance<py::list>(emit) || py::isinstance<py::tuple>(emit)) {
      for (const py::handle w : emit) {
        if (!py::isinstance<py::str>(w)) throw py::type_error("emit takes str words (input_ids, output, ...)");
        words.push_back(w.cast<std::string>());
      }
    } else {
      throw py::type_error("emit takes a str or a list of str");
    }
    std::string joined;
    for (const std::string& w : words) joined += (joined.empty() ? "" : ",") + w;
    std::vector<TensorName> names;
    try {
      names = select_tensors(words, nullptr);
    } catch (...) {
      raise_python(std::current_exception(), command().flags(), paths_);
    }
    if (names == base_->spec().emit) return base_;
    auto found = by_emit_.find(names);
    if (found != by_emit_.end()) return found->second;
    std::vector<std::string> args;
    for (const std::string& a : args_) {
      if (!a.starts_with("--emit=")) args.push_back(a);  // the constructor's emit: replaced, not added to
    }
    args.push_back("--emit=" + joined);
    return by_emit_[names] = build(args);
  }

  static void release_converted(const Encoder& encoder, Computed& c) {
    // A tensor given in float16 is its copy: the float32 it was made from goes now.
    const std::vector<TensorName>& emit = encoder.spec().emit;
    for (std::size_t k = 0; k < emit.size() && k < c.keep.size(); ++k) {
      if (c.keep[k].bytes.empty()) continue;
      switch (emit[k]) {
        case TensorName::token_embeddings: c.batch.layer.token_embeddings = {}; break;
        case TensorName::positional_encoding: c.batch.layer.positional_encoding = {}; break;
        case TensorName::output: c.batch.layer.output = {}; break;
        case TensorName::rope_cos: c.batch.rope_cos = {}; break;
        case TensorName::rope_sin: c.batch.rope_sin = {}; break;
        default: break;
      }
    }
    c.batch.batch.pieces = {};
  }

  py::dict given_;
  std::vector<std::string> args_;
  std::vector<std::string> paths_;  // the files args_ name, for the exceptions
  std::shared_ptr<const Encoder> base_;
  std::map<std::vector<TensorName>, std::shared_ptr<const Encoder>> by_emit_;
};

}  // namespace

void bind_encoder(py::module_& m) {
  const std::string doc =
      "Encoder(pretrained=None, model=None, weights=None, **options)\n\n"
      "The input layer of `embedpe encode`: a tokenizer (model: a SentencePiece .model; pretrained: a Hugging Face\n"
      "model directory, or a GGUF file), an embedding table (generated, or weights) and a positional encoding.\n"
      "The options are encode's flags with _ for - (d_model=64 is --d-model 64; a switch is True), read by\n"
      "the command line's own definition: the same names, defaults, ranges and messages.\n\n"
      "    enc = embedpe.Encoder(d_model=64, seq_len=16)\n"
      "    out = enc.encode([\"Hello world\", \"a second text\"])   # dict of NumPy arrays, as encode's .npz\n"
      "    out[\"output\"].shape                                    # (2, 16, 64)\n\n"
      "Errors: ValueError for a bad value, FileNotFoundError / OSError for a file, TypeError for a\n"
      "keyword that is not an option or a text that is not a str.\n\n"
      "Options (default in brackets as the CLI says it):\n" +
      options_doc(PyEncoder::command().options());
  py::class_<PyEncoder>(m, "Encoder", doc.c_str())
      .def(py::init<const py::object&, const py::object&, const py::object&, const py::kwargs&>(),
           py::arg("pretrained") = py::none(), py::arg("model") = py::none(), py::arg("weights") = py::none())
      .def("encode", &PyEncoder::encode, py::arg("texts"), py::arg("text_pair") = py::none(),
           py::arg("emit") = py::none(),
           "encode(texts, text_pair=None, emit=None) -> dict of numpy arrays\n\n"
           "texts: a str or a list of str (text_pair: as many second texts, [CLS] A [SEP] B [SEP]). The arrays are\n"
           "named and typed as the members of `embedpe encode -o x.npz`, with the same bytes; emit takes --emit's\n"
           "words (input_ids, attention_mask, token_type_ids, token_embeddings, positional_encoding, output,\n"
           "rope_cos, rope_sin, all); by default the Encoder's emit= (if not given, what the .npz holds: input_ids,\n"
           "attention_mask and output). The GIL is released while\n"
           "encoding; the arrays hold the computed memory (no copy).")
      .def("tokenize", &PyEncoder::tokenize, py::arg("texts"), py::arg("text_pair") = py::none(),
           "tokenize(texts, text_pair=None) -> dict of numpy arrays: input_ids and attention_mask (and\n"
           "token_type_ids where the tokenizer gives them), as `embedpe tokenize -o x.npz` writes them.")
      .def("decode", &PyEncoder::decode, py::arg("ids"), py::arg("attention_mask") = py::none(),
           py::arg("skip_special_tokens") = false,
           "decode(ids, attention_mask=None, skip_special_tokens=False) -> list of str\n\n"
           "ids: a batch (a 2-d array, a list of lists; a list of str back) or one sequence (a str back, as\n"
           "SentencePiece's decode), or encode's or tokenize's dict (padding dropped by its attention_mask,\n"
           "as `embedpe decode out.npz`).")
      .def_property_readonly("d_model", &PyEncoder::d_model)
      .def_property_readonly("vocab_size", &PyEncoder::vocab_size)
      .def_property_readonly("config", [](const PyEncoder& e) { return py::module_::import("json").attr("loads")(e.config()); },
                             "The run's config, as encode's .npz holds it in its config member.")
      .def("__repr__", &PyEncoder::repr);
}

}  // namespace embedpe::python
