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
#include <optional>
#include <string>

namespace symm::collectives {
namespace {

// The figures the chunk size follows (bench/collectives/model.py has the
// same), measured on 2 H200s: a copy engine's peer copy moves 396.5 GB/s
// once under way (bench/collectives/peer_bandwidth.cu: 256 MB in 697 us, 1 GB
// in 2728); the local HBM traffic of a copy out of a slot (read + written); and
// what a copy costs besides its bytes in a chain of them, its start, its drain
// and the tokens between two: 9.5 us (the copy-engine broadcast of 256 MB-1 GB
// in chunks of 16, 32 and 64 MB fits T = S / B + 9.5 us a chunk + the last
// chunk's copy out within 1%; a second stream sending every other chunk did not
// hide it).
constexpr double kCopyBytesPerUs = 396.5e3;
constexpr double kHbmBytesPerUs = 4.2e6;
constexpr double kGapUs = 9.5;
constexpr size_t kMinChunk = size_t(64) << 10;

/// Bytes per chunk of a call that sends `bytes` down each link in `rounds`
/// of chunks, `stages` chunks a round, the last of which goes `hops` more
/// hops after its first: the chunk C that makes a call quickest. A call
/// takes (S / C) rounds of `stages` stages of C / B + g, then the last
/// chunk's further hops and the last rank's copy of it out of its slot,
/// 2 C / H: T(C) = (S / C) k (C / B + g) + h (C / B + g) + 2 C / H, least at
///   C = sqrt(S k g / (h / B + 2 / H)).
/// The broadcast chain has k = 1, h = n - 2: with g = 9.5 us, B = 396.5
/// GB/s, H = 4.2 TB/s (MiB): on 2 ranks 17 at 16 MiB (a call of one
/// chunk), 70 at 256 MiB; on 4 ranks 5.1 at 16 MiB, 41 at 1 GiB. The ring
/// all-gather has k = n - 1, h = n - 2 (S a rank's block). At least 64K, at
/// most a slot (SYMM_COLLECTIVES_CE_CHUNK), and the call's chunks all alike
/// (whole 16-byte vectors), so that the last is not a sliver.
size_t chunkBytes(const Call &call, size_t bytes, int stages, int hops) {
  double perByte = std::max(0, hops) / kCopyBytesPerUs + 2 / kHbmBytesPerUs;
  size_t best = size_t(std::sqrt(double(bytes) * stages * kGapUs / perByte));
  size_t chunk = std::min(std::max(best, kMinChunk), call.s->ceChunk);
  size_t chunks = (bytes + chunk - 1) / chunk;
  size_t even = (bytes + chunks - 1) / chunks;
  size_t v = SYMM_COLL_VECTOR_BYTES;
  return std::min(call.s->ceChunk, (even + v - 1) / v * v);
}

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

namespace {

/// The ordering of the copy-engine collectives, per slot s of the link from
/// rank r to r + 1 (the only links they use): two tokens, `landed[s]` in
/// r + 1's channel (r raises it once the link's chunk i, i mod slots = s,
/// is in r + 1's slot s) and `vacant[s]` in r's (r + 1 raises it once
/// nothing reads the chunk in its slot any more). Each side waits for its
/// token to be 1, resets it to 0 on its own stream and only then does what
/// lets the other side raise it again, so a token is never reset after the
/// next raise. A copy before a raise on one stream lands first (a stream
/// write waits for the stream's earlier work and fences it at system
/// scope), and a copy after a wait starts after it. The values are
/// constants, not epochs: a stream operation's value is fixed when it is
/// issued, and a CUDA graph replays the values it captured, so values that
/// count calls would be stale from the second replay on (the kernels read
/// their epochs from the device instead). The tokens carry over from call
/// to call, whatever the collective or the root: a link's slots alternate
/// between its two ends however many calls use it, and every call starts
/// at slot 0.
///
/// The copies out of the slots into `recv` (and a rank's own copy of its
/// block) overlap the copies onward on a second stream, forked from the
/// call's stream and joined back with events, where the backend can (every
/// GPU backend; CPU ranks record no events in a capture, so there they
/// follow on the call's stream).
class Link {
public:
  Link(Call &call, bool fork, size_t chunks)
      : call(call), b(*initializedBackend()), stream(call.stream), fork(fork),
        chunks(chunks), next((call.rank + 1) % call.world),
        prev((call.rank + call.world - 1) % call.world), landed(call.ceFlags()),
        vacant(landed + kMaxCeSlots), slots(call.ceScratch()),
        nextLanded(peerOf(call, landed, next)),
        prevVacant(peerOf(call, vacant, prev)),
        nextSlots(peerOf(call, slots, next)) {}

