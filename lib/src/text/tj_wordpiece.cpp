#include "tj_json.h"
#include "tj_models.h"

namespace embedpe::tj {

std::unique_ptr<Model> load_wordpiece(std::string_view json, const std::string& shown) {
  JsonReader(json, shown, "model.type").fail("not implemented yet");
}

}  // namespace embedpe::tj
