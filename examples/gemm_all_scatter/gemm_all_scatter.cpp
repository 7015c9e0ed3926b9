//===- gemm_all_scatter.cpp - GEMM whose output every rank needs ----------===//
//
// C = A·B with B (K x N) split along N: rank r holds A (M x K, the same on
// every rank) and B_r = B[:, r N/W .. (r+1) N/W), computes that column
// block of C and every rank ends with all of C (M x N); bf16 in, f32
// accumulation, bf16 C (the column-parallel linear layer whose output the
// next layer needs whole).
//
//   --variant=bulk_sync          GEMM into C_r, symm_all_gather, then a
//                                kernel puts the gathered blocks in place
//   --variant=producer_consumer  the GEMM raises a flag per tile on one
//                                stream; a push kernel on a second stream
//                                sends each ready tile to every peer
//   --variant=fused_sequential   each tile, after its main loop, is stored
//                                to the local C and every peer's C
//   --variant=wg_specialized     one kernel of --grid workgroups:
//                                --push-grid of them push tiles as their
//                                flags rise, the others compute
//
//   --kernel=portable  gemm_all_scatter.mlir: subgroup MMA, every target
//   --kernel=hopper    gemm_all_scatter_hopper.mlir's @gemm (TMA + wgmma,
//                      sm_90a) in every variant, with the portable
//                      module's @push and @assemble
//
// Every rank checks C against a reference computed in double from every
// rank's inputs (regenerated from the seed) and prints PASS or FAIL with the
// worst error; --bench times each variant (and still checks the last
// result). A list (--variant=bulk_sync,fused_sequential) runs each on the
// same inputs.
//
//===----------------------------------------------------------------------===//

#include "workload.h"

#include <cinttypes>

using namespace workload;

namespace {

// The kernels' tile: 128 x 128 of C, 32 deep per staged slice.
constexpr int64_t kTile = 128;
constexpr int64_t kSlice = 32;
// A block is 8 subgroups (gemm_all_scatter.mlir).
constexpr unsigned kSubgroups = 8;

/// The kernels' epilogue selector (@gemm's %variant).
enum Variant : int32_t {
  BulkSync = 0,
  ProducerConsumer = 1,
  FusedSequential = 2,
  WgSpecialized = 3,
};

/// A (m x k), the same on every rank, and rank q's B_q (k x nr), as bf16
/// bits drawn from [-1, 1).
std::vector<uint16_t> makeA(uint64_t seed, int64_t m, int64_t k) {
  Rng rng(seed * 1000003 + 999);
  std::vector<uint16_t> a(size_t(m * k));
  for (uint16_t &v : a)
    v = toBf16(rng.uniform(-1, 1));
  return a;
}
std::vector<uint16_t> makeB(uint64_t seed, int q, int64_t k, int64_t nr) {
  Rng rng(seed * 1000003 + uint64_t(q));
  std::vector<uint16_t> b(size_t(k * nr));
  for (uint16_t &v : b)
    v = toBf16(rng.uniform(-1, 1));
  return b;
}

} // namespace

