#include "tj_json.h"
#include "tj_models.h"

namespace embedpe::tj {

std::unique_ptr<Model> load_wordpiece(JsonReader& r) {
  r.fail("not implemented yet");
}

}  // namespace embedpe::tj
