//===- gemm.cpp - C = A·B, bf16 in, f32 accumulation, bf16 out ------------===//
//
// Every rank computes its own GEMM on its own inputs and checks it against a
// reference computed in double from the same bf16 inputs, printing PASS or
// FAIL with the worst error; --bench times it (per-iteration µs and
// TFLOP/s) and still checks the last result.
//
//   --kernel=portable  gemm.mlir: subgroup MMA, every target
//   --kernel=hopper    gemm_hopper.mlir: TMA + wgmma, sm_90a, any shape
//   --kernel=hopper_staged  the same through the device library's staged
//                      epilogue (the fused workloads' path)
//   --variant=persistent  --grid blocks, each looping over tiles
//   --variant=tiled       one block per tile (128x128 portable) or unit
//                         (a 128x256 tile and one of --splits ranges of K,
//                         hopper)
//
// Lists (--kernel=portable,hopper --variant=persistent,tiled --splits=1,4)
// run every combination on the same inputs.
//
//===----------------------------------------------------------------------===//

#include "workload.h"

#include <cinttypes>

using namespace workload;

namespace {

// The portable kernel's tiles (the ABI in README.md and gemm.mlir), and the
// K step the sizes must be a multiple of.
constexpr int64_t kTileM = 128, kTileN = 128, kTileK = 32;
// The hopper kernel's tiles are kHopperTileM x kHopperTileN, its K steps
// kHopperTileK deep (workload.h); it takes any M, and N and K in multiples of
// kHopperMultiple.
constexpr int64_t kHopperTileM = 128;
// An f32 workspace slot of the hopper kernel holds one 128 x 256 tile.
constexpr int64_t kHopperSlotElements = kHopperTileM * kHopperTileN;
// The SMs that split K fills on CPU ranks, which have none: an H100's or
// H200's (on GPUs, the device's: symm_device_multiprocessors).
constexpr int64_t kCpuSms = 132;
// --splits=auto (autoSplits): a K split keeps at least kMinStepsPerSplit K
// steps, so that its ring fills, and there are at most kMaxSplits of them:
// each adds a partial tile's round trip through the workspace, and on an
// H100 4 beat 6 and 9 at every shape measured (docs/Workloads.md). K is
// split only where a tile's MMA takes kSplitRatio times as long as all SMs
// take to stream B: a 128x256x64 step keeps one SM's tensor cores
// kStepUs busy (half of it when M <= 64 leaves one warpgroup idle), and B
// streams at kStreamBytesPerUs (an H100's 3.35 TB/s, rounded down).
constexpr int64_t kMinStepsPerSplit = 8, kMaxSplits = 4;
constexpr double kSplitRatio = 1.5, kStepUs = 0.6, kStreamBytesPerUs = 3e6;
// Samples per 128x128 tile when the full reference is too large.
constexpr int kSamplesPerTile = 8;
// Elements out of tolerance printed after a FAIL.
constexpr size_t kFailuresShown = 8;

int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

/// The hopper kernel's 128 x 256 tiles of an m x n C.
int64_t hopperTiles(int64_t m, int64_t n) {
  return ceilDiv(m, kHopperTileM) * ceilDiv(n, kHopperTileN);
}

/// The hopper kernel's schedule for a shape (--splits=auto): no split where
/// the tiles fill at least half the SMs or streaming B takes about as long
/// as a tile's MMA (a split sends f32 partials through the workspace and
/// gains nothing there); otherwise the most K splits, up to kMaxSplits,
/// that put every tile's splits on the SMs at once.
int64_t autoSplits(int64_t m, int64_t n, int64_t k, int64_t sms) {
  int64_t tiles = hopperTiles(m, n), steps = ceilDiv(k, kHopperTileK);
  double mmaUs = double(steps) * kStepUs * (m <= kHopperTileM / 2 ? 0.5 : 1);
  double streamUs = 2.0 * double(n) * double(k) / kStreamBytesPerUs;
  if (2 * tiles > sms || mmaUs < kSplitRatio * streamUs)
    return 1;
  int64_t splits =
      std::min({sms / tiles, kMaxSplits, steps / kMinStepsPerSplit});
  return std::max<int64_t>(1, splits);
}

/// A GEMM's operands in device memory.
struct Problem {
  int64_t m, n, k;
  uint16_t *a, *b, *c;
  // The hopper kernel's TMA descriptors of A (128 x 64 boxes) and B (64 x 64
  // boxes), 128-byte swizzle; made when that kernel runs. Its f32 workspace
  // (slots of partial tiles: split units', and edge tiles'), its split
  // counters (two per tile, zero between launches) and its K splits.
  void *tmaA = nullptr, *tmaB = nullptr;
  float *work = nullptr;
  int32_t *counts = nullptr;
  size_t workElements = 0, countsElements = 0;
  int64_t splits = 1;
};

/// A kernel of the gemm ABI: its --kernel name and its loaded module.
struct Kernel {
  std::string name;
  symm_module *module = nullptr;
};

/// Launches `kernel` on `p` with `grid` blocks: the ABI's six arguments,
/// then the kernel's own launch configuration. The one place that launches
/// a kernel, so that the hopper kernel's TMA descriptors (made here, on the
/// host) and its block and shared memory join the portable kernel's here.
void launchGemm(const Kernel &kernel, const Problem &p, unsigned grid,
                symm_stream *stream) {
  Params params;
  params.memref(p.a, size_t(p.m * p.k))
      .memref(p.b, size_t(p.k * p.n))
      .memref(p.c, size_t(p.m * p.n))
      .index(uint64_t(p.m))
      .index(uint64_t(p.n))
      .index(uint64_t(p.k));
  if (kernel.name == "hopper_staged") {
    params.pointer(p.tmaA).pointer(p.tmaB);
    params.launch(kernel.module, "gemm_staged", grid, kHopperThreads, stream,
                  kHopperSharedBytes);
    return;
  }
  if (kernel.name == "hopper") {
    params.pointer(p.tmaA)
        .pointer(p.tmaB)
        .memref(p.work, p.workElements)
        .memref(p.counts, p.countsElements)
        .index(uint64_t(p.splits));
    params.launch(kernel.module, "gemm", grid, kHopperThreads, stream,
                  kHopperSharedBytes);
    return;
  }
  // The portable kernel: 8 subgroups (AMD's are 64-lane wavefronts), static
  // workgroup memory only.
  unsigned subgroup = std::strcmp(symm_backend_name(), "hip") == 0 ? 64 : 32;
  params.launch(kernel.module, "gemm", grid, 8 * subgroup, stream);
}

/// This rank's inputs, A (m x k) and B (k x n) row-major, as bf16 bits
/// drawn uniformly from [-1, 1) and rounded to bf16 (so within [-1, 1]).
void makeInputs(uint64_t seed, int rank, int64_t m, int64_t n, int64_t k,
                std::vector<uint16_t> &a, std::vector<uint16_t> &b) {
  Rng rng(seed * 1000003 + uint64_t(rank));
  a.resize(size_t(m * k));
  for (uint16_t &v : a)
    v = toBf16(rng.uniform(-1, 1));
  b.resize(size_t(k * n));
  for (uint16_t &v : b)
    v = toBf16(rng.uniform(-1, 1));
}

/// The elements checked and their reference values in double: all of C
/// (`where` empty), or kSamplesPerTile elements of every tile at random.
struct Reference {
  std::vector<size_t> where;
  std::vector<double> value;
  double rms = 0;
};

Reference fullReference(const std::vector<uint16_t> &a,
                        const std::vector<uint16_t> &b, int64_t m, int64_t n,
                        int64_t k) {
  Reference ref;
  ref.value.assign(size_t(m * n), 0.0);
  std::vector<double> bd(b.size());
  for (size_t i = 0; i < b.size(); ++i)
    bd[i] = fromBf16(b[i]);
  for (int64_t i = 0; i < m; ++i) {
    double *row = &ref.value[size_t(i * n)];
    for (int64_t kk = 0; kk < k; ++kk) {
      double x = fromBf16(a[size_t(i * k + kk)]);
      const double *brow = &bd[size_t(kk * n)];
      for (int64_t j = 0; j < n; ++j)
        row[j] += x * brow[j];
    }
  }
  return ref;
}

/// Every tile's samples share their columns with the tile's column of
/// tiles, so only those columns of B are gathered (contiguous in K).
Reference sampledReference(const std::vector<uint16_t> &a,
                           const std::vector<uint16_t> &b, int64_t m, int64_t n,
                           int64_t k, uint64_t seed) {
  Reference ref;
  Rng rng(seed * 7919 + 17);
  int64_t tilesM = ceilDiv(m, kTileM), tilesN = ceilDiv(n, kTileN);
  std::vector<double> column(static_cast<size_t>(k));
  for (int64_t tn = 0; tn < tilesN; ++tn) {
    for (int s = 0; s < kSamplesPerTile; ++s) {
      // The last tile row and column may be partial.
      int64_t j =
          tn * kTileN +
          int64_t(rng.below(uint64_t(std::min(kTileN, n - tn * kTileN))));
      for (int64_t kk = 0; kk < k; ++kk)
        column[size_t(kk)] = fromBf16(b[size_t(kk * n + j)]);
      for (int64_t tm = 0; tm < tilesM; ++tm) {
        int64_t i =
            tm * kTileM +
            int64_t(rng.below(uint64_t(std::min(kTileM, m - tm * kTileM))));
        double sum = 0;
        for (int64_t kk = 0; kk < k; ++kk)
          sum += double(fromBf16(a[size_t(i * k + kk)])) * column[size_t(kk)];
        ref.where.push_back(size_t(i * n + j));
        ref.value.push_back(sum);
      }
    }
  }
  return ref;
}

} // namespace

