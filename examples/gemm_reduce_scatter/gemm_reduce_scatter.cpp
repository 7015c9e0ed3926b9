//===- gemm_reduce_scatter.cpp - GEMM over split K, rows scattered --------===//
//
// C = Σ_r A_r·B_r: A (M x K) and B (K x N) are split along K, rank r holds
// A_r (M x K/W) and B_r (K/W x N) and ends with rows block r of C (S x N,
// S = ceil(M / W), the last ranks fewer rows, or none; any M); bf16 in, f32
// accumulation, bf16 C (the row-parallel linear layer of sequence
// parallelism). The kernels tile whole blocks of 128 rows per rank: where
// S is not a multiple of 128, this driver pads each rank's rows of A_r with
// zero rows to P = ceil(S / 128) blocks (the kernels' M is then W·P·128),
// and rank r's block of C is the first S rows of its P·128.
//
//   --variant=bulk_sync  GEMM into this rank's full partial C (bf16), then
//                        symm_reduce_scatter (bf16 sum)
//   --variant=fused      one persistent kernel: each peer tile's f32 partial
//                        stored into its owner's staging slot, the owner
//                        adds them to its own and rounds once
//   --variant=fused_atomic  the same with the peers' partials added by f32
//                        atomics into the owner's accumulator instead
//
// Every rank checks its rows against a reference computed in double from
// every rank's inputs (regenerated from the seed) and prints PASS or FAIL
// with the worst error; --bench times each variant (and still checks the
// last result). A list (--variant=bulk_sync,fused) runs each on the same
// inputs.
//
//===----------------------------------------------------------------------===//

#include "workload.h"

#include <cinttypes>

using namespace workload;

namespace {

// The kernel's tile: 128 x 128 of C, 32 deep per staged slice.
constexpr int64_t kTile = 128;
constexpr int64_t kSlice = 32;
// A block is 8 subgroups (gemm_reduce_scatter.mlir).
constexpr unsigned kSubgroups = 8;

/// Rank q's A_q (m x kr) and B_q (kr x n), as bf16 bits drawn from [-1, 1).
void makeInputs(uint64_t seed, int q, int64_t m, int64_t n, int64_t kr,
                std::vector<uint16_t> &a, std::vector<uint16_t> &b) {
  Rng rng(seed * 1000003 + uint64_t(q));
  a.resize(size_t(m * kr));
  for (uint16_t &v : a)
    v = toBf16(rng.uniform(-1, 1));
  b.resize(size_t(kr * n));
  for (uint16_t &v : b)
    v = toBf16(rng.uniform(-1, 1));
}

} // namespace

