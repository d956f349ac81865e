#include "embedpe/dims.h"

#include "embedpe/message.h"

namespace embedpe {

std::string dims_text(Dims d) {
  return std::to_string(d.first) + ":" + std::to_string(d.first + d.count);
}

void check_dims(Dims dims, std::size_t d_model) {
  if (dims.first + dims.count <= d_model) return;
  // The second "dims" is prose: only the first names the parameter.
  Message m;
  m << "dims " << dims_text(dims) << " goes beyond d_model " << std::to_string(d_model) << "; choose "
    << Verbatim{"dims"} << " below " << std::to_string(d_model);
  throw m.usage_error({"dims"});
}

}  // namespace embedpe