  /// The link's `i`th chunk out: waits for its slot in the next rank to be
  /// vacant, copies `len` bytes of `from` into it and raises its `landed`.
  symm_status send(size_t i, const char *from, size_t len) {
    unsigned slot = slotOf(i);
    std::string what = printed("rank %d to empty slot %u (chunk %zu of %zu "
                               "of %s, copy_engine)",
                               next, slot, i, chunks, call.fn);
    if (symm_status st =
            b.streamWaitValue(vacant + slot, 1, stream, what.c_str()))
      return st;
    if (symm_status st = b.streamWriteValue(vacant + slot, 0, stream))
      return st;
    if (symm_status st =
            b.memcpy(nextSlots + slot * call.s->ceChunk, from, len, stream))
      return st;
    return b.streamWriteValue(nextLanded + slot, 1, stream);
  }

  /// Copies `len` bytes of `from` to `to` off the call's stream, after the
  /// stream's earlier work, where it can.
  symm_status copyAside(void *to, const void *from, size_t len) {
    if (!fork)
      return b.memcpy(to, from, len, stream);
    Channel &c = *call.c;
    if (symm_status st = b.eventRecord(c.fork, stream))
      return st;
    if (symm_status st = b.streamWaitEvent(c.side, c.fork))
      return st;
    if (symm_status st = b.memcpy(to, from, len, c.side))
      return st;
    aside = true;
    return b.eventRecord(c.join, c.side);
  }

  /// The link's `i`th chunk in, from landing to release: copied out to `to`
  /// aside and, with `onward`, forwarded from the slot as the link's chunk
  /// `*onward` out, overlapping the copy out.
  symm_status take(size_t i, void *to, size_t len,
                   std::optional<size_t> onward) {
    const char *mine;
    if (symm_status st = receive(i, &mine))
      return st;
    if (symm_status st = copyAside(to, mine, len))
      return st;
    if (onward)
      if (symm_status st = send(*onward, mine, len))
        return st;
    return release(i, /*overlap=*/!onward);
  }

  /// The link's `i`th chunk in, wholly on the second stream (where the
  /// backend can fork): its wait and reset of `landed`, its copy out to `to`
  /// and the raise of `vacant`, so that the call's stream goes on sending
  /// while chunks come in (an exchange on 2 ranks, which forwards nothing).
  /// With `afterSend`, the copy out also waits for the call's stream's work
  /// so far: in place, it overwrites the chunk just sent.
  symm_status takeAside(size_t i, void *to, size_t len, bool afterSend) {
    if (!fork)
      return take(i, to, len, std::nullopt);
    Channel &c = *call.c;
    if (!aside || afterSend) {
      if (symm_status st = b.eventRecord(c.fork, stream))
        return st;
      if (symm_status st = b.streamWaitEvent(c.side, c.fork))
        return st;
    }
    aside = true;
    const char *mine;
    if (symm_status st = receive(i, &mine, c.side))
      return st;
    if (symm_status st = b.memcpy(to, mine, len, c.side))
      return st;
    return release(i, /*overlap=*/true);
  }

  /// The call's stream waits for every copy aside.
  symm_status joinAside() {
    if (!aside)
      return SYMM_SUCCESS;
    aside = false;
    return b.streamWaitEvent(stream, call.c->join);
  }

