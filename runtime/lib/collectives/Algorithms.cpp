//===- Algorithms.cpp - The collectives' algorithms and launches ----------===//
//
// Which algorithm a call runs (by size and rank count, or forced by an
// environment variable) and its launches: the data is cut into chunks that
// fit the channel's scratch, and each chunk is a launch of an embedded
// kernel (Kernels.mlir.in) on the call's stream. The protocol itself (direct
// stores into the peers' scratch, ready and acknowledge flags numbered by
// epoch) lives in the kernels; see docs/Collectives.md.
//
//===----------------------------------------------------------------------===//

#include "Internal.h"

#include "../core/Environment.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <optional>

namespace symm::collectives {
namespace {

/// With SYMM_COLLECTIVES_DEBUG=1, says on stderr what a call launches: the
/// kernel (and so the algorithm), how many launches (chunks) and workgroups.
/// `count` is the call's count argument.
void trace(const Call &call, size_t count, const char *kernel, size_t launches,
           unsigned grid) {
  if (call.s->debug)
    fprintf(stderr,
            "symm: rank %d: %s: count %zu: %s, %zu launch%s of up to %u "
            "workgroup%s\n",
            call.rank, call.fn, count, kernel, launches,
            launches == 1 ? "" : "es", grid, grid == 1 ? "" : "s");
}

/// Launches `kernel` once per chunk of at most `cap` of a call's `count`
/// elements, in order, each chunk of `total` elements on `grid(total)`
/// workgroups: `pack(p, off, total)` adds the chunk's parameters, and the
/// epoch's follow, which every kernel takes last. Says what it launches
/// (trace).
template <typename Grid, typename Pack>
symm_status launchChunks(Call &call, const char *kernel, size_t count,
                         size_t cap, Grid grid, Pack pack) {
  trace(call, count, kernel, (count + cap - 1) / cap,
        grid(std::min(cap, count)));
  for (size_t off = 0; off < count; off += cap) {
    size_t total = std::min(cap, count - off);
    Params p;
    pack(p, off, total);
    call.epochParams(p);
    if (symm_status st = call.launch(p, kernel, grid(total)))
      return st;
  }
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

/// The low-latency reduction (`reduce_ll`) of `count` elements: rank r's
/// contribution is send[r * sendStride ..] (all-reduce: sendStride 0, every
/// peer gets the whole buffer; reduce-scatter: the block), the result recv.
struct LowLatencyReduce {
  const void *send;
  size_t sendElems;
  void *recv;
  size_t count;
  size_t sendStride;
  symm_reduce_op op;
};

symm_status reduceLowLatency(Call &call, const LowLatencyReduce &r) {
  Params p;
  p.memref(r.send, r.sendElems);
  p.memref(r.recv, r.count);
  call.llParams(p);
  p.scalar(r.count);
  p.scalar(r.sendStride);
  p.scalar(call.llCap());
  p.i32(r.op);
  call.epochParams(p);
  trace(call, r.count, "reduce_ll", 1, call.llGrid(r.count));
  return call.launch(p, "reduce_ll", call.llGrid(r.count));
}

/// Elements of a rank's segment in one launch of the low-latency two-shot
/// all-reduce: half a rank's slot of the low-latency buffer
/// (SYMM_COLLECTIVES_LL_MAX / 2 bytes), in whole vectors.
size_t llSegmentCap(const Call &call) {
  return call.roundDown(call.s->llMax / 2 / call.esize);
}

/// Whether the LL128 kernels can run: their lines take 8 threads each.
bool ll128Runs(const Call &call) {
  return call.world > 1 && call.s->threads % 8 == 0 && call.ll128Elems() > 0;
}

/// The most workgroups an LL128 launch gets: as many as stay resident at
/// once on an H100 or H200 (132 SMs, two workgroups of 512 threads of 64
/// registers each). Its workgroups spin on their peers' lines, so a grid
/// larger than that runs in two waves: on 2 H200s a 1 MB all-reduce on 512
/// workgroups took 9.9 us, on 128 9.2, where 512 KB took 5.9 on 256.
constexpr unsigned kLl128MaxBlocks = 256;

/// An LL128 launch's grid: a workgroup per SYMM_COLLECTIVES_LL_BLOCK_BYTES
/// like the LL kernels, at most kLl128MaxBlocks.
unsigned ll128Grid(const Call &call, size_t total) {
  return call.gridOf(total, call.s->llBlockBytes,
                     std::min(call.s->llBlocks, kLl128MaxBlocks));
}

/// The LL128 all-reduce (`all_reduce_ll128`): one-shot in flagged 128-byte
/// lines, in launches of a slot's worth (Call::ll128Elems) each.
symm_status lowLatency128(Call &call, const void *send, void *recv,
                          size_t count, symm_reduce_op op) {
  return launchChunks(
      call, "all_reduce_ll128", count, call.ll128Elems(),
      [&](size_t total) { return ll128Grid(call, total); },
      [&](Params &p, size_t off, size_t total) {
        p.memref(send, count);
        p.memref(recv, count);
        call.ll128Params(p);
        p.scalar(off);
        p.scalar(total);
        p.scalar(call.ll128Cap());
        p.i32(op);
      });
}

/// Elements of a rank's segment in one launch of the LL128 two-shot
/// all-reduce: the lines of half a rank's slot of the LL128 buffer.
size_t ll128SegmentCap(const Call &call) {
  return ll128SlotLines(*call.s) / 2 * kLineData / call.esize;
}

/// The low-latency two-shot all-reduce (see symm_tile_ll_two_shot) in
/// tagged words (`all_reduce_ll_two_shot`, on several ranks with a
/// low-latency buffer of at least a vector per segment) or, with `lines`,
/// in LL128 lines (`all_reduce_ll128_two_shot`: 2 (n - 1) / n of the buffer
/// out of each rank in lines of 7/8 data where the words carry 1/2), at any
/// buffer address (vectors that are not 16-byte aligned move element by
/// element). A launch takes world_size segments of whole vectors (lines)
/// of at most half a rank's slot; larger calls go in chunks.
symm_status lowLatencyTwoShot(Call &call, const void *send, void *recv,
                              size_t count, symm_reduce_op op, bool lines) {
  size_t unit = lines ? kLineData / call.esize : call.vector();
  size_t segCap = lines ? ll128SegmentCap(call) : llSegmentCap(call);
  auto segment = [&](size_t total) {
    size_t per = (total + call.world - 1) / call.world;
    return (per + unit - 1) / unit * unit;
  };
  return launchChunks(
      call, lines ? "all_reduce_ll128_two_shot" : "all_reduce_ll_two_shot",
      count, segCap * call.world,
      [&](size_t total) {
        return lines ? ll128Grid(call, segment(total))
                     : call.llGrid(segment(total));
      },
      [&](Params &p, size_t off, size_t total) {
        p.memref(send, count);
        p.memref(recv, count);
        call.lowLatencyParams(p, lines);
        p.scalar(off);
        p.scalar(total);
        p.scalar(segment(total));
        p.scalar(lines ? call.ll128Cap() : call.llCap());
        p.i32(op);
      });
}

/// From 3 ranks, the most bytes a low-latency all-reduce sends out of each
/// rank to all peers before the low-latency two-shot takes over (see
/// allReduce), and the largest low-latency broadcast the root stores into
/// every peer before the low-latency chain takes over (see broadcast).
constexpr size_t kLlOneShotOut = size_t(256) << 10;
/// On 2 ranks, the largest low-latency all-reduce; one-shot above. Since a
/// flag costs a barrier and the storing thread's release on NVIDIA
/// (symm.release_barrier, not a fence in every thread), one-shot beat the
/// low-latency kernel on 2 H100s from 1 MB (graph: 12.1 against 14.5 us;
/// NCCL 13.9) and lost at 512 KB (10.3 against 9.7).
constexpr size_t kLlAllReduceMax2 = size_t(512) << 10;
constexpr size_t kLlRootMax = size_t(64) << 10;
/// On 2 ranks, the largest LL128 all-reduce; one-shot above (8 MB: 40.3
/// against 36.5 us from a graph on 2 H200s). Up to it LL128 beat or matched
/// every other: 8 KB 3.86 us (LL 3.97), 128 KB 4.34 (4.69), 256 KB 4.93
/// (5.65), 1 MB 7.83 (one-shot 10.95), 4 MB 20.2 (22.1); NCCL 6.4, 7.2,
/// 8.3, 13.9, 32.3.
constexpr size_t kLl128AllReduceMax2 = size_t(4) << 20;
/// On 3 and 4 ranks, LL128 from 64 KB up to 1 MB, where it sends n - 1
/// copies of the call in lines against LL's in words or the low-latency
/// two-shot's: on 4 H200s from a graph, 64 KB 5.81 against 6.45 us, 128 KB
/// 6.58 against 8.79, 256 KB 8.18 against 10.22, 1 MB 16.47 against 17.80
/// (NCCL 10.7, 10.9, 11.2, 17.6); at 32 KB 5.53 both, at 2 MB 33.5 against
/// 25.0. On 3 H100s, 64 KB 4.93 against 5.10, 128 KB 5.45 against 5.94,
/// 256 KB 6.59 against 8.23, 1 MB 12.30 against 15.60 (NCCL 10.4, 10.6,
/// 11.0, 16.1); 16 KB 4.78 against 4.52, 2 MB level, 4 MB 49.1 against
/// 34.8 (bench/results/h100x3-all-reduce-early-launch-ll128). Not measured
/// from 5 ranks.
constexpr size_t kLl128AllReduceMin34 = size_t(64) << 10;
constexpr size_t kLl128AllReduceMax34 = size_t(1) << 20;
/// On 3 and 4 ranks, the largest low-latency chain broadcast; the chain
/// above. Since a flag costs a barrier and the storing thread's release
/// (symm.release_barrier), the chain overtook the low-latency chain between
/// 512 KB and 1 MB on 4 H200s (graph: 1 MB 12.3 against 13.5 us, NCCL 11.7;
/// 512 KB 9.3 against 8.2, NCCL 8.1), level at about 768 KB by both lines.
/// On more ranks each of the chain's pieces takes more hops: not measured.
constexpr size_t kLlChainMax4 = size_t(768) << 10;

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

/// The pipelined chain broadcast (`broadcast_chain`, see
/// symm_tile_chain_broadcast; only the previous rank in the chain stores
/// into a rank's scratch) in one launch (chainBroadcast). A workgroup
/// forwards its part of the call, `part` bytes, in k pieces of p bytes, one
/// after another, and the last rank gets the last piece n - 2 stages after
/// the second: (k + n - 2) stages of c + p / b, with c a piece's fixed cost
/// (its wait, fence and flag) and b a workgroup's share of the link. That is
/// least at pieces of sqrt(part * b * c / (n - 2)) bytes, at least 16 KiB
/// (in a launch that holds the call in the scratch the kernel takes at most
/// 64 per workgroup, as the fan does in each of its launches per chunk);
/// above 16 KiB, a whole number of the forwarding loop's rounds (threads *
/// 64 bytes: 32K on GPUs), the nearest. On 4 H200s, with the chain forced
/// and pieces of 32K to 256K (bench/results/h200x4-broadcast-chain-pieces),
/// c = 1.0 us and b = 3.0 KB/us; pieces from the fit before (c = 4.6, b =
/// 3.7 KB/us, with the 16 KiB pieces before that and a fence in every
/// thread) made 1 GB 3323 us where pieces of 64K took 3081 (NCCL 2961)
/// and 32 MB 123.0 where 32K took 117.2 (108.9); this fit's own sizes, not
/// whole rounds (57K pieces at 1 GB), took 3236. On CPU ranks 256 bytes, so
/// that their small calls cut a workgroup's part into many pieces too. The
/// fan's pieces take one such hop after the first (`hops` 1), the chain's
/// n - 2.
/// SYMM_COLLECTIVES_CHAIN_PIECE sets the size.
size_t chainPiece(const Call &call, size_t elems, int hops) {
  if (call.s->chainPiece)
    return call.roundUp(std::max<size_t>(call.s->chainPiece / call.esize, 1));
  if (!onGpu())
    return call.roundUp(256 / call.esize);
  constexpr double kPieceUs = 1.0, kBytesPerUs = 3.0 * 1024;
  constexpr size_t kMinPiece = size_t(16) << 10;
  double part = double(elems * call.esize) / call.grid(elems);
  double best = std::sqrt(part * kBytesPerUs * kPieceUs / std::max(1, hops));
  if (best <= kMinPiece)
    return call.roundUp(kMinPiece / call.esize);
  // A whole number of the forwarding loop's rounds (every thread four
  // vectors): a piece's tail is moved vector by vector.
  size_t round = size_t(call.s->threads) * 4 * SYMM_COLL_VECTOR_BYTES;
  size_t rounds = std::max<size_t>(1, size_t(std::llround(best / round)));
  return call.roundUp(rounds * round / call.esize);
}

/// Pieces of a ring's part of `part` elements (symm_coll_ring: each piece goes
/// through every step before the next starts, its flags one epoch apart), the
/// same on every rank and workgroup, which the kernel's epochs advance by: the
/// part over the piece, to the nearest, at least 1 and at most kMaxRingPieces
/// (so that no piece is much smaller than `piece`). On GPUs pieces of 128K: on
/// 4 H200s, both rings forced, pieces of 256K, 128K, 64K and 32K against one a
/// part (bench/results/h200x4-ring-pieces), 128K took the reduce-scatter's ring
/// from 614.8 to 571.8 us at 256 MB and from 2452.8 to 2294.1 at 1 GB (its last
/// fold, which stores nothing into the next rank, now overlaps other
/// workgroups' stores of later pieces) and the ring all-reduce from 4547.8 to
/// 4510.6 at 1 GB; 256K gained less, and smaller pieces lost from 128 MB (32K:
/// 1 GB 2721.9 and 5247.9 us), a piece costing each of its steps a fence and a
/// flag. Parts below 192K (a 64 MB call on 4 GPUs, a 1 GB all-reduce on 8) stay
/// whole. On CPU ranks pieces of 256 bytes, so that the tests' calls take
/// several. SYMM_COLLECTIVES_RING_PIECE sets the size.
size_t ringPieces(const Call &call, size_t part) {
  constexpr size_t kMaxRingPieces = 64;
  size_t piece = call.s->ringPiece ? call.s->ringPiece
                 : onGpu()         ? size_t(128) << 10
                                   : 256;
  size_t bytes = part * call.esize;
  return std::clamp<size_t>((bytes + piece / 2) / piece, 1, kMaxRingPieces);
}

/// The largest part of `elems` elements that `grid` workgroups take
/// (symm_coll_part): whole vectors.
size_t partOf(const Call &call, size_t elems, unsigned grid) {
  return call.roundUp((elems + grid - 1) / grid);
}

/// Elements of one launch of the low-latency chain broadcast: a rank's whole
/// low-latency buffer, world_size * SYMM_COLLECTIVES_LL_MAX bytes of data in
/// tagged words (only the rank before it in the chain stores into it).
size_t llChainCap(const Call &call) {
  return call.roundDown(size_t(call.world) * call.s->llMax / call.esize);
}

/// Elements of one launch of the LL128 chain broadcast: a rank's whole LL128
/// buffer (world_size slots of lines; on GPUs at least 16 MB of data).
size_t ll128ChainCap(const Call &call) {
  return call.s->ll128Lines * kLineData / call.esize;
}

/// The low-latency chain broadcasts, in LL128 lines (`lines`:
/// `broadcast_ll128_chain`) or tagged words (`broadcast_ll_chain`): a launch
/// per rank's whole buffer of them (only the rank before it in the chain
/// stores into it), each waiting for the peers' acknowledgement of the one
/// before. The LL128 chain's time at 1-4 MB moves between runs: on 4 H100s
/// a 1 MB broadcast took 8.7 us in two runs and 13.2-13.3 in two others,
/// on 256 workgroups as on 512
/// (bench/results/h100x4-broadcast-ll128-chain-forward-first, -512, -256);
/// why is not known.
symm_status lowLatencyChain(Call &call, bool lines, const void *src, void *recv,
                            size_t count, int root) {
  return launchChunks(
      call, lines ? "broadcast_ll128_chain" : "broadcast_ll_chain", count,
      lines ? ll128ChainCap(call) : llChainCap(call),
      [&](size_t total) {
        return lines ? ll128Grid(call, total) : call.llGrid(total);
      },
      [&](Params &p, size_t off, size_t total) {
        size_t at = off * call.esize;
        p.memref(static_cast<const char *>(src) + at, total);
        p.memref(static_cast<char *>(recv) + at, total);
        call.lowLatencyParams(p, lines);
        p.scalar(total);
        p.i32(root);
      });
}

/// The sizes of broadcast the LL128 chain takes by size, where it can run:
/// on 2 ranks from 512 KB to 8 MB, on more from 256 KB to 16 MB (from 5
/// ranks by the model: on 8 GPUs 2 MB 18.7 us against the root's stores'
/// 52.8, which ran then, 16 MB 76.3 against the scatter's 107.5; NCCL
/// measured 19.8 and 60.9 there; not measured). On 4 ranks, in one launch
/// (the buffer's 16 MB, where 5.3 MB took two launches of 8 MB and three
/// of 16): 8 MB 34.1 against the chain's 43.8 us, 16 MB 63.7 against 75.1,
/// 32 MB 127.3 against 123.0 (NCCL 36.2, 61.7, 110.5; 4 H100s, graph, one
/// command, SYMM_COLLECTIVES_LL128_MAX=4M: the launch the buffer now holds;
/// bench/results/h100x4-broadcast-chain-grid-ll128-launch). On 4 H100s from a
/// graph, each pair from one command: against the chain forced (the choice
/// before from 768 KB), 1 MB 8.74 against 14.03 us, 2 MB 13.52 against 20.75,
/// 4 MB 21.06 against 29.20, 8 MB level (NCCL 12.30, 19.68, 24.96); against the
/// low-latency chain at 256 KB, 5.89 against 6.55 (NCCL 7.32). On 3, 1 MB
/// 7.66 against 13.63, 16 MB 70.76 against 76.03, 32 MB 140.4 against 136.3.
/// On 2, against the root's stores, 1 MB 6.26 against 10.38, 8 MB 31.88
/// against 34.63, 16 MB 59.21 against 58.52, and 256 KB 3.72 against 4.34 from
/// a graph but 5.65 against 5.16 from a stream. The LL128 chain's times at
/// 1-4 MB move between runs (see lowLatencyChain;
/// bench/results/h100x4-broadcast-ll128-chain*).
bool ll128ChainWins(const Call &call, size_t bytes) {
  size_t lo = size_t(256) << 10, hi = size_t(16) << 20;
  if (call.world == 2)
    lo = size_t(512) << 10, hi = size_t(8) << 20;
  return bytes >= lo && bytes <= hi && ll128Runs(call);
}

/// Whether a broadcast of `bytes` goes by the copy engines when the size
/// chooses: on 2 GPUs from 32 MB (CPU ranks run it only when forced). On 2
/// of 4 H200s, against the root's SM stores, from a stream (NCCL in
/// brackets): 16 MB 64.2 against 63.1 us (61.2), 32 MB 108.5 against 115.8
/// (111.2), 256 MB 775.8 against 842.9 (751.6), 1 GB 3103 against 3367
/// (2942); below 16 MB they lose (4 MB 35.4 against 28.1). On 2 H100s the
/// same from 16 MB (32 MB 109.9 against 125.6, 1 GB 3206 against 3536;
/// bench/results/h100x2-collectives-copy-engine). With more ranks
/// each of the n - 2 further hops delays the last chunk by a whole stage,
/// where the SM chain's workgroups pipeline pieces of tens of KB: on 4
/// H200s the copies took 2.1-2.6x the chain's time up to 64 MB and 1.05x
/// at 1 GB (3552 against 3379 us), so from 3 ranks they run only when
/// forced (bench/results/h200x4-collectives-copy-engine).
bool copyEngineWins(const Call &call, size_t bytes) {
  constexpr size_t kCopyEngineMin = size_t(32) << 20;
  return onGpu() && call.world == 2 && bytes >= kCopyEngineMin &&
         copyEngineAvailable(call);
}

/// The pipelined broadcast along a chain of ranks (`broadcast_chain`) or in
/// the fan (`broadcast_fan`: the root stores each workgroup's part into one
/// rank, which stores it into all the others; symm_coll_tree_link). A call
/// the scratch holds goes in one launch, every piece where it lies in the
/// call (one lap); a larger one in the fan in a launch per scratch-sized
/// chunk, and in the chain in one launch whose pieces cycle through slots
/// of the scratch (`slots` per workgroup, at most 64, in `laps` laps; a
/// rank reuses a slot of the next rank once that rank has passed its piece
/// on). A launch per chunk fills and drains the chain anew, n - 2 stages of
/// a piece, and waits for every workgroup's end: on 4 H200s a 1 GB
/// broadcast in four launches of 256 MB took 3082 us, in two of 512 MB
/// 3010 (NCCL 2978; bench/results/h200x4-broadcast-one-launch).
symm_status chainBroadcast(Call &call, const void *src, void *recv,
                           size_t count, int root, bool fan) {
  int hops = fan ? 1 : call.world - 2;
  size_t chunk = call.roundDown(call.scratchElems());
  size_t piece = 0, slots = SYMM_MAX_RANKS, laps = 1;
  if (!fan && call.world > 1 && count > chunk) {
    unsigned grid = call.grid(count);
    size_t p = chainPiece(call, count, hops);
    size_t fit = std::min<size_t>(SYMM_MAX_RANKS, call.scratchElems() / (grid * p));
    // Two slots at least, so that a piece can land while the one before it
    // is passed on; else (pieces set too large for the scratch) by chunks.
    if (fit >= 2) {
      size_t pieces = (partOf(call, count, grid) + p - 1) / p;
      piece = p, slots = fit, laps = (pieces + fit - 1) / fit, chunk = count;
    }
  }
  return launchChunks(
      call, fan ? "broadcast_fan" : "broadcast_chain", count, chunk,
      [&](size_t total) { return call.grid(total); },
      [&](Params &p, size_t off, size_t total) {
        p.memref(src, count);
        p.memref(recv, count);
        call.channelParams(p, /*direct=*/false);
        p.scalar(off);
        p.scalar(total);
        p.scalar(piece ? piece : chainPiece(call, total, hops));
        if (!fan) {
          p.scalar(slots);
          p.scalar(laps);
        }
        p.i32(root);
      });
}

} // namespace

/// One-shot up to SYMM_ALL_REDUCE_ONE_SHOT_MAX, then two-shot, or the ring
/// on 4 ranks above 16 MB and on more above 64 MB (see docs/Collectives.md).
/// Low-latency is chosen later, once the configuration is read.
symm_status allReduceAlgorithm(size_t bytes, int world, AllReduceAlgo *algo,
                               bool *bySize) {
  int forced;
  if (symm_status st = forcedAlgorithm(
          "SYMM_ALL_REDUCE_ALGO",
          {"ll", "one_shot", "two_shot", "ring", "ll_two_shot", "ll128",
           "ll128_two_shot"},
          &forced))
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
  bool gpu = onGpu();
  const char *oneShotMax =
      envOr("SYMM_ALL_REDUCE_ONE_SHOT_MAX", !gpu         ? "64K"
                                            : world == 2 ? "4M"
                                                         : "1M");
  std::optional<size_t> limit = env::parseSize(oneShotMax);
  if (!limit)
    return fail(SYMM_ERROR_INVALID_ARGUMENT,
                "SYMM_ALL_REDUCE_ONE_SHOT_MAX='%s' is not a size", oneShotMax);
  // Above the one-shot limit, two-shot, except the ring on 3 ranks above
  // 32 MB, on 4 above 16 MB and on more above 64 MB. On 3 H200s the ring
  // beat two-shot from 64 MB to 1 GB by 3-5% (259.2 against 267.2 us at
  // 64 MB, 4062.8 against 4180.7 at 1 GB, where NCCL took 4105.3;
  // bench/results/h200x4-collectives-ll-halves), as the model says from
  // 8 MB; 32 MB and below were not measured there. By this rule, against
  // the code before it in one command: 64 MB 258.8 against 267.6 us, 1 GB
  // 4063.1 against 4185.4 (NCCL 4115.3), 1.15-1.01x NCCL from 64 MB where
  // two-shot gave 1.11-0.98x (h200x4-collectives-sweep-after-halves/three).
  // The ring was once faster everywhere from 4 ranks (2 MB: 45 against 58
  // us on 4 H200s, 90 against 118 on 8), while two-shot fenced and
  // signalled each peer in turn. Storing into all peers with one fence took
  // two-shot's 2 MB call on 4 H200s from 57.1 to 28.8 us (from a
  // graph), and, issued call by call, it beat the ring up to 16 MB (95.6
  // against 101.7 us; NCCL 98.5), and the ring beat it from 32 MB (166.7
  // against 170.6; 1 GB 4687 against 4796), as it pipelines one peer per step.
  // From 5 ranks the ring's 2 (n - 1) dependent steps weigh more: the model
  // (bench/collectives/model.py, whose two-shot and ring are within 0-3% of
  // the 4-GPU runs from 4 MB) puts two-shot ahead on 8 GPUs up to 64 MB
  // (4 MB 38.9 against 94.6 us, 16 MB 102.7 against 155.0, 64 MB 358.2
  // against 397.0; NCCL measured 47.9, 118.0 and 362.4 on 8 H200s), so it
  // runs there up to 64 MB, and the ring above, as on 4 ranks above 16 MB.
  // Not measured on more than 4 GPUs since two-shot stores into all peers
  // with one fence (on 8 H200s before that, the ring won from 2 MB). CPU
  // ranks follow the same rule, so that they fold floating-point sums in
  // the order GPUs do.
  constexpr size_t kRingMinBytes3 = size_t(32) << 20;
  constexpr size_t kRingMinBytes4 = size_t(16) << 20;
  constexpr size_t kRingMinBytesMore = size_t(64) << 20;
  if (world <= 1 || bytes <= *limit)
    *algo = AllReduceAlgo::OneShot;
  else if ((world == 3 && bytes > kRingMinBytes3) ||
           (world == 4 && bytes > kRingMinBytes4) ||
           (world >= 5 && bytes > kRingMinBytesMore))
    *algo = AllReduceAlgo::Ring;
  else
    *algo = AllReduceAlgo::TwoShot;
  return SYMM_SUCCESS;
}

/// `root` (the root stores into every rank), `scatter` (a scatter and an
/// all-gather), `chain` (a pipelined chain), `ll_chain` (the low-latency
/// chain), `copy_engine` (a chain of copies), `ll128_chain` (the
/// low-latency chain in LL128 lines), `fan` (the pipelined pieces in two hops:
/// the root into one rank, that rank into the others), or unset: the choice
/// by size and rank count (see broadcast).
symm_status broadcastAlgorithm(BroadcastAlgo *algo) {
  int forced;
  if (symm_status st = forcedAlgorithm("SYMM_BROADCAST_ALGO",
                                       {"root", "scatter", "chain", "ll_chain",
                                        "copy_engine", "ll128_chain", "fan"},
                                       &forced))
    return st;
  // In the order of the names.
  *algo = forced < 0 ? BroadcastAlgo::BySize : BroadcastAlgo(forced);
  return SYMM_SUCCESS;
}

symm_status reduceScatterAlgorithm(ReduceScatterAlgo *algo) {
  int forced;
  if (symm_status st = forcedAlgorithm("SYMM_REDUCE_SCATTER_ALGO",
                                       {"ll", "scatter", "ring"}, &forced))
    return st;
  // In the order of the names.
  *algo = forced < 0 ? ReduceScatterAlgo::BySize : ReduceScatterAlgo(forced);
  return SYMM_SUCCESS;
}

symm_status exchangeAlgorithm(const char *var, ExchangeAlgo *algo) {
  int forced;
  if (symm_status st = forcedAlgorithm(var, {"stores", "copy_engine"}, &forced))
    return st;
  *algo = forced < 0 ? ExchangeAlgo::BySize : ExchangeAlgo(forced);
  return SYMM_SUCCESS;
}

/// Whether an all-gather or all-to-all of `block` bytes a rank goes by the
/// copy engines when the size chooses: on 2 GPUs from blocks of 256 MB
/// (calls of 512 MB; CPU ranks run them only when forced). On 2 H200s,
/// from a stream, against the SM stores (NCCL in brackets), all-to-all:
/// 512 MB 810 against 843 us (918), 1 GB 1572 against 1685 (1625);
/// all-gather 512 MB 818 against 842 (1056), 1 GB 1573 against 1683
/// (1990); at 256 MB the stores won (421 against 437-439; bench/results/
/// h200x2-collectives-ce-exchange). The copy engine moves 388 GB/s each
/// way where SM stores beside the own block's local copy move 330
/// (peer_bandwidth.cu). On more ranks an all-to-all block would go its own
/// chain and the all-gather ring's n - 2 further hops delay the last chunk
/// by whole stages, so there they run only when forced.
bool copyEngineExchangeWins(const Call &call, size_t block) {
  constexpr size_t kCopyEngineBlockMin = size_t(256) << 20;
  return onGpu() && call.world == 2 && block >= kCopyEngineBlockMin &&
         copyEngineAvailable(call);
}

/// Launches one exchange per chunk (see symm_tile_exchange in the kernels).
/// From SYMM_COLLECTIVES_DIRECT_MIN bytes per block on, the `exchange_direct`
/// kernel stores into receive buffers in the heap directly, except where a
/// receiver still reads its send buffer in place (`directInPlace` false).
symm_status exchange(Call &call, const Exchange &x) {
  // The copy engines move an all-gather on any number of ranks, and an
  // all-to-all on 2, where a block goes one hop (on more, its own chain),
  // when forced, and both on 2 GPUs by size (copyEngineExchangeWins); they
  // leave the SMs free for work beside the call.
  bool ring = x.root < 0 && (x.sendStride == 0 || call.world <= 2);
  if (ring && (x.algo == ExchangeAlgo::CopyEngine ||
               (x.algo == ExchangeAlgo::BySize &&
                copyEngineExchangeWins(call, x.count * call.esize))))
    return copyEngineExchange(call, x);
  if (x.algo == ExchangeAlgo::CopyEngine && call.s->debug)
    fprintf(stderr,
            "symm: rank %d: %s: copy_engine moves an all-to-all on 2 "
            "ranks only; the kernels move this one\n",
            call.rank, call.fn);
  if (call.llFits(x.count)) {
    Params p;
    p.memref(x.send, x.sendElems);
    p.memref(x.recv, x.recvElems);
    call.llParams(p);
    for (size_t v : {x.count, x.sendStride, x.recvStride})
      p.scalar(v);
    p.i32(x.root);
    p.scalar(call.llCap());
    call.epochParams(p);
    trace(call, x.count, "exchange_ll", 1, call.llGrid(x.count));
    return call.launch(p, "exchange_ll", call.llGrid(x.count));
  }
  bool direct = call.world > 1 && x.count * call.esize >= call.s->directMin;
  int64_t published = publishedOffset(call, x.recv, x.recvElems,
                                      x.directInPlace || x.send != x.recv);
  return launchChunks(
      call, direct ? "exchange_direct" : "exchange", x.count, call.slotCap(1),
      [&](size_t total) { return call.grid(total); },
      [&](Params &p, size_t off, size_t total) {
        p.memref(x.send, x.sendElems);
        p.memref(x.recv, x.recvElems);
        call.channelParams(p, direct);
        for (size_t v : {off, total, x.sendStride, x.recvStride})
          p.scalar(v);
        p.i32(x.root);
        if (direct)
          p.scalar(uint64_t(published));
      });
}

symm_status allReduce(Call &call, const void *send, void *recv, size_t count,
                      symm_reduce_op op, AllReduceAlgo algo, bool bySize) {
  // By size, up to the one-shot limit: low-latency where the call fits it
  // (Call::llFits). From 3 ranks, above kLlOneShotOut bytes out of each
  // rank, the low-latency two-shot while one launch holds the call: it moves
  // 4 (n - 1) / n of the buffer out of each rank in tagged words, where
  // the low-latency one-shot moves 2 (n - 1) (the same on 2 ranks, where it
  // only adds a hop). On 4 H100s (graph) it took 128 KB from 10.2 to 8.8 us,
  // 256 KB from 15.3 to 10.3 and 512 KB from 22.5 (one-shot) to 14.7 (NCCL
  // 11.0, 11.2, 14.1); at 1 MB, two launches, it only matched one-shot.
  // On 2 ranks, one-shot above kLlAllReduceMax2.
  bool llFits = call.llFits(count);
  // On 2 ranks, LL128 up to kLl128AllReduceMax2, on 3 and 4 from
  // kLl128AllReduceMin34 up to kLl128AllReduceMax34, where it can run.
  size_t bytes = count * call.esize;
  bool ll128BySize =
      (call.world == 2 && bytes <= kLl128AllReduceMax2) ||
      ((call.world == 3 || call.world == 4) && bytes >= kLl128AllReduceMin34 &&
       bytes <= kLl128AllReduceMax34);
  if (bySize && algo == AllReduceAlgo::OneShot && ll128BySize &&
      ll128Runs(call))
    algo = AllReduceAlgo::LowLatency128;
  if (bySize && algo == AllReduceAlgo::OneShot) {
    size_t out = bytes * size_t(call.world - 1);
    if (llFits && out <= (call.world < 3 ? kLlAllReduceMax2 : kLlOneShotOut))
      algo = AllReduceAlgo::LowLatency;
    else if (call.world >= 3 && count <= call.world * llSegmentCap(call))
      algo = AllReduceAlgo::LowLatencyTwoShot;
  } else if (algo == AllReduceAlgo::LowLatency && !llFits) {
    algo = AllReduceAlgo::OneShot; // a forced `ll` that the call does not fit
  }
  // From 3 ranks, where a flagged kernel would run (one-shot, two-shot, the
  // ring) and one launch of the LL128 two-shot holds the call (n segments
  // of half a rank's LL128 slot: 3 MB on 3 GPUs, 2.67 MB on 4, 2.29 MB on
  // 8), the LL128 two-shot: on 4 H200s from a graph 2 MB took 22.5 us
  // against two-shot's 24.7 (NCCL 26.5), on 3 18.4 against 21.8 (25.5); at
  // 1 MB the LL128 one-shot still led (16.2 against 17.2 on 4), and at 4 MB,
  // two launches, two-shot (34.1 against 45.5)
  // (bench/results/h200x4-all-reduce-ll128-two-shot). On 8 ranks it takes
  // one-shot's 7 copies and the ring's 14 steps from 585 KB to 2.29 MB,
  // where it moves 2 (n - 1) / n of the call in lines: not measured there.
  bool flagged = algo == AllReduceAlgo::OneShot ||
                 algo == AllReduceAlgo::TwoShot || algo == AllReduceAlgo::Ring;
  if (bySize && flagged && call.world >= 3 && ll128Runs(call) &&
      count <= call.world * ll128SegmentCap(call))
    algo = AllReduceAlgo::LowLatency128TwoShot;
  // The LL128 two-shot where a segment holds a line; else the low-latency
  // two-shot.
  if (algo == AllReduceAlgo::LowLatency128TwoShot) {
    if (ll128Runs(call) && ll128SegmentCap(call))
      return lowLatencyTwoShot(call, send, recv, count, op, /*lines=*/true);
    algo = AllReduceAlgo::LowLatencyTwoShot;
  }
  // The low-latency two-shot where the low-latency buffer has room for it;
  // else two-shot.
  if (algo == AllReduceAlgo::LowLatencyTwoShot) {
    if (call.world > 1 && llSegmentCap(call))
      return lowLatencyTwoShot(call, send, recv, count, op, /*lines=*/false);
    algo = AllReduceAlgo::TwoShot;
  }
  if (algo == AllReduceAlgo::LowLatency128) {
    if (ll128Runs(call))
      return lowLatency128(call, send, recv, count, op);
    algo = llFits ? AllReduceAlgo::LowLatency : AllReduceAlgo::OneShot;
  }
  if (algo == AllReduceAlgo::LowLatency) // every peer gets the whole buffer
    return reduceLowLatency(call, {.send = send,
                                   .sendElems = count,
                                   .recv = recv,
                                   .count = count,
                                   .sendStride = 0,
                                   .op = op});
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
    direct = count * call.esize >= call.s->directMin;
    kernel = direct ? "all_reduce_two_shot_direct" : "all_reduce_two_shot";
  } else if (algo == AllReduceAlgo::Ring) {
    size_t steps = std::max(1, 2 * (call.world - 1));
    cap = call.granuleDown(call.scratchElems() / steps) * call.world;
    kernel = "all_reduce_ring";
  }
  int64_t published = publishedOffset(call, recv, count, direct);
  return launchChunks(
      call, kernel, count, cap, [&](size_t total) { return call.grid(total); },
      [&](Params &p, size_t off, size_t total) {
        p.memref(send, count);
        p.memref(recv, count);
        call.channelParams(p, direct);
        p.scalar(off);
        p.scalar(total);
        if (algo != AllReduceAlgo::OneShot) {
          unsigned grid = call.grid(total);
          size_t seg = call.segment(total, cap / call.world, grid);
          p.scalar(seg);
          if (algo == AllReduceAlgo::Ring)
            p.scalar(ringPieces(call, partOf(call, seg, grid)));
        }
        p.i32(op);
        if (direct)
          p.scalar(uint64_t(published));
      });
}

/// A reduce-scatter by the scatter (on GPUs only forced at these sizes since
/// the ring, which takes them by size) of at least State::wideMin bytes (every
/// rank's send buffer; 32 MB on GPUs) on 4 ranks or more gets up to
/// State::wideBlocks workgroups (256 on GPUs) where the others get up to 128.
/// On 4 H100s, before the ring, one command, 128 against 256 workgroups twice
/// each (µs, stream; NCCL in brackets): 32 MB 103.2-103.6 against 100.1-100.2
/// (106.0), 64 MB 203.4 against 187.8-189.2 (194.5), 256 MB 665.8-666.3 against
/// 656.6-661.3 (679.6), 512 MB 1320-1325 against 1296-1302 (1304.5), 1 GB 2637
/// against 2586-2590 (2500.8); 128 MB 357.8-360.6 against 363.0-364.4 (357.8),
/// and 16 MB 52.5-53.0 against 54.8-54.9 (61.3), hence the threshold
/// (bench/results/h100x4-reduce-scatter-grid-256). More workgroups reduce more
/// pieces at once; why 64 MB gains most is not known. Not measured on 3 ranks
/// (1.11x NCCL or more from 2 MB) nor on more than 4.
symm_status reduceScatter(Call &call, const void *send, void *recv,
                          size_t count, symm_reduce_op op,
                          ReduceScatterAlgo algo) {
  bool llFits = call.llFits(count);
  // The ring for send buffers of 16 MB on 3 and 4 ranks, of 32 MB on more,
  // and from 4 to 32 MB on 2; else the scatter. On 4 H200s the ring beat the
  // scatter from 16 MB (48.6 against 49.5 us from a graph; 64 MB 159.5
  // against 180.1, 1 GB 2458 against 2571, NCCL 56.3, 186.9 and 2501) and
  // lost below (8 MB 29.8 against 28.8); on 3 from 16 MB too (46.3 against
  // 48.9; 1 GB 2432 against 2648, NCCL 2917), where blocks of a third of a
  // power of two start between vectors (bench/results/
  // h200x4-reduce-scatter-ring): each rank folds its partial as it lands and
  // passes it on, where the scatter folds n slots once every piece landed.
  // From 5 ranks the ring's n - 1 dependent steps weigh more: the model
  // (bench/collectives/model.py; on 4 GPUs within 1-3% of the ring from 64
  // MB, 12-16% under the scatter) puts it level with the scatter at 32 MB
  // on 8 GPUs (94.2 against 92.9 us) and ahead above (64 MB 177.8 against
  // 182.6), behind at 16 MB (52.3 against 48.1).
  // Not measured on more than 4 GPUs. On 2 the ring is one step, whose
  // fold waits for all of a workgroup's part where the scatter's pieces
  // overlap the two: it won from 4 to 32 MB (from a graph 4 MB 14.1 against
  // 14.6 us, 32 MB 69.3 against 76.3; NCCL 22.4, 91.5) and lost from 64 MB
  // (132.2 against 125.3; 1 GB 1912 against 1748, NCCL 2011), twice alike
  // (bench/results/h200x4-reduce-scatter-ring, committed/two and
  // two-vectors/two). CPU ranks follow the same rule, so that they fold
  // floating-point sums in the order GPUs do.
  constexpr size_t kRsRingMin2 = size_t(4) << 20;
  constexpr size_t kRsRingMax2 = size_t(32) << 20;
  constexpr size_t kRsRingMinBytes = size_t(16) << 20;
  constexpr size_t kRsRingMinBytesMore = size_t(32) << 20;
  size_t sendBytes = count * call.world * call.esize;
  bool ringBySize =
      call.world == 2
          ? sendBytes >= kRsRingMin2 && sendBytes <= kRsRingMax2
          : call.world >= 3 && sendBytes >= (call.world <= 4
                                                 ? kRsRingMinBytes
                                                 : kRsRingMinBytesMore);
  if (algo == ReduceScatterAlgo::BySize)
    algo = llFits       ? ReduceScatterAlgo::LowLatency
           : ringBySize ? ReduceScatterAlgo::Ring
                        : ReduceScatterAlgo::Scatter;
  else if (algo == ReduceScatterAlgo::LowLatency && !llFits)
    algo = ReduceScatterAlgo::Scatter; // a forced `ll` the call does not fit
  if (algo == ReduceScatterAlgo::LowLatency) // peer p gets block p
    return reduceLowLatency(call, {.send = send,
                                   .sendElems = count * call.world,
                                   .recv = recv,
                                   .count = count,
                                   .sendStride = count,
                                   .op = op});
  if (algo == ReduceScatterAlgo::Ring) {
    // A slot per step for the one peer that stores here (world - 1 steps),
    // each holding a block's chunk: its partial as it travels.
    size_t cap = call.granuleDown(call.scratchElems() /
                                  size_t(std::max(1, call.world - 1)));
    return launchChunks(
        call, "reduce_scatter_ring", count, cap,
        [&](size_t total) { return call.grid(total * call.world); },
        [&](Params &p, size_t off, size_t total) {
          p.memref(send, count * call.world);
          // The kernel indexes recv like this rank's block of send: from 0.
          p.memref(recv, count);
          call.channelParams(p, /*direct=*/false);
          p.scalar(off);
          p.scalar(total);
          p.scalar(count);
          p.scalar(cap);
          p.scalar(ringPieces(
              call, partOf(call, total, call.grid(total * call.world))));
          p.i32(op);
        });
  }
  bool wide = call.world >= 4 &&
              count * call.world * call.esize >= call.s->wideMin;
  unsigned most = wide ? call.s->wideBlocks : call.s->blocks;
  return launchChunks(
      call, "reduce_scatter", count, call.slotCap(1),
      [&](size_t total) {
        return call.gridOf(total * call.world, call.s->blockBytes, most);
      },
      [&](Params &p, size_t off, size_t total) {
        p.memref(send, count * call.world);
        // The kernel indexes recv like this rank's block of send: from 0.
        p.memref(recv, count);
        call.channelParams(p, /*direct=*/false);
        p.memref(call.progress(), kProgressBytes / sizeof(int32_t));
        p.scalar(off);
        p.scalar(total);
        p.scalar(count);
        p.i32(op);
      });
}

symm_status broadcast(Call &call, const void *send, void *recv, size_t count,
                      int root, BroadcastAlgo algo) {
  const void *src = call.rank == root ? send : recv;
  size_t bytes = count * call.esize;
  // From 3 ranks, above kLlRootMax bytes, the low-latency chain while one
  // launch holds the call: the root's words go out once and every rank
  // forwards them as they land. Against the root's low-latency stores it
  // saves 2 (n - 2) S bytes out of the root and costs n - 2 hops of a
  // word's flight, so it wins above a size that does not depend on n: on 3
  // and 4 H100s between 64 and 128 KB (64 KB: 5.3-5.9 against 5.6-6.9 us
  // from a stream, 4.6-5.6 against 4.3-5.5 from a graph). On 4 it took
  // 256 KB from 13.3 us (the root's stores) to 7.6, 512 KB from 20.8 to 9.9
  // and 1 MB from 26.7 (the chain) to 15.7 (NCCL 11.4, 11.8, 13.1); on 3,
  // 128 KB from 7.2 to 5.7. At 2 MB, two launches, it lost to the chain
  // (37.6 against 31.3).
  if (algo == BroadcastAlgo::LowLatencyChain && !llChainCap(call))
    algo = BroadcastAlgo::Chain; // forced with low-latency off
  if (algo == BroadcastAlgo::LowLatency128Chain ||
      (algo == BroadcastAlgo::BySize && ll128ChainWins(call, bytes)))
    return ll128Runs(call)
               ? lowLatencyChain(call, /*lines=*/true, src, recv, count, root)
               : chainBroadcast(call, src, recv, count, root, /*fan=*/false);
  bool llRootStores =
      call.llFits(count) && (call.world < 3 || bytes <= kLlRootMax);
  bool fewRanks = call.world <= 4;
  if (algo == BroadcastAlgo::LowLatencyChain ||
      (algo == BroadcastAlgo::BySize && call.world >= 3 && !llRootStores &&
       count <= llChainCap(call) && (!fewRanks || bytes <= kLlChainMax4)))
    return lowLatencyChain(call, /*lines=*/false, src, recv, count, root);
  if (algo == BroadcastAlgo::CopyEngine ||
      (algo == BroadcastAlgo::BySize && copyEngineWins(call, bytes)))
    return copyEngineBroadcast(call, send, recv, count, root);
  // By size, from 3 ranks on and above the low-latency chain's size (a call
  // that fits the low-latency kernels fits it), the chain from chainMin bytes:
  // on 4 H200s it beat the root's stores and the scatter from 1 MB (18.8
  // against 20.1 us) to 1 GB (3518 against 4685 us), with the 16 KiB pieces
  // before chainPiece; up to 4 ranks it follows the low-latency chain
  // (kLlChainMax4). With more ranks each piece takes n - 1 hops; above the
  // LL128 chain (16 MB) the model puts the chain ahead of the scatter on 8
  // GPUs (32 MB 141.4 against 190.2 us, 64 MB 242.8 against 355.5; NCCL
  // measured 110.7 and 204.0 there), where it ran from 64 MB before its
  // pieces and its one launch; not measured on more than 4 GPUs.
  size_t chainMin = fewRanks ? kLlChainMax4 : size_t(16) << 20;
  // On 3 ranks from 16 MB (above it where the LL128 chain runs) the fan
  // instead: there it is the chain with the two other ranks' order
  // alternating by workgroup, so each forwards half the buffer where the
  // chain's second rank forwarded all of it. On 3
  // H100s, one command (bench/results/h100x4-broadcast-fan), graph: 16 MB
  // 69.5 against the LL128 chain's 70.6 us, 32 MB 126.4 against the chain's
  // 136.6, 64 MB 230.5 against 241.4; stream: 128 MB 434.0 against 443.7,
  // 256 MB to 1 GB level (NCCL 61.8, 111.5, 207.6, 398.8). On 4 it lost to
  // the chain at every size from 1 MB, with 128, 256 or 512 workgroups
  // (16 MB 76.8 against 75.1 us, 256 MB 864 against 832;
  // bench/results/h100x4-broadcast-fan-workgroups). Not above the scratch,
  // where the fan takes a launch per chunk and the chain one: on 3 H200s
  // 512 MB 1510 against 1540 us and 1 GB 2988 against 3079 (NCCL 1490 and
  // 2966), 256 MB level (768.7 against 770.7), 128 MB 401.9 against 395.5
  // (bench/results/h200x4-all-reduce-ring-lines/before-3-*).
  bool fanBySize = call.world == 3 && bytes >= (size_t(16) << 20) &&
                   count <= call.roundDown(call.scratchElems());
  if (algo == BroadcastAlgo::Fan ||
      (algo == BroadcastAlgo::BySize && fanBySize))
    return chainBroadcast(call, src, recv, count, root, /*fan=*/true);
  if (algo == BroadcastAlgo::Chain ||
      (algo == BroadcastAlgo::BySize && call.world >= 3 && bytes >= chainMin))
    return chainBroadcast(call, src, recv, count, root, /*fan=*/false);
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
  if (!scatter)
    return exchange(call, {.send = src,
                           .recv = recv,
                           .count = count,
                           .root = root,
                           .sendElems = count,
                           .recvElems = count});
  size_t esize = call.esize, own = call.rank * block * esize;
  char *mine = static_cast<char *>(recv) + own;
  if (symm_status st = exchange(call, {.send = src,
                                       .recv = mine,
                                       .count = block,
                                       .sendStride = block,
                                       .root = root,
                                       .sendElems = count,
                                       .recvElems = block}))
    return st;
  if (symm_status st = exchange(call, {.send = mine,
                                       .recv = recv,
                                       .count = block,
                                       .recvStride = block,
                                       .sendElems = block,
                                       .recvElems = block * call.world}))
    return st;
  size_t done = block * call.world;
  if (done == count)
    return SYMM_SUCCESS;
  return exchange(call, {.send = static_cast<const char *>(src) + done * esize,
                         .recv = static_cast<char *>(recv) + done * esize,
                         .count = count - done,
                         .root = root,
                         .sendElems = count - done,
                         .recvElems = count - done});
}

symm_status allToAllv(Call &call, const AllToAllv &a) {
  // Round k: send to rank + k, receive from rank - k; each pair of ranks
  // talks in the same round on both ends.
  size_t cap = call.slotCap(1), launches = 0, sent = 0;
  for (int k = 0; k < call.world; ++k) {
    int to = (call.rank + k) % call.world;
    int from = (call.rank - k + call.world) % call.world;
    size_t nsend = (a.sendCounts[to] + cap - 1) / cap;
    size_t nrecv = (a.recvCounts[from] + cap - 1) / cap;
    if (!nsend && !nrecv)
      continue;
    ++launches;
    sent += a.sendCounts[to];
    Params p;
    p.memref(a.send, a.sendElems);
    p.memref(a.recv, a.recvElems);
    p.memref(call.pairScratch(), call.scratchElems());
    p.memref(call.pairFlags(), kFlagBytes / sizeof(int32_t));
    for (size_t v : {a.sendDispls[to], a.sendCounts[to], a.recvDispls[from],
                     a.recvCounts[from]})
      p.scalar(v);
    p.i32(to);
    p.i32(from);
    p.scalar(cap);
    p.memref(call.pairCounts(), kPairCountBytes / sizeof(int32_t));
    // The pair flags count chunks per workgroup: every launch uses them all.
    if (symm_status st =
            call.launch(p, "send_recv", call.s->blocks, /*slots=*/false))
      return st;
  }
  trace(call, sent, "send_recv", launches, call.s->blocks);
  return SYMM_SUCCESS;
}

} // namespace symm::collectives