int main(int argc, char **argv) {
  Args args("gemm", "C = A·B on every rank (bf16 in, f32 accumulation, "
                    "bf16 out)");
  args.option("kernel", "portable",
              "portable | hopper | hopper_staged, or a list");
  args.option("variant", "persistent", "persistent | tiled, or a list");
  args.option("m", "256",
              "rows of A and C (a multiple of 128 for the portable kernel)");
  args.option("n", "256",
              "columns of B and C (a multiple of 128 portable, 8 hopper)");
  args.option("k", "128",
              "columns of A, rows of B (a multiple of 32 portable, 8 hopper)");
  args.option("splits", "auto",
              "K splits of the hopper kernel (auto: chosen by shape, up to " +
                  std::to_string(kMaxSplits) +
                  " where its 128x256 tiles are fewer than half of the "
                  "device's SMs (" +
                  std::to_string(kCpuSms) +
                  " on CPU ranks) and their MMA outlasts streaming B), or a "
                  "list");
  // Two blocks fit on an H200 SM (126 registers x 256 threads and 45 KiB
  // of workgroup memory each), so one can compute while the other waits at
  // a barrier or for its loads.
  args.option("grid", "auto",
              "blocks of the persistent variant (auto: two per SM on GPUs, "
              "or one for the hopper kernels; 4 on CPU ranks; at most one "
              "per tile)");
  args.option("check", "auto",
              "full | sampled | auto (full up to M·N·K = 2^30; sampled: " +
                  std::to_string(kSamplesPerTile) +
                  " elements of every tile, and every element written)");
  args.option("kernel-dir", "auto",
              "where the compiled kernels gemm.so/.ptx/.hsaco and "
              "gemm_hopper.* are (auto: beside the program)");
  args.parse(argc, argv);
  std::vector<std::string> kernels =
      args.choices("kernel", {"portable", "hopper", "hopper_staged"});
  std::vector<std::string> variants =
      args.choices("variant", {"persistent", "tiled"});
  int64_t m = args.integer("m"), n = args.integer("n"), k = args.integer("k");
  std::string check = args.choices("check", {"full", "sampled", "auto"})[0];
  uint64_t seed = uint64_t(args.integer("seed"));
  bool bench = args.has("bench");
  int iters = int(args.integer("iters")), warmup = int(args.integer("warmup"));
  bool portable =
      std::find(kernels.begin(), kernels.end(), "portable") != kernels.end();
  bool staged = std::find(kernels.begin(), kernels.end(), "hopper_staged") !=
                kernels.end();
  bool hopper = staged || std::find(kernels.begin(), kernels.end(), "hopper") !=
                              kernels.end();
  if (portable && m % kTileM)
    args.fail("--m=" + std::to_string(m) + " is not a multiple of 128");
  if (portable && n % kTileN)
    args.fail("--n=" + std::to_string(n) + " is not a multiple of 128");
  if (portable && k % kTileK)
    args.fail("--k=" + std::to_string(k) + " is not a multiple of 32");
  if (staged && m % kHopperTileM)
    args.fail("--m=" + std::to_string(m) +
              " is not a multiple of 128 (the hopper_staged kernel's tiles)");
  if (staged && n % kHopperTileN)
    args.fail("--n=" + std::to_string(n) +
              " is not a multiple of 256 (the hopper_staged kernel's tiles)");
  if (hopper)
    checkHopperSizes(args, n, k);
  WORKLOAD_CHECK(symm_init());
  int rank = symm_rank(), world = symm_world_size();
  const int64_t sms = deviceGrid(1, kCpuSms);

  // The hopper kernel's K splits, each a positive number of K steps.
  std::vector<int64_t> splitList;
  {
    std::string list = args.str("splits") + ",";
    for (size_t at = 0, comma; (comma = list.find(',', at)) != list.npos;
         at = comma + 1) {
      std::string one = list.substr(at, comma - at);
      char *end = nullptr;
      long long v = one == "auto" ? autoSplits(m, n, k, sms)
                                  : std::strtoll(one.c_str(), &end, 10);
      if (one != "auto" && (end == one.c_str() || *end || v <= 0))
        args.fail("--splits='" + one + "' is not auto or a positive integer");
      if (v > ceilDiv(k, kHopperTileK))
        args.fail("--splits=" + one + " is more than the " +
                  std::to_string(ceilDiv(k, kHopperTileK)) +
                  " K steps of --k=" + std::to_string(k));
      splitList.push_back(v);
    }
  }

  // The compiled kernels, checked before anything is allocated.
  std::vector<Kernel> loaded;
  for (const std::string &kind : kernels) {
    std::string file = kind == "portable" ? "gemm" : "gemm_hopper";
    std::string path = kernelsPath(file);
    if (args.str("kernel-dir") != "auto")
      path = args.str("kernel-dir") + path.substr(path.find_last_of('/'));
    if (access(path.c_str(), R_OK) != 0)
      args.fail("--kernel=" + kind + ": no compiled kernel at " + path +
                " (built from examples/gemm/" + file + ".mlir)");
    Kernel kernel{kind};
    WORKLOAD_CHECK(symm_module_load_file(path.c_str(), &kernel.module));
    loaded.push_back(kernel);
  }

  std::vector<uint16_t> a, b;
  makeInputs(seed, rank, m, n, k, a, b);
  bool full = check == "full" ||
              (check == "auto" &&
               double(m) * double(n) * double(k) <= double(int64_t(1) << 30));
  Reference ref = full ? fullReference(a, b, m, n, k)
                       : sampledReference(a, b, m, n, k, seed);
  double sq = 0;
  for (double v : ref.value)
    sq += v * v;
  ref.rms = std::sqrt(sq / double(ref.value.size()));

  Problem p{m, n, k, nullptr, nullptr, nullptr};
  p.a = deviceAlloc<uint16_t>(a.size());
  p.b = deviceAlloc<uint16_t>(b.size());
  p.c = deviceAlloc<uint16_t>(size_t(m * n));
  upload(p.a, a);
  upload(p.b, b);
  a = {};
  b = {};
  if (hopper) {
    p.tmaA = hopperMapA(p.a, m, k);
    p.tmaB = hopperMapB(p.b, k, n);
    // Slots for the edge tiles (one per tile of the last tile row and
    // column) or for every split unit; the counters start at zero and every
    // launch leaves them so.
    int64_t tiles = hopperTiles(m, n);
    bool edges = m % kHopperTileM || n % kHopperTileN;
    int64_t slots =
        edges ? ceilDiv(m, kHopperTileM) + ceilDiv(n, kHopperTileN) : 1;
    for (int64_t s : splitList)
      if (s > 1)
        slots = std::max(slots, tiles * s);
    p.workElements = size_t(slots * kHopperSlotElements);
    p.work = deviceAlloc<float>(p.workElements);
    p.countsElements = size_t(2 * tiles);
    p.counts = deviceAlloc<int32_t>(p.countsElements);
    upload(p.counts, std::vector<int32_t>(p.countsElements, 0));
  }
  symm_stream *stream = nullptr;
  WORKLOAD_CHECK(symm_stream_create(&stream));

  int status = 0;
  for (const Kernel &kernel : loaded) {
    bool isHopper = kernel.name == "hopper";
    for (const std::string &variant : variants)
      for (int64_t splits : isHopper ? splitList : std::vector<int64_t>{1}) {
        // Work units: tiles, times the K splits of the hopper kernel.
        bool isStaged = kernel.name == "hopper_staged";
        int64_t units = isHopper   ? hopperTiles(m, n) * splits
                        : isStaged ? hopperTiles(m, n)
                                   : (m / kTileM) * (n / kTileN);
        // The hopper kernel takes one block per SM (its shared memory).
        int64_t grid = args.str("grid") != "auto" ? args.integer("grid")
                       : !onGpu()                 ? 4
                       : isHopper || isStaged     ? sms
                                                  : 2 * sms;
        unsigned blocks =
            unsigned(variant == "tiled" ? units : std::min(grid, units));
        p.splits = splits;
        // C starts as NaNs, so an element no block wrote fails.
        std::vector<uint16_t> got(size_t(m * n), 0xFFFF);
        upload(p.c, got);
        auto step = [&] { launchGemm(kernel, p, blocks, stream); };
        char what[256];
        std::string schedule =
            isHopper ? " splits=" + std::to_string(splits) : "";
        std::snprintf(what, sizeof(what),
                      "gemm %s %s m=%" PRId64 " n=%" PRId64 " k=%" PRId64
                      "%s ranks=%d",
                      kernel.name.c_str(), variant.c_str(), m, n, k,
                      schedule.c_str(), world);
        if (bench) {
          double us = timeUs(step, warmup, iters, stream);
          double flops = 2.0 * double(m) * double(n) * double(k);
          std::printf("%s grid=%u: %.2f us/iter, %.4g TFLOP/s\n", what, blocks,
                      us, flops / us * 1e-6);
        } else {
          step();
        }
        WORKLOAD_CHECK(symm_stream_synchronize(stream));
        got = download(p.c, size_t(m * n));
        // bf16 keeps 8 significant bits: rounding C costs up to 2^-9 |C|,
        // and the f32 sums' error is far below 2^-8 rms(C) even where C is
        // near zero.
        double tol = 1.0 / 256;
        Comparison c = compare(
            ref.value.size(),
            [&](size_t s) {
              return double(
                  fromBf16(got[ref.where.empty() ? s : ref.where[s]]));
            },
            ref.value, tol * ref.rms, tol);
        if (!ref.where.empty()) {
          // Sampled: every other element must have been written.
          size_t unwritten = 0;
          for (uint16_t v : got)
            unwritten += std::isnan(fromBf16(v));
          if (unwritten)
            std::printf("%s: %zu elements of C not written\n", what, unwritten);
          c.failures += unwritten;
        }
        status |= report(what, c);
        // Where it failed: the first elements out of tolerance.
        for (size_t s = 0, shown = 0;
             !c.ok() && s < ref.value.size() && shown < kFailuresShown; ++s) {
          size_t at = ref.where.empty() ? s : ref.where[s];
          double g = double(fromBf16(got[at])), want = ref.value[s];
          if (std::fabs(g - want) <= tol * (ref.rms + std::fabs(want)))
            continue;
          std::printf("%s: C[%zu][%zu] = %g, reference %g\n", what,
                      at / size_t(n), at % size_t(n), g, want);
          ++shown;
        }
      }
  }

  WORKLOAD_CHECK(symm_stream_destroy(stream));
  if (hopper) {
    WORKLOAD_CHECK(symm_device_free(p.counts));
    WORKLOAD_CHECK(symm_device_free(p.work));
  }
  WORKLOAD_CHECK(symm_device_free(p.c));
  WORKLOAD_CHECK(symm_device_free(p.b));
  WORKLOAD_CHECK(symm_device_free(p.a));
  for (Kernel &kernel : loaded)
    WORKLOAD_CHECK(symm_module_unload(kernel.module));
  WORKLOAD_CHECK(symm_finalize());
  return status;
}
