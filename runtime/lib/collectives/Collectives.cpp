//===- Collectives.cpp - NCCL-shaped collectives over the heap --*- C++ -*-===//
//
// The host side of symm/collectives.h: checks the arguments, keeps one channel
// (scratch space, flags and epoch counters in the symmetric heap) per stream,
// cuts the data into chunks that fit the scratch and launches the embedded
// kernels (Kernels.mlir.in) on the caller's stream. The protocol itself (direct
// stores into the peers' scratch, ready and acknowledge flags numbered by
// epoch) lives in the kernels; see docs/Collectives.md.
//
//===----------------------------------------------------------------------===//

#include "symm/collectives.h"

#include "../core/Environment.h"
#include "../core/Runtime.h"
#include "../host/Races.h"
#include "Embedded.h"

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

using namespace symm;

namespace {

constexpr int kNumDtypes = SYMM_FLOAT64 + 1;
const char *const kDtypeNames[kNumDtypes] = {"i8",   "i32", "i64", "f16",
                                             "bf16", "f32", "f64"};
const size_t kDtypeSizes[kNumDtypes] = {1, 4, 8, 2, 2, 4, 8};

/// Workgroups per launch are at most this many: each uses one flag slot.
constexpr unsigned kMaxBlocks = 512;
/// A launch gets a workgroup per this many bytes, at least kMinGpuBlocks on
/// GPUs and at most SYMM_COLLECTIVES_BLOCKS: a small call waits on flag round
/// trips, not on bandwidth, and each workgroup adds fences and flags, while
/// too few serialise the copies. On 2 H200s a one-shot all-reduce took
/// 12.7 us at 8 KB on 128 workgroups, 10.2 on 8 and 11.8 on 1; 15.3 us at
/// 1 MB on 128 and 17.6 on 32.
constexpr size_t kBytesPerBlock = size_t(8) << 10;
constexpr unsigned kMinGpuBlocks = 8;
constexpr size_t kMinScratch = size_t(64) << 10;
constexpr size_t kMaxDefaultScratch = size_t(256) << 20;
/// The largest SYMM_COLLECTIVES_LL_MAX.
constexpr size_t kMaxLowLatency = size_t(4) << 20;
constexpr size_t kFlagBytes =
    size_t(kMaxBlocks) * SYMM_COLL_FLAGS_PER_SLOT * sizeof(int32_t);
/// What each rank publishes per workgroup for zero-copy exchanges: one
/// offset per rank.
constexpr size_t kMetaBytes = size_t(kMaxBlocks) * SYMM_MAX_RANKS * 8;
/// Counters kept on the device, so that a captured launch can be replayed:
/// the epoch of each flag slot, then all-to-allv's chunks sent to and
/// received from each rank, per workgroup (see the kernels).
/// (the epoch of each flag slot, then the grid of the previous launch as
/// each slot saw it)
constexpr size_t kEpochBytes = 2 * size_t(kMaxBlocks) * sizeof(int32_t);
constexpr size_t kPairCountBytes =
    size_t(kMaxBlocks) * 2 * SYMM_MAX_RANKS * sizeof(int32_t);
/// The pieces of a reduce-scatter each rank has announced to this one, per
/// workgroup (zero between calls).
constexpr size_t kProgressBytes =
    size_t(kMaxBlocks) * SYMM_MAX_RANKS * sizeof(int32_t);

/// Scratch, flags and counters in the heap for the collectives of one
/// stream. Calls on one stream run in order, so they share a channel and
/// number their launches with one epoch, counted on the device; calls on two
/// streams may overlap, so each stream has its own channel. The
/// variable-count all-to-all counts chunks per pair of ranks instead (both
/// ends know that count, not a global one), in flags and scratch of its own.
struct Channel {
  symm_stream *stream = nullptr;
  bool retired = false; // its stream was destroyed; the next new one takes it
  // [flags][pair flags][epochs][pair counts][progress][meta][ll][scratch]
  // [pair scratch]
  char *base = nullptr;
};

struct State {
  char *heapBase = nullptr; // detects a new runtime after symm_finalize
  size_t scratchBytes = 0;
  size_t directMin = 0; // exchanges of this many bytes per block store directly
  size_t llMax = 0;     // the largest low-latency block (bytes)
  unsigned blocks = 0, threads = 0;
  unsigned minBlocks = 1; // the fewest workgroups a launch gets
  bool debug = false;     // SYMM_COLLECTIVES_DEBUG: a line per call
  int32_t firstEpoch = 0; // SYMM_COLLECTIVES_FIRST_EPOCH, for tests
  std::string backend;    // empty until configured
  symm_module *modules[kNumDtypes] = {};
  std::vector<Channel> channels;
};

State &state() {
  static State s;
  return s;
}

/// Collective calls from several threads of a rank take turns.
std::mutex &stateMutex() {
  static std::mutex m;
  return m;
}

const char *envOr(const char *name, const char *fallback) {
  const char *v = getenv(name);
  return v && *v ? v : fallback;
}

/// symm_stream_destroy's hook: the stream's channel (if it made collective
/// calls) waits for the next new stream. A stream at the same address later
/// must not find it: on some ranks the address is reused and on others not.
void retireChannel(symm_stream *stream) {
  std::lock_guard<std::mutex> lock(stateMutex());
  for (Channel &c : state().channels)
    if (!c.retired && c.stream == stream)
      c.retired = true;
}

/// Reads the configuration once per runtime instance.
symm_status configure(State &s) {
  void *base = nullptr;
  if (symm_status st = symm_heap_base(symm_rank(), &base))
    return st;
  if (s.heapBase == base && !s.backend.empty())
    return SYMM_SUCCESS;
  // A new heap: earlier modules and channels belong to a finalised runtime.
  s = State{};
  setStreamDestroyHook(retireChannel);
  s.heapBase = static_cast<char *>(base);
  std::string backend = symm_backend_name();
  bool gpu = backend != "host";
  // CPU ranks run every GPU thread on the processor: few small workgroups.
  // On GPUs a sixteenth of the heap, at most 256M: data beyond the scratch
  // goes in chunks, and each chunk costs a launch and a flag round trip
  // with the link idle (about 10% of a 256 MB call with 64M, measured).
  if (const char *scratch = getenv("SYMM_COLLECTIVES_SCRATCH");
      scratch && *scratch) {
    s.scratchBytes = env::parseSize(scratch).value_or(0);
    if (s.scratchBytes < kMinScratch)
      return fail(SYMM_ERROR_INVALID_ARGUMENT,
                  "SYMM_COLLECTIVES_SCRATCH='%s' is not a size of at least 64K",
                  scratch);
  } else {
    s.scratchBytes = gpu ? std::min(kMaxDefaultScratch, symm_heap_size() / 16)
                         : size_t(1) << 20;
    s.scratchBytes =
        std::max(kMinScratch, s.scratchBytes / kMinScratch * kMinScratch);
  }
  // Storing straight into the receive buffers costs a flag round trip more
  // (on 2 H200s an all-gather took 13.0 us at 256 KB through the scratch and
  // 16.0 us at 512 KB direct) and saves a local copy of the block out of the
  // scratch (about 1 us per 2 MB of HBM traffic).
  const char *direct = envOr("SYMM_COLLECTIVES_DIRECT_MIN", "2M");
  s.directMin = env::parseSize(direct).value_or(0);
  if (!s.directMin)
    return fail(SYMM_ERROR_INVALID_ARGUMENT,
                "SYMM_COLLECTIVES_DIRECT_MIN='%s' is not a size", direct);
  // Blocks up to this size go low-latency (reduce_ll, exchange_ll): their
  // words carry half data, half tag, so they move twice the bytes but skip
  // the fence and flag hop the other kernels pay per call. Each channel
  // holds world_size * 2 * this many bytes for them. 0 turns them off. On
  // GPUs 256K / (world_size - 1): the doubled bytes go to every peer, and
  // one-shot overtook the low-latency all-reduce above 256 KB on 2 H200s
  // and above 64 KB on 4 (12.2 against 14.3 us at 128 KB).
  if (const char *llMax = getenv("SYMM_COLLECTIVES_LL_MAX"); llMax && *llMax) {
    std::optional<size_t> ll =
        strcmp(llMax, "0") ? env::parseSize(llMax) : std::optional<size_t>(0);
    if (!ll || *ll % SYMM_COLL_VECTOR_BYTES || *ll > kMaxLowLatency)
      return fail(SYMM_ERROR_INVALID_ARGUMENT,
                  "SYMM_COLLECTIVES_LL_MAX='%s' is not 0 or a size of whole "
                  "16-byte vectors up to 4M",
                  llMax);
    s.llMax = *ll;
  } else {
    size_t peers = size_t(std::max(1, symm_world_size() - 1));
    s.llMax = gpu ? (size_t(256) << 10) / peers / SYMM_COLL_VECTOR_BYTES *
                        SYMM_COLL_VECTOR_BYTES
                  : size_t(16) << 10;
  }
  const char *blocks = envOr("SYMM_COLLECTIVES_BLOCKS", gpu ? "128" : "2");
  const char *threads = envOr("SYMM_COLLECTIVES_THREADS", gpu ? "512" : "16");
  int b = atoi(blocks), t = atoi(threads);
  if (b < 1 || b > int(kMaxBlocks) || t < 1 || t > SYMM_COLL_MAX_THREADS)
    return fail(SYMM_ERROR_INVALID_ARGUMENT,
                "SYMM_COLLECTIVES_BLOCKS='%s' must be 1..%u and "
                "SYMM_COLLECTIVES_THREADS='%s' 1..%d",
                blocks, kMaxBlocks, threads, SYMM_COLL_MAX_THREADS);
  s.blocks = unsigned(b);
  s.threads = unsigned(t);
  s.minBlocks = gpu ? std::min(kMinGpuBlocks, s.blocks) : 1;
  const char *debug = envOr("SYMM_COLLECTIVES_DEBUG", "0");
  if (strcmp(debug, "0") && strcmp(debug, "1"))
    return fail(SYMM_ERROR_INVALID_ARGUMENT,
                "SYMM_COLLECTIVES_DEBUG='%s' must be 0 or 1", debug);
  s.debug = !strcmp(debug, "1");
  // Flags count calls modulo 2^32 (the kernels wait with `reached`); a
  // channel may start near the wrap to show it. An epoch is 32 bits either
  // way: 4294967290 and -6 are the same one.
  const char *first = envOr("SYMM_COLLECTIVES_FIRST_EPOCH", "0");
  char *end = nullptr;
  errno = 0;
  long long firstEpoch = strtoll(first, &end, 10);
  if (end == first || *end || errno || firstEpoch < INT32_MIN ||
      firstEpoch > UINT32_MAX)
    return fail(SYMM_ERROR_INVALID_ARGUMENT,
                "SYMM_COLLECTIVES_FIRST_EPOCH='%s' is not a 32-bit integer "
                "(-2147483648 to 4294967295: epochs count modulo 2^32)",
                first);
  s.firstEpoch = int32_t(uint32_t(firstEpoch));
  // On the nvshmem backend the kernels reach a peer through NVSHMEM where
  // its heap is not mapped (compiled with --remote=auto), or every peer so
  // (--remote=nvshmem: what runs across nodes, exercised on one).
  const char *remote = envOr("SYMM_COLLECTIVES_REMOTE", "auto");
  if (strcmp(remote, "auto") && strcmp(remote, "nvshmem"))
    return fail(SYMM_ERROR_INVALID_ARGUMENT,
                "SYMM_COLLECTIVES_REMOTE='%s' must be auto or nvshmem", remote);
  if (!strcmp(remote, "nvshmem")) {
    if (backend != "nvshmem")
      return fail(SYMM_ERROR_INVALID_ARGUMENT,
                  "SYMM_COLLECTIVES_REMOTE=nvshmem needs the nvshmem "
                  "backend, not %s",
                  backend.c_str());
    backend = "nvshmem-forced";
  }
  // Configured: later calls skip the checks above.
  s.backend = backend;
  return SYMM_SUCCESS;
}

symm_status module(State &s, symm_dtype dtype, symm_module **out) {
  if (s.modules[dtype]) {
    *out = s.modules[dtype];
    return SYMM_SUCCESS;
  }
  std::vector<collectives::EmbeddedModule> all = collectives::embeddedModules();
  if (all.empty())
    return fail(SYMM_ERROR_UNAVAILABLE,
                "the collectives are unavailable: this runtime was built "
                "without the compiler (SYMM_BUILD_COMPILER=OFF)");
  // The host backend checking races runs kernels compiled with the checks.
  std::string wanted =
      s.backend == "host" && races::enabled() ? "host-races" : s.backend;
  for (const collectives::EmbeddedModule &m : all)
    if (wanted == m.backend && !strcmp(m.dtype, kDtypeNames[dtype])) {
      // The build instantiated the kernels from its own table of types.
      if (m.elementBytes != kDtypeSizes[dtype])
        return fail(SYMM_ERROR_UNAVAILABLE,
                    "the %s collective kernels were built for %zu-byte "
                    "elements, the runtime expects %zu",
                    m.dtype, m.elementBytes, kDtypeSizes[dtype]);
      if (symm_status st =
              symm_module_load_data(m.data, m.size, &s.modules[dtype]))
        return st;
      *out = s.modules[dtype];
      return SYMM_SUCCESS;
    }
  return fail(SYMM_ERROR_UNAVAILABLE,
              "no collective kernels for the %s backend and %s in this "
              "runtime",
              s.backend.c_str(), kDtypeNames[dtype]);
}

/// The low-latency kernels' buffer: a slot per rank, each word carrying 4
/// bytes of data and a 4-byte tag.
size_t llBytes(const State &s) {
  return size_t(symm_world_size()) * s.llMax * 2;
}

/// The stream's channel, made on its first collective: a collective
/// allocation, the same on every rank because every rank makes the same
/// collective calls on the same streams in the same order.
symm_status channel(State &s, symm_stream *stream, Channel **out) {
  for (Channel &c : s.channels)
    if (!c.retired && c.stream == stream) {
      *out = &c;
      return SYMM_SUCCESS;
    }
  // A channel whose stream was destroyed (symm_stream_destroy) serves the
  // next stream that makes its first collective call: every rank destroys
  // and creates the streams it makes collective calls on between the same
  // collective calls, so every rank picks the same one, and its flags and
  // epochs are where every rank left them.
  for (Channel &c : s.channels)
    if (c.retired) {
      c.retired = false;
      c.stream = stream;
      *out = &c;
      return SYMM_SUCCESS;
    }
  Channel c;
  c.stream = stream;
  void *base = nullptr;
  if (symm_status st = symm_malloc(
          2 * kFlagBytes + kEpochBytes + kPairCountBytes + kProgressBytes +
              kMetaBytes + llBytes(s) + 2 * s.scratchBytes,
          &base))
    return st;
  c.base = static_cast<char *>(base);
  // Flags, counters and the low-latency words (whose tags must not match an
  // epoch: the heap is not zeroed) are set on every rank before any peer may
  // store there: flags, epochs and chunk counts to the first epoch (0, or
  // SYMM_COLLECTIVES_FIRST_EPOCH, which tests their wrap-around), the rest
  // to zero.
  std::vector<char> init(2 * kFlagBytes + kEpochBytes + kPairCountBytes +
                             kProgressBytes + kMetaBytes + llBytes(s),
                         0);
  std::vector<int32_t> counters(
      (2 * kFlagBytes + kEpochBytes + kPairCountBytes) / sizeof(int32_t),
      s.firstEpoch);
  // No previous launch: nothing to wait for.
  size_t grids = (2 * kFlagBytes + kEpochBytes / 2) / sizeof(int32_t);
  std::fill_n(counters.begin() + grids, kMaxBlocks, 0);
  memcpy(init.data(), counters.data(), counters.size() * sizeof(int32_t));
  if (symm_status st = symm_memcpy(c.base, init.data(), init.size()))
    return st;
  if (symm_status st = symm_barrier())
    return st;
  s.channels.push_back(c);
  *out = &s.channels.back();
  return SYMM_SUCCESS;
}

/// Kernel parameters: memrefs expand into (allocated, aligned, offset, size,
/// stride); every scalar takes one 64-bit slot (i32 in its low half).
class Params {
public:
  void memref(const void *p, size_t size) {
    uint64_t ptr = reinterpret_cast<uint64_t>(p);
    for (uint64_t v : {ptr, ptr, uint64_t(0), uint64_t(size), uint64_t(1)})
      scalar(v);
  }
  void scalar(uint64_t v) {
    if (count_ < kMax)
      values_[count_] = v;
    ++count_;
  }
  void i32(int32_t v) {
    uint64_t slot = 0;
    memcpy(&slot, &v, sizeof(v));
    scalar(slot);
  }
  /// Launches `kernel` on `grid` workgroups. Every kernel but `send_recv`
  /// (`slots` false) also takes the channel's number of flag slots, the most
  /// workgroups any launch uses, which each launch acknowledges in full.
  symm_status launch(State &s, symm_module *m, const char *kernel,
                     symm_stream *stream, unsigned grid, bool slots = true) {
    scalar(grid);
    if (slots)
      scalar(s.blocks);
    if (count_ > kMax)
      return fail(SYMM_ERROR_INVALID_ARGUMENT,
                  "collective kernel '%s' takes %zu parameters, more than %zu",
                  kernel, count_, kMax);
    void *params[kMax];
    for (size_t i = 0; i < count_; ++i)
      params[i] = &values_[i];
    unsigned grid3[3] = {grid, 1, 1}, block[3] = {s.threads, 1, 1};
    return symm_launch(m, kernel, grid3, block, 0, stream, params, count_);
  }

private:
  static constexpr size_t kMax = 48;
  uint64_t values_[kMax];
  size_t count_ = 0;
};

/// Everything a collective call needs, checked.
struct Call {
  State *s = nullptr;
  symm_module *m = nullptr;
  Channel *c = nullptr;
  size_t esize = 0;
  int rank = 0, world = 1;
  char *flags() const { return c->base; }
  char *pairFlags() const { return c->base + kFlagBytes; }
  char *epochs() const { return c->base + 2 * kFlagBytes; }
  char *pairCounts() const { return epochs() + kEpochBytes; }
  char *progress() const { return pairCounts() + kPairCountBytes; }
  char *meta() const { return progress() + kProgressBytes; }
  char *ll() const { return meta() + kMetaBytes; }
  char *scratch() const { return ll() + llBytes(*s); }
  char *pairScratch() const { return scratch() + s->scratchBytes; }
  /// Elements of the scratch, for memref sizes.
  size_t scratchElems() const { return s->scratchBytes / esize; }
  /// Elements per vector: slots and segments are multiples of it.
  size_t vector() const { return SYMM_COLL_VECTOR_BYTES / esize; }
  size_t roundDown(size_t n) const { return n / vector() * vector(); }
  size_t roundUp(size_t n) const { return roundDown(n + vector() - 1); }
  /// Elements in each of `slots` slots per rank.
  size_t slotCap(size_t slots) const {
    return roundDown(scratchElems() / (slots * world));
  }
  /// The channel's memrefs every exchange kernel takes after its buffers:
  /// scratch and flags, then, for stores straight into heap receive buffers,
  /// the published offsets and this rank's whole heap.
  void channelParams(Params &p, bool direct) const {
    p.memref(scratch(), scratchElems());
    p.memref(flags(), kFlagBytes / sizeof(int32_t));
    if (!direct)
      return;
    void *heap = nullptr;
    symm_heap_base(rank, &heap);
    p.memref(meta(), kMetaBytes / sizeof(int64_t));
    p.memref(heap, symm_heap_size() / esize);
  }
  /// Whether blocks of `elems` elements at send and recv go low-latency:
  /// whole 16-byte vectors at 16-byte aligned addresses, within
  /// SYMM_COLLECTIVES_LL_MAX bytes per block, between several ranks.
  bool llFits(const void *send, const void *recv, size_t elems) const {
    auto aligned = [](const void *p) {
      return reinterpret_cast<uintptr_t>(p) % SYMM_COLL_VECTOR_BYTES == 0;
    };
    return world > 1 && elems * esize <= s->llMax && elems % vector() == 0 &&
           aligned(send) && aligned(recv);
  }
  /// The low-latency buffer and the flags, which every LL kernel takes
  /// after its buffers.
  void llParams(Params &p) const {
    p.memref(ll(), llBytes(*s) / sizeof(int64_t));
    p.memref(flags(), kFlagBytes / sizeof(int32_t));
  }
  /// The epoch counters, which every kernel but `send_recv` takes before
  /// its grid.
  void epochParams(Params &p) const {
    p.memref(epochs(), kEpochBytes / sizeof(int32_t));
  }
  /// Words of a rank's slot in the low-latency buffer.
  size_t llCap() const { return s->llMax / sizeof(int32_t); }
  /// Workgroups for a launch that moves `elems` elements per rank.
  unsigned grid(size_t elems) const {
    size_t g = (elems * esize + kBytesPerBlock - 1) / kBytesPerBlock;
    return unsigned(std::clamp<size_t>(g, s->minBlocks, s->blocks));
  }
};

/// With SYMM_COLLECTIVES_DEBUG=1, says on stderr what a call launches: the
/// kernel (and so the algorithm), how many launches (chunks) and workgroups.
/// `count` is the call's count argument.
void trace(const Call &call, const char *fn, size_t count, const char *kernel,
           size_t launches, unsigned grid) {
  if (call.s->debug)
    fprintf(stderr,
            "symm: rank %d: %s: count %zu: %s, %zu launch%s of up to %u "
            "workgroup%s\n",
            call.rank, fn, count, kernel, launches, launches == 1 ? "" : "es",
            grid, grid == 1 ? "" : "s");
}

const char *dtypeName(symm_dtype d) {
  return d >= 0 && d < kNumDtypes ? kDtypeNames[d] : "?";
}

/// `count` * `factor` elements in bytes, or an error naming `what`.
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

/// send and recv either do not overlap or are exactly in place, which
/// `inPlace` describes ("" when `exact` is, null when the collective has no
/// in-place form).
symm_status checkOverlap(const char *fn, const void *send, size_t sendBytes,
                         const void *recv, size_t recvBytes, bool exact,
                         const char *inPlace) {
  if (!sendBytes || !recvBytes)
    return SYMM_SUCCESS;
  uintptr_t s = reinterpret_cast<uintptr_t>(send),
            r = reinterpret_cast<uintptr_t>(recv);
  if (s + sendBytes <= r || r + recvBytes <= s)
    return SYMM_SUCCESS;
  if (inPlace && exact)
    return SYMM_SUCCESS;
  if (!inPlace)
    return fail(SYMM_ERROR_INVALID_ARGUMENT,
                "%s: send and recv overlap; this collective is not in place",
                fn);
  return fail(SYMM_ERROR_INVALID_ARGUMENT,
              "%s: send and recv overlap but are not in place (%s)", fn,
              inPlace);
}

/// Both buffers of a call, then how they may overlap (see checkOverlap). A
/// rank that does not read send passes sendBytes 0.
symm_status checkBuffers(const char *fn, const void *send, size_t sendBytes,
                         const void *recv, size_t recvBytes, bool exact,
                         const char *inPlace) {
  if (symm_status st = checkBuffer(fn, "send", send, sendBytes))
    return st;
  if (symm_status st = checkBuffer(fn, "recv", recv, recvBytes))
    return st;
  return checkOverlap(fn, send, sendBytes, recv, recvBytes, exact, inPlace);
}

/// Common start of every collective: the runtime, the element type, the
/// kernels and the stream's channel.
symm_status begin(const char *fn, symm_dtype dtype, symm_stream *stream,
                  Call &call) {
  if (symm_rank() < 0 || !strcmp(symm_backend_name(), "none"))
    return fail(SYMM_ERROR_NOT_INITIALIZED,
                "%s: the runtime is not initialised; call symm_init first", fn);
  if (dtype < 0 || dtype >= kNumDtypes)
    return fail(SYMM_ERROR_INVALID_ARGUMENT,
                "%s: dtype %d is not a symm_dtype (0..%d)", fn, int(dtype),
                kNumDtypes - 1);
  call.s = &state();
  call.esize = kDtypeSizes[dtype];
  call.rank = symm_rank();
  call.world = symm_world_size();
  return SYMM_SUCCESS;
}

/// The part of `begin` that allocates: only once the arguments are checked
/// and there is something to move, so a bad call changes nothing. Making
/// the stream's channel (collective allocation and copies) and loading an
/// element type's kernels cannot be captured in a graph: while the stream
/// is being captured they are an error that says what to do.
symm_status prepare(const char *fn, symm_dtype dtype, symm_stream *stream,
                    Call &call) {
  bool capturing = false;
  if (symm_status st = streamCapturing(stream, capturing))
    return st;
  if (capturing) {
    State &s = *call.s;
    void *base = nullptr;
    symm_heap_base(call.rank, &base);
    // Ready when the kernels are loaded and a channel is there without an
    // allocation: the stream's own, or a retired one it would take.
    bool ready = s.heapBase == base && !s.backend.empty() && s.modules[dtype] &&
                 std::any_of(s.channels.begin(), s.channels.end(),
                             [&](const Channel &c) {
                               return c.retired || c.stream == stream;
                             });
    if (!ready)
      return fail(SYMM_ERROR_INVALID_ARGUMENT,
                  "%s: the first collective on a stream, and the first with "
                  "each element type (%s here), cannot be captured: it makes "
                  "the stream's channel and loads the kernels; make one such "
                  "call on this stream before capturing it",
                  fn, dtypeName(dtype));
  }
  if (symm_status st = configure(*call.s))
    return st;
  if (symm_status st = module(*call.s, dtype, &call.m))
    return st;
  return channel(*call.s, stream, &call.c);
}

symm_status checkOp(const char *fn, symm_reduce_op op) {
  if (op < SYMM_SUM || op > SYMM_MAX)
    return fail(SYMM_ERROR_INVALID_ARGUMENT,
                "%s: reduce op %d is not a symm_reduce_op (0..%d)", fn, int(op),
                int(SYMM_MAX));
  return SYMM_SUCCESS;
}

/// Where the senders may store straight into `recv`: its element offset in
/// this rank's heap, or -1 when it is not wholly in the heap at a whole
/// element, or when `direct` is false.
int64_t publishedOffset(const Call &call, const void *recv, size_t elems,
                        bool direct) {
  void *base = nullptr;
  symm_heap_base(call.rank, &base);
  uintptr_t lo = reinterpret_cast<uintptr_t>(base),
            at = reinterpret_cast<uintptr_t>(recv);
  if (!direct || at < lo || at - lo > symm_heap_size() ||
      elems * call.esize > symm_heap_size() - (at - lo) ||
      (at - lo) % call.esize)
    return -1;
  return int64_t((at - lo) / call.esize);
}

/// Launches one exchange per chunk (see symm_tile_exchange in the kernels).
/// From SYMM_COLLECTIVES_DIRECT_MIN bytes per block on, the `exchange_direct`
/// kernel stores into receive buffers in the heap directly, except where a
/// receiver still reads its send buffer in place (`directInPlace` false).
symm_status exchange(const char *fn, Call &call, const void *send, void *recv,
                     size_t count, size_t sstride, size_t dstride, int root,
                     size_t srcElems, size_t dstElems, bool directInPlace,
                     symm_stream *stream) {
  if (call.llFits(send, recv, count)) {
    Params p;
    p.memref(send, srcElems);
    p.memref(recv, dstElems);
    call.llParams(p);
    for (size_t v : {count, sstride, dstride})
      p.scalar(v);
    p.i32(root);
    p.scalar(call.llCap());
    call.epochParams(p);
    trace(call, fn, count, "exchange_ll", 1, call.grid(count));
    return p.launch(*call.s, call.m, "exchange_ll", stream, call.grid(count));
  }
  bool direct = call.world > 1 && count * call.esize >= call.s->directMin;
  int64_t published =
      publishedOffset(call, recv, dstElems, directInPlace || send != recv);
  size_t cap = call.slotCap(1);
  trace(call, fn, count, direct ? "exchange_direct" : "exchange",
        (count + cap - 1) / cap, call.grid(std::min(cap, count)));
  for (size_t off = 0; off < count; off += cap) {
    size_t total = std::min(cap, count - off);
    Params p;
    p.memref(send, srcElems);
    p.memref(recv, dstElems);
    call.channelParams(p, direct);
    for (size_t v : {off, total, sstride, dstride})
      p.scalar(v);
    p.i32(root);
    if (direct)
      p.scalar(uint64_t(published));
    call.epochParams(p);
    if (symm_status st =
            p.launch(*call.s, call.m, direct ? "exchange_direct" : "exchange",
                     stream, call.grid(total)))
      return st;
  }
  return SYMM_SUCCESS;
}

/// The low-latency reduction (`reduce_ll`) of `count` elements: rank r's
/// contribution is send[r * sstride ..] (all-reduce: sstride 0, every peer
/// gets the whole buffer; reduce-scatter: the block), the result recv.
symm_status reduceLowLatency(const char *fn, Call &call, const void *send,
                             size_t sendElems, void *recv, size_t count,
                             size_t sstride, symm_reduce_op op,
                             symm_stream *stream) {
  Params p;
  p.memref(send, sendElems);
  p.memref(recv, count);
  call.llParams(p);
  p.scalar(count);
  p.scalar(sstride);
  p.scalar(call.llCap());
  p.i32(op);
  call.epochParams(p);
  trace(call, fn, count, "reduce_ll", 1, call.grid(count));
  return p.launch(*call.s, call.m, "reduce_ll", stream, call.grid(count));
}

/// The position in `names` of the algorithm that environment variable `var`
/// forces, or -1 where it is unset or empty.
symm_status forcedAlgorithm(const char *var,
                            std::initializer_list<const char *> names,
                            int *index) {
  const char *forced = getenv(var);
  *index = -1;
  if (!forced || !*forced)
    return SYMM_SUCCESS;
  std::string all;
  int i = 0;
  for (const char *name : names) {
    if (!strcmp(forced, name)) {
      *index = i;
      return SYMM_SUCCESS;
    }
    all += (i++ ? ", " : "") + std::string(name);
  }
  return fail(SYMM_ERROR_INVALID_ARGUMENT, "%s='%s' is not one of %s", var,
              forced, all.c_str());
}

enum class AllReduceAlgo { LowLatency, OneShot, TwoShot, Ring };

/// SYMM_ALL_REDUCE_ALGO, or the choice by size and rank count: one-shot up
/// to SYMM_ALL_REDUCE_ONE_SHOT_MAX, then two-shot, or on 4 or more ranks the
/// ring (see docs/Collectives.md). Low-latency is chosen later, once the
/// configuration is read (`bySize` says whether it may be).
symm_status allReduceAlgorithm(size_t bytes, int world, AllReduceAlgo *algo,
                               bool *bySize) {
  int forced;
  if (symm_status st =
          forcedAlgorithm("SYMM_ALL_REDUCE_ALGO",
                          {"ll", "one_shot", "two_shot", "ring"}, &forced))
    return st;
  *bySize = forced < 0;
  if (!*bySize) {
    *algo = AllReduceAlgo(forced); // in the order of the names
    return SYMM_SUCCESS;
  }
  // One-shot has one flag round trip less, and NVLink has bandwidth to
  // spare: on 2 H200s it beat two-shot (through the scratch or stored
  // straight into heap buffers) at every size up to 4 MB (from a graph:
  // 14.3 against 19.1 us at 1 MB, 25.7 against 30.8 at 4 MB). With more
  // ranks it moves (n - 1) buffers out of every rank: 1M there.
  bool gpu = strcmp(symm_backend_name(), "host") != 0;
  const char *oneShotMax =
      envOr("SYMM_ALL_REDUCE_ONE_SHOT_MAX", !gpu         ? "64K"
                                            : world == 2 ? "4M"
                                                         : "1M");
  std::optional<size_t> limit = env::parseSize(oneShotMax);
  if (!limit)
    return fail(SYMM_ERROR_INVALID_ARGUMENT,
                "SYMM_ALL_REDUCE_ONE_SHOT_MAX='%s' is not a size", oneShotMax);
  // Above the one-shot limit the ring was faster than two-shot at every
  // size measured on 4 and 8 H200s (2 MB: 45 against 58 us on 4, 90 against
  // 118 on 8; 256 MB: 340 against 329 GB/s of busbw on 4, 337 against 282
  // on 8): two-shot has every rank store into n - 1 peers at once and reduce
  // n slots after the last lands, the ring pipelines one peer per step. On 2
  // GPUs the ring is two-shot plus a copy (2% slower). CPU ranks follow the
  // same rule, so that they fold floating-point sums in the order GPUs do.
  constexpr int kRingMinRanks = 4;
  if (world <= 1 || bytes <= *limit)
    *algo = AllReduceAlgo::OneShot;
  else if (world >= kRingMinRanks)
    *algo = AllReduceAlgo::Ring;
  else
    *algo = AllReduceAlgo::TwoShot;
  return SYMM_SUCCESS;
}

enum class BroadcastAlgo { Root, Scatter, Chain, BySize };

/// SYMM_BROADCAST_ALGO: `root` (the root stores into every rank), `scatter`
/// (a scatter and an all-gather), `chain` (a pipelined chain), or unset: the
/// choice by size and rank count (see symm_broadcast).
symm_status broadcastAlgorithm(BroadcastAlgo *algo) {
  int forced;
  if (symm_status st = forcedAlgorithm("SYMM_BROADCAST_ALGO",
                                       {"root", "scatter", "chain"}, &forced))
    return st;
  // In the order of the names.
  *algo = forced < 0 ? BroadcastAlgo::BySize : BroadcastAlgo(forced);
  return SYMM_SUCCESS;
}

/// The pipelined chain broadcast (`broadcast_chain`, see
/// symm_tile_chain_broadcast): one launch per scratch-sized chunk, since only
/// the previous rank in the chain stores into a rank's scratch. Pieces of at
/// least 16 KiB on GPUs: each costs a fence and a flag, and a stage of the
/// pipeline is a piece of every workgroup, which each further rank waits for
/// (bench/collectives/model.py puts the chain ahead of the scatter and
/// all-gather from 8 MB on 4 GPUs with 16 KiB, from 32 MB with 64 KiB). On
/// CPU ranks 256 bytes, so that their small calls cut a workgroup's part into
/// many pieces too.
symm_status chainBroadcast(const char *fn, Call &call, const void *src,
                           void *recv, size_t count, int root,
                           symm_stream *stream) {
  bool gpu = strcmp(symm_backend_name(), "host") != 0;
  size_t piece = call.roundUp((gpu ? size_t(16) << 10 : 256) / call.esize);
  size_t cap = call.roundDown(call.scratchElems());
  trace(call, fn, count, "broadcast_chain", (count + cap - 1) / cap,
        call.grid(std::min(cap, count)));
  for (size_t off = 0; off < count; off += cap) {
    size_t total = std::min(cap, count - off);
    Params p;
    p.memref(src, count);
    p.memref(recv, count);
    call.channelParams(p, /*direct=*/false);
    p.scalar(off);
    p.scalar(total);
    p.scalar(piece);
    p.i32(root);
    call.epochParams(p);
    if (symm_status st = p.launch(*call.s, call.m, "broadcast_chain", stream,
                                  call.grid(total)))
      return st;
  }
  return SYMM_SUCCESS;
}

/// One argument of a collective call, as checked mode compares it.
struct Argument {
  const char *name;
  uint64_t value;
  /// The value's name where it is an enumerator (a dtype, an op).
  const char *const *names = nullptr;
  size_t count = 0;
};

const char *const kOpNames[] = {"sum", "prod", "min", "max"};

Argument dtypeArgument(symm_dtype dtype) {
  return {"dtype", uint64_t(dtype), kDtypeNames, kNumDtypes};
}

std::string describe(const Argument &a, uint64_t value) {
  std::string text = std::string(a.name) + " " + std::to_string(value);
  if (a.names && value < a.count)
    text += std::string(" (") + a.names[value] + ")";
  return text;
}

/// all-to-allv: rank i's send_counts[j] must be rank j's recv_counts[i]. Each
/// rank's gathered row holds its send counts from `at`, then its receive
/// counts.
using CrossCheck = symm_status (*)(uint64_t seq, const std::vector<uint64_t> &,
                                   size_t stride, size_t at);

/// Checked mode (SYMM_CHECK_COLLECTIVES=1): every rank's call meets the
/// others' before anything moves. A rank whose call failed its own checks
/// (`local`) makes the call fail on every rank; so do `args` that differ
/// between ranks, naming both ranks and both values, and `cross`'s check of
/// `extra`. Without checked mode, `local` is the result: a mismatch then
/// goes unnoticed (docs/Collectives.md says what it does).
symm_status agree(CollectiveCall call, symm_status local,
                  std::initializer_list<Argument> args,
                  const std::vector<uint64_t> &extra = {},
                  CrossCheck cross = nullptr) {
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

} // namespace

extern "C" {

size_t symm_dtype_size(symm_dtype dtype) {
  return dtype >= 0 && dtype < kNumDtypes ? kDtypeSizes[dtype] : 0;
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
    return checkBuffers(fn, send, sendBytes, recv, recvBytes, send == slot,
                        "in place means send == recv + rank * send_count");
  }();
  if (symm_status st =
          agree(CollectiveCall::AllGather, local,
                {{"send_count", send_count}, dtypeArgument(dtype)}))
    return st;
  if (!send_count)
    return SYMM_SUCCESS;
  std::lock_guard<std::mutex> lock(stateMutex());
  CollectiveCaller caller(CollectiveCall::AllGather);
  if (symm_status st = prepare(fn, dtype, stream, call))
    return st;
  return exchange(fn, call, send, recv, send_count, 0, send_count, -1,
                  send_count, send_count * call.world, true, stream);
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
    return checkBuffers(fn, send, bytes, recv, bytes, send == recv,
                        "in place means send == recv");
  }();
  if (symm_status st =
          agree(CollectiveCall::AllToAll, local,
                {{"count_per_rank", count_per_rank}, dtypeArgument(dtype)}))
    return st;
  if (!count_per_rank)
    return SYMM_SUCCESS;
  std::lock_guard<std::mutex> lock(stateMutex());
  CollectiveCaller caller(CollectiveCall::AllToAll);
  if (symm_status st = prepare(fn, dtype, stream, call))
    return st;
  size_t elems = count_per_rank * call.world;
  // In place, a rank still reads the blocks of its buffer it has not sent.
  return exchange(fn, call, send, recv, count_per_rank, count_per_rank,
                  count_per_rank, -1, elems, elems, false, stream);
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
    return checkBuffers(fn, send, call.rank == root ? bytes : 0, recv, bytes,
                        send == recv, "in place means send == recv");
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
  if (symm_status st = prepare(fn, dtype, stream, call))
    return st;
  const void *src = call.rank == root ? send : recv;
  if (algo == BroadcastAlgo::Chain)
    return chainBroadcast(fn, call, src, recv, count, root, stream);
  // From 3 ranks on, a large broadcast is a scatter (the root stores block p
  // into rank p) and an all-gather of the blocks: the root's links then
  // carry (n-1)/n of the buffer once and every link shares the rest, where
  // storing the whole buffer into every peer put (n-1) buffers on the root's
  // links (on 4 H200s: 121 GB/s against NCCL's 356 at 256 MB). The last
  // count mod n elements are broadcast directly. Blocks at least
  // SYMM_COLLECTIVES_DIRECT_MIN, so that both phases store into the receive
  // buffers directly where they are in the heap. Forced, from 2 ranks and
  // any count of at least one element per rank.
  size_t block = count / call.world;
  bool scatter = algo == BroadcastAlgo::Scatter
                     ? call.world >= 2 && block
                     : algo == BroadcastAlgo::BySize && call.world >= 3 &&
                           block && block * call.esize >= call.s->directMin;
  if (scatter) {
    size_t esize = call.esize, own = call.rank * block * esize;
    char *mine = static_cast<char *>(recv) + own;
    if (symm_status st = exchange(fn, call, src, mine, block, block, 0, root,
                                  count, block, true, stream))
      return st;
    if (symm_status st = exchange(fn, call, mine, recv, block, 0, block, -1,
                                  block, block * call.world, true, stream))
      return st;
    size_t done = block * call.world;
    if (done == count)
      return SYMM_SUCCESS;
    return exchange(fn, call, static_cast<const char *>(src) + done * esize,
                    static_cast<char *>(recv) + done * esize, count - done, 0,
                    0, root, count - done, count - done, true, stream);
  }
  return exchange(fn, call, src, recv, count, 0, 0, root, count, count, true,
                  stream);
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
            checkBuffers(fn, send, bytes, recv, bytes, send == recv,
                         "in place means send == recv"))
      return st;
    return allReduceAlgorithm(bytes, call.world, &algo, &bySize);
  }();
  if (symm_status st = agree(CollectiveCall::AllReduce, local,
                             {{"count", count},
                              dtypeArgument(dtype),
                              {"op", uint64_t(op), kOpNames, 4}}))
    return st;
  if (!count)
    return SYMM_SUCCESS;
  std::lock_guard<std::mutex> lock(stateMutex());
  CollectiveCaller caller(CollectiveCall::AllReduce);
  if (symm_status st = prepare(fn, dtype, stream, call))
    return st;
  // Low-latency where the call fits it (Call::llFits); a forced `ll` that
  // does not runs one-shot.
  bool llFits = call.llFits(send, recv, count);
  if (bySize && algo == AllReduceAlgo::OneShot && llFits)
    algo = AllReduceAlgo::LowLatency;
  else if (algo == AllReduceAlgo::LowLatency && !llFits)
    algo = AllReduceAlgo::OneShot;
  if (algo == AllReduceAlgo::LowLatency) // every peer gets the whole buffer
    return reduceLowLatency(fn, call, send, count, recv, count, 0, op, stream);
  // One-shot: every rank's chunk in a slot of every rank's scratch. Two-shot:
  // world segments per chunk, each in a reduce slot and a gather slot; from
  // SYMM_COLLECTIVES_DIRECT_MIN bytes on, the reduced segments go straight
  // into receive buffers in the heap. Ring: world segments per chunk, and a
  // slot per step for the one peer that stores here (2 (world - 1) steps).
  size_t cap = call.slotCap(1);
  const char *kernel = "all_reduce_one_shot";
  bool direct = false;
  if (algo == AllReduceAlgo::TwoShot) {
    cap = call.slotCap(2) * call.world;
    direct = bytes >= call.s->directMin;
    kernel = direct ? "all_reduce_two_shot_direct" : "all_reduce_two_shot";
  } else if (algo == AllReduceAlgo::Ring) {
    size_t steps = std::max(1, 2 * (call.world - 1));
    cap = call.roundDown(call.scratchElems() / steps) * call.world;
    kernel = "all_reduce_ring";
  }
  int64_t published = publishedOffset(call, recv, count, direct);
  trace(call, fn, count, kernel, (count + cap - 1) / cap,
        call.grid(std::min(cap, count)));
  for (size_t off = 0; off < count; off += cap) {
    size_t total = std::min(cap, count - off);
    Params p;
    p.memref(send, count);
    p.memref(recv, count);
    call.channelParams(p, direct);
    p.scalar(off);
    p.scalar(total);
    if (algo != AllReduceAlgo::OneShot)
      p.scalar(call.roundUp((total + call.world - 1) / call.world));
    p.i32(op);
    if (direct)
      p.scalar(uint64_t(published));
    call.epochParams(p);
    if (symm_status st =
            p.launch(*call.s, call.m, kernel, stream, call.grid(total)))
      return st;
  }
  return SYMM_SUCCESS;
}

