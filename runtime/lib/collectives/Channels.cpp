//===- Channels.cpp - The collectives' configuration and channels ---------===//
//
// Reads the collectives' environment once per runtime, loads the embedded
// kernels of each element type, and keeps one channel (scratch space, flags
// and epoch counters in the symmetric heap) per stream.
//
//===----------------------------------------------------------------------===//

#include "Internal.h"

#include "../core/Environment.h"
#include "../core/Trace.h"
#include "../host/Races.h"
#include "Embedded.h"

#include <cerrno>
#include <cstdlib>
#include <optional>
#include <tuple>

namespace symm::collectives {

State &state() {
  static State s;
  return s;
}

std::mutex &stateMutex() {
  static std::mutex m;
  return m;
}

const char *envOr(const char *name, const char *fallback) {
  const char *v = getenv(name);
  return v && *v ? v : fallback;
}

bool onGpu() { return strcmp(symm_backend_name(), "host") != 0; }

namespace {

/// symm_stream_destroy's hook: the stream's channel (if it made collective
/// calls) waits for the next new stream. A stream at the same address later
/// must not find it: on some ranks the address is reused and on others not.
void retireChannel(symm_stream *stream) {
  std::lock_guard<std::mutex> lock(stateMutex());
  for (Channel &c : state().channels)
    if (!c.retired && c.stream == stream)
      c.retired = true;
}

/// Whether the build embedded modules for `backend` (a row's name).
bool hasModule(const std::vector<EmbeddedModule> &all,
               const std::string &backend) {
  for (const EmbeddedModule &m : all)
    if (backend == m.backend)
      return true;
  return false;
}

/// Whether every rank's heap is mapped into this one's (symm_heap_base
/// is null for a peer reached only through NVSHMEM).
bool allPeersMapped() {
  for (int r = 0; r < symm_world_size(); ++r) {
    void *base = nullptr;
    if (symm_heap_base(r, &base) || !base)
      return false;
  }
  return true;
}

/// A size setting's value, where "0" (off) is a value too.
std::optional<size_t> sizeOrOff(const char *text) {
  return strcmp(text, "0") ? env::parseSize(text) : std::optional<size_t>(0);
}

/// The count environment variable `name` sets (`fallback` where it is unset
/// or empty), which must be `lo`..`hi`.
symm_status countSetting(const char *name, const char *fallback, unsigned lo,
                         unsigned hi, unsigned *out) {
  const char *text = envOr(name, fallback);
  int value = atoi(text);
  if (value < int(lo) || value > int(hi))
    return fail(SYMM_ERROR_INVALID_ARGUMENT, "%s='%s' must be %u..%u", name,
                text, lo, hi);
  *out = unsigned(value);
  return SYMM_SUCCESS;
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
  // GPUs 1M / (world_size - 1): the doubled bytes go to every peer. With a
  // workgroup per 2 KB up to 512 (SYMM_COLLECTIVES_LL_BLOCKS), on 2 H100s
  // they beat the flagged kernels at every size up to 1 MB per peer (a 2 MB
  // all-gather 16.1 against 21.7 us, a 1 MB all-reduce 16.0 against 21.7),
  // and on 4 up to about 1 MB out of each rank (an all-reduce of 256 KB 17.4
  // against 20.5 us; of 512 KB 26.2 against 24.2). On 2 GPUs at most
  // 512K: since a flag costs a barrier and one thread's release
  // (symm.release_barrier), the flagged exchanges beat the low-latency ones
  // at blocks of 1 MB on 2 H200s (graph: all-to-all of 2 MB 10.8 against
  // 12.9 us, reduce-scatter 11.3 against 13.0, all-gather 10.8 against
  // 12.9; NCCL 15.1, 14.7, 16.5) and the root's flagged stores matched the
  // low-latency broadcast of 1 MB (9.4 against 9.6 us; on 2 H100s the day
  // before, 10.6-10.8 against 9.6).
  size_t peers = size_t(std::max(1, symm_world_size() - 1));
  if (const char *llMax = getenv("SYMM_COLLECTIVES_LL_MAX"); llMax && *llMax) {
    std::optional<size_t> ll = sizeOrOff(llMax);
    if (!ll || *ll % kLowLatencyUnit || *ll > kMaxLowLatency)
      return fail(SYMM_ERROR_INVALID_ARGUMENT,
                  "SYMM_COLLECTIVES_LL_MAX='%s' is not 0 or a multiple of 128 "
                  "bytes up to 4M",
                  llMax);
    s.llMax = *ll;
  } else {
    s.llMax = gpu ? std::min(size_t(512) << 10, (size_t(1) << 20) / peers) /
                        kLowLatencyUnit * kLowLatencyUnit
                  : size_t(16) << 10;
  }
  // The LL128 buffer's data per rank (Call::ll128Elems): 4M / (n - 1) on
  // GPUs, a launch per that many bytes; 32K on CPU ranks, so that the
  // tests' calls cross several launches. 0 turns LL128 off.
  if (const char *max = getenv("SYMM_COLLECTIVES_LL128_MAX"); max && *max) {
    std::optional<size_t> bytes = sizeOrOff(max);
    if (!bytes || *bytes > kMaxLowLatency128)
      return fail(SYMM_ERROR_INVALID_ARGUMENT,
                  "SYMM_COLLECTIVES_LL128_MAX='%s' is not a size up to 16M",
                  max);
    s.ll128Max = *bytes;
  } else {
    s.ll128Max = gpu ? (size_t(4) << 20) / peers : size_t(32) << 10;
  }
  // Every rank's slot, and on GPUs at least the LL128 chain's one launch of
  // 16 MB (Internal.h, kLl128ChainData), or a 32nd of the heap where that is
  // less (a channel's fixed cost in a small heap: the default 1G holds it);
  // on CPU ranks the slots alone, so that the tests' broadcasts cross
  // several launches too.
  size_t slots = size_t(symm_world_size()) * ll128SlotLines(s);
  size_t chain = std::min(kLl128ChainData, symm_heap_size() / 32);
  s.ll128Lines = gpu && slots ? std::max(slots, (chain + kLineData - 1) / kLineData)
                              : slots;
  const char *set = envOr("SYMM_COLLECTIVES_BLOCKS", nullptr);
  const char *blocks = set ? set : gpu ? "128" : "2";
  const char *threads = envOr("SYMM_COLLECTIVES_THREADS", gpu ? "512" : "16");
  int b = atoi(blocks), t = atoi(threads);
  if (b < 1 || b > int(kMaxBlocks) || t < 1 || t > SYMM_COLL_MAX_THREADS)
    return fail(SYMM_ERROR_INVALID_ARGUMENT,
                "SYMM_COLLECTIVES_BLOCKS='%s' must be 1..%u and "
                "SYMM_COLLECTIVES_THREADS='%s' 1..%d",
                blocks, kMaxBlocks, threads, SYMM_COLL_MAX_THREADS);
  s.blocks = unsigned(b);
  s.threads = unsigned(t);
  s.wideBlocks = set ? s.blocks : gpu ? std::max(256u, s.blocks) : 2 * s.blocks;
  s.wideMin = gpu ? size_t(32) << 20 : size_t(256) << 10;
  // The low-latency kernels' own limit: their stores carry no flag to wait
  // for, so more workgroups only add stores in flight (a 1 MB all-gather on
  // 2 H100s: 13.9 us on 128, 10.6 on 256 and 512), where the flagged
  // kernels lost up to 1.5x on 512 (a 4 MB all-reduce 34.1 against 50.4 us).
  if (symm_status st =
          countSetting("SYMM_COLLECTIVES_LL_BLOCKS", gpu ? "512" : blocks, 1,
                       kMaxBlocks, &s.llBlocks))
    return st;
  s.minBlocks = gpu ? std::min(kMinGpuBlocks, s.blocks) : 1;
  // Sizes of at least a vector. The pieces of the chain and the fan
  // (chainPiece in Algorithms.cpp) and of the rings (ringPieces) have no
  // fallback: unset, by their rules (0).
  const char *const byCost = nullptr;
  for (auto [name, fallback, field] :
       {std::tuple{"SYMM_COLLECTIVES_BLOCK_BYTES", "8K", &s.blockBytes},
        std::tuple{"SYMM_COLLECTIVES_LL_BLOCK_BYTES", "2K", &s.llBlockBytes},
        std::tuple{"SYMM_COLLECTIVES_CHAIN_PIECE", byCost, &s.chainPiece},
        std::tuple{"SYMM_COLLECTIVES_RING_PIECE", byCost, &s.ringPiece}}) {
    const char *per = envOr(name, fallback);
    if (!per)
      continue;
    std::optional<size_t> perBlock = env::parseSize(per);
    if (!perBlock || *perBlock < SYMM_COLL_VECTOR_BYTES)
      return fail(SYMM_ERROR_INVALID_ARGUMENT,
                  "%s='%s' is not a size of at least 16 bytes", name, per);
    *field = *perBlock;
  }
  // The copy-engine collectives' slots (CopyEngine.cpp): a chunk moves
  // through one, and a call's chunks reuse them in turn. On GPUs 64M, at
  // most a quarter of the scratch: a copy costs about 9.5 us besides its
  // bytes (measured on 2 H200s; CopyEngine.cpp), so a 1 GB broadcast took
  // 3099 us in chunks of 32 MB and 2951 in chunks of 64 MB (NCCL 2954; a
  // call picks a smaller chunk by its size). Three slots: the sender fills
  // one while the receiver empties another, and a third absorbs jitter (on
  // 2 ranks the receiver's copy out of a slot takes a fifth of the link's
  // time, so two would do). On CPU ranks 64K, so that the tests' calls
  // cross several chunks.
  size_t ceDefault =
      gpu ? std::min(size_t(64) << 20, s.scratchBytes / 4) : size_t(64) << 10;
  const char *ceChunk = getenv("SYMM_COLLECTIVES_CE_CHUNK");
  if (ceChunk && *ceChunk) {
    s.ceChunk = env::parseSize(ceChunk).value_or(0);
    if (!s.ceChunk || s.ceChunk % SYMM_COLL_VECTOR_BYTES)
      return fail(SYMM_ERROR_INVALID_ARGUMENT,
                  "SYMM_COLLECTIVES_CE_CHUNK='%s' is not a size of whole "
                  "16-byte vectors",
                  ceChunk);
  } else {
    s.ceChunk = ceDefault / SYMM_COLL_VECTOR_BYTES * SYMM_COLL_VECTOR_BYTES;
  }
  if (symm_status st = countSetting("SYMM_COLLECTIVES_CE_SLOTS", "3", 2,
                                    kMaxCeSlots, &s.ceSlots))
    return st;
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
  // (--remote=nvshmem: what runs across nodes, exercised on one). Where
  // every peer's heap is mapped (one node), `auto` runs the cuda backend's
  // kernels, which store to peers directly: the --remote=auto ones ask
  // nvshmem_ptr before every remote access, and on 2 H100s that took a
  // 1 MB all-reduce from 14.6 to 31.2 us.
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
  } else if (backend == "nvshmem" && allPeersMapped()) {
    backend = "cuda";
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
  // The host backend checking races runs kernels compiled with the checks
  // (and records no trace); with a trace asked for, a backend runs kernels
  // compiled with --trace where the build has them (not the nvshmem ones).
  std::string wanted = s.backend;
  if (s.backend == "host" && races::enabled())
    wanted = "host-races";
  else if (tracing() && hasModule(all, s.backend + "-trace"))
    wanted = s.backend + "-trace";
  for (const collectives::EmbeddedModule &m : all)
    if (wanted == m.backend && !strcmp(m.dtype, kDtypeNames[dtype])) {
      // The build instantiated the kernels from its own table of types.
      if (m.elementBytes != kDtypeSizes[dtype])
        return fail(SYMM_ERROR_UNAVAILABLE,
                    "the %s collective kernels were built for %zu-byte "
                    "elements, the runtime expects %zu",
                    m.dtype, m.elementBytes, kDtypeSizes[dtype]);
      if (symm_status st = loadModuleData(m.data, m.size, m.manifest,
                                          m.manifestSource, &s.modules[dtype]))
        return st;
      *out = s.modules[dtype];
      return SYMM_SUCCESS;
    }
  return fail(SYMM_ERROR_UNAVAILABLE,
              "no collective kernels for the %s backend and %s in this "
              "runtime",
              s.backend.c_str(), kDtypeNames[dtype]);
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
  if (symm_status st = symm_malloc(kHeaderBytes + llBytes(s) + ll128Bytes(s) +
                                       2 * s.scratchBytes + kCeFlagBytes +
                                       size_t(s.ceSlots) * s.ceChunk,
                                   &base))
    return st;
  c.base = static_cast<char *>(base);
  // The copy-engine collectives' second stream and events, before any
  // capture (stream and event creation are not stream work).
  Backend &backend = *initializedBackend();
  if (symm_status st = backend.streamCreate(&c.side))
    return st;
  if (symm_status st = backend.eventCreate(&c.fork))
    return st;
  if (symm_status st = backend.eventCreate(&c.join))
    return st;
  // Flags, counters and the low-latency words (whose tags must not match an
  // epoch: the heap is not zeroed) are set on every rank before any peer may
  // store there: flags, epochs and chunk counts to the first epoch (0, or
  // SYMM_COLLECTIVES_FIRST_EPOCH, which tests their wrap-around), the
  // low-latency words' tags to it too (the epoch before the first call, so
  // no call's epoch matches a word nobody stored: a tag of 0 would, 6 calls
  // after a first epoch of -6), the LL128 lines to zero (no flag is 0), the
  // rest to zero.
  std::vector<char> init(kHeaderBytes + llBytes(s) + ll128Bytes(s), 0);
  std::vector<int32_t> counters(
      (2 * kFlagBytes + kEpochBytes + kPairCountBytes) / sizeof(int32_t),
      s.firstEpoch);
  // No previous launch: nothing to wait for.
  size_t grids = (2 * kFlagBytes + kEpochBytes / 2) / sizeof(int32_t);
  std::fill_n(counters.begin() + grids, kMaxBlocks, 0);
  memcpy(init.data(), counters.data(), counters.size() * sizeof(int32_t));
  std::vector<uint64_t> words(llBytes(s) / sizeof(uint64_t),
                              uint64_t(uint32_t(s.firstEpoch)) << 32);
  memcpy(init.data() + kHeaderBytes, words.data(), llBytes(s));
  if (symm_status st = symm_memcpy(c.base, init.data(), init.size()))
    return st;
  // The copy-engine tokens: no slot has landed, every slot is vacant.
  std::vector<uint32_t> tokens(2 * kMaxCeSlots, 0);
  std::fill_n(tokens.begin() + kMaxCeSlots, kMaxCeSlots, 1);
  char *ceFlags = c.base + init.size() + 2 * s.scratchBytes;
  if (symm_status st =
          symm_memcpy(ceFlags, tokens.data(), tokens.size() * sizeof(uint32_t)))
    return st;
  if (symm_status st = symm_barrier())
    return st;
  s.channels.push_back(c);
  *out = &s.channels.back();
  return SYMM_SUCCESS;
}

} // namespace

symm_status prepare(symm_dtype dtype, Call &call) {
  symm_stream *stream = call.stream;
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
                  call.fn, kDtypeNames[dtype]);
  }
  if (symm_status st = configure(*call.s))
    return st;
  if (symm_status st = module(*call.s, dtype, &call.m))
    return st;
  return channel(*call.s, stream, &call.c);
}

symm_status Params::launch(State &s, symm_module *m, const char *kernel,
                           symm_stream *stream, unsigned grid, bool slots) {
  scalar(grid);
  if (slots)
    scalar(s.slots());
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

void Call::channelParams(Params &p, bool direct) const {
  p.memref(scratch(), scratchElems());
  p.memref(flags(), kFlagBytes / sizeof(int32_t));
  if (!direct)
    return;
  void *heap = nullptr;
  symm_heap_base(rank, &heap);
  p.memref(meta(), kMetaBytes / sizeof(int64_t));
  p.memref(heap, symm_heap_size() / esize);
}

bool Call::llFits(size_t elems) const {
  return world > 1 && elems * esize <= s->llMax;
}

} // namespace symm::collectives
