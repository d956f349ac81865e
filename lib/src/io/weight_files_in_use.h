// The weight files a run has open (WeightFile::open keeps track of them).
#pragma once

#include <memory>
#include <string>

namespace embedpe {

class WeightFile;  // embedpe/weights.h

// The WeightFile of `path` that is open now (the last opened, if several),
// whatever file the path names meanwhile; nullptr if none is. What a record
// says of a weight file (its SHA-256) is taken from this mapping, the one the
// layer reads.
std::shared_ptr<const WeightFile> weight_file_in_use(const std::string& path);

}  // namespace embedpe
