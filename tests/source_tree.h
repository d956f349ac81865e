// Where the source tree and the tests' scratch directory are. One small
// translation unit (source_tree.cpp) holds these absolute paths, so every
// other test file compiles to the same object in a clone at any path, and
// ccache shares it between clones.
#pragma once

namespace test {

const char* source_dir();
const char* scratch_dir();

}  // namespace test
