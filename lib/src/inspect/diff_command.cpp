// diff's run as a command asks for it (diff.h): the pairs parsed, the files
// compared, the report written; every failure is trouble.
#include <new>

#include "embedpe/diff.h"
#include "embedpe/error.h"
#include "embedpe/message.h"

namespace embedpe {
namespace {

DiffOptions with_pairs(const DiffCommand& cmd) {
  DiffOptions o = cmd.options;
  for (std::size_t k = 2; k < cmd.args.size(); ++k) {
    const std::string& p = cmd.args[k];
    const std::size_t eq = p.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == p.size()) {
      Message m;
      m << "'" << Verbatim{p} << "' is not a pair of tensor names: give A_NAME=B_NAME";
      throw m.usage_error();
    }
    o.pairs.emplace_back(p.substr(0, eq), p.substr(eq + 1));
  }
  for (const std::string& t : cmd.tensors) o.pairs.emplace_back(t, t);
  return o;
}

}  // namespace

DiffOutcome run_diff(const DiffCommand& cmd, const std::function<std::optional<Tokenizer>()>& tokenizer) {
  if (cmd.args.size() < 2) throw UsageError("diff compares two files, A and B: args holds " + std::to_string(cmd.args.size()));
  // Every failure is trouble (2), apart from "different" (1): an unreadable
  // file included, which other commands report as 1.
  try {
    const DiffReport report = diff_files(cmd.args[0], cmd.args[1], with_pairs(cmd));
    // Pieces need a model.
    const std::optional<Tokenizer> model = tokenizer();
    PieceFn piece;
    if (model) {
      piece = [&model](std::int64_t id) {
        return id >= 0 && id < model->info().vocab_size ? std::string(model->id_to_piece(static_cast<int>(id)))
                                                        : std::string("(not in the model)");
      };
    }
    return {.text = cmd.json ? diff_json(report, piece).dump(2) + "\n" : diff_table(report, piece),
            .differs = report.differs()};
  } catch (const UsageError&) {
    throw;
  } catch (const InternalError&) {
    throw;
  } catch (const Error& e) {
    throw UsageError(e.what(), e.parameters(), e.verbatim());
  } catch (const std::bad_alloc&) {
    throw UsageError("out of memory (a deflated .npz member or a JSON file is held whole)");
  }
}

}  // namespace embedpe
