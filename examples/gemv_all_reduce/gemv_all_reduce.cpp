//===- gemv_all_reduce.cpp - Row-parallel linear layer --------------------===//
//
// y = sum_r W_r x_r: W (M x K) is split along K, rank r holds W_r (M x K/W)
// and x_r (K/W); bf16 in, f32 accumulation, bf16 y on every rank.
//
//   --variant=bulk_sync  GEMV kernel, then symm_all_reduce (bf16 sum)
//   --variant=fused      one persistent kernel: the GEMV with a direct
//                        all-reduce in low-latency words in its epilogue
//   --variant=gemv       the GEMV alone (y_r = W_r x_r), for its bandwidth
//
// Every rank checks y against a reference computed in double from every
// rank's inputs (regenerated from the seed) and prints PASS or FAIL with the
// worst error; --bench times the variant (and still checks the last result).
// A list (--variant=gemv,bulk_sync,fused) runs each on the same inputs.
//
//===----------------------------------------------------------------------===//

#include "workload.h"

#include <cinttypes>

using namespace workload;

namespace {

constexpr unsigned kBlock = 256; // the kernels' 8 subgroups of 32 lanes
constexpr int64_t kTileRows = 32;

/// Rank q's inputs: W_q (m x kr) and x_q (kr), as bf16 bits.
void makeInputs(uint64_t seed, int q, int64_t m, int64_t kr,
                std::vector<uint16_t> &w, std::vector<uint16_t> &x) {
  Rng rng(seed * 1000003 + uint64_t(q));
  x.resize(size_t(kr));
  for (uint16_t &v : x)
    v = toBf16(rng.uniform(-1, 1));
  w.resize(size_t(m * kr));
  for (uint16_t &v : w)
    v = toBf16(rng.uniform(-1, 1));
}

} // namespace

