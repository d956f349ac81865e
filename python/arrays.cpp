#include "arrays.h"

#include <cstring>
#include <utility>

#include "embedpe/error.h"

namespace embedpe::python {
namespace py = pybind11;

namespace {

py::dtype numpy_dtype(DType d) {
  switch (d) {
    case DType::float32: return py::dtype("<f4");
    case DType::float16: return py::dtype("<f2");
    case DType::float64: return py::dtype("<f8");
    case DType::int8: return py::dtype("i1");
    case DType::int64: return py::dtype("<i8");
    case DType::int32: return py::dtype("<i4");
    case DType::int16: return py::dtype("<i2");
    case DType::uint8: return py::dtype("u1");
    case DType::boolean: return py::dtype("?");
    case DType::bfloat16: break;
  }
  throw InternalError("a tensor in bfloat16 reached NumPy, which has no such dtype");
}

TensorBuffer copy_of(const TensorRef& t) {
  TensorBuffer b{t.name, t.dtype, t.shape, {}};
  b.bytes.resize(t.bytes());
  if (!b.bytes.empty()) std::memcpy(b.bytes.data(), t.data, b.bytes.size());
  return b;
}

class CapturingSink : public TensorSink {
 public:
  explicit CapturingSink(std::shared_ptr<CapturedTensors> into) : into_(std::move(into)) {}
  void begin(const SinkRun&) override {}
  void add(const SinkBatch& b) override {
    for (const TensorRef& t : b.tensors) into_->tensors.push_back(copy_of(t));
  }
  void add_tables(const SinkTables& t) override {
    for (const TensorRef& tensor : t.tensors) into_->tensors.push_back(copy_of(tensor));
  }
  void finish() override {}

 private:
  std::shared_ptr<CapturedTensors> into_;
};

}  // namespace

py::capsule owning_capsule(std::shared_ptr<void> owner) {
  auto* held = new std::shared_ptr<void>(std::move(owner));
  return py::capsule(held, [](void* p) { delete static_cast<std::shared_ptr<void>*>(p); });
}

py::array array_over(const TensorRef& tensor, const py::handle& base) {
  std::vector<py::ssize_t> shape(tensor.shape.begin(), tensor.shape.end());
  // The bytes are the array's own to change: only the capsule holds them.
  return py::array(numpy_dtype(tensor.dtype), shape, {}, const_cast<void*>(tensor.data), base);
}

SinkFormat capturing_format(const SinkFormat& like, std::shared_ptr<CapturedTensors> into) {
  SinkTraits traits = like.traits;
  traits.max_bytes = 0;
  traits.streams = false;
  return SinkFormat{like.name, like.extensions, traits,
                    [into](const std::string&) { return std::make_unique<CapturingSink>(into); }};
}

py::dict arrays_of(std::shared_ptr<CapturedTensors> captured) {
  py::capsule base = owning_capsule(captured);
  py::dict out;
  for (const TensorBuffer& t : captured->tensors) out[py::str(t.name)] = array_over(t.ref(), base);
  return out;
}

}  // namespace embedpe::python
