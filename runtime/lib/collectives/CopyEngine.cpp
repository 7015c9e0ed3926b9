//===- CopyEngine.cpp - The broadcast by the copy engines -------*- C++ -*-===//
//
// The copy-engine broadcast (SYMM_BROADCAST_ALGO=copy_engine): the root's
// data travels down the chain root, root + 1, ..., root - 1 (mod n) as
// stream copies (Backend::memcpy, cuMemcpyAsync on GPUs) into the next
// rank's copy-engine slots, chunk by chunk, ordered by stream memory
// operations (Backend::streamWriteValue and streamWaitValue) instead of
// kernels: no SM moves a byte, and no launch idles the link between chunks.
// See docs/Collectives.md.
//
//===----------------------------------------------------------------------===//

#include "Internal.h"

#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <string>

namespace symm::collectives {
namespace {

// The figures the chunk size follows (bench/collectives/model.py has the
// same): a copy engine's peer copy, 391 GB/s on 2 H200s (DESIGN.md; the
// H100s' NVLink is the same generation, but it was not measured there); the
// local HBM traffic of a copy out of a slot (read + written); and the time
// a stream spends between two copies, writing `landed`, waiting for and
// resetting `vacant`, starting the copy: a few microseconds, not measured.
constexpr double kCopyBytesPerUs = 391e3;
constexpr double kHbmBytesPerUs = 4.2e6;
constexpr double kGapUs = 4.0;
constexpr size_t kMinChunk = size_t(64) << 10;

/// Bytes per chunk of a broadcast of `bytes`: the chunk C that makes a
/// call quickest. A call takes (S / C + n - 2) stages of C / B + g (the root
/// sends S / C chunks; the last one leaves the second rank after n - 2
/// stages more) and the last rank's copy of the last chunk out of its slot,
/// 2 C / H: T(C) = (S / C + n - 2) (C / B + g) + 2 C / H, least at
///   C = sqrt(S g / ((n - 2) / B + 2 / H)).
/// With g = 4 us, B = 391 GB/s, H = 4.2 TB/s: on 2 ranks 11.9 MB at 16 MB
/// (a call of two chunks), 47 MB at 256 MB; on 4 ranks 3.5 MB at 16 MB,
/// 28 MB at 1 GB. At least 64K, at most a slot (SYMM_COLLECTIVES_CE_CHUNK),
/// and the call's chunks all alike (whole 16-byte vectors), so that the last
/// is not a sliver.
size_t chunkBytes(const Call &call, size_t bytes) {
  double perByte =
      std::max(0, call.world - 2) / kCopyBytesPerUs + 2 / kHbmBytesPerUs;
  size_t best = size_t(std::sqrt(double(bytes) * kGapUs / perByte));
  size_t chunk = std::min(std::max(best, kMinChunk), call.s->ceChunk);
  size_t chunks = (bytes + chunk - 1) / chunk;
  size_t even = (bytes + chunks - 1) / chunks;
  size_t v = SYMM_COLL_VECTOR_BYTES;
  return std::min(call.s->ceChunk, (even + v - 1) / v * v);
}

/// Where `p`, in this rank's heap, is in rank `peer`'s heap as mapped here;
/// null where that heap is not mapped.
template <typename T> T *peerOf(const Call &call, T *p, int peer) {
  void *mine = nullptr, *theirs = nullptr;
  symm_heap_base(call.rank, &mine);
  symm_heap_base(peer, &theirs);
  if (!theirs)
    return nullptr;
  return reinterpret_cast<T *>(
      static_cast<char *>(theirs) +
      (reinterpret_cast<char *>(p) - static_cast<char *>(mine)));
}

std::string printed(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
std::string printed(const char *fmt, ...) {
  char buffer[256];
  va_list args;
  va_start(args, fmt);
  vsnprintf(buffer, sizeof(buffer), fmt, args);
  va_end(args);
  return buffer;
}

} // namespace

bool copyEngineAvailable(const Call &call) {
  Backend *b = initializedBackend();
  if (!b || !b->hasStreamValues())
    return false;
  for (int r = 0; r < call.world; ++r) {
    void *base = nullptr;
    if (symm_heap_base(r, &base) != SYMM_SUCCESS || !base)
      return false;
  }
  return true;
}

/// The chain's ordering, per slot s of the link from rank r to r + 1: two
/// tokens, `landed[s]` in r + 1's channel (r raises it once chunk i, i mod
/// slots = s, is in r + 1's slot s) and `vacant[s]` in r's (r + 1 raises it
/// once it has copied the chunk out of its slot and forwarded it). Each
/// side waits for its token to be 1, resets it to 0 on its own stream and
/// only then does what lets the other side raise it again, so a token is
/// never reset after the next raise. A copy before a raise on one stream
/// lands first (a stream write waits for the stream's earlier work and
/// fences it at system scope), and a copy after a wait starts after it. The
/// values are constants, not epochs: a stream operation's value is fixed
/// when it is issued, and a CUDA graph replays the values it captured, so
/// values that count calls would be stale from the second replay on (the
/// kernels read their epochs from the device instead). The tokens carry
/// over from call to call whatever the root: a link's slots alternate
/// between its two ends however many calls use it, and every call starts
/// at slot 0.
///
/// The copies out of the slots into `recv` (and the root's own copy of
/// `send`) overlap the copies to the next rank on a second stream, forked
/// from the call's stream and joined back with events, where the backend
/// can (every GPU backend; CPU ranks record no events in a capture, so
/// there they follow on the call's stream).
symm_status copyEngineBroadcast(Call &call, const void *send, void *recv,
                                size_t count, int root) {
  Backend &b = *initializedBackend();
  const State &s = *call.s;
  void *stream = call.stream;
  size_t bytes = count * call.esize;
  int n = call.world, pos = (call.rank - root + n) % n;
  bool first = pos == 0, last = pos == n - 1;
  bool capturing = false;
  if (symm_status st = streamCapturing(call.stream, capturing))
    return st;
  Channel &c = *call.c;
  bool fork = onGpu() || !capturing;
  size_t chunk = chunkBytes(call, bytes);
  size_t chunks = (bytes + chunk - 1) / chunk;
  if (s.debug)
    fprintf(stderr,
            "symm: rank %d: %s: count %zu: copy_engine, %zu chunk%s of up to "
            "%zu bytes through %u slots%s\n",
            call.rank, call.fn, count, chunks, chunks == 1 ? "" : "s", chunk,
            s.ceSlots, fork ? ", local copies on a second stream" : "");
  const char *in = static_cast<const char *>(send);
  char *out = static_cast<char *>(recv);
  if (n == 1)
    return send == recv ? SYMM_SUCCESS : b.memcpy(out, in, bytes, stream);
  if (!copyEngineAvailable(call))
    return fail(SYMM_ERROR_UNAVAILABLE,
                "%s: SYMM_BROADCAST_ALGO=copy_engine needs stream memory "
                "operations and every rank's heap mapped here; the %s "
                "backend has %s",
                call.fn, b.name(),
                b.hasStreamValues() ? "a peer whose heap is not mapped"
                                    : "no stream memory operations");
  int next = (call.rank + 1) % n, prev = (call.rank + n - 1) % n;
  uint32_t *landed = call.ceFlags(), *vacant = landed + kMaxCeSlots;
  char *slots = call.ceScratch();
  uint32_t *nextLanded = peerOf(call, landed, next);
  uint32_t *prevVacant = peerOf(call, vacant, prev);
  char *nextSlots = peerOf(call, slots, next);
  // The second stream copies after the call's stream's earlier work; the
  // call's stream goes on once those copies are done.
  auto onSide = [&](void *to, const void *from, size_t len) -> symm_status {
    if (symm_status st = b.eventRecord(c.fork, stream))
      return st;
    if (symm_status st = b.streamWaitEvent(c.side, c.fork))
      return st;
    if (symm_status st = b.memcpy(to, from, len, c.side))
      return st;
    return b.eventRecord(c.join, c.side);
  };
  // The root's own copy overlaps all of its copies to the next rank.
  bool ownCopy = first && send != recv;
  if (ownCopy && fork)
    if (symm_status st = onSide(out, in, bytes))
      return st;
  for (size_t i = 0; i < chunks; ++i) {
    unsigned slot = unsigned(i % s.ceSlots);
    size_t at = i * chunk, len = std::min(chunk, bytes - at);
    char *mine = slots + slot * s.ceChunk;
    if (!first) {
      std::string what =
          printed("chunk %zu of %zu of %s (copy_engine) from rank %d", i,
                  chunks, call.fn, prev);
      if (symm_status st =
              b.streamWaitValue(landed + slot, 1, stream, what.c_str()))
        return st;
      if (symm_status st = b.streamWriteValue(landed + slot, 0, stream))
        return st;
      // A forwarder's copy out of the slot overlaps its copy onward.
      if (!last && fork)
        if (symm_status st = onSide(out + at, mine, len))
          return st;
    }
    if (!last) {
      std::string what =
          printed("rank %d to empty slot %u (chunk %zu of %zu of %s, "
                  "copy_engine)",
                  next, slot, i, chunks, call.fn);
      if (symm_status st =
              b.streamWaitValue(vacant + slot, 1, stream, what.c_str()))
        return st;
      if (symm_status st = b.streamWriteValue(vacant + slot, 0, stream))
        return st;
      if (symm_status st = b.memcpy(nextSlots + slot * s.ceChunk,
                                    first ? in + at : mine, len, stream))
        return st;
      if (symm_status st = b.streamWriteValue(nextLanded + slot, 1, stream))
        return st;
    }
    if (!first) {
      if (symm_status st = !last && fork
                               ? b.streamWaitEvent(stream, c.join)
                               : b.memcpy(out + at, mine, len, stream))
        return st;
      if (symm_status st = b.streamWriteValue(prevVacant + slot, 1, stream))
        return st;
    }
  }
  if (ownCopy)
    return fork ? b.streamWaitEvent(stream, c.join)
                : b.memcpy(out, in, bytes, stream);
  return SYMM_SUCCESS;
}

} // namespace symm::collectives
