//===- Internal.h - The collectives' shared state and calls -----*- C++ -*-===//
//
// What the parts of the collectives share: the configuration and the
// channels (Channels.cpp), a checked call (Checks.cpp), the kernel launches
// of each algorithm (Algorithms.cpp), the copy-engine broadcast
// (CopyEngine.cpp) and the entry points of symm/collectives.h
// (Collectives.cpp), which check the arguments, choose an algorithm and
// launch it.
//
//===----------------------------------------------------------------------===//

#ifndef SYMM_RUNTIME_LIB_COLLECTIVES_INTERNAL_H
#define SYMM_RUNTIME_LIB_COLLECTIVES_INTERNAL_H

#include "symm/collectives.h"

#include "../core/Runtime.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <mutex>
#include <string>
#include <vector>

namespace symm::collectives {

/// The element types, in symm_dtype's order (symm/dtypes.def).
constexpr int kNumDtypes = 0
#define SYMM_DTYPE(ENUMERATOR, NAME, BYTES, ACCUMULATOR) +1
#include "symm/dtypes.def"
    ;
/// Each element type's MLIR name and size.
inline const char *const kDtypeNames[kNumDtypes] = {
#define SYMM_DTYPE(ENUMERATOR, NAME, BYTES, ACCUMULATOR) #NAME,
#include "symm/dtypes.def"
};
inline const size_t kDtypeSizes[kNumDtypes] = {
#define SYMM_DTYPE(ENUMERATOR, NAME, BYTES, ACCUMULATOR) BYTES,
#include "symm/dtypes.def"
};

/// Workgroups per launch are at most this many: each uses one flag slot.
constexpr unsigned kMaxBlocks = 512;
/// A launch gets a workgroup per SYMM_COLLECTIVES_BLOCK_BYTES (this many by
/// default), at least kMinGpuBlocks on GPUs and at most
/// SYMM_COLLECTIVES_BLOCKS: a small call waits on flag round trips, not on
/// bandwidth, and each workgroup adds fences and flags, while too few
/// serialise the copies. On 2 H200s a one-shot all-reduce took 12.7 us at
/// 8 KB on 128 workgroups, 10.2 on 8 and 11.8 on 1; 15.3 us at 1 MB on 128
/// and 17.6 on 32. The low-latency kernels get one per
/// SYMM_COLLECTIVES_LL_BLOCK_BYTES (kLlBytesPerBlock), at most
/// SYMM_COLLECTIVES_LL_BLOCKS (512 on GPUs): their words carry no
/// flag to wait on, so more workgroups cost no round trips, and a workgroup
/// stores only about 4 GB/s into peers; on 2 H200s 2K took a 256 KB
/// all-reduce from 9.0 to 6.6 us, where the flagged kernels gained nothing
/// from it (and lost up to 1.4 us at 128-512 KB on 4).
constexpr size_t kBytesPerBlock = size_t(8) << 10;
constexpr size_t kLlBytesPerBlock = size_t(2) << 10;
constexpr unsigned kMinGpuBlocks = 8;
constexpr size_t kMinScratch = size_t(64) << 10;
constexpr size_t kMaxDefaultScratch = size_t(256) << 20;
/// The largest SYMM_COLLECTIVES_LL_MAX.
constexpr size_t kMaxLowLatency = size_t(4) << 20;
/// The most SYMM_COLLECTIVES_LL128_MAX may say.
constexpr size_t kMaxLowLatency128 = size_t(16) << 20;
/// SYMM_COLLECTIVES_LL_MAX is a multiple of this many bytes: a rank's block
/// of low-latency words (and each half of it) then holds whole lines of 16
/// words, in which symm_coll_ll_word interleaves 4 vectors (signal.mlir).
constexpr size_t kLowLatencyUnit = 128;
constexpr size_t kFlagBytes =
    size_t(kMaxBlocks) * SYMM_COLL_FLAGS_PER_SLOT * sizeof(int32_t);
/// What each rank publishes per workgroup for zero-copy exchanges: one
/// offset per rank.
constexpr size_t kMetaBytes = size_t(kMaxBlocks) * SYMM_MAX_RANKS * 8;
/// Counters kept on the device, so that a captured launch can be replayed:
/// the epoch of each flag slot, then the grid of the previous launch as each
/// slot saw it.
constexpr size_t kEpochBytes = 2 * size_t(kMaxBlocks) * sizeof(int32_t);
/// All-to-allv's chunks sent to and received from each rank, per workgroup
/// (see the kernels).
constexpr size_t kPairCountBytes =
    size_t(kMaxBlocks) * 2 * SYMM_MAX_RANKS * sizeof(int32_t);
/// The pieces of a reduce-scatter each rank has announced to this one, per
/// workgroup (zero between calls).
constexpr size_t kProgressBytes =
    size_t(kMaxBlocks) * SYMM_MAX_RANKS * sizeof(int32_t);
/// A channel's flags and counters, ahead of its low-latency buffers (see
/// Channel and Call's accessors).
constexpr size_t kHeaderBytes = 2 * kFlagBytes + kEpochBytes + kPairCountBytes +
                                kProgressBytes + kMetaBytes;
/// The copy-engine collectives' slots (SYMM_COLLECTIVES_CE_SLOTS) are at
/// most this many; each has two tokens, `landed` and `vacant` (see
/// CopyEngine.cpp).
constexpr unsigned kMaxCeSlots = 64;
constexpr size_t kCeFlagBytes = 2 * size_t(kMaxCeSlots) * sizeof(uint32_t);

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
  // [pair scratch][copy-engine tokens][copy-engine slots]
  char *base = nullptr;
  /// The copy-engine collectives' second stream, for the local copies that
  /// overlap the peer copies on `stream`, and the events that fork it from
  /// `stream` and join it back (the backend's own, made with the channel).
  void *side = nullptr, *fork = nullptr, *join = nullptr;
};

