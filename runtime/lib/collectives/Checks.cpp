//===- Checks.cpp - The collectives' argument checks ----------------------===//
//
// What every rank checks of its own call before anything moves, and checked
// mode (SYMM_CHECK_COLLECTIVES=1), in which the ranks' calls meet and any
// disagreement fails the call on every rank.
//
//===----------------------------------------------------------------------===//

#include "Internal.h"

#include <iterator>

namespace symm::collectives {

symm_status bytesOf(const char *fn, const char *what, size_t count,
                    size_t factor, size_t esize, size_t *bytes) {
  // Kernels index with signed 64-bit integers.
  const size_t limit = size_t(INT64_MAX);
  if ((factor && count > limit / factor) || count * factor > limit / esize)
    return fail(SYMM_ERROR_INVALID_ARGUMENT,
                "%s: %s of %zu elements (x%zu) overflows the address space", fn,
                what, count, factor);
  *bytes = count * factor * esize;
  return SYMM_SUCCESS;
}

namespace {

/// A buffer of `bytes` bytes: not null unless empty, not a peer's heap as
/// mapped here (remote memory), and not straddling the end of this rank's
/// heap.
symm_status checkBuffer(const char *fn, const char *what, const void *p,
                        size_t bytes) {
  if (!bytes)
    return SYMM_SUCCESS;
  if (!p)
    return fail(SYMM_ERROR_INVALID_ARGUMENT, "%s: %s is null", fn, what);
  uintptr_t at = reinterpret_cast<uintptr_t>(p);
  for (int r = 0; r < symm_world_size(); ++r) {
    void *peer = nullptr;
    symm_heap_base(r, &peer);
    uintptr_t start = reinterpret_cast<uintptr_t>(peer);
    if (r != symm_rank() && at >= start && at < start + symm_heap_size())
      return fail(SYMM_ERROR_INVALID_ARGUMENT,
                  "%s: %s points into rank %d's heap as mapped here; pass "
                  "this rank's own buffer",
                  fn, what, r);
  }
  void *base = nullptr;
  symm_heap_base(symm_rank(), &base);
  uintptr_t lo = reinterpret_cast<uintptr_t>(base), hi = lo + symm_heap_size();
  if (at >= lo && at < hi && bytes > hi - at)
    return fail(SYMM_ERROR_NOT_IN_HEAP,
                "%s: %s (%zu bytes at heap offset %zu) runs past the end of "
                "the symmetric heap (%zu bytes)",
                fn, what, bytes, size_t(at - lo), symm_heap_size());
  return SYMM_SUCCESS;
}

/// send and recv either do not overlap or are exactly in place (Buffers).
symm_status checkOverlap(const char *fn, const Buffers &b) {
  if (!b.sendBytes || !b.recvBytes)
    return SYMM_SUCCESS;
  uintptr_t s = reinterpret_cast<uintptr_t>(b.send),
            r = reinterpret_cast<uintptr_t>(b.recv);
  if (s + b.sendBytes <= r || r + b.recvBytes <= s)
    return SYMM_SUCCESS;
  if (b.inPlace && b.exact)
    return SYMM_SUCCESS;
  if (!b.inPlace)
    return fail(SYMM_ERROR_INVALID_ARGUMENT,
                "%s: send and recv overlap; this collective is not in place",
                fn);
  return fail(SYMM_ERROR_INVALID_ARGUMENT,
              "%s: send and recv overlap but are not in place (%s)", fn,
              b.inPlace);
}

} // namespace

symm_status checkBuffers(const char *fn, const Buffers &b) {
  if (symm_status st = checkBuffer(fn, "send", b.send, b.sendBytes))
    return st;
  if (symm_status st = checkBuffer(fn, "recv", b.recv, b.recvBytes))
    return st;
  return checkOverlap(fn, b);
}

symm_status begin(const char *fn, symm_dtype dtype, symm_stream *stream,
                  Call &call) {
  if (symm_rank() < 0 || !strcmp(symm_backend_name(), "none"))
    return fail(SYMM_ERROR_NOT_INITIALIZED,
                "%s: the runtime is not initialised; call symm_init first", fn);
  if (dtype < 0 || dtype >= kNumDtypes)
    return fail(SYMM_ERROR_INVALID_ARGUMENT,
                "%s: dtype %d is not a symm_dtype (0..%d)", fn, int(dtype),
                kNumDtypes - 1);
  call.fn = fn;
  call.s = &state();
  call.stream = stream;
  call.esize = kDtypeSizes[dtype];
  call.rank = symm_rank();
  call.world = symm_world_size();
  return SYMM_SUCCESS;
}

symm_status checkOp(const char *fn, symm_reduce_op op) {
  if (op < SYMM_SUM || op > SYMM_MAX)
    return fail(SYMM_ERROR_INVALID_ARGUMENT,
                "%s: reduce op %d is not a symm_reduce_op (0..%d)", fn, int(op),
                int(SYMM_MAX));
  return SYMM_SUCCESS;
}

namespace {

const char *const kOpNames[] = {"sum", "prod", "min", "max"};

} // namespace

Argument dtypeArgument(symm_dtype dtype) {
  return {"dtype", uint64_t(dtype), kDtypeNames, kNumDtypes};
}

Argument opArgument(symm_reduce_op op) {
  return {"op", uint64_t(op), kOpNames, std::size(kOpNames)};
}

namespace {

std::string describe(const Argument &a, uint64_t value) {
  std::string text = std::string(a.name) + " " + std::to_string(value);
  if (a.names && value < a.count)
    text += std::string(" (") + a.names[value] + ")";
  return text;
}

} // namespace

symm_status agree(CollectiveCall call, symm_status local,
                  std::initializer_list<Argument> args,
                  const std::vector<uint64_t> &extra, CrossCheck cross) {
  if (local == SYMM_ERROR_NOT_INITIALIZED || !checkingCollectives())
    return local;
  std::vector<uint64_t> mine = {uint64_t(local)};
  for (const Argument &a : args)
    mine.push_back(a.value);
  size_t at = mine.size();
  mine.insert(mine.end(), extra.begin(), extra.end());
  std::vector<uint64_t> all;
  uint64_t seq = 0;
  symm_status met = gatherCollectiveArguments(call, mine, all, seq);
  // This rank's own error says more than what it did to the others.
  if (local != SYMM_SUCCESS)
    return local;
  if (met != SYMM_SUCCESS)
    return met;
  const char *fn = collectiveCallName(call);
  size_t stride = mine.size();
  for (int r = 0; r < symm_world_size(); ++r)
    if (all[r * stride] != SYMM_SUCCESS)
      return fail(SYMM_ERROR_PEER_FAILED,
                  "%s (collective call #%llu): rank %d's call failed its own "
                  "checks (%s), so it fails on every rank "
                  "(SYMM_CHECK_COLLECTIVES)",
                  fn, static_cast<unsigned long long>(seq), r,
                  symm_status_string(symm_status(all[r * stride])));
  size_t i = 1;
  for (const Argument &a : args) {
    for (int r = 1; r < symm_world_size(); ++r)
      if (all[r * stride + i] != all[i])
        return fail(SYMM_ERROR_ASYMMETRIC,
                    "%s (collective call #%llu): rank 0 passed %s, rank %d "
                    "passed %s; every rank must pass the same "
                    "(SYMM_CHECK_COLLECTIVES)",
                    fn, static_cast<unsigned long long>(seq),
                    describe(a, all[i]).c_str(), r,
                    describe(a, all[r * stride + i]).c_str());
    ++i;
  }
  return cross ? cross(seq, all, stride, at) : SYMM_SUCCESS;
}

symm_status crossCheckCounts(uint64_t seq, const std::vector<uint64_t> &all,
                             size_t stride, size_t at) {
  int world = symm_world_size();
  for (int i = 0; i < world; ++i)
    for (int j = 0; j < world; ++j) {
      uint64_t sent = all[i * stride + at + j];
      uint64_t expected = all[j * stride + at + world + i];
      if (sent != expected)
        return fail(SYMM_ERROR_ASYMMETRIC,
                    "symm_all_to_allv (collective call #%llu): rank %d sends "
                    "%llu elements to rank %d (its send_counts[%d]), which "
                    "expects %llu from it (its recv_counts[%d]) "
                    "(SYMM_CHECK_COLLECTIVES)",
                    static_cast<unsigned long long>(seq), i,
                    static_cast<unsigned long long>(sent), j, j,
                    static_cast<unsigned long long>(expected), i);
    }
  return SYMM_SUCCESS;
}

} // namespace symm::collectives
