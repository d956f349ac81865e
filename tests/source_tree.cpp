#include "source_tree.h"

namespace test {

const char* source_dir() { return EMBEDPE_SOURCE_DIR; }
const char* scratch_dir() { return EMBEDPE_TEST_TMPDIR; }

}  // namespace test