struct State {
  char *heapBase = nullptr; // detects a new runtime after symm_finalize
  size_t scratchBytes = 0;
  size_t directMin = 0; // exchanges of this many bytes per block store directly
  size_t llMax = 0;     // the largest low-latency block (bytes)
  size_t ll128Max = 0;  // an LL128 launch's data per rank (bytes)
  size_t ll128Lines = 0; // the LL128 buffer's lines, every slot's (ll128Bytes)
  unsigned blocks = 0, threads = 0;
  // The most workgroups of a reduce-scatter of at least wideMin bytes from 4
  // ranks (reduceScatter): 256 from 32 MB on GPUs; on CPU ranks twice the
  // others' from 256 KB, so that the tests' calls take it. Unless
  // SYMM_COLLECTIVES_BLOCKS says.
  unsigned wideBlocks = 0;
  size_t wideMin = 0;
  unsigned llBlocks = 0;  // the most workgroups a low-latency launch gets
  unsigned minBlocks = 1; // the fewest workgroups a launch gets
  size_t blockBytes = kBytesPerBlock;     // a workgroup per this many bytes
  size_t llBlockBytes = kLlBytesPerBlock; // the same for low-latency kernels
  size_t chainPiece = 0; // SYMM_COLLECTIVES_CHAIN_PIECE bytes; 0: by cost
  size_t ringPiece = 0;  // SYMM_COLLECTIVES_RING_PIECE bytes; 0: by size
  size_t ceChunk = 0;     // the copy-engine slots' bytes: the largest chunk
  unsigned ceSlots = 0;   // SYMM_COLLECTIVES_CE_SLOTS
  bool debug = false;     // SYMM_COLLECTIVES_DEBUG: a line per call
  int32_t firstEpoch = 0; // SYMM_COLLECTIVES_FIRST_EPOCH, for tests
  std::string backend;    // empty until configured
  symm_module *modules[kNumDtypes] = {};
  std::vector<Channel> channels;
  /// The flag slots every launch keeps the epochs of: the most workgroups
  /// any launch gets.
  unsigned slots() const { return std::max({blocks, llBlocks, wideBlocks}); }
};

/// The one state of this process's collectives; calls from several threads
/// of a rank take turns on stateMutex().
State &state();
std::mutex &stateMutex();

/// The low-latency kernels' buffer: a slot per rank, each word carrying 4
/// bytes of data and a 4-byte tag.
inline size_t llBytes(const State &s) {
  return size_t(symm_world_size()) * s.llMax * 2;
}

/// The LL128 kernels' buffer (symm.line_store): a slot per rank of 128-byte
/// lines, each carrying 112 bytes of data and a flag, room for
/// SYMM_COLLECTIVES_LL128_MAX of data a slot. Its own, not the LL buffer's: a
/// line's flag word must only ever hold flags (an LL word there could
/// match one). On GPUs it holds at least kLl128ChainData of data in all
/// (a 32nd of the heap where that is less),
/// which the LL128 chain broadcast, whose only writer is the rank before in
/// the chain, takes as one slot: one launch for a 16 MB broadcast, where
/// the world_size slots alone held 5.3 MB on 4 ranks (Channels.cpp).
constexpr size_t kLineBytes = 128, kLineData = 112;
constexpr size_t kLl128ChainData = size_t(16) << 20;
inline size_t ll128SlotLines(const State &s) {
  return (s.ll128Max + kLineData - 1) / kLineData;
}
inline size_t ll128Bytes(const State &s) { return s.ll128Lines * kLineBytes; }

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
                     symm_stream *stream, unsigned grid, bool slots = true);

