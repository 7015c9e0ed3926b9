//===- gemm.cpp - C = A·B, bf16 in, f32 accumulation, bf16 out ------------===//
//
// Every rank computes its own GEMM on its own inputs and checks it against a
// reference computed in double from the same bf16 inputs, printing PASS or
// FAIL with the worst error; --bench times it (per-iteration µs and
// TFLOP/s) and still checks the last result.
//
//   --kernel=portable  gemm.mlir: subgroup MMA, every target
//   --kernel=hopper    gemm_hopper.mlir: TMA + wgmma, sm_90a
//   --variant=persistent  --grid blocks, each looping over tiles
//   --variant=tiled       one block per tile (128x128 portable, 128x256
//                         hopper)
//
// Lists (--kernel=portable,hopper --variant=persistent,tiled) run every
// combination on the same inputs.
//
//===----------------------------------------------------------------------===//

#include "workload.h"

#include <cinttypes>

using namespace workload;

namespace {

// The kernels' tiles (the ABI in README.md and gemm.mlir), and the K step
// the sizes must be a multiple of.
constexpr int64_t kTileM = 128, kTileN = 128, kTileK = 32;
// Samples per 128x128 tile when the full reference is too large.
constexpr int kSamplesPerTile = 8;

/// A GEMM's operands in device memory.
struct Problem {
  int64_t m, n, k;
  uint16_t *a, *b, *c;
  // The hopper kernel's TMA descriptors of A (128 x 64 boxes) and B (64 x 64
  // boxes), 128-byte swizzle; made when that kernel runs.
  void *tmaA = nullptr, *tmaB = nullptr;
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
  if (kernel.name == "hopper") {
    params.pointer(p.tmaA).pointer(p.tmaB);
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
  int64_t tilesM = m / kTileM, tilesN = n / kTileN;
  std::vector<double> column(static_cast<size_t>(k));
  for (int64_t tn = 0; tn < tilesN; ++tn) {
    for (int s = 0; s < kSamplesPerTile; ++s) {
      int64_t j = tn * kTileN + int64_t(rng.below(kTileN));
      for (int64_t kk = 0; kk < k; ++kk)
        column[size_t(kk)] = fromBf16(b[size_t(kk * n + j)]);
      for (int64_t tm = 0; tm < tilesM; ++tm) {
        int64_t i = tm * kTileM + int64_t(rng.below(kTileM));
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
  args.option("kernel", "portable", "portable | hopper, or a list");
  args.option("variant", "persistent", "persistent | tiled, or a list");
  args.option("m", "256", "rows of A and C (a multiple of 128)");
  args.option("n", "256", "columns of B and C (a multiple of 128)");
  args.option("k", "128", "columns of A, rows of B (a multiple of 32)");
  // Two blocks fit on an H200 SM (126 registers x 256 threads and 45 KiB
  // of workgroup memory each), so one can compute while the other waits at
  // a barrier or for its loads.
  args.option("grid", "auto",
              "blocks of the persistent variant (auto: 264 on GPUs, two per "
              "SM of an H200, or 132 for the hopper kernel; 4 on CPU ranks; at "
              "most one per tile)");
  args.option("check", "auto",
              "full | sampled | auto (full up to M·N·K = 2^30; sampled: " +
                  std::to_string(kSamplesPerTile) +
                  " elements of every tile, and every element written)");
  args.option("kernel-dir", "auto",
              "where the compiled kernels gemm.so/.ptx/.hsaco and "
              "gemm_hopper.* are (auto: beside the program)");
  args.parse(argc, argv);
  std::vector<std::string> kernels =
      args.choices("kernel", {"portable", "hopper"});
  std::vector<std::string> variants =
      args.choices("variant", {"persistent", "tiled"});
  int64_t m = args.integer("m"), n = args.integer("n"), k = args.integer("k");
  std::string check = args.choices("check", {"full", "sampled", "auto"})[0];
  uint64_t seed = uint64_t(args.integer("seed"));
  bool bench = args.has("bench");
  int iters = int(args.integer("iters")), warmup = int(args.integer("warmup"));
  if (m % kTileM)
    args.fail("--m=" + std::to_string(m) + " is not a multiple of 128");
  if (n % kTileN)
    args.fail("--n=" + std::to_string(n) + " is not a multiple of 128");
  if (k % kTileK)
    args.fail("--k=" + std::to_string(k) + " is not a multiple of 32");

  bool hopper = std::find(kernels.begin(), kernels.end(), "hopper") !=
                kernels.end();
  if (hopper && n % kHopperTileN)
    args.fail("--n=" + std::to_string(n) +
              " is not a multiple of 256 (the hopper kernel's tiles)");
  if (hopper && k % kHopperTileK)
    args.fail("--k=" + std::to_string(k) +
              " is not a multiple of 64 (the hopper kernel's K step)");

  WORKLOAD_CHECK(symm_init());
  int rank = symm_rank(), world = symm_world_size();

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
  }
  symm_stream *stream = nullptr;
  WORKLOAD_CHECK(symm_stream_create(&stream));

  int status = 0;
  for (const Kernel &kernel : loaded) {
    for (const std::string &variant : variants) {
      int64_t tiles =
          (m / kTileM) * (n / (kernel.name == "hopper" ? kHopperTileN : kTileN));
      // The hopper kernel takes one block per SM (its shared memory).
      int64_t grid = args.str("grid") != "auto" ? args.integer("grid")
                     : !onGpu()                 ? 4
                     : kernel.name == "hopper"  ? 132
                                                : 264;
      unsigned blocks = unsigned(variant == "tiled" ? tiles
                                                    : std::min(grid, tiles));
      // C starts as NaNs, so an element no block wrote fails.
      std::vector<uint16_t> got(size_t(m * n), 0xFFFF);
      upload(p.c, got);
      auto step = [&] { launchGemm(kernel, p, blocks, stream); };
      char what[256];
      std::snprintf(what, sizeof(what),
                    "gemm %s %s m=%" PRId64 " n=%" PRId64 " k=%" PRId64
                    " ranks=%d",
                    kernel.name.c_str(), variant.c_str(), m, n, k, world);
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
            return double(fromBf16(got[ref.where.empty() ? s : ref.where[s]]));
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
    }
  }

  WORKLOAD_CHECK(symm_stream_destroy(stream));
  WORKLOAD_CHECK(symm_device_free(p.c));
  WORKLOAD_CHECK(symm_device_free(p.b));
  WORKLOAD_CHECK(symm_device_free(p.a));
  for (Kernel &kernel : loaded)
    WORKLOAD_CHECK(symm_module_unload(kernel.module));
  WORKLOAD_CHECK(symm_finalize());
  return status;
}
