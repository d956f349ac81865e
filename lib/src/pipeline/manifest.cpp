// The parts directory's records (manifest.h).
#include "manifest.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "embedpe/error.h"
#include "embedpe/output_file.h"
#include "in_file.h"
#include "model_files.h"
#include "embedpe/message.h"

namespace embedpe {

using Json = nlohmann::ordered_json;

// The part as one line of JSON, written out by hand: building an ordered_json tree
// per part cost 13 us, most of a 1-row part's bookkeeping (bench/manifest.py).
const std::string& part_text(PartRecord& p) {
  if (!p.text.empty()) return p.text;
  // Most parts name the same source: escape it once.
  static thread_local std::string last_source, last_escaped;
  std::string& t = p.text;
  t.reserve(256);
  t += "{\"file\":\"" + p.file + "\",\"rows\":" + std::to_string(p.rows) + ",\"lines\":[";  // file: part-NNNNN.npz
  for (std::size_t i = 0; i < p.lines.size(); ++i) {
    const LineRange& r = p.lines[i];
    if (r.source != last_source || last_escaped.empty()) {
      last_source = r.source;
      last_escaped = Json(r.source).dump(-1, ' ', false, Json::error_handler_t::replace);
    }
    t += i ? ",{\"source\":" : "{\"source\":";
    t += last_escaped;
    t += ",\"first_line\":" + std::to_string(r.first_line) + ",\"last_line\":" + std::to_string(r.last_line) + "}";
  }
  t += "],\"input_sha256\":\"" + p.input_sha256 + "\",\"sha256\":\"" + p.sha256 + "\",\"bytes\":" +
       std::to_string(p.bytes) + "}";
  return t;
}

// The manifest as text. Each part's JSON is dumped once (see part_text) and
// spliced in, so the final manifest of 10,000 parts costs a copy of their
// journal lines rather than building and dumping a JSON tree of them.
std::string manifest_text(Manifest& m) {
  Json inputs = Json::array();
  for (const auto& i : m.inputs) {
    inputs.push_back({{"path", i.path},
                      {"bytes", i.bytes ? Json(*i.bytes) : Json()},
                      {"sha256", i.sha256 ? Json(*i.sha256) : Json()}});
    if (i.range) inputs.back()["range"] = {i.range->first, i.range->second};
    if (i.fingerprint) inputs.back()["fingerprint"] = *i.fingerprint;
    if (i.lines) inputs.back()["lines"] = *i.lines;
  }
  std::size_t rows = 0;
  for (const auto& p : m.parts) rows += p.rows;
  const Reading& r = m.reading;
  Json reading = {{"inputs", r.inputs},
                  {"input_format", r.input_format},
                  {"field", r.field},
                  {"skip_empty", r.skip_empty},
                  {"shard", r.shard}};
  if (r.shard_seek) reading["shard_seek"] = true;  // only then: earlier manifests stay the same bytes
  Json head = {{"embedpe_version", m.embedpe_version},
               {"format", "npz"},
               {"config", m.config},
               {"reading", reading},
               {"inputs", inputs},
               {"shard_rows", m.shard_rows},
               {"rows", rows},
               {"complete", m.complete},
               {"parts", Json::array()}};
  if (m.merged) {  // before "parts", which must come last
    head.erase("parts");
    head["merged_shards"] = m.merged;
    head["parts"] = Json::array();
  }
  std::string text = head.dump(1, ' ', false, Json::error_handler_t::replace);  // paths need not be UTF-8
  const std::string empty = "[]\n}";
  if (text.size() < empty.size() || text.compare(text.size() - empty.size(), empty.size(), empty) != 0) {
    throw InternalError("unexpected manifest layout");
  }
  text.resize(text.size() - empty.size());
  text += "[";
  for (std::size_t i = 0; i < m.parts.size(); ++i) {
    text += i ? ",\n  " : "\n  ";
    text += part_text(m.parts[i]);
  }
  text += m.parts.empty() ? "]\n}\n" : "\n ]\n}\n";
  return text;
}

namespace {

// Turns a manifest (or journal line) into records, checking every key and
// type: a tampered or foreign file is one clear error naming it, never a
// crash or a silently wrong resume.
class Schema {
 public:
  Schema(std::string file, std::string advice) : file_(std::move(file)), advice_(std::move(advice)) {}

