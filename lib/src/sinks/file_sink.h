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
  }
  void finish() override {
    complete();
    out_->commit();
  }

 protected:
  // The format's checks of the run, before the output is opened.
  virtual void check(const SinkRun&) {}
  // Anything to write once every batch is in.
  virtual void complete() {}
  // For formats that hold the whole input: refuses a second batch.
  void only_once() {
    if (batches_++) throw Error("internal error: a whole-input format was given several batches");
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
