// What the single-file sinks share: the output is opened by begin() (after
// the format's checks) and committed by finish(), so that a refused run
// leaves nothing behind and a finished one appears whole.
#pragma once

#include <optional>
#include <string>
#include <utility>

#include "embedpe/error.h"
#include "embedpe/output_file.h"
#include "embedpe/sink.h"

namespace embedpe {

class FileSink : public TensorSink {
 public:
  explicit FileSink(std::string path) : path_(std::move(path)) {}

  void begin(const SinkRun& run) override {
    run_ = run;
    check(run_);
    out_.emplace(path_);
    if (run_.companion) out_->commit_with(run_.companion);
  }
  void finish() override {
    complete();
    out_->commit();
  }
  // Formats that hold tables override this (SinkTraits::tables).
  void add_tables(const SinkTables&) override {
    throw InternalError("tables given to a format that holds rows of text only");
  }

 protected:
  // The format's checks of the run, before the output is opened.
  virtual void check(const SinkRun&) {}
  // Anything to write once every batch is in.
  virtual void complete() {}
  // For formats that hold the whole input: refuses a second batch.
  void only_once() {
    if (batches_++) throw InternalError("a whole-input format was given several batches");
  }

  // The run's config with the rows the batch holds: what the whole-input
  // formats store beside the tensors.
  nlohmann::ordered_json config_with_rows(const Batch& batch) const {
    nlohmann::ordered_json config = run_.config;
    config["sequences"] = batch.size();
    config["truncated"] = batch.truncated_count();
    return config;
  }

  // The run's record (SinkRun::record) as JSON text, for formats that hold it.
  std::optional<std::string> record_text() const {
    if (!run_.record) return std::nullopt;
    const std::optional<nlohmann::ordered_json> record = run_.record();
    if (!record) return std::nullopt;
    return record->dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
  }

  OutputFile& out() { return *out_; }
  const SinkRun& run() const { return run_; }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  SinkRun run_;
  std::optional<OutputFile> out_;
  std::size_t batches_ = 0;
};

}  // namespace embedpe
