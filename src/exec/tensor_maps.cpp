#include "exec/tensor_maps.hpp"

#include <array>

#include "common/hash.hpp"
#include "cuda/driver_api.hpp"

namespace jitgemm {
namespace {

struct MapKey {
  CUdeviceptr base = 0;
  int64_t rows = 0, k = 0, ld = 0;
  int box_rows = 0, box_k = 0;
  TmaElement element = TmaElement::Float32;
  friend bool operator==(const MapKey&, const MapKey&) = default;
};

// Slots per thread: a launch encodes up to 4 maps, and a thread serving a few problems with
// fixed operands keeps them all (2 KiB of maps per slot set of 16).
constexpr size_t kSlots = 64;

struct Slot {
  MapKey key;
  CUtensorMap map;
  bool used = false;
};

size_t slot_of(const MapKey& k) {
  return FieldHash().add(k.base).add(k.rows).add(k.k).add(k.ld).add(k.box_rows).add(k.box_k).add(k.element).value() %
         kSlots;
}

CUtensorMap encode(const MapKey& key) {
  CUtensorMap map;
  const cuuint64_t dims[2] = {static_cast<cuuint64_t>(key.k), static_cast<cuuint64_t>(key.rows)};
  const cuuint64_t strides[1] = {static_cast<cuuint64_t>(key.ld) * sizeof(float)};
  const cuuint32_t box[2] = {static_cast<cuuint32_t>(key.box_k), static_cast<cuuint32_t>(key.box_rows)};
  const cuuint32_t element_strides[2] = {1, 1};
  const CUtensorMapSwizzle swizzle = key.box_k == 32   ? CU_TENSOR_MAP_SWIZZLE_128B
                                     : key.box_k == 16 ? CU_TENSOR_MAP_SWIZZLE_64B
                                                       : CU_TENSOR_MAP_SWIZZLE_32B;
  const CUtensorMapDataType type =
      key.element == TmaElement::Tf32 ? CU_TENSOR_MAP_DATA_TYPE_TFLOAT32 : CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
  JITGEMM_CU(cuda::driver().cuTensorMapEncodeTiled(&map, type, 2,
                                                   reinterpret_cast<void*>(key.base), dims, strides, box,
                                                   element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, swizzle,
                                                   CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE),
             "matrix {:#x}, {} rows x {} K, ld {}, box {}x{}, {}", key.base, key.rows, key.k, key.ld, key.box_rows,
             key.box_k, key.element == TmaElement::Tf32 ? "tf32" : "float32");
  return map;
}

}  // namespace

CUtensorMap operand_tensor_map(CUdeviceptr base, int64_t rows, int64_t k, int64_t ld, int box_rows, int box_k,
                               TmaElement element) {
  thread_local std::array<Slot, kSlots> slots;
  const MapKey key{base, rows, k, ld, box_rows, box_k, element};
  Slot& slot = slots[slot_of(key)];
  if (!slot.used || !(slot.key == key)) {
    slot.map = encode(key);  // throws before the slot changes
    slot.key = key;
    slot.used = true;
  }
  return slot.map;
}

}  // namespace jitgemm