int main(int argc, char **argv) {
  Args args("gemm_all_scatter",
            "C = A B with B split along N; every rank ends with all of C "
            "(bf16)");
  args.option("variant",
              "bulk_sync,producer_consumer,fused_sequential,wg_specialized",
              "bulk_sync | producer_consumer | fused_sequential | "
              "wg_specialized, or a list");
  args.option("m", "256", "rows of A and C (any number from 1)");
  args.option("n", "auto",
              "columns of B and C, split across the ranks (a multiple of "
              "128 x ranks, 256 x ranks for the hopper kernel; auto: the "
              "smallest such multiple of at least 256)");
  args.option("k", "128", "columns of A, rows of B (a multiple of 32)");
  args.option("grid", "auto",
              "GEMM workgroups, persistent over the tiles (auto: one per "
              "SM on GPUs, 132 on an H100/H200; 4 on CPU ranks)");
  args.option("push-grid", "auto",
              "workgroups pushing tiles: producer_consumer's push kernel, "
              "and those of wg_specialized's --grid (auto: 16 on GPUs, 2 on "
              "CPU ranks)");
  args.option("check", "auto",
              "rows of C checked against the reference (auto: all when "
              "M N K <= 2^31, else enough rows for about 2^31 "
              "multiply-adds, spread over C)");
  args.option("kernel", "auto",
              "portable | hopper: the GEMM of every variant (auto: hopper "
              "on CUDA GPUs when its compiled kernels are there, else "
              "portable)");
  args.option("kernels", "auto",
              "compiled kernels (auto: gemm_all_scatter.so/.ptx/.hsaco "
              "beside the program)");
  args.option("hopper-kernels", "auto",
              "compiled hopper kernels (auto: gemm_all_scatter_hopper.so/"
              ".ptx beside the program)");
  args.parse(argc, argv);
  std::vector<std::string> variants =
      args.choices("variant", {"bulk_sync", "producer_consumer",
                               "fused_sequential", "wg_specialized"});
  int64_t m = args.integer("m"), k = args.integer("k");
  uint64_t seed = uint64_t(args.integer("seed"));
  bool bench = args.has("bench");
  int iters = int(args.integer("iters")), warmup = int(args.integer("warmup"));

  WORKLOAD_CHECK(symm_init());
  int rank = symm_rank(), world = symm_world_size();
  std::string hopperPath = args.str("hopper-kernels") == "auto"
                               ? kernelsPath("gemm_all_scatter_hopper")
                               : args.str("hopper-kernels");
  bool hopperThere = access(hopperPath.c_str(), R_OK) == 0;
  bool hopper = std::strcmp(symm_backend_name(), "cuda") == 0 && hopperThere;
  if (args.str("kernel") != "auto") {
    std::vector<std::string> kernels =
        args.choices("kernel", {"portable", "hopper"});
    if (kernels.size() != 1)
      args.fail("--kernel=" + args.str("kernel") +
                " names more than one kernel (one per run)");
    hopper = kernels[0] == "hopper";
  }
  int64_t n = args.size("n", (hopper ? kHopperTileN : kTile) * world, 256);
  if (n % (kTile * world))
    args.fail("--n=" + std::to_string(n) + " is not a multiple of 128 x " +
              std::to_string(world) + " ranks");
  if (k % kSlice)
    args.fail("--k=" + std::to_string(k) + " is not a multiple of 32");
  // The last tile row is partial where M is not a multiple of 128.
  int64_t tilesM = (m + kTile - 1) / kTile;
  int64_t nr = n / world, tiles = tilesM * (nr / kTile);
  if (hopper && nr % kHopperTileN)
    args.fail("--n=" + std::to_string(n) + " is not a multiple of 256 x " +
              std::to_string(world) + " ranks (the hopper kernel's tiles)");
  if (hopper && k % kHopperTileK)
    args.fail("--k=" + std::to_string(k) +
              " is not a multiple of 64 (the hopper kernel's K step)");
  if (hopper && !hopperThere)
    args.fail("--kernel=hopper: no compiled kernel at " + hopperPath +
              " (built from examples/gemm_all_scatter/"
              "gemm_all_scatter_hopper.mlir)");
  int64_t grid =
      args.str("grid") == "auto" ? deviceGrid(1, 4) : args.integer("grid");
  int64_t pushGrid = args.str("push-grid") == "auto"
                         ? (onGpu() ? 16 : 2)
                         : args.integer("push-grid");
  bool specialized = std::find(variants.begin(), variants.end(),
                               "wg_specialized") != variants.end();
  if (specialized && pushGrid >= grid)
    args.fail("--push-grid=" + std::to_string(pushGrid) +
              " leaves wg_specialized no computing workgroup of --grid=" +
              std::to_string(grid));
  int64_t checkRows = m;
  if (args.str("check") != "auto")
    checkRows = std::min(args.integer("check"), m);
  else if (double(m) * double(n) * double(k) > double(1ll << 31))
    checkRows = std::clamp<int64_t>((1ll << 31) / (n * k), 1, m);
  // 64-lane wavefronts on AMD GPUs, 32 lanes elsewhere.
  unsigned lanes = std::strcmp(symm_backend_name(), "hip") == 0 ? 64 : 32;
  unsigned block = kSubgroups * lanes;
  std::string path = args.str("kernels") == "auto"
                         ? kernelsPath("gemm_all_scatter")
                         : args.str("kernels");

  // The portable module always: its @push and @assemble serve both GEMMs.
  symm_module *module = nullptr, *hopperModule = nullptr;
  WORKLOAD_CHECK(symm_module_load_file(path.c_str(), &module));
  if (hopper)
    WORKLOAD_CHECK(symm_module_load_file(hopperPath.c_str(), &hopperModule));

  // A's rows in whole tiles: the portable kernel reads the bottom tile's
  // rows past M (zeros; their products are not stored).
  std::vector<uint16_t> a = makeA(seed, m, k);
  a.resize(size_t(tilesM * kTile * k), 0);
  std::vector<uint16_t> b = makeB(seed, rank, k, nr);
  uint16_t *da = deviceAlloc<uint16_t>(a.size());
  uint16_t *db = deviceAlloc<uint16_t>(b.size());
  upload(da, a);
  upload(db, b);
  // The hopper kernel's TMA descriptors: A (m x k) in 128 x 64 boxes and
  // this rank's B_r (k x nr) in 64 x 64 boxes, outermost first, bf16 with
  // the 128-byte swizzle (gemm_all_scatter_hopper.mlir's types).
  void *tmaA = nullptr, *tmaB = nullptr;
  if (hopper) {
    tmaA = hopperMapA(da, m, k);
    tmaB = hopperMapB(db, k, nr);
  }

  // The reference rows, in double from every rank's B_q: all rows, or
  // checkRows of them, one in each of checkRows equal bands of C.
  std::vector<int64_t> rows;
  for (int64_t s = 0; s < checkRows; ++s) {
    int64_t band = m / checkRows;
    rows.push_back(s * band + (s * 73) % band);
  }
  std::vector<double> ref(rows.size() * size_t(n), 0.0);
  double rms = 0;
  {
    std::vector<float> bq(size_t(k * nr));
    for (int q = 0; q < world; ++q) {
      std::vector<uint16_t> raw = q == rank ? b : makeB(seed, q, k, nr);
      for (size_t i = 0; i < raw.size(); ++i)
        bq[i] = fromBf16(raw[i]);
      for (size_t r = 0; r < rows.size(); ++r) {
        double *out = &ref[r * size_t(n) + size_t(q * nr)];
        const uint16_t *arow = &a[size_t(rows[r] * k)];
        for (int64_t kk = 0; kk < k; ++kk) {
          double av = fromBf16(arow[kk]);
          const float *brow = &bq[size_t(kk * nr)];
          for (int64_t j = 0; j < nr; ++j)
            out[j] += av * double(brow[j]);
        }
      }
    }
    for (double v : ref)
      rms += v * v;
    rms = std::sqrt(rms / double(ref.size()));
  }

  // Heap, allocated on every rank alike: C; bulk_sync's C_r and the
  // gathered blocks; the tile flags and the arrival counts (one per peer).
  uint16_t *c = heapAlloc<uint16_t>(size_t(m * n));
  uint16_t *cr = heapAlloc<uint16_t>(size_t(m * nr));
  uint16_t *gathered = heapAlloc<uint16_t>(size_t(m * n));
  int32_t *flags = heapAlloc<int32_t>(size_t(tiles));
  int32_t *arrivals = heapAlloc<int32_t>(size_t(world));
  upload(flags, std::vector<int32_t>(size_t(tiles), 0));
  upload(arrivals, std::vector<int32_t>(size_t(world), 0));

  symm_stream *stream = nullptr, *pushStream = nullptr;
  WORKLOAD_CHECK(symm_stream_create(&stream));
  WORKLOAD_CHECK(symm_stream_create(&pushStream));
  // Launches that push: each raises every tile's flag to, and adds `tiles`
  // to every peer's arrival count on top of, epoch - 1 launches' worth.
  int32_t epoch = 0;
  auto gemm = [&](uint16_t *out, int64_t ldc, int64_t coloff, Variant variant,
                  int64_t computeGrid, unsigned launchGrid) {
    Params params;
    params.memref(da, a.size())
        .memref(db, b.size())
        .memref(out, size_t(m * ldc))
        .memref(flags, size_t(tiles))
        .memref(arrivals, size_t(world))
        .index(uint64_t(m))
        .index(uint64_t(nr))
        .index(uint64_t(k))
        .index(uint64_t(ldc))
        .index(uint64_t(coloff))
        .i32(epoch);
    // The kernels' arguments differ from here: the portable kernel takes its
    // subgroup size, the hopper one its TMA descriptors last.
    if (hopper) {
      params.i32(variant)
          .index(uint64_t(computeGrid))
          .pointer(tmaA)
          .pointer(tmaB)
          .launch(hopperModule, "gemm", launchGrid, kHopperThreads, stream,
                  kHopperSharedBytes);
      return;
    }
    params.index(lanes)
        .i32(variant)
        .index(uint64_t(computeGrid))
        .launch(module, "gemm", launchGrid, block, stream);
  };

  int status = 0;
  for (const std::string &variant : variants) {
    // C starts as NaNs, so a tile nobody wrote fails.
    upload(c, std::vector<uint16_t>(size_t(m * n), 0xFFFF));
    WORKLOAD_CHECK(symm_barrier());
    auto step = [&] {
      if (variant == "bulk_sync") {
        gemm(cr, nr, 0, BulkSync, grid, unsigned(grid));
        WORKLOAD_CHECK(symm_all_gather(cr, gathered, size_t(m * nr),
                                       SYMM_BFLOAT16, stream));
        Params()
            .memref(gathered, size_t(m * n))
            .memref(c, size_t(m * n))
            .index(uint64_t(m))
            .index(uint64_t(nr))
            .index(uint64_t(n))
            .launch(module, "assemble", unsigned(grid), block, stream);
        return;
      }
      ++epoch;
      if (variant == "producer_consumer") {
        // The next step's GEMM writes the tiles this step's push still
        // reads: it runs on the stream this push ran on, and the next push
        // on the other one, so that steps follow each other while the two
        // kernels of a step still overlap (the race detector found the
        // GEMM of step e + 1 overwriting tiles the push of step e read).
        std::swap(stream, pushStream);
        gemm(c, n, rank * nr, ProducerConsumer, grid, unsigned(grid));
        Params()
            .memref(c, size_t(m * n))
            .memref(flags, size_t(tiles))
            .memref(arrivals, size_t(world))
            .index(uint64_t(m))
            .index(uint64_t(nr))
            .index(uint64_t(n))
            .index(uint64_t(rank * nr))
            .i32(epoch)
            .launch(module, "push", unsigned(pushGrid), block, pushStream);
      } else if (variant == "fused_sequential") {
        gemm(c, n, rank * nr, FusedSequential, grid, unsigned(grid));
      } else {
        gemm(c, n, rank * nr, WgSpecialized, grid - pushGrid, unsigned(grid));
      }
    };

    char what[256];
    std::snprintf(what, sizeof(what),
                  "gemm_all_scatter %s m=%" PRId64 " n=%" PRId64 " k=%" PRId64
                  " ranks=%d%s",
                  variant.c_str(), m, n, k, world,
                  hopper ? " kernel=hopper" : "");
    if (bench) {
      double us = timeUs(step, warmup, iters, {stream, pushStream});
      // This rank's GEMM: M x N/W x K multiply-adds.
      double flop = 2.0 * double(m) * double(nr) * double(k);
      std::printf("%s grid=%" PRId64 " push_grid=%" PRId64
                  ": %.2f us/iter, %.1f TFLOP/s per rank\n",
                  what, grid, pushGrid, us, flop / us * 1e-6);
    } else {
      step();
    }
    WORKLOAD_CHECK(symm_stream_synchronize(stream));
    WORKLOAD_CHECK(symm_stream_synchronize(pushStream));
    // Every rank's pushes have landed once every rank has finished.
    WORKLOAD_CHECK(symm_barrier());
    std::vector<uint16_t> got(rows.size() * size_t(n));
    for (size_t r = 0; r < rows.size(); ++r)
      WORKLOAD_CHECK(
          symm_memcpy(&got[r * size_t(n)], c + rows[r] * n, size_t(n) * 2));
    // bf16 keeps 8 significant bits: rounding the f32 result costs at most
    // 2^-9 |C|; the rest bounds f32 accumulation against double near zero.
    Comparison cmp = compare(
        got.size(), [&](size_t i) { return double(fromBf16(got[i])); }, ref,
        std::ldexp(rms, -10), std::ldexp(1.0, -8));
    status |= report(what, cmp);
  }

  WORKLOAD_CHECK(symm_barrier());
  WORKLOAD_CHECK(symm_stream_destroy(pushStream));
  WORKLOAD_CHECK(symm_stream_destroy(stream));
  WORKLOAD_CHECK(symm_free(arrivals));
  WORKLOAD_CHECK(symm_free(flags));
  WORKLOAD_CHECK(symm_free(gathered));
  WORKLOAD_CHECK(symm_free(cr));
  WORKLOAD_CHECK(symm_free(c));
  WORKLOAD_CHECK(symm_device_free(db));
  WORKLOAD_CHECK(symm_device_free(da));
  if (hopperModule)
    WORKLOAD_CHECK(symm_module_unload(hopperModule));
  WORKLOAD_CHECK(symm_module_unload(module));
  WORKLOAD_CHECK(symm_finalize());
  return status;
}
