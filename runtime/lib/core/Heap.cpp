//===- Heap.cpp - The symmetric heap ----------------------------*- C++ -*-===//
//
// Every rank makes the same allocations in the same order (checked by a
// collective), so an object has the same offset in every rank's heap.
//
//===----------------------------------------------------------------------===//

#include "RuntimeState.h"

#include <algorithm>

using namespace symm;

namespace {
constexpr size_t kAllocationAlignment = 256;

size_t largestFreeBlock(const State &s) {
  size_t largest = 0, offset = 0;
  for (const Allocation &a : s.allocations) {
    largest = std::max(largest, a.offset - offset);
    offset = a.offset + a.bytes;
  }
  return std::max(largest, s.heapBytes - offset);
}
} // namespace

extern "C" {

size_t symm_heap_size(void) { return state().heapBytes; }

size_t symm_heap_free(void) {
  State &s = state();
  size_t used = 0;
  for (const Allocation &a : s.allocations)
    used += a.bytes;
  return s.heapBytes - used;
}

symm_status symm_malloc(size_t bytes, void **ptr) {
  std::lock_guard<std::mutex> lock(apiMutex());
  if (symm_status st = requireInit())
    return st;
  if (!ptr)
    return fail(SYMM_ERROR_INVALID_ARGUMENT,
                "symm_malloc: null result pointer");
  State &s = state();
  if (symm_status st =
          collective(Collective::Malloc, "symm_malloc size", bytes))
    return st;
  // First fit over the gaps between live allocations: every rank computes
  // the same offset from the same history. A size beyond the heap is
  // refused before it is rounded up, which would wrap it around to a small
  // one.
  size_t rounded = 0, offset = 0;
  if (bytes <= s.heapBytes)
    rounded = std::max<size_t>((bytes + kAllocationAlignment - 1) &
                                   ~(kAllocationAlignment - 1),
                               kAllocationAlignment);
  auto it = s.allocations.begin();
  for (; rounded && it != s.allocations.end(); ++it) {
    if (it->offset - offset >= rounded)
      break;
    offset = it->offset + it->bytes;
  }
  if (!rounded || (it == s.allocations.end() && s.heapBytes - offset < rounded))
    return fail(SYMM_ERROR_OUT_OF_HEAP,
                "symm_malloc of %zu bytes does not fit in the symmetric heap: "
                "%zu of %zu bytes are free, the largest free block is %zu "
                "bytes; raise SYMM_HEAP_SIZE",
                bytes, symm_heap_free(), s.heapBytes, largestFreeBlock(s));
  s.allocations.insert(it, Allocation{offset, rounded});
  *ptr = s.bases[s.rank] + offset;
  return SYMM_SUCCESS;
}

symm_status symm_free(void *ptr) {
  std::lock_guard<std::mutex> lock(apiMutex());
  if (symm_status st = requireInit())
    return st;
  State &s = state();
  char *p = static_cast<char *>(ptr);
  char *base = s.bases[s.rank];
  if (p < base || p >= base + s.heapBytes)
    return fail(SYMM_ERROR_NOT_IN_HEAP,
                "symm_free(%p): not in this rank's symmetric heap [%p, %p)",
                ptr, static_cast<void *>(base),
                static_cast<void *>(base + s.heapBytes));
  auto it =
      std::find_if(s.allocations.begin(), s.allocations.end(),
                   [&](const Allocation &a) { return base + a.offset == p; });
  if (it == s.allocations.end())
    return fail(SYMM_ERROR_INVALID_ARGUMENT,
                "symm_free(%p): offset %zu of the symmetric heap is not the "
                "start of a live allocation",
                ptr, static_cast<size_t>(p - base));
  // It waits for the device before the buffer is reused.
  if (symm_status st = requireNoCapture("symm_free"))
    return st;
  if (symm_status st =
          collective(Collective::Free, "symm_free offset", it->offset))
    return st;
  // Work still in flight may use the buffer.
  if (symm_status st = s.backend->synchronize())
    return st;
  s.allocations.erase(it);
  return SYMM_SUCCESS;
}

symm_status symm_heap_base(int rank, void **base) {
  if (symm_status st = requireInit())
    return st;
  State &s = state();
  if (rank < 0 || rank >= s.size)
    return fail(SYMM_ERROR_INVALID_ARGUMENT,
                "rank %d is out of range (world size %d)", rank, s.size);
  *base = s.bases[rank];
  return SYMM_SUCCESS;
}

symm_status symm_translate(const void *local, int peer, void **remote) {
  if (symm_status st = requireInit())
    return st;
  State &s = state();
  if (peer < 0 || peer >= s.size)
    return fail(SYMM_ERROR_INVALID_ARGUMENT,
                "peer %d is out of range (world size %d)", peer, s.size);
  const char *p = static_cast<const char *>(local);
  char *base = s.bases[s.rank];
  if (p < base || p >= base + s.heapBytes)
    return fail(SYMM_ERROR_NOT_IN_HEAP,
                "%p is not in this rank's symmetric heap [%p, %p)", local,
                static_cast<void *>(base),
                static_cast<void *>(base + s.heapBytes));
  *remote = s.bases[peer] + (p - base);
  return SYMM_SUCCESS;
}

} // extern "C"