private:
  static constexpr size_t kMax = 48;
  uint64_t values_[kMax];
  size_t count_ = 0;
};

/// Everything a collective call needs, checked.
struct Call {
  const char *fn = nullptr; // the entry point, for messages
  State *s = nullptr;
  symm_module *m = nullptr;
  Channel *c = nullptr;
  symm_stream *stream = nullptr;
  size_t esize = 0;
  int rank = 0, world = 1;
  char *flags() const { return c->base; }
  char *pairFlags() const { return c->base + kFlagBytes; }
  char *epochs() const { return c->base + 2 * kFlagBytes; }
  char *pairCounts() const { return epochs() + kEpochBytes; }
  char *progress() const { return pairCounts() + kPairCountBytes; }
  char *meta() const { return progress() + kProgressBytes; }
  char *ll() const { return c->base + kHeaderBytes; }
  char *ll128() const { return ll() + llBytes(*s); }
  char *scratch() const { return ll128() + ll128Bytes(*s); }
  char *pairScratch() const { return scratch() + s->scratchBytes; }
  /// The copy-engine tokens: `landed` of each slot, then `vacant`.
  uint32_t *ceFlags() const {
    return reinterpret_cast<uint32_t *>(pairScratch() + s->scratchBytes);
  }
  char *ceScratch() const {
    return reinterpret_cast<char *>(ceFlags()) + kCeFlagBytes;
  }
  /// Elements of the scratch, for memref sizes.
  size_t scratchElems() const { return s->scratchBytes / esize; }
  /// Elements per vector: slots and segments are multiples of it.
  size_t vector() const { return SYMM_COLL_VECTOR_BYTES / esize; }
  size_t roundDown(size_t n) const { return n / vector() * vector(); }
  size_t roundUp(size_t n) const { return roundDown(n + vector() - 1); }
  /// `n` elements rounded down to whole 128-byte lines of every workgroup a
  /// launch may have (SYMM_COLLECTIVES_BLOCKS, or the wide reduce-scatter's
  /// 256: 32K on GPUs) where they hold
  /// them, else to a vector: the slots of the scratch, so that a chunk's
  /// segments, and their parts, start on whole lines. On 4 H200s the ring
  /// all-reduce, whose slots were a sixth of the 256M scratch (42.67 MB
  /// segments, parts starting 16 bytes into a line), took 1 GB in 4645 us;
  /// with a 384M scratch (64 MB segments) 4496, and with 128M and 512M
  /// (21.33 and 85.33 MB) 4887 and 4803, whatever the number of launches
  /// (bench/results/h200x4-all-reduce-ring-lines).
  size_t granuleDown(size_t n) const {
    size_t g = size_t(std::max(s->blocks, s->wideBlocks)) * kLineBytes / esize;
    return n >= g ? n / g * g : roundDown(n);
  }
  /// Elements in each of `slots` slots per rank.
  size_t slotCap(size_t slots) const {
    return granuleDown(scratchElems() / (slots * world));
  }
  /// The segment of a chunk of `total` elements that world segments cut:
  /// ceil(total / world) in whole 128-byte lines of each of `grid`
  /// workgroups (so that their parts start on lines), where that fits a
  /// slot of `slot` elements and costs the last segment at most an eighth,
  /// else in vectors.
  size_t segment(size_t total, size_t slot, unsigned grid) const {
    size_t per = (total + world - 1) / world;
    size_t line = size_t(grid) * kLineBytes / esize;
    size_t lined = (per + line - 1) / line * line;
    bool fits = lined <= slot && (lined - per) * (world - 1) * 8 <= per;
    return fits ? lined : roundUp(per);
  }
  /// The channel's memrefs every exchange kernel takes after its buffers:
  /// scratch and flags, then, for stores straight into heap receive buffers,
  /// the published offsets and this rank's whole heap.
  void channelParams(Params &p, bool direct) const;
  /// Whether blocks of `elems` elements go low-latency: within
  /// SYMM_COLLECTIVES_LL_MAX bytes per block, between several ranks. Any
  /// count and any buffer address: a block's last vector may be partial,
  /// and the kernels load and store element by element where an address is
  /// not 16-byte aligned. Only the arguments every rank passes alike decide
  /// it, so every rank runs the same kernel.
  bool llFits(size_t elems) const;
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
  /// The LL128 buffer and the flags, which every LL128 kernel takes after
  /// its buffers.
  void ll128Params(Params &p) const {
    p.memref(ll128(), ll128Bytes(*s) / sizeof(int64_t));
    p.memref(flags(), kFlagBytes / sizeof(int32_t));
  }
  /// The LL128 buffer (`lines`) or the low-latency words' buffer, and the
  /// flags: for kernels that come in both protocols.
  void lowLatencyParams(Params &p, bool lines) const {
    if (lines)
      ll128Params(p);
    else
      llParams(p);
  }
  /// Words of a rank's slot in the LL128 buffer, and the elements it holds.
  size_t ll128Cap() const { return ll128SlotLines(*s) * kLineBytes / 8; }
  size_t ll128Elems() const { return ll128SlotLines(*s) * kLineData / esize; }
  /// Workgroups for a launch that moves `elems` elements per rank.
  unsigned grid(size_t elems) const {
    return gridOf(elems, s->blockBytes, s->blocks);
  }
  /// The same for a low-latency kernel.
  unsigned llGrid(size_t elems) const {
    return gridOf(elems, s->llBlockBytes, s->llBlocks);
  }
  unsigned gridOf(size_t elems, size_t perBlock, unsigned most) const {
    size_t g = (elems * esize + perBlock - 1) / perBlock;
    return unsigned(std::clamp<size_t>(g, std::min(s->minBlocks, most), most));
  }
  /// Launches `kernel` with `p` on this call's stream.
  symm_status launch(Params &p, const char *kernel, unsigned grid,
                     bool slots = true) const {
    return p.launch(*s, m, kernel, stream, grid, slots);
  }
};

