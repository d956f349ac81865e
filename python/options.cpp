#include "options.h"

#include <exception>
#include <utility>

#include "errors.h"

namespace embedpe::python {
namespace py = pybind11;

namespace {

CLI::App* define(const std::string& name, const std::function<void(CLI::App&)>& setup, CLI::App& app) {
  app.name("embedpe");
  app.require_subcommand(1);
  app.fallthrough(false);
  setup(app);
  return app.get_subcommand(name);
}

// A keyword's value as the flag's: numbers as Python writes them (repr: the
// shortest text that reads back the same float), texts as they are, lists
// and tuples as VALUE,VALUE.
std::string value_text(const py::handle& value, const std::string& keyword, const std::string& callable) {
  if (py::isinstance<py::bool_>(value)) {
    throw py::type_error(callable + "() argument '" + keyword + "' takes a value, not True or False");
  }
  if (py::isinstance<py::str>(value)) return value.cast<std::string>();
  if (py::isinstance<py::float_>(value)) return py::repr(value).cast<std::string>();
  if (PyIndex_Check(value.ptr())) {
    py::object index = py::reinterpret_steal<py::object>(PyNumber_Index(value.ptr()));
    if (!index) throw py::error_already_set();
    return py::str(index).cast<std::string>();
  }
  if (py::isinstance<py::list>(value) || py::isinstance<py::tuple>(value)) {
    std::string joined;
    bool first = true;
    for (const py::handle item : value) {
      if (py::isinstance<py::list>(item) || py::isinstance<py::tuple>(item)) {
        throw py::type_error(callable + "() argument '" + keyword + "' takes a flat list of values");
      }
      joined += (first ? "" : ",") + value_text(item, keyword, callable);
      first = false;
    }
    return joined;
  }
  throw py::type_error(callable + "() argument '" + keyword + "' must be str, int, float or a list of them, not " +
                       py::str(py::type::handle_of(value).attr("__name__")).cast<std::string>());
}

}  // namespace

Command::Command(std::string name, std::function<void(CLI::App&)> setup, std::function<bool(const CLI::Option&)> keep)
    : name_(std::move(name)), setup_(std::move(setup)) {
  CLI::App app;
  CLI::App* sub = define(name_, setup_, app);
  for (const CLI::Option* o : sub->get_options()) {
    const std::string type = o->get_type_name();
    const bool path = type.find("PATH") != std::string::npos || type.find("DIR") != std::string::npos ||
                      type.find("FILE") != std::string::npos;
    for (const std::string& flag : o->get_lnames()) {
      flags_.push_back("--" + flag);
      if (path) path_flags_.insert("--" + flag);
    }
    if (o->get_lnames().empty() || !keep(*o)) continue;
    const std::string keyword = keyword_of(o->get_lnames().front());
    keywords_.insert(keyword);
    const bool is_switch = o->get_expected_max() == 0;  // a flag: expected(0)
    if (is_switch) switches_.insert(keyword);
    options_.push_back({keyword, is_switch ? "" : o->get_type_name(), o->get_default_str(), o->get_description()});
  }
}

std::vector<std::string> Command::arguments(const py::dict& kwargs, const std::string& callable) const {
  std::vector<std::string> args;
  for (const auto& [key, value] : kwargs) {
    const std::string keyword = key.cast<std::string>();
    if (!keywords_.count(keyword)) {
      throw py::type_error(callable + "() got an unexpected keyword argument '" + keyword + "'");
    }
    if (value.is_none()) continue;
    std::string flag = "--" + keyword;
    for (char& c : flag) {
      if (c == '_') c = '-';
    }
    if (switches_.count(keyword)) {
      if (!py::isinstance<py::bool_>(value)) {
        throw py::type_error(callable + "() argument '" + keyword + "' is a switch: True or False");
      }
      if (value.cast<bool>()) args.push_back(flag);
      continue;
    }
    const std::string text = value_text(value, keyword, callable);
    if (text.empty()) {  // "--flag=" would be the flag with no value: as the CLI reads it, an empty one
      args.push_back(flag);
      args.emplace_back();
    } else {
      args.push_back(flag + "=" + text);
    }
  }
  return args;
}

std::vector<std::string> Command::paths(const std::vector<std::string>& args) const {
  std::vector<std::string> out;
  for (const std::string& a : args) {
    const std::size_t eq = a.find('=');
    if (eq == std::string::npos || !path_flags_.count(a.substr(0, eq))) continue;
    const std::string value = a.substr(eq + 1);
    out.push_back(value);
    if (const std::size_t colon = value.rfind(':'); colon != std::string::npos && colon > 0) {
      out.push_back(value.substr(0, colon));
    }
  }
  return out;
}

void Command::run(const std::vector<std::string>& args) const {
  std::exception_ptr error;
  {
    py::gil_scoped_release released;
    try {
      CLI::App app;
      define(name_, setup_, app);
      std::vector<std::string> reversed = {args.rbegin(), args.rend()};
      reversed.push_back(name_);
      app.parse(reversed);  // CLI11's parse(vector) takes them last first
    } catch (...) {
      error = std::current_exception();
    }
  }
  if (error) raise_python(error, flags_, paths(args));
}

std::string options_doc(const std::vector<OptionHelp>& options) {
  std::string doc;
  for (const OptionHelp& o : options) {
    doc += "    " + o.keyword + (o.value.empty() ? "=True" : "=" + o.value);
    if (!o.default_str.empty()) doc += "  (default: " + o.default_str + ")";
    doc += "\n        " + o.description + "\n";
  }
  return doc;
}

}  // namespace embedpe::python