int main(int argc, char **argv) {
  Args args("gemm_reduce_scatter",
            "C = sum over ranks of A_r B_r (K split); rank r ends with rows "
            "block r of C (bf16)");
  args.option("variant", "bulk_sync,fused,fused_atomic",
              "bulk_sync | fused | fused_atomic, or a list");
  args.option("m", "auto",
              "rows of A and C (any number from 1), ceil(M / ranks) "
              "scattered to each rank, the last ranks fewer (auto: the "
              "smallest multiple of 128 x ranks of at least 256)");
  args.option("n", "256", "columns of B and C (a multiple of 128)");
  args.option("k", "auto",
              "columns of A, rows of B, split across the ranks (a multiple "
              "of 32 x ranks, 64 x ranks for the hopper kernel; auto: the "
              "smallest such multiple of at least 256)");
  args.option("grid", "auto",
              "workgroups, persistent and (fused) all co-resident (auto: "
              "one per SM on GPUs, 132 on an H100/H200; 4 on CPU ranks)");
  args.option("check", "auto",
              "rows of this rank's C checked against the reference (auto: "
              "all when M/W N K <= 2^31, else enough rows for about 2^31 "
              "multiply-adds, spread over the block)");
  args.option("kernel", "auto",
              "portable | hopper (auto: hopper on CUDA GPUs when its "
              "compiled kernel is there, else portable)");
  args.option("kernels", "auto",
              "compiled kernels (auto: gemm_reduce_scatter.so/.ptx/.hsaco "
              "beside the program)");
  args.option("hopper-kernels", "auto",
              "compiled hopper kernel (auto: gemm_reduce_scatter_hopper.so/"
              ".ptx beside the program)");
  args.parse(argc, argv);
  std::vector<std::string> variants =
      args.choices("variant", {"bulk_sync", "fused", "fused_atomic"});
  int64_t n = args.integer("n");
  uint64_t seed = uint64_t(args.integer("seed"));
  bool bench = args.has("bench");
  int iters = int(args.integer("iters")), warmup = int(args.integer("warmup"));

  WORKLOAD_CHECK(symm_init());
  int rank = symm_rank(), world = symm_world_size();
  std::string hopperPath = args.str("hopper-kernels") == "auto"
                               ? kernelsPath("gemm_reduce_scatter_hopper")
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
  int64_t m = args.size("m", kTile * world, 256);
  int64_t k = args.size("k", (hopper ? kHopperTileK : kSlice) * world, 256);
  if (n % kTile)
    args.fail("--n=" + std::to_string(n) + " is not a multiple of 128");
  if (k % (kSlice * world))
    args.fail("--k=" + std::to_string(k) + " is not a multiple of 32 x " +
              std::to_string(world) + " ranks");
  if (hopper && n % kHopperTileN)
    args.fail("--n=" + std::to_string(n) +
              " is not a multiple of 256 (the hopper kernel's tiles)");
  if (hopper && k % (kHopperTileK * world))
    args.fail("--k=" + std::to_string(k) + " is not a multiple of 64 x " +
              std::to_string(world) + " ranks (the hopper kernel's K step)");
  if (hopper && !hopperThere)
    args.fail("--kernel=hopper: no compiled kernel at " + hopperPath +
              " (built from examples/gemm_reduce_scatter/"
              "gemm_reduce_scatter_hopper.mlir)");
  // Rank q's rows of C: shardRows from q·shardRows on (fewer on the last
  // ranks), in mr = P·128 rows of the kernels' padded M, mp = W·mr.
  int64_t shardRows = (m + world - 1) / world;
  int64_t mr = (shardRows + kTile - 1) / kTile * kTile, mp = mr * world;
  int64_t myRows = std::clamp<int64_t>(m - rank * shardRows, 0, shardRows);
  int64_t kr = k / world;
  int64_t tiles = (mp / kTile) * (n / kTile);
  int64_t grid =
      args.str("grid") == "auto" ? deviceGrid(1, 4) : args.integer("grid");
  grid = std::min(grid, hopper ? (mp / kTile) * (n / kHopperTileN) : tiles);
  int64_t checkRows = myRows;
  if (args.str("check") != "auto")
    checkRows = std::min(args.integer("check"), myRows);
  else if (double(myRows) * double(n) * double(k) > double(1ll << 31))
    checkRows = std::clamp<int64_t>((1ll << 31) / (n * k), 1, myRows);
  // 64-lane wavefronts on AMD GPUs, 32 lanes elsewhere.
  unsigned lanes = std::strcmp(symm_backend_name(), "hip") == 0 ? 64 : 32;
  unsigned block = kSubgroups * lanes;
  std::string path = args.str("kernels") == "auto"
                         ? kernelsPath("gemm_reduce_scatter")
                         : args.str("kernels");

  symm_module *module = nullptr;
  WORKLOAD_CHECK(symm_module_load_file(
      hopper ? hopperPath.c_str() : path.c_str(), &module));

  std::vector<uint16_t> a, b;
  makeInputs(seed, rank, m, n, kr, a, b);
  // A_r as the kernels tile it: rank q's rows at row q·mr, zeros after them.
  std::vector<uint16_t> padded(size_t(mp * kr), 0);
  for (int q = 0; q < world; ++q) {
    int64_t first = q * shardRows;
    int64_t count = std::clamp<int64_t>(m - first, 0, shardRows);
    std::copy_n(a.begin() + first * kr, count * kr,
                padded.begin() + q * mr * kr);
  }
  uint16_t *da = deviceAlloc<uint16_t>(padded.size());
  uint16_t *db = deviceAlloc<uint16_t>(b.size());
  upload(da, padded);
  upload(db, b);
  // The hopper kernel's TMA descriptors: A_r (m x kr) in 128 x 64 boxes and
  // B_r (kr x n) in 64 x 64 boxes, outermost first, bf16 with the 128-byte
  // swizzle (gemm_reduce_scatter_hopper.mlir's types).
  void *tmaA = nullptr, *tmaB = nullptr;
  if (hopper) {
    tmaA = hopperMapA(da, mp, kr);
    tmaB = hopperMapB(db, kr, n);
  }

  // The reference rows of this rank's block, in double, summed over every
  // rank's partial: all rows, or checkRows of them, one in each of
  // checkRows equal bands. The absolute tolerance scales with the partials'
  // magnitude, which bulk_sync rounds to bf16 before adding them.
  std::vector<int64_t> rows;
  for (int64_t s = 0; s < checkRows; ++s) {
    int64_t band = myRows / checkRows;
    rows.push_back(rank * shardRows + s * band + (s * 73) % band);
  }
  std::vector<double> ref(rows.size() * size_t(n), 0.0);
  double rms = 0;
  {
    std::vector<float> bq(size_t(kr * n));
    std::vector<double> part(static_cast<size_t>(n));
    for (int q = 0; q < world; ++q) {
      std::vector<uint16_t> aq, braw;
      if (q == rank)
        aq = a, braw = b;
      else
        makeInputs(seed, q, m, n, kr, aq, braw);
      for (size_t i = 0; i < braw.size(); ++i)
        bq[i] = fromBf16(braw[i]);
      for (size_t r = 0; r < rows.size(); ++r) {
        std::fill(part.begin(), part.end(), 0.0);
        const uint16_t *arow = &aq[size_t(rows[r] * kr)];
        for (int64_t kk = 0; kk < kr; ++kk) {
          double av = fromBf16(arow[kk]);
          const float *brow = &bq[size_t(kk * n)];
          for (int64_t j = 0; j < n; ++j)
            part[size_t(j)] += av * double(brow[j]);
        }
        for (int64_t j = 0; j < n; ++j) {
          ref[r * size_t(n) + size_t(j)] += part[size_t(j)];
          rms += part[size_t(j)] * part[size_t(j)];
        }
      }
    }
    // A rank without rows (M < W) checks nothing.
    if (!ref.empty())
      rms = std::sqrt(rms / double(ref.size() * size_t(world)));
  }

  // Heap, allocated on every rank alike: bulk_sync's partial C, this rank's
  // rows of C, the fused variant's staging slots (one per source rank),
  // fused_atomic's accumulator (zero between launches) and the fused
  // variants' flags (ready per tile and source, done per owner).
  uint16_t *partial = heapAlloc<uint16_t>(size_t(mp * n));
  uint16_t *out = heapAlloc<uint16_t>(size_t(mr * n));
  float *staging = heapAlloc<float>(size_t(mp * n));
  float *sums = heapAlloc<float>(size_t(mr * n));
  upload(sums, std::vector<float>(size_t(mr * n), 0.0f));
  size_t flagCount = size_t(tiles + world);
  int32_t *flags = heapAlloc<int32_t>(flagCount);
  upload(flags, std::vector<int32_t>(flagCount, 0));

  symm_stream *stream = nullptr;
  WORKLOAD_CHECK(symm_stream_create(&stream));
  // Fused launches (either kind): the ready flags rise to, and every
  // owner's done count on top of, epoch - 1 launches' worth.
  int32_t epoch = 0;
  int status = 0;
  for (const std::string &variant : variants) {
    // The rows start as NaNs, so a tile nobody wrote fails.
    upload(out, std::vector<uint16_t>(size_t(mr * n), 0xFFFF));
    WORKLOAD_CHECK(symm_barrier());
    bool fused = variant != "bulk_sync";
    auto step = [&] {
      if (fused)
        ++epoch;
      int32_t code = variant == "fused_atomic" ? 2 : fused ? 1 : 0;
      if (hopper) {
        // The fused variant's bf16 partials land in the owner's partial C,
        // its slots (gemm_reduce_scatter_hopper.mlir).
        Params()
            .memref(da, padded.size())
            .memref(db, b.size())
            .memref(partial, size_t(mp * n))
            .memref(out, size_t(mr * n))
            .memref(sums, size_t(mr * n))
            .memref(flags, flagCount)
            .index(uint64_t(mp))
            .index(uint64_t(n))
            .index(uint64_t(kr))
            .i32(epoch)
            .i32(code)
            .pointer(tmaA)
            .pointer(tmaB)
            .launch(module, "gemm", unsigned(grid), kHopperThreads, stream,
                    kHopperSharedBytes);
      } else {
        Params()
            .memref(da, padded.size())
            .memref(db, b.size())
            .memref(partial, size_t(mp * n))
            .memref(out, size_t(mr * n))
            .memref(staging, size_t(mp * n))
            .memref(sums, size_t(mr * n))
            .memref(flags, flagCount)
            .index(uint64_t(mp))
            .index(uint64_t(n))
            .index(uint64_t(kr))
            .i32(epoch)
            .index(lanes)
            .i32(code)
            .launch(module, "gemm", unsigned(grid), block, stream);
      }
      if (!fused)
        WORKLOAD_CHECK(symm_reduce_scatter(partial, out, size_t(mr * n),
                                           SYMM_BFLOAT16, SYMM_SUM, stream));
    };

    char what[256];
    std::snprintf(what, sizeof(what),
                  "gemm_reduce_scatter %s m=%" PRId64 " n=%" PRId64
                  " k=%" PRId64 " ranks=%d%s",
                  variant.c_str(), m, n, k, world,
                  hopper ? " kernel=hopper" : "");
    if (bench) {
      double us = timeUs(step, warmup, iters, stream);
      // This rank's GEMM: M x N x K/W multiply-adds.
      double flop = 2.0 * double(m) * double(n) * double(kr);
      std::printf("%s grid=%" PRId64 ": %.2f us/iter, %.1f TFLOP/s per rank\n",
                  what, grid, us, flop / us * 1e-6);
    } else {
      step();
    }
    WORKLOAD_CHECK(symm_stream_synchronize(stream));
    std::vector<uint16_t> got(rows.size() * size_t(n));
    for (size_t r = 0; r < rows.size(); ++r)
      WORKLOAD_CHECK(symm_memcpy(&got[r * size_t(n)],
                                 out + (rows[r] - rank * shardRows) * n,
                                 size_t(n) * 2));
    // bf16 keeps 8 significant bits: rounding the result costs at most
    // 2^-9 |C|, and bulk_sync's rounding of each of the W partials before
    // the sum at most 2^-9 |partial|, below 2^-7 rms(partials) for
    // partials within 4 rms of zero.
    Comparison cmp = compare(
        got.size(), [&](size_t i) { return double(fromBf16(got[i])); }, ref,
        double(world) * std::ldexp(rms, -7), std::ldexp(1.0, -8));
    status |= report(what, cmp);
    WORKLOAD_CHECK(symm_barrier());
  }

  WORKLOAD_CHECK(symm_stream_destroy(stream));
  WORKLOAD_CHECK(symm_free(flags));
  WORKLOAD_CHECK(symm_free(sums));
  WORKLOAD_CHECK(symm_free(staging));
  WORKLOAD_CHECK(symm_free(out));
  WORKLOAD_CHECK(symm_free(partial));
  WORKLOAD_CHECK(symm_device_free(db));
  WORKLOAD_CHECK(symm_device_free(da));
  WORKLOAD_CHECK(symm_module_unload(module));
  WORKLOAD_CHECK(symm_finalize());
  return status;
}