// Channels.cpp: the configuration, the kernels and the streams' channels.

/// The value of environment variable `name`, or `fallback` where it is unset
/// or empty.
const char *envOr(const char *name, const char *fallback);
/// Whether the runtime's backend runs on GPUs (every backend but `host`).
bool onGpu();
/// The part of a call that allocates: only once the arguments are checked
/// and there is something to move, so a bad call changes nothing. Reads the
/// configuration, loads the element type's kernels and finds or makes the
/// stream's channel; none of which can be captured in a graph: while the
/// stream is being captured they are an error that says what to do.
symm_status prepare(symm_dtype dtype, Call &call);

// Checks.cpp: the arguments of a call, and checked mode's meeting of ranks.

/// Common start of every collective: the runtime, the element type and the
/// call's stream.
symm_status begin(const char *fn, symm_dtype dtype, symm_stream *stream,
                  Call &call);
/// `count` * `factor` elements in bytes, or an error naming `what`.
symm_status bytesOf(const char *fn, const char *what, size_t count,
                    size_t factor, size_t esize, size_t *bytes);
/// A call's two buffers and how they may overlap: not at all, or exactly in
/// place where `exact` says so; `inPlace` describes in place for the error
/// (null when the collective has no in-place form). A rank that does not
/// read send passes sendBytes 0.
struct Buffers {
  const void *send;
  size_t sendBytes;
  const void *recv;
  size_t recvBytes;
  bool exact = false;
  const char *inPlace = nullptr;
};
/// Each buffer is not null unless empty, not a peer's heap as mapped here,
/// and does not straddle the end of this rank's heap; then the overlap.
symm_status checkBuffers(const char *fn, const Buffers &b);
symm_status checkOp(const char *fn, symm_reduce_op op);

/// One argument of a collective call, as checked mode compares it.
struct Argument {
  const char *name;
  uint64_t value;
  /// The value's name where it is an enumerator (a dtype, an op).
  const char *const *names = nullptr;
  size_t count = 0;
};
Argument dtypeArgument(symm_dtype dtype);
Argument opArgument(symm_reduce_op op);
/// all-to-allv: rank i's send_counts[j] must be rank j's recv_counts[i]. Each
/// rank's gathered row holds its send counts from `at`, then its receive
/// counts.
using CrossCheck = symm_status (*)(uint64_t seq, const std::vector<uint64_t> &,
                                   size_t stride, size_t at);
symm_status crossCheckCounts(uint64_t seq, const std::vector<uint64_t> &all,
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
                  CrossCheck cross = nullptr);

// Algorithms.cpp: the choice of algorithm and the kernel launches.