  [[noreturn]] void fail(const std::string& what) const {
    Message m;
    m << Verbatim{file_} << " is not a valid embedpe manifest (" << Verbatim{what} << "); " << advice_;
    throw m.error({"output_dir"});
  }
  const Json& member(const Json& obj, const char* key, const std::string& where) const {
    if (!obj.is_object()) fail(where + " is not an object");
    auto it = obj.find(key);
    if (it == obj.end()) fail(where + " has no \"" + key + "\"");
    return *it;
  }
  std::string string(const Json& obj, const char* key, const std::string& where) const {
    const Json& v = member(obj, key, where);
    if (!v.is_string()) fail(where + "." + key + " is not a string");
    return v.get<std::string>();
  }
  std::size_t count(const Json& obj, const char* key, const std::string& where) const {
    const Json& v = member(obj, key, where);
    if (!v.is_number_unsigned()) fail(where + "." + key + " is not a non-negative integer");
    return v.get<std::size_t>();
  }
  bool boolean(const Json& obj, const char* key, const std::string& where) const {
    const Json& v = member(obj, key, where);
    if (!v.is_boolean()) fail(where + "." + key + " is not true or false");
    return v.get<bool>();
  }
  const Json& array(const Json& obj, const char* key, const std::string& where) const {
    const Json& v = member(obj, key, where);
    if (!v.is_array()) fail(where + "." + key + " is not an array");
    return v;
  }
  std::string sha256(const Json& obj, const char* key, const std::string& where) const {
    std::string s = string(obj, key, where);
    if (s.size() != 64 || s.find_first_not_of("0123456789abcdef") != std::string::npos) {
      fail(where + "." + key + " is not a SHA-256 in hex");
    }
    return s;
  }

  PartRecord part(const Json& j, const std::string& where) const {
    PartRecord p;
    p.file = string(j, "file", where);
    p.rows = count(j, "rows", where);
    const Json& lines = array(j, "lines", where);
    for (std::size_t k = 0; k < lines.size(); ++k) {
      const std::string w = where + ".lines[" + std::to_string(k) + "]";
      p.lines.push_back({string(lines[k], "source", w), count(lines[k], "first_line", w), count(lines[k], "last_line", w)});
    }
    p.input_sha256 = sha256(j, "input_sha256", where);
    p.sha256 = sha256(j, "sha256", where);
    p.bytes = count(j, "bytes", where);
    return p;
  }

  Manifest manifest(const Json& doc) const {
    const std::string top = "the document";
    if (!doc.is_object()) fail(top + " is not a JSON object");
    Manifest m;
    m.embedpe_version = string(doc, "embedpe_version", top);
    if (string(doc, "format", top) != "npz") fail("format is not \"npz\"");
    m.config = member(doc, "config", top);
    if (!m.config.is_object()) fail("config is not an object");
    const Json& r = member(doc, "reading", top);
    const Json& inputs = array(r, "inputs", "reading");
    for (const auto& i : inputs) {
      if (!i.is_string()) fail("reading.inputs holds a non-string");
      m.reading.inputs.push_back(i.get<std::string>());
    }
    m.reading.input_format = string(r, "input_format", "reading");
    m.reading.field = string(r, "field", "reading");
    m.reading.skip_empty = boolean(r, "skip_empty", "reading");
    m.reading.shard = string(r, "shard", "reading");
    if (r.contains("shard_seek")) m.reading.shard_seek = boolean(r, "shard_seek", "reading");
    const Json& records = array(doc, "inputs", top);
    for (std::size_t k = 0; k < records.size(); ++k) {
      const std::string w = "inputs[" + std::to_string(k) + "]";
      InputRecord in;
      in.path = string(records[k], "path", w);
      if (!member(records[k], "bytes", w).is_null()) in.bytes = count(records[k], "bytes", w);
      if (!member(records[k], "sha256", w).is_null()) in.sha256 = sha256(records[k], "sha256", w);
      // A shard's, once complete (what merge checks).
      if (records[k].contains("range")) {
        const Json& range = array(records[k], "range", w);
        if (range.size() != 2 || !range[0].is_number_unsigned() || !range[1].is_number_unsigned() ||
            range[0].get<std::size_t>() > range[1].get<std::size_t>() || (in.bytes && range[1].get<std::size_t>() > *in.bytes)) {
          fail(w + ".range is not a byte range of the input");
        }
        in.range = {range[0].get<std::size_t>(), range[1].get<std::size_t>()};
      }
      if (records[k].contains("fingerprint")) in.fingerprint = string(records[k], "fingerprint", w);
      if (records[k].contains("lines")) in.lines = count(records[k], "lines", w);
      m.inputs.push_back(std::move(in));
    }
    if (m.inputs.size() != m.reading.inputs.size()) fail("inputs and reading.inputs differ in length");
    m.shard_rows = count(doc, "shard_rows", top);
    if (m.shard_rows == 0) fail("shard_rows is 0");
    m.complete = boolean(doc, "complete", top);
    if (doc.contains("merged_shards")) m.merged = count(doc, "merged_shards", top);
    const Json& parts = array(doc, "parts", top);
    for (std::size_t k = 0; k < parts.size(); ++k) {
      m.parts.push_back(part(parts[k], "parts[" + std::to_string(k) + "]"));
      if (m.parts.back().file != part_file_name(k)) {
        fail("parts[" + std::to_string(k) + "].file is not " + part_file_name(k));
      }
    }
    m.rows = count(doc, "rows", top);
    return m;
  }

