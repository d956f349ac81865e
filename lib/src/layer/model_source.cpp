#include "embedpe/model_source.h"

#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>

#include "embedpe/error.h"
#include "embedpe/id_rows.h"
#include "embedpe/message.h"
#include "embedpe/pretrained_tokenizer.h"
#include "embedpe/weights.h"

namespace embedpe {

ModelSource::ModelSource(std::string model, std::string pretrained, PretrainedTokenizerKind kind)
    : model_(std::move(model)), pretrained_(std::move(pretrained)), kind_(kind) {}
ModelSource::~ModelSource() = default;
ModelSource::ModelSource(ModelSource&&) noexcept = default;
ModelSource& ModelSource::operator=(ModelSource&&) noexcept = default;

const PretrainedModel& ModelSource::pretrained() const {
  if (pretrained_.empty()) throw InternalError("ModelSource::pretrained: no pretrained model was given");
  if (!read_) {
    // A GGUF file's mapping, kept: the tokenizer and the layer read this one.
    if (!gguf_ && is_gguf_file(pretrained_)) gguf_ = WeightFile::open(pretrained_);
    read_ = read_pretrained_model(pretrained_);
  }
  return *read_;
}

LayerSpec ModelSource::layer_spec(const LayerSpec& given, DType dtype, const IsGiven& is_given) const {
  if (pretrained_.empty()) return given;
  LayerSpec spec = pretrained().spec;
  spec.scale = pretrained_scale(pretrained(), dtype);
  return override_layer_spec(std::move(spec), given, is_given);
}

Tokenizer ModelSource::tokenizer() const {
  if (!model_.empty()) return Tokenizer::from_file(model_);
  return pretrained_tokenizer();
}

Tokenizer ModelSource::pretrained_tokenizer() const {
  if (pretrained_.empty()) return Tokenizer::default_model();
  if (!gguf_ && is_gguf_file(pretrained_)) gguf_ = WeightFile::open(pretrained_);
  return load_pretrained_tokenizer(pretrained_, kind_);
}

Tokenizer tokenizer_at(const std::string& path) {
  struct stat st;
  const bool directory = ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
  // A tokenizer.json file is a pretrained tokenizer as `--pretrained FILE.json` reads it.
  return directory || is_tokenizer_json_file(path) || is_gguf_file(path) ? load_pretrained_tokenizer(path)
                                                                         : Tokenizer::from_file(path);
}

namespace {

// os.path.expandvars(os.path.expanduser(path)), as huggingface_hub reads its
// cache variables: a leading ~ is $HOME, $NAME and ${NAME} are the variable's
// value (left as written when it is not set).
std::string expand_path(std::string path) {
  if (path == "~" || path.starts_with("~/")) {
    if (const char* home = std::getenv("HOME")) path = home + path.substr(1);
  }
  std::string out;
  for (std::size_t i = 0; i < path.size();) {
    if (path[i] != '$') {
      out += path[i++];
      continue;
    }
    const bool braced = i + 1 < path.size() && path[i + 1] == '{';
    std::size_t begin = i + (braced ? 2 : 1), end = begin;
    while (end < path.size() && (std::isalnum(static_cast<unsigned char>(path[end])) || path[end] == '_')) ++end;
    const bool closed = !braced || (end < path.size() && path[end] == '}');
    const char* value = end > begin && closed ? std::getenv(path.substr(begin, end - begin).c_str()) : nullptr;
    const std::size_t next = end + (braced && closed ? 1 : 0);
    out += value ? std::string(value) : path.substr(i, next - i);
    i = next > i ? next : i + 1;
  }
  return out;
}

// huggingface_hub's constants: HF_HUB_CACHE, else HUGGINGFACE_HUB_CACHE, else
// HF_HOME/hub, HF_HOME defaulting to $XDG_CACHE_HOME/huggingface, else ~/.cache/huggingface.
std::string hub_cache_dir() {
  const auto env = [](const char* name) -> std::optional<std::string> {
    const char* v = std::getenv(name);
    return v ? std::optional<std::string>(v) : std::nullopt;
  };
  const std::string home_dir = expand_path("~");
  const std::string hf_home = expand_path(
      env("HF_HOME").value_or(env("XDG_CACHE_HOME").value_or(home_dir + "/.cache") + "/huggingface"));
  return expand_path(env("HF_HUB_CACHE").value_or(env("HUGGINGFACE_HUB_CACHE").value_or(hf_home + "/hub")));
}

// huggingface_hub's separator in a cache folder's name (models, ORG, NAME), and what a repo id may not hold.
const std::string kSeparator(2, '-');

// A Hub model id as huggingface_hub's validate_repo_id accepts it: NAME or
// ORG/NAME of letters, digits, '-', '_' and '.', neither two '-' nor two '.' in a row, at
// most 96 characters, not starting or ending with '-' or '.'.
bool hub_repo_id(const std::string& name) {
  if (name.empty() || name.size() > 96 || name.find(kSeparator) != std::string::npos ||
      name.find("..") != std::string::npos || std::count(name.begin(), name.end(), '/') > 1) {
    return false;
  }
  std::size_t start = 0;
  while (start <= name.size()) {
    const std::size_t slash = std::min(name.find('/', start), name.size());
    const std::string part = name.substr(start, slash - start);
    if (part.empty() || part.front() == '-' || part.front() == '.' || part.back() == '-' || part.back() == '.') {
      return false;
    }
    for (char c : part) {
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_' && c != '.') return false;
    }
    start = slash + 1;
  }
  return true;
}

}  // namespace

std::string resolve_model_path(const std::string& given) {
  struct stat st;
  // A path that exists is what it names, whatever the cache holds; so is a file name.
  if (::lstat(given.c_str(), &st) == 0 || !hub_repo_id(given) || given.ends_with(".gguf") ||
      given.ends_with(".model")) {
    return given;
  }
  // The snapshot refs/main names, as huggingface_hub's try_to_load_from_cache finds it (offline).
  std::string folder = given;  // repo_folder_name: '/' becomes two '-'
  if (const std::size_t slash = folder.find('/'); slash != std::string::npos) folder.replace(slash, 1, kSeparator);
  const std::string repo = hub_cache_dir() + "/models--" + folder;
  std::string commit;
  if (std::FILE* f = std::fopen((repo + "/refs/main").c_str(), "rb")) {
    char buffer[64];
    const std::size_t n = std::fread(buffer, 1, sizeof buffer, f);
    std::fclose(f);
    commit.assign(buffer, n);
  }
  const bool hex = commit.size() == 40 && commit.find_first_not_of("0123456789abcdef") == std::string::npos;
  const std::string snapshot = repo + "/snapshots/" + commit;
  if (hex && ::stat(snapshot.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) return snapshot;
  Message m;
  m << "pretrained " << Verbatim{given}
    << ": no such file or directory, and the local Hugging Face cache has no snapshot of it ("
    << Verbatim{repo + "/refs/main"}
    << "); embedpe does not download: fetch it first (huggingface-cli download " << Verbatim{given}
    << "), or give the directory's path";
  throw m.usage_error({"pretrained"});
}

namespace {

// A record that names no usable model: `why` after the output's name.
UsageError unnamed(const std::string& output, const std::string& why) {
  Message m;
  m << Verbatim{output} << Verbatim{why} << Verbatim{": give the model with "} << "model or pretrained";
  return m.usage_error({"model", "pretrained"});
}

}  // namespace

RecordedModel model_recorded_in(const std::vector<std::string>& outputs) {
  RecordedModel found;
  for (const std::string& output : outputs) {
    // A record that is there but not whole is refused, never replaced by the embedded model.
    std::optional<nlohmann::json> config;
    std::optional<ModelNamed> named;
    try {
      config = output_config(output);
      named = config ? model_named_by(*config) : std::nullopt;
    } catch (const UsageError& e) {
      const std::string what = e.what();
      found.missing = unnamed(output, what.starts_with(output + " ") ? what.substr(output.size()) : ": " + what);
      return found;
    }
    if (!config) continue;  // no record: lines of ids, .jsonl, .npy, NumPy's own files
    if (!named) {
      found.missing = unnamed(output, config->contains("model")
                                          ? " was made from ids with no tokenizer (its config's model is null)"
                                          : " records no model (its config has no model)");
      return found;
    }
    Tokenizer fallback = Tokenizer::default_model();
    if (named->sha256 == fallback.sha256()) {
      found.tokenizer = std::move(fallback);
      return found;
    }
    std::vector<std::string> places = {named->source};
    const std::size_t slash = output.rfind('/');
    if (!named->source.empty() && named->source[0] != '/' && slash != std::string::npos) {
      places.push_back(output.substr(0, slash + 1) + named->source);
    }
    std::string unreadable;  // why a model that is there cannot be read now (a split GGUF's part 2 truncated)
    for (const std::string& place : places) {
      struct stat st;
      if (::stat(place.c_str(), &st) != 0) continue;
      std::optional<Tokenizer> at;
      try {
        at = tokenizer_at(place);
      } catch (const Error& e) {
        if (unreadable.empty()) unreadable = e.what();
        continue;  // not a model now: said below
      }
      if (at->sha256() != named->sha256) continue;
      found.tokenizer = std::move(at);
      found.place = place;
      found.output = output;
      return found;
    }
    // A GGUF file is given with pretrained only (model reads a SentencePiece model).
    const bool gguf = is_gguf_file(named->source);
    Message m;
    m << Verbatim{output} << Verbatim{" was made with another model ("} << Verbatim{named->source}
      << Verbatim{", SHA-256 " + named->sha256.substr(0, 12) + "...), which "}
      << Verbatim{unreadable.empty() ? "is not there now, or has changed" : "cannot be read now (" + unreadable + ")"}
      << Verbatim{": give that model, its files unchanged, with "};
    if (gguf) {
      m << "pretrained";
    } else {
      m << "model" << (named->pretrained ? " or pretrained" : "");
    }
    found.missing = m.usage_error(gguf || named->pretrained ? std::vector<std::string>{"model", "pretrained"}
                                                            : std::vector<std::string>{"model"});
    return found;
  }
  return found;
}

}  // namespace embedpe