  /// The rank this one sends to.
  int nextRank() const { return next; }

private:
  /// The link's `i`th chunk in: waits for it to land and returns its slot.
  /// On `on` (the call's stream unless given).
  symm_status receive(size_t i, const char **at, void *on = nullptr) {
    on = on ? on : stream;
    unsigned slot = slotOf(i);
    std::string what = printed("chunk %zu of %zu of %s (copy_engine) from "
                               "rank %d",
                               i, chunks, call.fn, prev);
    if (symm_status st = b.streamWaitValue(landed + slot, 1, on, what.c_str()))
      return st;
    *at = slots + slot * call.s->ceChunk;
    return b.streamWriteValue(landed + slot, 0, on);
  }

  /// The link's `i`th chunk in is read: raises its `vacant` in the previous
  /// rank once the copies aside are done too. With `overlap`, the raise
  /// follows them on the second stream and the call's stream goes on;
  /// otherwise the call's stream waits for them first (its own reads of the
  /// slot, a copy onward, are before the raise either way).
  symm_status release(size_t i, bool overlap) {
    if (!aside || !overlap) {
      if (symm_status st = joinAside())
        return st;
      return b.streamWriteValue(prevVacant + slotOf(i), 1, stream);
    }
    Channel &c = *call.c;
    if (symm_status st = b.streamWriteValue(prevVacant + slotOf(i), 1, c.side))
      return st;
    // The raise is the second stream's last work, which the call joins.
    return b.eventRecord(c.join, c.side);
  }

  unsigned slotOf(size_t i) const { return unsigned(i % call.s->ceSlots); }

