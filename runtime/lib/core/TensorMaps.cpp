//===- TensorMaps.cpp - TMA descriptors ---------------------------*- C++ -*-===//
//
// TMA descriptors, made by compiled host code (nvgpu.tma.create.descriptor,
// through mgpuTensorMapEncodeTiledMemref) or by a host program
// (symm_tensor_map_create). The request is checked here against the limits
// cuTensorMapEncodeTiled sets, for every backend, so a bad descriptor is one
// error naming its cause on the CPU target as on a GPU; the backend encodes it.
//
//===----------------------------------------------------------------------===//

#include "Runtime.h"
#include "RuntimeState.h"

#include <cstdint>

using namespace symm;

namespace {
/// The bytes a row of the box may span with each swizzle code (none, 32B,
/// 64B, 128B); without swizzling the box's inner dimension is not limited.
constexpr uint64_t kSwizzleSpan[] = {UINT64_MAX, 32, 64, 128};

/// The limits cuTensorMapEncodeTiled sets, checked for every backend so that
/// a bad descriptor is reported with its cause rather than a driver code.
symm_status check(const TensorMapRequest &r) {
  const char *what = "a TMA descriptor";
  if (r.rank < 1 || r.rank > 5)
    return fail(SYMM_ERROR_INVALID_ARGUMENT,
                "%s of a %d-dimensional tensor: TMA takes 1 to 5 dimensions",
                what, r.rank);
  if (r.interleave < 0 || r.interleave > 2 || r.swizzle < 0 || r.swizzle > 3 ||
      r.l2promo < 0 || r.l2promo > 3 || r.oobFill < 0 || r.oobFill > 1)
    return fail(SYMM_ERROR_INVALID_ARGUMENT,
                "%s with interleave %d, swizzle %d, L2 promotion %d, "
                "out-of-bounds fill %d: not CUtensorMap codes",
                what, r.interleave, r.swizzle, r.l2promo, r.oobFill);
  unsigned alignment = r.interleave == 2 ? 32 : 16;
  if (reinterpret_cast<uintptr_t>(r.base) % alignment)
    return fail(SYMM_ERROR_INVALID_ARGUMENT,
                "%s at %p: the tensor's first element must be %u-byte "
                "aligned",
                what, r.base, alignment);
  if (r.strides[0] != 1)
    return fail(SYMM_ERROR_INVALID_ARGUMENT,
                "%s with an innermost stride of %llu elements: the innermost "
                "dimension must be contiguous (stride 1)",
                what, (unsigned long long)r.strides[0]);
  for (int d = 0; d < r.rank; ++d) {
    if (r.sizes[d] == 0 || r.sizes[d] > (1ull << 32))
      return fail(SYMM_ERROR_INVALID_ARGUMENT,
                  "%s with %llu elements in dimension %d (innermost first): "
                  "TMA takes 1 to 2^32",
                  what, (unsigned long long)r.sizes[d], d);
    if (r.box[d] == 0 || r.box[d] > 256)
      return fail(SYMM_ERROR_INVALID_ARGUMENT,
                  "%s with a box of %u elements in dimension %d (innermost "
                  "first): TMA boxes take 1 to 256",
                  what, r.box[d], d);
    uint64_t strideBytes = r.strides[d] * r.elementBytes;
    if (d > 0 && (strideBytes % 16 || strideBytes >= (1ull << 40)))
      return fail(SYMM_ERROR_INVALID_ARGUMENT,
                  "%s with a stride of %llu bytes in dimension %d (innermost "
                  "first): TMA strides are multiples of 16 bytes below 2^40",
                  what, (unsigned long long)strideBytes, d);
  }
  uint64_t rowBytes = uint64_t(r.box[0]) * r.elementBytes;
  if (r.interleave == 0 && rowBytes % 16)
    return fail(SYMM_ERROR_INVALID_ARGUMENT,
                "%s whose box rows are %llu bytes: TMA box rows are "
                "multiples of 16 bytes",
                what, (unsigned long long)rowBytes);
  if (r.interleave == 0 && rowBytes > kSwizzleSpan[r.swizzle])
    return fail(SYMM_ERROR_INVALID_ARGUMENT,
                "%s whose box rows are %llu bytes: swizzle %d takes rows of "
                "at most %llu bytes",
                what, (unsigned long long)rowBytes, r.swizzle,
                (unsigned long long)kSwizzleSpan[r.swizzle]);
  return SYMM_SUCCESS;
}
} // namespace

symm_status symm::createTensorMap(Backend &backend,
                                  const TensorMapRequest &request,
                                  void **descriptor) {
  if (symm_status status = check(request))
    return status;
  return backend.encodeTensorMap(request, descriptor);
}

extern "C" symm_status symm_tensor_map_create(const void *base, int rank,
                                              const uint64_t *sizes,
                                              const uint64_t *strides,
                                              const uint32_t *box,
                                              size_t element_bytes,
                                              int swizzle_bytes, void **map) {
  if (symm_status status = requireInit())
    return status;
  // A GPU descriptor is copied to device memory allocated for it.
  if (symm_status status = requireNoCapture("symm_tensor_map_create"))
    return status;
  if (!map || !sizes || !strides || !box)
    return fail(SYMM_ERROR_INVALID_ARGUMENT,
                "symm_tensor_map_create: sizes, strides, box and map must "
                "not be null");
  TensorMapRequest request = {};
  request.rank = rank;
  request.base = const_cast<void *>(base);
  request.elementBytes = static_cast<uint32_t>(element_bytes);
  // CUtensorMap's codes: the unsigned type of the element's width (a tiled
  // copy moves bits; the type matters only to fills and conversions the
  // runtime does not ask for), swizzle none/32/64/128 bytes, L2 promotion of
  // 256 bytes, zero fill.
  switch (element_bytes) {
  case 1:
    request.dataType = 0;
    break;
  case 2:
    request.dataType = 1;
    break;
  case 4:
    request.dataType = 2;
    break;
  case 8:
    request.dataType = 4;
    break;
  default:
    return fail(SYMM_ERROR_INVALID_ARGUMENT,
                "symm_tensor_map_create: elements of %zu bytes: TMA copies "
                "elements of 1, 2, 4 or 8 bytes",
                element_bytes);
  }
  switch (swizzle_bytes) {
  case 0:
    request.swizzle = 0;
    break;
  case 32:
    request.swizzle = 1;
    break;
  case 64:
    request.swizzle = 2;
    break;
  case 128:
    request.swizzle = 3;
    break;
  default:
    return fail(SYMM_ERROR_INVALID_ARGUMENT,
                "symm_tensor_map_create: a swizzle of %d bytes: TMA "
                "swizzles 0, 32, 64 or 128 bytes",
                swizzle_bytes);
  }
  request.l2promo = 3;
  if (rank >= 1 && rank <= 5)
    for (int d = 0; d < rank; ++d) {
      int from = rank - 1 - d;
      request.sizes[d] = sizes[from];
      request.strides[d] = strides[from];
      request.box[d] = box[from];
    }
  return createTensorMap(*state().backend, request, map);
}
