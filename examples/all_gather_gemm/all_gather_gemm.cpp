//===- all_gather_gemm.cpp - All-gather + GEMM ----------------------------===//
//
// C = gather(A) · B: A (M x K, bf16, any M >= 1) is sharded by rows, rank r
// holding rows r·S .. min((r+1)·S, M) - 1, S = ceil(M / W) (the last ranks
// fewer, or none); every rank multiplies the whole A by its own B (K x N,
// bf16) into its own C (M x N, bf16), with f32 accumulation: the
// column-parallel linear layer after a sequence-parallel one, as PyTorch's
// fused_all_gather_matmul computes it. The shards move and are multiplied
// in blocks of 128 rows (all_gather_gemm.mlir: a_shard holds ceil(S / 128)
// blocks, the last one padded; a_full W times that).
//
//   --variant=bulk_sync  symm_all_gather of A, then the GEMM
//   --variant=pull       the GEMM loads a peer's A tiles from its shard,
//                        through the heap, inside the k loop
//   --variant=push       a push kernel (second stream) copies this rank's
//                        shard to every peer, one flag per 128-row block;
//                        the GEMM waits for a block's flag before its tiles,
//                        its own rows first
//   --variant=fused      push's two kernels in one launch: the first
//                        workgroups copy, the others compute
//
//   --kernel=portable    all_gather_gemm.mlir: subgroup MMA, every target
//   --kernel=hopper      all_gather_gemm_hopper.mlir: TMA + wgmma (sm_90a),
//                        A's boxes through one TMA descriptor per rank's
//                        rows (for pull, over the peer's own shard)
//
// Every rank checks C against a reference computed in double from the same
// bf16 inputs (regenerated from the seed) and prints PASS or FAIL with the
// worst error; --bench times the variant (and still checks the last result).
//
//===----------------------------------------------------------------------===//

#include "workload.h"

#include <cinttypes>

using namespace workload;

namespace {

constexpr int64_t kTile = 128; // rows and columns of a block tile
constexpr int64_t kStep = 32;  // the k depth of one main-loop step
constexpr unsigned kSubgroups = 8;
// The hopper kernel (all_gather_gemm_hopper.mlir) takes one A descriptor
// argument per rank.
constexpr int kHopperRanks = 8;

/// The kernel's `source` argument: where the GEMM reads A's rows.
enum Source : uint64_t { kGathered = 0, kPull = 1, kPushed = 2 };

/// Seeds of rank q's inputs: one stream for B, one per row of its A shard,
/// so that a reference can draw any row of A without the rows before it.
/// The Rng's streams for seeds s and s + 1 are one step apart, so the seeds
/// are hashed (by one step of an Rng) to start the streams far apart.
uint64_t hashed(uint64_t x) { return Rng(x).next(); }
uint64_t bSeed(uint64_t seed, int q) {
  return hashed(seed * 1000003 + uint64_t(q));
}
uint64_t aRowSeed(uint64_t seed, int q, int64_t row) {
  return hashed(bSeed(seed, q) ^ hashed(uint64_t(row) + 1));
}

/// Row `row` of rank q's A shard (k bf16 values in [-1, 1)).
void makeARow(uint64_t seed, int q, int64_t row, int64_t k, uint16_t *out) {
  Rng rng(aRowSeed(seed, q, row));
  for (int64_t j = 0; j < k; ++j)
    out[j] = toBf16(rng.uniform(-1, 1));
}

} // namespace