 private:
  std::string file_, advice_;
};

}  // namespace

std::optional<std::string> read_small_file(const std::string& at, const std::string& path, const std::string& what,
                                           std::size_t max_bytes) {
  const auto not_regular = [&] {
    throw Error(path + " is not a regular file; remove it (it is not a " + what + " embedpe wrote)");
  };
  const std::optional<InFile> f = InFile::if_exists(at, InFile::Links::refuse, path, not_regular, InFile::Use::own);
  if (!f) return std::nullopt;
  if (f->size() > max_bytes) {
    Message m;
    m << Verbatim{path} << " is " << std::to_string(f->size()) << " bytes, more than a " << what
      << " embedpe writes (" << std::to_string(max_bytes) << "); remove it or choose another output_dir";
    throw m.error({"output_dir"});
  }
  return f->all();
}

void write_manifest(const std::string& at, const std::string& path, Manifest& m) {
  // The run's own file, in a directory it holds locked: replaced as the run goes on, --no-clobber or not.
  OutputFile out(at, path, Existing::replaced);
  out.write(manifest_text(m));
  out.commit();
}

std::string part_file_name(std::size_t index) {
  char name[32];
  std::snprintf(name, sizeof name, "part-%05zu.npz", index);
  return name;
}

bool is_part_name(const std::string& name) {
  std::size_t index = 0;
  char tail[8] = {};
  if (name.size() < 14 || std::sscanf(name.c_str(), "part-%zu.np%1s", &index, tail) != 2) return false;
  return name == part_file_name(index);
}

Manifest load_manifest(const std::string& dir, const std::string& at, const std::string& advice) {
  const std::string manifest_path = dir + "/" + kManifest, journal_path = dir + "/" + kJournal;
  const std::string& in = at.empty() ? dir : at;
  const Schema schema(manifest_path, advice);
  const std::string text =
      read_small_file(in + "/" + kManifest, manifest_path, "manifest", kMaxManifestBytes).value_or("");
  const std::optional<Json> doc = parse_json<Json>(text);
  if (!doc) schema.fail("not JSON");
  Manifest m = schema.manifest(*doc);
  const std::optional<std::string> journal =
      read_small_file(in + "/" + kJournal, journal_path, "journal", kMaxManifestBytes);
  if (!journal) return m;
  const Schema jschema(journal_path, advice);
  std::size_t begin = 0, number = 0;
  while (begin < journal->size()) {
    const std::size_t end = journal->find('\n', begin);
    if (end == std::string::npos) break;  // cut short while being written
    ++number;
    const std::string where = "line " + std::to_string(number);
    const std::optional<Json> line = parse_json<Json>(std::string_view(*journal).substr(begin, end - begin));
    if (!line) jschema.fail(where + " is not JSON");
    PartRecord p = jschema.part(*line, where);
    std::size_t index = 0;
    if (!is_part_name(p.file) || (index = std::strtoull(p.file.c_str() + 5, nullptr, 10)) > m.parts.size()) {
      jschema.fail(where + " names " + p.file + ", not the next part");
    }
    if (index == m.parts.size()) {
      m.parts.push_back(std::move(p));
    } else {
      m.parts[index] = std::move(p);
    }
    begin = end + 1;
  }
  return m;
}

}  // namespace embedpe