  Call &call;
  Backend &b;
  void *stream;
  bool fork;
  size_t chunks;
  int next, prev;
  bool aside = false; // copies on the second stream not yet joined
  uint32_t *landed, *vacant;
  char *slots;
  uint32_t *nextLanded, *prevVacant;
  char *nextSlots;
};

/// Whether copies aside go on the channel's second stream: on GPUs, and on
/// CPU ranks outside a capture.
symm_status forks(const Call &call, bool &fork) {
  bool capturing = false;
  if (symm_status st = streamCapturing(call.stream, capturing))
    return st;
  fork = onGpu() || !capturing;
  return SYMM_SUCCESS;
}

symm_status unavailable(const Call &call, const char *setting) {
  Backend &b = *initializedBackend();
  return fail(SYMM_ERROR_UNAVAILABLE,
              "%s: %s=copy_engine needs stream memory operations and every "
              "rank's heap mapped here; the %s backend has %s",
              call.fn, setting, b.name(),
              b.hasStreamValues() ? "a peer whose heap is not mapped"
                                  : "no stream memory operations");
}

} // namespace

/// The root's data travels down the chain root, root + 1, ..., root - 1
/// (mod n), chunk by chunk; a rank between the two ends forwards each
/// chunk from its slot as it lands.
symm_status copyEngineBroadcast(Call &call, const void *send, void *recv,
                                size_t count, int root) {
  Backend &b = *initializedBackend();
  size_t bytes = count * call.esize;
  int n = call.world, pos = (call.rank - root + n) % n;
  bool first = pos == 0, last = pos == n - 1;
  bool fork;
  if (symm_status st = forks(call, fork))
    return st;
  size_t chunk = chunkBytes(call, bytes, 1, n - 2);
  size_t chunks = (bytes + chunk - 1) / chunk;
  if (call.s->debug)
    fprintf(stderr,
            "symm: rank %d: %s: count %zu: copy_engine, %zu chunk%s of up to "
            "%zu bytes through %u slots%s\n",
            call.rank, call.fn, count, chunks, chunks == 1 ? "" : "s", chunk,
            call.s->ceSlots, fork ? ", local copies on a second stream" : "");
  const char *in = static_cast<const char *>(send);
  char *out = static_cast<char *>(recv);
  if (n == 1)
    return send == recv ? SYMM_SUCCESS : b.memcpy(out, in, bytes, call.stream);
  if (!copyEngineAvailable(call))
    return unavailable(call, "SYMM_BROADCAST_ALGO");
  Link link(call, fork, chunks);
  // The root's own copy overlaps all of its copies to the next rank.
  if (first && send != recv)
    if (symm_status st = link.copyAside(out, in, bytes))
      return st;
  for (size_t i = 0; i < chunks; ++i) {
    size_t at = i * chunk, len = std::min(chunk, bytes - at);
    if (first) {
      if (symm_status st = link.send(i, in + at, len))
        return st;
      continue;
    }
    // A forwarder sends each chunk on as the same chunk of the next link.
    if (symm_status st =
            link.take(i, out + at, len, last ? std::nullopt : std::optional(i)))
      return st;
  }
  return link.joinAside();
}

/// The ring all-gather, and the all-to-all on 2 ranks: in round t every
/// rank sends chunk t of its own block to the next rank, then, n - 1 times,
/// receives chunk t of the block n - 1 - k ranks back (k = n - 2, ..., 0)
/// and, but the last time, forwards it: the link from r to r + 1 carries
/// rank r's block, then r - 1's, ..., r - n + 2's, chunk t of each per
/// round, (n - 1) S / n of an all-gather of S bytes in all, what each rank
/// must receive. An all-to-all's block for rank p would go p - r hops, so
/// past 2 ranks it goes by the kernels.
symm_status copyEngineExchange(Call &call, const Exchange &x) {
  int n = call.world, r = call.rank;
  size_t bytes = x.count * call.esize;
  auto sendBlock = [&](int p) {
    return static_cast<const char *>(x.send) + p * x.sendStride * call.esize;
  };
  auto recvBlock = [&](int p) {
    return static_cast<char *>(x.recv) + p * x.recvStride * call.esize;
  };
  bool fork;
  if (symm_status st = forks(call, fork))
    return st;
  size_t chunk = chunkBytes(call, bytes, std::max(1, n - 1), n - 2);
  size_t rounds = (bytes + chunk - 1) / chunk;
  if (call.s->debug)
    fprintf(stderr,
            "symm: rank %d: %s: count %zu: copy_engine, %zu round%s of %d "
            "chunk%s of up to %zu bytes through %u slots%s\n",
            r, call.fn, x.count, rounds, rounds == 1 ? "" : "s",
            std::max(1, n - 1), n == 2 ? "" : "s", chunk, call.s->ceSlots,
            fork ? ", local copies on a second stream" : "");
  if (n > 1 && !copyEngineAvailable(call))
    return unavailable(call, x.sendStride ? "SYMM_ALL_TO_ALL_ALGO"
                                          : "SYMM_ALL_GATHER_ALGO");
  Link link(call, fork, rounds * size_t(std::max(1, n - 1)));
  // This rank's own block, overlapping everything else.
  if (sendBlock(r) != recvBlock(r))
    if (symm_status st = link.copyAside(recvBlock(r), sendBlock(r), bytes))
      return st;
  for (size_t t = 0; n > 1 && t < rounds; ++t) {
    size_t at = t * chunk, len = std::min(chunk, bytes - at);
    size_t i = t * size_t(n - 1); // the link's chunks before this round
    const char *out = sendBlock(link.nextRank()) + at;
    if (symm_status st = link.send(i, out, len))
      return st;
    if (n == 2) {
      // Nothing to forward: the chunk in goes out of its slot on the
      // second stream, and the next round's send need not wait for it.
      char *in = recvBlock(1 - r) + at;
      if (symm_status st =
              link.takeAside(i, in, len, in < out + len && out < in + len))
        return st;
      continue;
    }
    // The chunk that came in as the link's i-th goes on as its (i + 1)-th.
    for (int k = 1; k < n; ++k, ++i)
      if (symm_status st =
              link.take(i, recvBlock((r - k + n) % n) + at, len,
                        k < n - 1 ? std::optional(i + 1) : std::nullopt))
        return st;
  }
  return link.joinAside();
}

} // namespace symm::collectives
