// Two sets of tensors compared element by element: is this the same tensor,
// and if not, by how much and where?
//
//   embedpe::DiffReport r = embedpe::diff_files("ours.npz", "theirs.safetensors", {.rtol = 1e-4});
//   std::cout << embedpe::diff_table(r, {});
//   return r.differs() ? 1 : 0;
//
// A and B may each be a .npy (one tensor, named by the file's stem), a .npz,
// a .safetensors, embedpe's JSON or JSON Lines output (records stacked into a
// batch; they must have one shape), or an --output-dir parts directory (its
// parts' tensors joined along the batch; per-position tensors kept once).
// Files are memory-mapped and read in blocks on every core, so memory stays
// bounded whatever their size (a deflated .npz member and JSON are the
// exceptions: they are held whole).
//
// Closeness is numpy.isclose's, computed in float64: |a - b| <= atol + rtol*|b|
// (B is the reference), infinities close only to themselves, NaN close to
// NaN only with equal_nan. The figures, over every compared element pair
// (padding left out with ignore_padding):
//   max_abs, mean_abs  |a - b| over pairs without a NaN (equal values give 0,
//                      so inf against inf is 0, inf against a number is inf)
//   max_rel            |a - b| / |b| over the same pairs (0 where a == b, inf
//                      where b is 0 and a is not)
//   max_ulp            the distance in units in the last place of the less
//                      precise float dtype of the two (float64 when neither
//                      side states one); for integer tensors, |a - b|
//   cosine             over pairs where both values are finite, float64 sums;
//                      1 when both sides are all zero, 0 when only one is
//   worst_row_cosine   the smallest cosine of one row (the last dimension)
//   beyond             elements not close; first: the lowest such index
//   worst              where max_abs is (the first such element)
// An index is the element's position in A's shape ([batch, position, dim]).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "embedpe/dtype.h"
#include "embedpe/tokenizer.h"

namespace embedpe {

struct DiffOptions {
  double atol = 1e-8;  // numpy.allclose's defaults
  double rtol = 1e-5;
  bool equal_nan = false;
  // Leave out positions where attention_mask (of A, else of B) is 0: those of
  // a tensor whose shape begins with the mask's.
  bool ignore_padding = false;
  // (name in A, name in B). Empty: every name found in both, and when each
  // side holds one tensor, those two whatever their names.
  std::vector<std::pair<std::string, std::string>> pairs;
  std::size_t threads = 0;  // 0: every available core
};

// One element where A and B part.
struct DiffPoint {
  std::vector<std::size_t> index;    // in A's shape
  double a = 0, b = 0;
  std::optional<std::int64_t> token;  // input_ids at [batch, position], where a side has them
};

struct TensorDiff {
  std::string name_a, name_b;
  std::optional<DType> dtype_a, dtype_b;  // none where the format states none (JSON Lines)
  std::vector<std::size_t> shape_a, shape_b;
  bool shape_differs = false, dtype_differs = false;
  // The figures: only when the shapes agree.
  std::size_t compared = 0;  // element pairs (padding left out)
  std::size_t nan = 0;       // pairs with a NaN on either side
  double max_abs = 0, max_rel = 0, mean_abs = 0, max_ulp = 0;
  double cosine = 1, worst_row_cosine = 1;
  std::vector<std::size_t> worst_row;  // index of the row (A's shape without its last dimension)
  std::size_t beyond = 0;
  std::optional<DiffPoint> first, worst;

  bool differs() const { return shape_differs || dtype_differs || beyond > 0; }
};

struct DiffReport {
  std::string a, b;
  DiffOptions options;
  std::vector<TensorDiff> tensors;
  std::vector<std::string> only_in_a, only_in_b;  // names not paired (only when pairing by name)

  bool differs() const;
};

// Reads and compares. Throws embedpe::Error naming the file for input that
// cannot be read, and for a name in options.pairs that a side lacks.
DiffReport diff_files(const std::string& a, const std::string& b, const DiffOptions& options);

// A token id's piece, for the reports; empty function: ids only.
using PieceFn = std::function<std::string(std::int64_t id)>;

// The report for scripts: {"a", "b", "atol", "rtol", "equal_nan", "same",
// "tensors": [...], "only_in_a", "only_in_b"}. Infinite and NaN figures are
// the strings "inf", "-inf", "nan".
nlohmann::ordered_json diff_json(const DiffReport& report, const PieceFn& piece);

// A short table for a terminal: a line per tensor, then a verdict line.
std::string diff_table(const DiffReport& report, const PieceFn& piece);

// diff's run as a command asks for it (src/inspect/diff_command.cpp).
struct DiffCommand {
  std::vector<std::string> args;     // A B [A_NAME=B_NAME...]
  std::vector<std::string> tensors;  // compared under their own names
  DiffOptions options;               // its pairs: those of args, then of tensors
  bool json = false;                 // diff_json, else diff_table
};
struct DiffOutcome {
  std::string text;  // the report
  bool differs = false;
};
// A and B compared and the report written, each id named by the piece of
// the tokenizer `tokenizer()` gives, asked after the comparison. Every
// failure is a UsageError (trouble, as cmp's exit status 2 says), an
// unreadable file and one too big for memory included; a pair that is not
// A_NAME=B_NAME too.
DiffOutcome run_diff(const DiffCommand& cmd, const std::function<std::optional<Tokenizer>()>& tokenizer);

}  // namespace embedpe
