//===- Collectives.cpp - NCCL-shaped collectives over the heap --*- C++ -*-===//
//
// The entry points of symm/collectives.h: each checks its arguments
// (Checks.cpp), meets the other ranks' calls in checked mode, and runs the
// algorithm chosen for it (Algorithms.cpp) on the stream's channel
// (Channels.cpp). See docs/Collectives.md.
//
//===----------------------------------------------------------------------===//

#include "Internal.h"

using namespace symm;
using namespace symm::collectives;

extern "C" {

size_t symm_dtype_size(symm_dtype dtype) {
  return dtype >= 0 && dtype < kNumDtypes ? kDtypeSizes[dtype] : 0;
}

const char *symm_dtype_name(symm_dtype dtype) {
  return dtype >= 0 && dtype < kNumDtypes ? kDtypeNames[dtype] : nullptr;
}

symm_status symm_all_gather(const void *send, void *recv, size_t send_count,
                            symm_dtype dtype, symm_stream *stream) {
  const char *fn = "symm_all_gather";
  Call call;
  symm_status local = [&] {
    if (symm_status st = begin(fn, dtype, stream, call))
      return st;
    size_t sendBytes, recvBytes;
    if (symm_status st =
            bytesOf(fn, "send_count", send_count, 1, call.esize, &sendBytes))
      return st;
    if (symm_status st =
            bytesOf(fn, "recv", send_count, call.world, call.esize, &recvBytes))
      return st;
    char *slot = static_cast<char *>(recv) + call.rank * sendBytes;
    return checkBuffers(
        fn, {.send = send,
             .sendBytes = sendBytes,
             .recv = recv,
             .recvBytes = recvBytes,
             .exact = send == slot,
             .inPlace = "in place means send == recv + rank * send_count"});
  }();
  if (symm_status st =
          agree(CollectiveCall::AllGather, local,
                {{"send_count", send_count}, dtypeArgument(dtype)}))
    return st;
  ExchangeAlgo algo;
  if (symm_status st = exchangeAlgorithm("SYMM_ALL_GATHER_ALGO", &algo))
    return st;
  if (!send_count)
    return SYMM_SUCCESS;
  std::lock_guard<std::mutex> lock(stateMutex());
  CollectiveCaller caller(CollectiveCall::AllGather);
  if (symm_status st = prepare(dtype, call))
    return st;
  return exchange(call, {.send = send,
                         .recv = recv,
                         .count = send_count,
                         .recvStride = send_count,
                         .sendElems = send_count,
                         .recvElems = send_count * call.world,
                         .algo = algo});
}

symm_status symm_all_to_all(const void *send, void *recv, size_t count_per_rank,
                            symm_dtype dtype, symm_stream *stream) {
  const char *fn = "symm_all_to_all";
  Call call;
  symm_status local = [&] {
    if (symm_status st = begin(fn, dtype, stream, call))
      return st;
    size_t bytes;
    if (symm_status st = bytesOf(fn, "count_per_rank", count_per_rank,
                                 call.world, call.esize, &bytes))
      return st;
    return checkBuffers(fn, {.send = send,
                             .sendBytes = bytes,
                             .recv = recv,
                             .recvBytes = bytes,
                             .exact = send == recv,
                             .inPlace = "in place means send == recv"});
  }();
  if (symm_status st =
          agree(CollectiveCall::AllToAll, local,
                {{"count_per_rank", count_per_rank}, dtypeArgument(dtype)}))
    return st;
  ExchangeAlgo algo;
  if (symm_status st = exchangeAlgorithm("SYMM_ALL_TO_ALL_ALGO", &algo))
    return st;
  if (!count_per_rank)
    return SYMM_SUCCESS;
  std::lock_guard<std::mutex> lock(stateMutex());
  CollectiveCaller caller(CollectiveCall::AllToAll);
  if (symm_status st = prepare(dtype, call))
    return st;
  size_t elems = count_per_rank * call.world;
  // In place, a rank still reads the blocks of its buffer it has not sent.
  return exchange(call, {.send = send,
                         .recv = recv,
                         .count = count_per_rank,
                         .sendStride = count_per_rank,
                         .recvStride = count_per_rank,
                         .sendElems = elems,
                         .recvElems = elems,
                         .directInPlace = false,
                         .algo = algo});
}

symm_status symm_broadcast(const void *send, void *recv, size_t count,
                           symm_dtype dtype, int root, symm_stream *stream) {
  const char *fn = "symm_broadcast";
  Call call;
  symm_status local = [&] {
    if (symm_status st = begin(fn, dtype, stream, call))
      return st;
    if (root < 0 || root >= call.world)
      return fail(SYMM_ERROR_INVALID_ARGUMENT,
                  "%s: root %d is not a rank (world size %d)", fn, root,
                  call.world);
    size_t bytes;
    if (symm_status st = bytesOf(fn, "count", count, 1, call.esize, &bytes))
      return st;
    // Only the root reads send.
    return checkBuffers(fn, {.send = send,
                             .sendBytes = call.rank == root ? bytes : 0,
                             .recv = recv,
                             .recvBytes = bytes,
                             .exact = send == recv,
                             .inPlace = "in place means send == recv"});
  }();
  if (symm_status st = agree(
          CollectiveCall::Broadcast, local,
          {{"count", count}, dtypeArgument(dtype), {"root", uint64_t(root)}}))
    return st;
  BroadcastAlgo algo;
  if (symm_status st = broadcastAlgorithm(&algo))
    return st;
  if (!count)
    return SYMM_SUCCESS;
  std::lock_guard<std::mutex> lock(stateMutex());
  CollectiveCaller caller(CollectiveCall::Broadcast);
  if (symm_status st = prepare(dtype, call))
    return st;
  return broadcast(call, send, recv, count, root, algo);
}

symm_status symm_all_reduce(const void *send, void *recv, size_t count,
                            symm_dtype dtype, symm_reduce_op op,
                            symm_stream *stream) {
  const char *fn = "symm_all_reduce";
  Call call;
  AllReduceAlgo algo;
  bool bySize;
  size_t bytes = 0;
  symm_status local = [&] {
    if (symm_status st = begin(fn, dtype, stream, call))
      return st;
    if (symm_status st = checkOp(fn, op))
      return st;
    if (symm_status st = bytesOf(fn, "count", count, 1, call.esize, &bytes))
      return st;
    if (symm_status st =
            checkBuffers(fn, {.send = send,
                              .sendBytes = bytes,
                              .recv = recv,
                              .recvBytes = bytes,
                              .exact = send == recv,
                              .inPlace = "in place means send == recv"}))
      return st;
    return allReduceAlgorithm(bytes, call.world, &algo, &bySize);
  }();
  if (symm_status st =
          agree(CollectiveCall::AllReduce, local,
                {{"count", count}, dtypeArgument(dtype), opArgument(op)}))
    return st;
  if (!count)
    return SYMM_SUCCESS;
  std::lock_guard<std::mutex> lock(stateMutex());
  CollectiveCaller caller(CollectiveCall::AllReduce);
  if (symm_status st = prepare(dtype, call))
    return st;
  return allReduce(call, send, recv, count, op, algo, bySize);
}

symm_status symm_reduce_scatter(const void *send, void *recv, size_t recv_count,
                                symm_dtype dtype, symm_reduce_op op,
                                symm_stream *stream) {
  const char *fn = "symm_reduce_scatter";
  Call call;
  ReduceScatterAlgo algo;
  symm_status local = [&] {
    if (symm_status st = begin(fn, dtype, stream, call))
      return st;
    if (symm_status st = checkOp(fn, op))
      return st;
    size_t sendBytes, recvBytes;
    if (symm_status st =
            bytesOf(fn, "send", recv_count, call.world, call.esize, &sendBytes))
      return st;
    if (symm_status st =
            bytesOf(fn, "recv_count", recv_count, 1, call.esize, &recvBytes))
      return st;
    // In place: recv is this rank's block of send.
    const char *block = static_cast<const char *>(send) + call.rank * recvBytes;
    if (symm_status st = checkBuffers(
            fn, {.send = send,
                 .sendBytes = sendBytes,
                 .recv = recv,
                 .recvBytes = recvBytes,
                 .exact = recv == block,
                 .inPlace = "in place means recv == send + rank * recv_count"}))
      return st;
    return reduceScatterAlgorithm(&algo);
  }();
  if (symm_status st = agree(
          CollectiveCall::ReduceScatter, local,
          {{"recv_count", recv_count}, dtypeArgument(dtype), opArgument(op)}))
    return st;
  if (!recv_count)
    return SYMM_SUCCESS;
  std::lock_guard<std::mutex> lock(stateMutex());
  CollectiveCaller caller(CollectiveCall::ReduceScatter);
  if (symm_status st = prepare(dtype, call))
    return st;
  return reduceScatter(call, send, recv, recv_count, op, algo);
}

symm_status symm_all_to_allv(const void *send, const size_t *send_counts,
                             const size_t *send_displs, void *recv,
                             const size_t *recv_counts,
                             const size_t *recv_displs, symm_dtype dtype,
                             symm_stream *stream) {
  const char *fn = "symm_all_to_allv";
  Call call;
  size_t sendEnd = 0, recvEnd = 0, moved = 0;
  symm_status local = [&] {
    if (symm_status st = begin(fn, dtype, stream, call))
      return st;
    if (!send_counts || !send_displs || !recv_counts || !recv_displs)
      return fail(SYMM_ERROR_INVALID_ARGUMENT,
                  "%s: the count and displacement arrays must not be null", fn);
    for (int r = 0; r < call.world; ++r) {
      size_t end, bytes;
      if (send_displs[r] > SIZE_MAX - send_counts[r] ||
          recv_displs[r] > SIZE_MAX - recv_counts[r])
        return fail(SYMM_ERROR_INVALID_ARGUMENT,
                    "%s: the displacement plus count for rank %d overflows", fn,
                    r);
      end = send_displs[r] + send_counts[r];
      if (symm_status st = bytesOf(fn, "send", end, 1, call.esize, &bytes))
        return st;
      sendEnd = std::max(sendEnd, end);
      end = recv_displs[r] + recv_counts[r];
      if (symm_status st = bytesOf(fn, "recv", end, 1, call.esize, &bytes))
        return st;
      recvEnd = std::max(recvEnd, end);
      moved += send_counts[r] + recv_counts[r];
    }
    return checkBuffers(fn, {.send = send,
                             .sendBytes = sendEnd * call.esize,
                             .recv = recv,
                             .recvBytes = recvEnd * call.esize});
  }();
  // Every rank's counts, for the check that each pair of ranks agrees.
  std::vector<uint64_t> counts;
  if (local == SYMM_SUCCESS) {
    counts.assign(send_counts, send_counts + call.world);
    counts.insert(counts.end(), recv_counts, recv_counts + call.world);
  } else {
    counts.assign(2 * size_t(symm_world_size()), 0);
  }
  if (symm_status st = agree(CollectiveCall::AllToAllv, local,
                             {dtypeArgument(dtype)}, counts, crossCheckCounts))
    return st;
  if (!moved)
    return SYMM_SUCCESS;
  std::lock_guard<std::mutex> lock(stateMutex());
  CollectiveCaller caller(CollectiveCall::AllToAllv);
  if (symm_status st = prepare(dtype, call))
    return st;
  return allToAllv(call, {.send = send,
                          .sendCounts = send_counts,
                          .sendDispls = send_displs,
                          .sendElems = sendEnd,
                          .recv = recv,
                          .recvCounts = recv_counts,
                          .recvDispls = recv_displs,
                          .recvElems = recvEnd});
}

} // extern "C"