int main(int argc, char **argv) {
  Args args("all_gather_gemm",
            "C = gather(A) . B (bf16, A sharded by rows, B and C per rank)");
  args.option("variant", "fused", "bulk_sync | pull | push | fused, or a list");
  args.option("kernel", "auto",
              "portable | hopper, or a list (auto: hopper on GPUs when its "
              "compiled kernel is there, else portable)");
  args.option("m", "768",
              "rows of A and C (any number from 1), ceil(M / ranks) on each "
              "rank, the last ranks fewer");
  args.option("n", "256",
              "columns of B and C on each rank (a multiple of 128 for "
              "--kernel=portable, of 8 for hopper)");
  args.option("k", "128",
              "columns of A, rows of B (a multiple of 32 for "
              "--kernel=portable, of 8 for hopper)");
  args.option("grid", "auto",
              "GEMM workgroups, persistent (auto: one per SM on GPUs, 132 "
              "on an H100/H200; 4 on CPU ranks; at most one per tile)");
  args.option("push-grid", "auto",
              "workgroups that copy A in push and fused (auto: 16 on GPUs, 2 "
              "on CPU ranks; at most one per row block and peer)");
  args.option("check-rows", "auto",
              "rows of C checked (auto: all when M x N x K <= 2^31, else "
              "rows spread evenly over A up to that many products)");
  args.option("kernel-dir", "auto",
              "where the compiled kernels all_gather_gemm.so/.ptx/.hsaco and "
              "all_gather_gemm_hopper.* are (auto: beside the program)");
  args.parse(argc, argv);
  std::vector<std::string> variants =
      args.choices("variant", {"bulk_sync", "pull", "push", "fused"});
  int64_t m = args.integer("m"), n = args.integer("n"), k = args.integer("k");
  uint64_t seed = uint64_t(args.integer("seed"));
  bool bench = args.has("bench");
  int iters = int(args.integer("iters")), warmup = int(args.integer("warmup"));

  WORKLOAD_CHECK(symm_init());
  int rank = symm_rank(), world = symm_world_size();
  auto kernelPath = [&](const std::string &file) {
    std::string path = kernelsPath(file);
    if (args.str("kernel-dir") != "auto")
      path = args.str("kernel-dir") + path.substr(path.find_last_of('/'));
    return path;
  };
  std::vector<std::string> kernels;
  if (args.str("kernel") == "auto")
    kernels = {onGpu() && access(kernelPath("all_gather_gemm_hopper").c_str(),
                                 R_OK) == 0
                   ? "hopper"
                   : "portable"};
  else
    kernels = args.choices("kernel", {"portable", "hopper"});
  bool hopper =
      std::find(kernels.begin(), kernels.end(), "hopper") != kernels.end();
  bool portable =
      std::find(kernels.begin(), kernels.end(), "portable") != kernels.end();
  if (portable && n % kTile)
    args.fail("--n=" + std::to_string(n) +
              " is not a multiple of 128 (the portable kernel's tiles)");
  if (portable && k % kStep)
    args.fail("--k=" + std::to_string(k) +
              " is not a multiple of 32 (the portable kernel's K step)");
  if (hopper)
    checkHopperSizes(args, n, k);
  if (hopper && world > kHopperRanks)
    args.fail("--kernel=hopper takes at most " + std::to_string(kHopperRanks) +
              " ranks (one A descriptor argument each), not " +
              std::to_string(world));
  // Rank q's rows: shardRows from q·shardRows on, fewer on the last ranks;
  // its shard moves as `blocks` blocks of 128 rows (padded), which A's
  // padded copies (a_shard, a_full) hold.
  int64_t shardRows = (m + world - 1) / world;
  int64_t blocks = (shardRows + kTile - 1) / kTile, paddedRows = blocks * kTile;
  auto rowsOf = [&](int q) {
    return std::clamp<int64_t>(m - q * shardRows, 0, shardRows);
  };
  int64_t pushItems = blocks * (world - 1);
  int64_t pushGrid = args.str("push-grid") == "auto"
                         ? (onGpu() ? 16 : 2)
                         : args.integer("push-grid");
  pushGrid = std::max<int64_t>(1, std::min(pushGrid, pushItems));
  // AMD's subgroups (wavefronts) have 64 lanes, the others 32; the kernel
  // takes the width as an argument (convert-gpu-to-nvvm does not lower
  // gpu.subgroup_size) and a workgroup is 8 subgroups.
  unsigned lanes = std::strcmp(symm_backend_name(), "hip") == 0 ? 64 : 32;
  unsigned block = kSubgroups * lanes;
  // The compiled kernels, checked before anything is allocated.
  std::map<std::string, symm_module *> modules;
  for (const std::string &kind : kernels) {
    std::string file =
        kind == "portable" ? "all_gather_gemm" : "all_gather_gemm_hopper";
    std::string path = kernelPath(file);
    if (access(path.c_str(), R_OK) != 0)
      args.fail("--kernel=" + kind + ": no compiled kernel at " + path +
                " (built from examples/all_gather_gemm/" + file + ".mlir)");
    WORKLOAD_CHECK(symm_module_load_file(path.c_str(), &modules[kind]));
  }

  // This rank's inputs: its A shard (row by row, zeros past its rows) and
  // its B.
  std::vector<uint16_t> shard(size_t(paddedRows * k), 0), b(size_t(k * n));
  for (int64_t i = 0; i < rowsOf(rank); ++i)
    makeARow(seed, rank, i, k, &shard[size_t(i * k)]);
  Rng brng(bSeed(seed, rank));
  for (uint16_t &v : b)
    v = toBf16(brng.uniform(-1, 1));

  uint16_t *aShard = heapAlloc<uint16_t>(shard.size());
  uint16_t *aFull = heapAlloc<uint16_t>(size_t(world * paddedRows * k));
  uint16_t *db = deviceAlloc<uint16_t>(b.size());
  uint16_t *dc = deviceAlloc<uint16_t>(size_t(m * n));
  upload(aShard, shard);
  upload(db, b);
  // The hopper kernel's TMA descriptors (128-byte swizzle, the kernel's
  // boxes): B's, and A's for each rank q's rows, wherever a variant reads
  // them: q's rows of the gathered A, or q's shard itself through the heap.
  void *tmaB = nullptr;
  std::vector<void *> tmaFull(static_cast<size_t>(world)),
      tmaShard(static_cast<size_t>(world));
  if (hopper) {
    tmaB = hopperMapB(db, k, n);
    for (int q = 0; q < world; ++q) {
      void *peerShard = nullptr;
      WORKLOAD_CHECK(symm_translate(aShard, q, &peerShard));
      tmaShard[size_t(q)] = hopperMapA(peerShard, paddedRows, k);
      tmaFull[size_t(q)] =
          hopperMapA(aFull + q * paddedRows * k, paddedRows, k);
    }
  }
  // Flags: one set per kernel and variant (each numbers its launches from
  // epoch 1, and drained counts its own GEMM workgroups per launch):
  // ready[row block], then drained[W], then the hopper kernel's tile
  // tickets.
  int64_t rowBlocks = world * blocks;
  size_t flagCount = size_t(rowBlocks + world + 1);
  std::map<std::string, int32_t *> flags;
  std::map<std::string, int32_t> epochs;
  for (const std::string &kernel : kernels) {
    for (const std::string &variant : variants) {
      std::string v = kernel + " " + variant;
      if (flags.count(v))
        continue;
      flags[v] = heapAlloc<int32_t>(flagCount);
      upload(flags[v], std::vector<int32_t>(flagCount, 0));
      epochs[v] = 0;
    }
  }

  // The reference, in double, for the rows checked: every row, or rows
  // spread evenly over A at varying places within their tiles.
  int64_t budget = int64_t(1) << 31;
  int64_t checkRows = args.str("check-rows") == "auto"
                          ? std::max<int64_t>(1, budget / (n * k))
                          : args.integer("check-rows");
  checkRows = std::min(checkRows, m);
  std::vector<int64_t> rows;
  int64_t stride = m / checkRows;
  for (int64_t s = 0; s < checkRows; ++s)
    rows.push_back(s * stride + (s * 97) % stride);
  std::vector<double> bf(b.size());
  for (size_t i = 0; i < b.size(); ++i)
    bf[i] = fromBf16(b[i]);
  std::vector<double> ref(rows.size() * size_t(n), 0.0);
  double squares = 0; // the sum over checked elements of sum_k (a b)^2
  {
    std::vector<uint16_t> arow(static_cast<size_t>(k));
    std::vector<double> sq(static_cast<size_t>(n));
    for (size_t s = 0; s < rows.size(); ++s) {
      int q = int(rows[s] / shardRows);
      makeARow(seed, q, rows[s] - q * shardRows, k, arow.data());
      double *out = &ref[s * size_t(n)];
      std::fill(sq.begin(), sq.end(), 0.0);
      for (int64_t j = 0; j < k; ++j) {
        double a = fromBf16(arow[size_t(j)]);
        const double *brow = &bf[size_t(j * n)];
        for (int64_t c = 0; c < n; ++c) {
          double p = a * brow[c];
          out[c] += p;
          sq[size_t(c)] += p * p;
        }
      }
      for (double v : sq)
        squares += v;
    }
  }
  // Tolerance: the bf16 output is within 2^-8 |c| of the f32 result; the f32
  // sums (in the tensor cores' order) differ from the exact one by far less
  // than 2^-8 of the terms' magnitude sqrt(sum_k (a b)^2), which a missing
  // or repeated 16-deep k step exceeds many times over (README).
  double scale = std::sqrt(squares / double(ref.size()));
  double rtol = 1.0 / 256, atol = scale / 256;

  symm_stream *stream = nullptr, *pushStream = nullptr;
  WORKLOAD_CHECK(symm_stream_create(&stream));
  WORKLOAD_CHECK(symm_stream_create(&pushStream));
  const std::vector<uint16_t> nans(size_t(world * paddedRows * k), 0xFFFF);
  int status = 0;
  for (const std::string &kernel : kernels)
    for (const std::string &variant : variants) {
      bool isHopper = kernel == "hopper";
      int64_t tileN = isHopper ? kHopperTileN : int64_t(kTile);
      int64_t tiles = rowBlocks * ((n + tileN - 1) / tileN);
      int64_t grid = args.str("grid") == "auto" ? deviceGrid(1, 4)
                                                : args.integer("grid");
      grid = std::min(grid, tiles);
      // C and the gathered A start as NaNs: a tile no kernel wrote, or one
      // computed from rows that had not arrived, fails.
      auto reset = [&] {
        upload(dc, std::vector<uint16_t>(size_t(m * n), 0xFFFF));
        upload(aFull, nans);
        WORKLOAD_CHECK(symm_barrier());
      };
      reset();
      std::string run = kernel + " " + variant;
      int32_t *vflags = flags[run];
      auto launch = [&](uint64_t source, int64_t producers, int64_t workgroups,
                        symm_stream *on) {
        Params params;
        params.memref(aShard, shard.size())
            .memref(aFull, size_t(m * k))
            .memref(db, b.size())
            .memref(dc, size_t(m * n))
            .memref(vflags, flagCount)
            .index(uint64_t(m))
            .index(uint64_t(n))
            .index(uint64_t(k))
            .i32(epochs[run]);
        if (!isHopper) {
          params.index(lanes)
              .index(source)
              .index(uint64_t(producers))
              .index(uint64_t(grid))
              .launch(modules[kernel], "all_gather_gemm", unsigned(workgroups),
                      block, on);
          return;
        }
        params.index(source).index(uint64_t(producers)).index(uint64_t(grid));
        // Rank q's rows: its shard itself (pull, and this rank's own rows in
        // push and fused), else its rows of the gathered A. The arguments
        // past the world size are never read.
        for (int q = 0; q < kHopperRanks; ++q) {
          int r = q < world ? q : 0;
          bool shardItself =
              source == kPull || (source == kPushed && r == rank);
          params.pointer(shardItself ? tmaShard[size_t(r)]
                                     : tmaFull[size_t(r)]);
        }
        params.pointer(tmaB).launch(modules[kernel], "all_gather_gemm",
                                    unsigned(workgroups), kHopperThreads, on,
                                    kHopperSharedBytes);
      };
      auto step = [&] {
        ++epochs[run];
        if (variant == "bulk_sync") {
          WORKLOAD_CHECK(symm_all_gather(aShard, aFull, size_t(paddedRows * k),
                                         SYMM_BFLOAT16, stream));
          launch(kGathered, 0, grid, stream);
        } else if (variant == "pull") {
          launch(kPull, 0, grid, stream);
        } else if (variant == "push") {
          launch(kPushed, pushGrid, pushGrid, pushStream);
          launch(kPushed, 0, grid, stream);
        } else {
          launch(kPushed, pushGrid, pushGrid + grid, stream);
        }
      };

      char what[256];
      std::snprintf(what, sizeof(what),
                    "all_gather_gemm %s %s m=%" PRId64 " n=%" PRId64
                    " k=%" PRId64 " ranks=%d",
                    kernel.c_str(), variant.c_str(), m, n, k, world);
      if (bench) {
        // The GEMM's stream ends after every peer's rows arrived; the push
        // stream's last copies end before the peers' GEMMs do.
        double us = timeUs(step, warmup, iters, stream);
        WORKLOAD_CHECK(symm_stream_synchronize(pushStream));
        double flops = 2.0 * double(m) * double(n) * double(k);
        bool pushes = variant == "push" || variant == "fused";
        std::printf(
            "%s grid=%" PRId64 "%s: %.2f us/iter, %.1f TFLOP/s\n", what, grid,
            pushes ? (" push-grid=" + std::to_string(pushGrid)).c_str() : "",
            us, flops / us * 1e-6);
        // The launch checked is one more, from NaNs again: a later epoch
        // whose flags or tile tickets went wrong fails too.
        WORKLOAD_CHECK(symm_stream_synchronize(stream));
        reset();
      }
      step();
      WORKLOAD_CHECK(symm_stream_synchronize(stream));
      WORKLOAD_CHECK(symm_stream_synchronize(pushStream));
      std::vector<uint16_t> got(rows.size() * size_t(n));
      for (size_t s = 0; s < rows.size(); ++s)
        WORKLOAD_CHECK(
            symm_memcpy(&got[s * size_t(n)], dc + rows[s] * n, size_t(n) * 2));
      Comparison c = compare(
          got.size(), [&](size_t i) { return double(fromBf16(got[i])); }, ref,
          atol, rtol);
      status |= report(what, c);
    }

  WORKLOAD_CHECK(symm_barrier());
  WORKLOAD_CHECK(symm_stream_destroy(pushStream));
  WORKLOAD_CHECK(symm_stream_destroy(stream));
  for (auto &[v, f] : flags)
    WORKLOAD_CHECK(symm_free(f));
  WORKLOAD_CHECK(symm_free(aFull));
  WORKLOAD_CHECK(symm_free(aShard));
  WORKLOAD_CHECK(symm_device_free(dc));
  WORKLOAD_CHECK(symm_device_free(db));
  for (auto &[kind, module] : modules)
    WORKLOAD_CHECK(symm_module_unload(module));
  WORKLOAD_CHECK(symm_finalize());
  return status;
}