symm_status symm_reduce_scatter(const void *send, void *recv, size_t recv_count,
                                symm_dtype dtype, symm_reduce_op op,
                                symm_stream *stream) {
  const char *fn = "symm_reduce_scatter";
  Call call;
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
    return checkBuffers(fn, send, sendBytes, recv, recvBytes, recv == block,
                        "in place means recv == send + rank * recv_count");
  }();
  if (symm_status st = agree(CollectiveCall::ReduceScatter, local,
                             {{"recv_count", recv_count},
                              dtypeArgument(dtype),
                              {"op", uint64_t(op), kOpNames, 4}}))
    return st;
  if (!recv_count)
    return SYMM_SUCCESS;
  std::lock_guard<std::mutex> lock(stateMutex());
  CollectiveCaller caller(CollectiveCall::ReduceScatter);
  if (symm_status st = prepare(fn, dtype, stream, call))
    return st;
  if (call.llFits(send, recv, recv_count)) // peer p gets block p
    return reduceLowLatency(fn, call, send, recv_count * call.world, recv,
                            recv_count, recv_count, op, stream);
  size_t cap = call.slotCap(1);
  trace(call, fn, recv_count, "reduce_scatter", (recv_count + cap - 1) / cap,
        call.grid(std::min(cap, recv_count) * call.world));
  for (size_t off = 0; off < recv_count; off += cap) {
    size_t total = std::min(cap, recv_count - off);
    Params p;
    p.memref(send, recv_count * call.world);
    // The kernel indexes recv like this rank's block of send: from 0.
    p.memref(recv, recv_count);
    call.channelParams(p, /*direct=*/false);
    p.memref(call.progress(), kProgressBytes / sizeof(int32_t));
    p.scalar(off);
    p.scalar(total);
    p.scalar(recv_count);
    p.i32(op);
    call.epochParams(p);
    if (symm_status st = p.launch(*call.s, call.m, "reduce_scatter", stream,
                                  call.grid(total * call.world)))
      return st;
  }
  return SYMM_SUCCESS;
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
    return checkBuffers(fn, send, sendEnd * call.esize, recv,
                        recvEnd * call.esize, false, nullptr);
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
  if (symm_status st = prepare(fn, dtype, stream, call))
    return st;
  // Round k: send to rank + k, receive from rank - k; each pair of ranks
  // talks in the same round on both ends.
  size_t cap = call.slotCap(1), launches = 0, sent = 0;
  for (int k = 0; k < call.world; ++k) {
    int to = (call.rank + k) % call.world;
    int from = (call.rank - k + call.world) % call.world;
    size_t nsend = (send_counts[to] + cap - 1) / cap;
    size_t nrecv = (recv_counts[from] + cap - 1) / cap;
    if (!nsend && !nrecv)
      continue;
    ++launches;
    sent += send_counts[to];
    Params p;
    p.memref(send, sendEnd);
    p.memref(recv, recvEnd);
    p.memref(call.pairScratch(), call.scratchElems());
    p.memref(call.pairFlags(), kFlagBytes / sizeof(int32_t));
    for (size_t v : {send_displs[to], send_counts[to], recv_displs[from],
                     recv_counts[from]})
      p.scalar(v);
    p.i32(to);
    p.i32(from);
    p.scalar(cap);
    p.memref(call.pairCounts(), kPairCountBytes / sizeof(int32_t));
    // The pair flags count chunks per workgroup: every launch uses them all.
    if (symm_status st = p.launch(*call.s, call.m, "send_recv", stream,
                                  call.s->blocks, /*slots=*/false))
      return st;
  }
  trace(call, fn, sent, "send_recv", launches, call.s->blocks);
  return SYMM_SUCCESS;
}

} // extern "C"