/// In the order of SYMM_ALL_REDUCE_ALGO's names.
enum class AllReduceAlgo {
  LowLatency,
  OneShot,
  TwoShot,
  Ring,
  LowLatencyTwoShot,
  LowLatency128,
  LowLatency128TwoShot
};
/// SYMM_ALL_REDUCE_ALGO, or the choice by size and rank count (`bySize`
/// says whether it may still turn low-latency once the call is prepared).
symm_status allReduceAlgorithm(size_t bytes, int world, AllReduceAlgo *algo,
                               bool *bySize);
enum class BroadcastAlgo {
  Root,
  Scatter,
  Chain,
  LowLatencyChain,
  CopyEngine,
  LowLatency128Chain,
  Fan,
  BySize
};
/// SYMM_BROADCAST_ALGO, or BySize where it is unset.
symm_status broadcastAlgorithm(BroadcastAlgo *algo);
/// In the order of SYMM_REDUCE_SCATTER_ALGO's names.
enum class ReduceScatterAlgo { LowLatency, Scatter, Ring, BySize };
/// SYMM_REDUCE_SCATTER_ALGO, or BySize where it is unset.
symm_status reduceScatterAlgorithm(ReduceScatterAlgo *algo);
/// In the order of SYMM_ALL_GATHER_ALGO's and SYMM_ALL_TO_ALL_ALGO's names.
enum class ExchangeAlgo { Stores, CopyEngine, BySize };
/// `var` (SYMM_ALL_GATHER_ALGO or SYMM_ALL_TO_ALL_ALGO), or BySize where it
/// is unset (exchange: the copy engines for large blocks on 2 GPUs).
symm_status exchangeAlgorithm(const char *var, ExchangeAlgo *algo);

/// An exchange of `count` elements per block: rank r's block for rank p is
/// send[p * sendStride ..] and lands at recv[r * recvStride ..] of p
/// (all-gather: sendStride 0; all-to-all: both the block; broadcast: `root`
/// >= 0 sends, everyone else receives). The buffers hold sendElems and
/// recvElems elements. `directInPlace` false keeps stores out of a receive
/// buffer that its rank still reads in place.
struct Exchange {
  const void *send;
  void *recv;
  size_t count;
  size_t sendStride = 0;
  size_t recvStride = 0;
  int root = -1;
  size_t sendElems;
  size_t recvElems;
  bool directInPlace = true;
  /// How an all-gather or all-to-all goes (a broadcast's exchange: Stores).
  ExchangeAlgo algo = ExchangeAlgo::Stores;
};
symm_status exchange(Call &call, const Exchange &x);
/// An all-reduce of `count` elements with `algo` as chosen.
symm_status allReduce(Call &call, const void *send, void *recv, size_t count,
                      symm_reduce_op op, AllReduceAlgo algo, bool bySize);
/// A reduce-scatter of `count` elements per rank with `algo` as forced or
/// chosen by size.
symm_status reduceScatter(Call &call, const void *send, void *recv,
                          size_t count, symm_reduce_op op,
                          ReduceScatterAlgo algo);
/// A broadcast of `count` elements from `root` with `algo` as forced or
/// chosen by size.
symm_status broadcast(Call &call, const void *send, void *recv, size_t count,
                      int root, BroadcastAlgo algo);
/// The variable-count all-to-all (its arguments as in symm_all_to_allv);
/// sendElems and recvElems: the extents of send and recv in elements.
struct AllToAllv {
  const void *send;
  const size_t *sendCounts, *sendDispls;
  size_t sendElems;
  void *recv;
  const size_t *recvCounts, *recvDispls;
  size_t recvElems;
};
symm_status allToAllv(Call &call, const AllToAllv &a);

// CopyEngine.cpp: the collectives the copy engines move.

/// Whether the backend has stream memory operations and every rank's heap
/// is mapped here, which the copy-engine collectives need.
bool copyEngineAvailable(const Call &call);
/// The broadcast by the copy engines (SYMM_BROADCAST_ALGO=copy_engine): a
/// pipelined chain of stream copies through the peers' copy-engine slots.
symm_status copyEngineBroadcast(Call &call, const void *send, void *recv,
                                size_t count, int root);
/// The all-gather on any number of ranks and the all-to-all on 2 by the
/// copy engines (SYMM_ALL_GATHER_ALGO / SYMM_ALL_TO_ALL_ALGO=copy_engine):
/// a pipelined ring of stream copies through the next rank's slots.
symm_status copyEngineExchange(Call &call, const Exchange &x);

} // namespace symm::collectives

#endif // SYMM_RUNTIME_LIB_COLLECTIVES_INTERNAL_H
