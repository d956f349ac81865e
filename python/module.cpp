// import embedpe: Encoder (encoder.cpp) and pe(), the same tensors as the
// command line's, for Python.
#include <exception>
#include <memory>
#include <optional>
#include <string>

#include <pybind11/pybind11.h>

#include "arrays.h"
#include "commands.h"
#include "embedpe/error.h"
#include "embedpe/pe_kind.h"
#include "embedpe/pe_view.h"
#include "embedpe/version.h"
#include "encoder.h"
#include "errors.h"
#include "options.h"

namespace embedpe::python {
namespace py = pybind11;

namespace {

// pe's options that are keywords: all but where and how the output is
// written, and the two views that are lists rather than a tensor.
bool pe_keyword(const CLI::Option& o) {
  const std::string name = o.get_lnames().empty() ? "" : o.get_lnames().front();
  for (const char* left_out : {"output", "format", "precision", "stats", "audit", "help", "no-clobber"}) {
    if (name == left_out) return false;
  }
  return true;
}

// Where pe's callback leaves the inspection: written into memory as
// `embedpe pe -o x.npy` writes its one tensor.
thread_local std::shared_ptr<CapturedTensors> t_captured;

const Command& pe_command() {
  static const Command c(
      "pe",
      [](CLI::App& app) {
        cli::setup_pe(app, [](const PeKind& kind, const PeArgs& args, const PeInspectJob& given) {
          const SinkFormat format = capturing_format(*find_sink_format("npy"), t_captured);
          PeInspectJob job = given;
          job.format = PeFormat{"npy", std::nullopt, &format};
          write_pe_inspection(kind, args, job, "-");
        });
      },
      pe_keyword);
  return c;
}

py::object pe(const py::object& kind, const py::kwargs& options) {
  py::dict all;
  all["kind"] = kind;
  for (const auto& [k, v] : options) all[k] = v;
  const std::vector<std::string> args = pe_command().arguments(all, "pe");
  auto captured = std::make_shared<CapturedTensors>();
  t_captured = captured;
  struct Reset {
    ~Reset() { t_captured.reset(); }
  } reset;
  pe_command().run(args);
  py::dict arrays = arrays_of(captured);
  if (arrays.size() != 1) throw py::value_error("pe: the inspection is not one tensor");
  return arrays.begin()->second.cast<py::object>();
}

}  // namespace

}  // namespace embedpe::python

PYBIND11_MODULE(embedpe, m) {
  namespace py = pybind11;
  using namespace embedpe::python;
  m.doc() =
      "embedpe: text to the tensors a Transformer's input layer produces, as the embedpe command line computes\n"
      "them (the same bytes), without a subprocess or a file.\n\n"
      "    import embedpe\n"
      "    enc = embedpe.Encoder(d_model=64, seq_len=16)\n"
      "    out = enc.encode([\"Hello world\"])     # input_ids, attention_mask, output: NumPy arrays\n";
  m.attr("__version__") = embedpe::version();
  bind_encoder(m);
  const std::string pe_doc =
      "pe(kind=\"sinusoidal\", **options) -> numpy array\n\n"
      "What `embedpe pe --kind KIND ... -o x.npy` writes: the table (positions x dims) of a positional\n"
      "encoding, or the bias of a relative one. The options are pe's flags with _ for -:\n" +
      options_doc(pe_command().options());
  m.def("pe", &pe, py::arg("kind") = "sinusoidal", pe_doc.c_str());
}