int main(int argc, char **argv) {
  Args args("gemv_all_reduce", "y = sum over ranks of W_r x_r (bf16, W split "
                               "along K)");
  args.option("variant", "fused", "bulk_sync | fused | gemv, or a list");
  args.option("m", "1024", "rows of W (a multiple of 32)");
  args.option("k", "auto",
              "columns of W, split across the ranks (a multiple of 8 x "
              "ranks; auto: 2048 rounded up to one, so any rank count runs)");
  // The fused kernel's workgroups wait for each other: all must be
  // resident at once. At 74 registers per thread three fit on an H100/H200
  // SM, and three keep more loads in flight: on 2 H200s at M = 28672, 396
  // workgroups took 68 us (GEMV) and 87 us (fused) against 74 and 100 with
  // 264 (docs/Workloads.md).
  args.option("grid", "auto",
              "workgroups, all co-resident (auto: 3 per SM on GPUs, 4 on "
              "CPU ranks, at most what the device holds at once; at most "
              "one per 32-row tile)");
  args.option("kernels", "auto",
              "compiled kernels (auto: "
              "gemv_all_reduce.so/.ptx beside the program)");
  args.option("dump", "",
              "write PREFIX.rank<r>.{w,x,y}.bin (raw bf16: W_r, x_r and the "
              "last variant's y) for a comparison with PyTorch");
  args.parse(argc, argv);
  std::vector<std::string> variants =
      args.choices("variant", {"bulk_sync", "fused", "gemv"});
  int64_t m = args.integer("m");
  uint64_t seed = uint64_t(args.integer("seed"));
  bool bench = args.has("bench");
  int iters = int(args.integer("iters")), warmup = int(args.integer("warmup"));

  WORKLOAD_CHECK(symm_init());
  int rank = symm_rank(), world = symm_world_size();
  int64_t kStep = 8 * int64_t(world);
  int64_t k = args.str("k") == "auto" ? (2048 + kStep - 1) / kStep * kStep
                                      : args.integer("k");
  if (m % kTileRows)
    args.fail("--m=" + std::to_string(m) + " is not a multiple of 32");
  if (k % (8 * world))
    args.fail("--k=" + std::to_string(k) + " is not a multiple of 8 x " +
              std::to_string(world) + " ranks");
  int64_t kr = k / world, tiles = m / kTileRows;
  std::string path = args.str("kernels") == "auto"
                         ? kernelsPath("gemv_all_reduce")
                         : args.str("kernels");

  // Host memory: W_r and x_r of this rank and, one at a time, of each other
  // rank (for the reference), two references in double and the result: at
  // most 4 (m + 1) (k/W + 5) bytes.
  std::string sizes = "--m=" + std::to_string(m) + " --k=" + std::to_string(k);
  requireHostMemory(
      sizes + " (W_r and x_r of two ranks at a time, the "
              "references)",
      checkedProduct(sizes, {uint64_t(m) + 1, uint64_t(kr) + 5, 4}));

  symm_module *module = nullptr;
  WORKLOAD_CHECK(symm_module_load_file(path.c_str(), &module));
  int64_t grid = args.str("grid") == "auto"
                     ? residentGrid(module, "gemv_all_reduce", kBlock, 0, 3, 4)
                     : args.integer("grid");
  grid = std::min(grid, tiles);

  std::vector<uint16_t> w, x;
  makeInputs(seed, rank, m, kr, w, x);
  void *dw = nullptr, *dx = nullptr;
  WORKLOAD_CHECK(symm_device_malloc(w.size() * 2, &dw));
  WORKLOAD_CHECK(symm_device_malloc(x.size() * 2, &dx));
  WORKLOAD_CHECK(symm_memcpy(dw, w.data(), w.size() * 2));
  WORKLOAD_CHECK(symm_memcpy(dx, x.data(), x.size() * 2));
  size_t wCount = w.size(), xCount = x.size();
  std::string dump = args.str("dump");
  std::string dumpPrefix = dump + ".rank" + std::to_string(rank);
  if (!dump.empty()) {
    writeFile(dumpPrefix + ".w.bin", w.data(), w.size() * 2);
    writeFile(dumpPrefix + ".x.bin", x.data(), x.size() * 2);
  }

  // The references in double: this rank's part (the gemv variant) and the
  // sum over ranks; the tolerance scales with the magnitude of the partials,
  // which bulk_sync rounds to bf16 before adding them.
  std::vector<double> local(size_t(m), 0.0), sum(size_t(m), 0.0);
  double rms = 0;
  for (int q = 0; q < world; ++q) {
    std::vector<uint16_t> wq, xq;
    if (q == rank)
      wq.swap(w), xq.swap(x);
    else
      makeInputs(seed, q, m, kr, wq, xq);
    for (int64_t i = 0; i < m; ++i) {
      double s = 0;
      const uint16_t *row = &wq[size_t(i * kr)];
      for (int64_t j = 0; j < kr; ++j)
        s += double(fromBf16(row[j])) * double(fromBf16(xq[size_t(j)]));
      sum[size_t(i)] += s;
      rms += s * s;
      if (q == rank)
        local[size_t(i)] = s;
    }
  }
  rms = std::sqrt(rms / double(m));

  // Heap: the partial y_r and y (bulk_sync, gemv), and the fused kernel's
  // low-latency words (W + 1 slots of m: the partials each owner receives,
  // the sums each rank receives), zero before the first launch, all
  // allocated on every rank alike.
  void *yr = nullptr, *y = nullptr, *ll = nullptr;
  WORKLOAD_CHECK(symm_malloc(size_t(m) * 2, &yr));
  WORKLOAD_CHECK(symm_malloc(size_t(m) * 2, &y));
  size_t llCount = size_t(world + 1) * size_t(m);
  WORKLOAD_CHECK(symm_malloc(llCount * 8, &ll));
  std::vector<uint64_t> zeros(llCount, 0);
  WORKLOAD_CHECK(symm_memcpy(ll, zeros.data(), llCount * 8));

  symm_stream *stream = nullptr;
  int32_t epoch = 0;
  int status = 0;
  for (const std::string &variant : variants) {
    // y starts as NaNs, so a row no kernel wrote fails.
    std::vector<uint16_t> got(static_cast<size_t>(m), 0xFFFF);
    WORKLOAD_CHECK(symm_memcpy(y, got.data(), got.size() * 2));
    WORKLOAD_CHECK(symm_barrier());
    auto step = [&] {
      if (variant == "fused") {
        Params()
            .memref(dw, wCount)
            .memref(dx, xCount)
            .memref(y, size_t(m))
            .memref(ll, llCount)
            .index(uint64_t(m))
            .index(uint64_t(kr))
            .i32(++epoch)
            .launch(module, "gemv_all_reduce", unsigned(grid), kBlock, stream);
        return;
      }
      Params()
          .memref(dw, wCount)
          .memref(dx, xCount)
          .memref(variant == "gemv" ? y : yr, size_t(m))
          .index(uint64_t(m))
          .index(uint64_t(kr))
          .launch(module, "gemv", unsigned(grid), kBlock, stream);
      if (variant == "bulk_sync")
        WORKLOAD_CHECK(
            symm_all_reduce(yr, y, size_t(m), SYMM_BFLOAT16, SYMM_SUM, stream));
    };

    char what[256];
    std::snprintf(what, sizeof(what),
                  "gemv_all_reduce %s m=%" PRId64 " k=%" PRId64 " ranks=%d",
                  variant.c_str(), m, k, world);
    if (bench) {
      double us = timeUs(step, warmup, iters, stream);
      // The GEMV reads W_r and x_r and writes y_r once.
      double bytes =
          double(m) * double(kr) * 2 + double(kr) * 2 + double(m) * 2;
      std::printf("%s grid=%" PRId64 ": %.2f us/iter, %.1f GB/s of W_r\n", what,
                  grid, us, bytes / us * 1e-3);
    } else {
      step();
    }
    WORKLOAD_CHECK(symm_stream_synchronize(stream));
    WORKLOAD_CHECK(symm_memcpy(got.data(), y, got.size() * 2));
    Comparison c = compare(
        size_t(m), [&](size_t i) { return double(fromBf16(got[i])); },
        variant == "gemv" ? local : sum, 0.01 * rms, 0.01);
    status |= report(what, c);
    if (!dump.empty())
      writeFile(dumpPrefix + ".y.bin", got.data(), got.size() * 2);
  }

  WORKLOAD_CHECK(symm_barrier());
  WORKLOAD_CHECK(symm_free(ll));
  WORKLOAD_CHECK(symm_free(y));
  WORKLOAD_CHECK(symm_free(yr));
  WORKLOAD_CHECK(symm_device_free(dx));
  WORKLOAD_CHECK(symm_device_free(dw));
  WORKLOAD_CHECK(symm_module_unload(module));
  WORKLOAD_CHECK(symm_finalize());
  return status;
}
