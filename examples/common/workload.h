//===- workload.h - What every workload driver shares -----------*- C++ -*-===//
//
// A header-only harness for the host drivers under examples/: command-line
// options, inputs from a seeded generator, bf16 conversions, comparison with
// a reference, the PASS/FAIL line and per-iteration timing. Each driver is a
// small program over the runtime's C API; this keeps them to their workload.
//
//===----------------------------------------------------------------------===//

#ifndef SYMM_EXAMPLES_WORKLOAD_H
#define SYMM_EXAMPLES_WORKLOAD_H

#include "symm/collectives.h"
#include "symm/runtime.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <new>
#include <string>
#include <utility>
#include <vector>

#include <unistd.h>

namespace workload {

/// Exits this rank with the runtime's message (which names the rank) when a
/// call fails.
inline void check(symm_status status, const char *what) {
  if (status == SYMM_SUCCESS)
    return;
  std::fprintf(stderr, "%s: %s\n", what, symm_last_error());
  std::exit(1);
}
#define WORKLOAD_CHECK(call) ::workload::check((call), #call)

/// Bytes of host memory the system can still give this process
/// (MemAvailable), or 0 when it cannot tell.
inline uint64_t availableHostMemory() {
  if (FILE *f = std::fopen("/proc/meminfo", "r")) {
    char line[256];
    unsigned long long kib = 0;
    while (std::fgets(line, sizeof(line), f))
      if (std::sscanf(line, "MemAvailable: %llu kB", &kib) == 1)
        break;
    std::fclose(f);
    if (kib)
      return uint64_t(kib) * 1024;
  }
  return 0;
}

/// "409600000028672 bytes (372.5 TiB)".
inline std::string describeBytes(uint64_t bytes) {
  const char *units[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  std::string text = std::to_string(bytes) + " bytes";
  double v = double(bytes);
  int u = -1;
  while (v >= 1024 && u < 5)
    v /= 1024, ++u;
  if (u >= 0) {
    char buffer[32];
    std::snprintf(buffer, sizeof(buffer), " (%.1f %s)", v, units[u]);
    text += buffer;
  }
  return text;
}

/// What a rank says when host memory runs out where no size was checked
/// first: std::bad_alloc would abort with no word of what was asked.
inline void outOfHostMemory() {
  std::fprintf(stderr,
               "rank %d: out of host memory: an allocation failed with %s "
               "available; choose smaller sizes\n",
               symm_rank(), describeBytes(availableHostMemory()).c_str());
  std::exit(1);
}

[[noreturn]] inline void sizeOverflows(const std::string &what) {
  std::fprintf(stderr, "rank %d: %s: the size does not fit in 64 bits\n",
               symm_rank(), what.c_str());
  std::exit(1);
}

/// The product of `factors`, or this rank ends naming `what` when it does
/// not fit in 64 bits.
inline uint64_t checkedProduct(const std::string &what,
                               std::initializer_list<uint64_t> factors) {
  uint64_t product = 1;
  for (uint64_t f : factors)
    if (__builtin_mul_overflow(product, f, &product))
      sizeOverflows(what);
  return product;
}

/// The sum of `terms`, checked like checkedProduct.
inline uint64_t checkedSum(const std::string &what,
                           std::initializer_list<uint64_t> terms) {
  uint64_t sum = 0;
  for (uint64_t t : terms)
    if (__builtin_add_overflow(sum, t, &sum))
      sizeOverflows(what);
  return sum;
}

/// Ends this rank, saying what it needs and what is available, when `bytes`
/// of host memory for `what` exceed what the system has available.
inline void requireHostMemory(const std::string &what, uint64_t bytes) {
  uint64_t available = availableHostMemory();
  if (!available || bytes <= available)
    return;
  std::fprintf(stderr,
               "rank %d: %s need %s of host memory; %s are available "
               "(MemAvailable)\n",
               symm_rank(), what.c_str(), describeBytes(bytes).c_str(),
               describeBytes(available).c_str());
  std::exit(1);
}

/// Options `--name=value` or `--name value`, and flags `--name`. A driver
/// declares each with its default and a help line before parsing; anything
/// else is an error naming the option.
class Args {
public:
  Args(std::string program, std::string summary)
      : program(std::move(program)), summary(std::move(summary)) {
    std::set_new_handler(outOfHostMemory);
    flag("bench", "time the variants (each last result is still checked)");
    option("seed", "1", "seed of the random inputs (different on each rank)");
    option("iters", "20", "timed iterations with --bench");
    option("warmup", "3", "untimed iterations before them");
    option("trace", "",
           "write a trace of every rank's kernels to this file (SYMM_TRACE; "
           "runs the kernels compiled with --trace, traced/<name> by "
           "default)");
  }

  void option(const std::string &name, const std::string &def,
              const std::string &help) {
    order.push_back(name);
    entries[name] = {def, help, false};
  }
  void flag(const std::string &name, const std::string &help) {
    order.push_back(name);
    entries[name] = {"0", help, true};
  }

  /// Parses argv; prints the usage and exits on --help or a bad option.
  void parse(int argc, char **argv) {
    for (int i = 1; i < argc; ++i) {
      std::string arg = argv[i];
      if (arg == "--help" || arg == "-h")
        usage(stdout, 0);
      if (arg.rfind("--", 0) != 0)
        fail("unexpected argument '" + arg + "'");
      std::string name = arg.substr(2), value;
      bool hasValue = false;
      if (size_t eq = name.find('='); eq != std::string::npos) {
        value = name.substr(eq + 1);
        name = name.substr(0, eq);
        hasValue = true;
      }
      auto it = entries.find(name);
      if (it == entries.end())
        fail("unknown option '--" + name + "'");
      if (it->second.isFlag) {
        if (hasValue)
          fail("option '--" + name + "' takes no value");
        it->second.value = "1";
        continue;
      }
      if (!hasValue) {
        if (i + 1 == argc)
          fail("option '--" + name + "' needs a value");
        value = argv[++i];
      }
      it->second.value = value;
    }
    // Before symm_init, which reads it; kernelsPath then picks the traced
    // kernels.
    if (!str("trace").empty())
      setenv("SYMM_TRACE", str("trace").c_str(), 1);
  }

  const std::string &str(const std::string &name) const {
    return entries.at(name).value;
  }
  bool has(const std::string &name) const { return str(name) == "1"; }
  /// A positive integer option (K/M suffixes multiply by 1024, 1024^2).
  int64_t integer(const std::string &name) const {
    const std::string &s = str(name);
    char *end = nullptr;
    long long v = std::strtoll(s.c_str(), &end, 10);
    if (end == s.c_str())
      fail("--" + name + "='" + s + "' is not a positive integer");
    if (*end == 'K' || *end == 'k')
      v *= 1024, ++end;
    else if (*end == 'M' || *end == 'm')
      v *= 1024 * 1024, ++end;
    if (*end || v <= 0)
      fail("--" + name + "='" + s + "' is not a positive integer");
    return v;
  }
  /// A size option whose default ("auto") depends on the run: the smallest
  /// multiple of `unit` (e.g. a tile times the rank count) that is at least
  /// `atLeast`; otherwise integer(name).
  int64_t size(const std::string &name, int64_t unit, int64_t atLeast) const {
    if (str(name) != "auto")
      return integer(name);
    return (atLeast + unit - 1) / unit * unit;
  }
  /// A comma-separated list of choices (e.g. --variant=bulk_sync,fused).
  std::vector<std::string>
  choices(const std::string &name,
          const std::vector<std::string> &allowed) const {
    std::vector<std::string> picked;
    std::string list = str(name) + ",";
    for (size_t at = 0, comma; (comma = list.find(',', at)) != list.npos;
         at = comma + 1) {
      std::string one = list.substr(at, comma - at);
      bool known = false;
      for (const std::string &c : allowed)
        known |= one == c;
      if (!known) {
        std::string all;
        for (const std::string &c : allowed)
          all += (all.empty() ? "" : "|") + c;
        fail("--" + name + "='" + one + "' is not one of " + all);
      }
      picked.push_back(one);
    }
    return picked;
  }

  [[noreturn]] void fail(const std::string &message) const {
    std::fprintf(stderr, "%s: %s (see --help)\n", program.c_str(),
                 message.c_str());
    std::exit(2);
  }

private:
  struct Entry {
    std::string value, help;
    bool isFlag;
  };
  [[noreturn]] void usage(FILE *out, int status) const {
    std::fprintf(out, "%s: %s\noptions:\n", program.c_str(), summary.c_str());
    for (const std::string &name : order) {
      const Entry &e = entries.at(name);
      std::fprintf(out, "  --%-14s %s%s%s%s\n", name.c_str(), e.help.c_str(),
                   e.isFlag ? "" : " (default ",
                   e.isFlag ? "" : e.value.c_str(), e.isFlag ? "" : ")");
    }
    std::exit(status);
  }
  std::string program, summary;
  std::vector<std::string> order;
  std::map<std::string, Entry> entries;
};

/// splitmix64: a fast generator whose streams differ with the seed, so each
/// rank (seed + rank) draws different inputs on every run with a new --seed.
class Rng {
public:
  explicit Rng(uint64_t seed) : state(seed * 0x9E3779B97F4A7C15ull + 1) {}
  uint64_t next() {
    uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  /// Uniform in [lo, hi).
  float uniform(float lo, float hi) {
    return lo + (hi - lo) * float(next() >> 40) * (1.0f / float(1 << 24));
  }
  /// Uniform in [0, n).
  uint64_t below(uint64_t n) { return next() % n; }

private:
  uint64_t state;
};

/// bf16 as its bits: float -> bf16 rounds to nearest even, like the kernels.
inline uint16_t toBf16(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  if (std::isnan(f))
    return 0x7FC0;
  u += 0x7FFF + ((u >> 16) & 1);
  return uint16_t(u >> 16);
}
inline float fromBf16(uint16_t b) {
  uint32_t u = uint32_t(b) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

/// The worst error of `got` against `ref` (both as doubles), relative to
/// the tolerance: |got - ref| <= atol + rtol * |ref| passes.
struct Comparison {
  double worst = 0;    // the largest |got - ref|
  double excess = 0;   // the largest |got - ref| / (atol + rtol |ref|)
  size_t where = 0;    // the index of the largest excess
  size_t failures = 0; // elements out of tolerance
  bool ok() const { return failures == 0; }
};
template <typename Got>
Comparison compare(size_t n, Got got, const std::vector<double> &ref,
                   double atol, double rtol) {
  Comparison c;
  for (size_t i = 0; i < n; ++i) {
    double g = got(i), err = std::fabs(g - ref[i]);
    double e = err / (atol + rtol * std::fabs(ref[i]));
    if (!(e <= 1.0)) // NaN fails too
      ++c.failures;
    if (err > c.worst || std::isnan(err))
      c.worst = err;
    if (e > c.excess || std::isnan(e))
      c.excess = e, c.where = i;
  }
  return c;
}

/// Prints `PASS` or `FAIL <worst error>` on this rank; returns the exit
/// status.
inline int report(const char *what, const Comparison &c) {
  if (c.ok()) {
    std::printf("%s: PASS (max error %.3g)\n", what, c.worst);
    return 0;
  }
  std::printf("%s: FAIL %.6g (%zu elements out of tolerance, worst at %zu)\n",
              what, c.worst, c.failures, c.where);
  return 1;
}

/// Microseconds per iteration of `step` (which enqueues work on `streams`):
/// `warmup` untimed iterations, a barrier so every rank starts together,
/// then `iters` back-to-back iterations ended by synchronising the streams.
/// The runtime has no device events, so the host clock brackets the device
/// work; one launch's host overhead is amortised over the iterations.
inline double timeUs(const std::function<void()> &step, int warmup, int iters,
                     const std::vector<symm_stream *> &streams) {
  auto drain = [&] {
    for (symm_stream *stream : streams)
      WORKLOAD_CHECK(symm_stream_synchronize(stream));
  };
  for (int i = 0; i < warmup; ++i)
    step();
  drain();
  WORKLOAD_CHECK(symm_barrier());
  auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < iters; ++i)
    step();
  drain();
  auto end = std::chrono::steady_clock::now();
  return std::chrono::duration<double, std::micro>(end - start).count() / iters;
}
inline double timeUs(const std::function<void()> &step, int warmup, int iters,
                     symm_stream *stream) {
  return timeUs(step, warmup, iters, std::vector<symm_stream *>{stream});
}

/// Kernel parameters in the runtime's convention (runtime.h): a memref
/// expands into (allocated, aligned, offset, size, stride), every scalar
/// takes one 64-bit slot (an i32 in its low half).
class Params {
public:
  Params &memref(const void *p, size_t size) {
    uint64_t ptr = reinterpret_cast<uint64_t>(p);
    for (uint64_t v : {ptr, ptr, uint64_t(0), uint64_t(size), uint64_t(1)})
      index(v);
    return *this;
  }
  Params &index(uint64_t v) {
    values.push_back(v);
    return *this;
  }
  Params &i32(int32_t v) {
    uint64_t slot = 0;
    std::memcpy(&slot, &v, sizeof(v));
    return index(slot);
  }
  /// A pointer argument, such as a TMA descriptor (symm_tensor_map_create).
  Params &pointer(const void *p) {
    return index(reinterpret_cast<uint64_t>(p));
  }
  /// Launches `kernel` on `grid` workgroups of `block` threads with
  /// `sharedBytes` of dynamic workgroup memory.
  void launch(symm_module *module, const char *kernel, unsigned grid,
              unsigned block, symm_stream *stream, size_t sharedBytes = 0) {
    std::vector<void *> params;
    for (uint64_t &v : values)
      params.push_back(&v);
    unsigned g[3] = {grid, 1, 1}, b[3] = {block, 1, 1};
    check(symm_launch(module, kernel, g, b, sharedBytes, stream,
                      params.data(), params.size()),
          kernel);
  }

private:
  std::vector<uint64_t> values;
};

/// Writes `bytes` raw bytes to `path` (for checks by other tools, such as
/// the PyTorch comparison of bench/workloads/); exits naming the file when
/// that fails.
inline void writeFile(const std::string &path, const void *data, size_t bytes) {
  FILE *f = std::fopen(path.c_str(), "wb");
  bool ok = f && std::fwrite(data, 1, bytes, f) == bytes;
  if (f)
    ok &= std::fclose(f) == 0;
  if (!ok) {
    std::fprintf(stderr, "rank %d: cannot write %s: %s\n", symm_rank(),
                 path.c_str(), std::strerror(errno));
    std::exit(1);
  }
}

/// Whether the runtime runs on GPUs (the drivers pick GPU-sized defaults).
/// Device memory for n elements of T (at least one), failing like check().
template <typename T> T *deviceAlloc(size_t n) {
  void *p = nullptr;
  check(symm_device_malloc(std::max<size_t>(n, 1) * sizeof(T), &p),
        "device allocation");
  return static_cast<T *>(p);
}

/// A collective heap allocation for n elements of T, rounded to 16 bytes so
/// every allocation keeps 16-byte vectors aligned.
template <typename T> T *heapAlloc(size_t n) {
  void *p = nullptr;
  size_t bytes = (std::max<size_t>(n, 1) * sizeof(T) + 15) / 16 * 16;
  check(symm_malloc(bytes, &p), "heap allocation");
  return static_cast<T *>(p);
}

template <typename T> void upload(T *dst, const std::vector<T> &src) {
  if (!src.empty())
    check(symm_memcpy(dst, src.data(), src.size() * sizeof(T)), "upload");
}

template <typename T> std::vector<T> download(const T *src, size_t n) {
  std::vector<T> v(n);
  if (n)
    check(symm_memcpy(v.data(), src, n * sizeof(T)), "download");
  return v;
}

inline bool onGpu() { return std::strcmp(symm_backend_name(), "host") != 0; }

/// A persistent kernel's default grid: `perMultiprocessor` workgroups on
/// each of the device's multiprocessors on GPUs (symm_device_multiprocessors:
/// 132 on an H100 or H200), `onCpu` on CPU ranks. After symm_init.
inline int64_t deviceGrid(int64_t perMultiprocessor, int64_t onCpu) {
  if (!onGpu())
    return onCpu;
  int multiprocessors = 0;
  check(symm_device_multiprocessors(&multiprocessors),
        "symm_device_multiprocessors");
  return std::max<int64_t>(1, perMultiprocessor * multiprocessors);
}

/// The default grid of a persistent kernel whose workgroups wait on each
/// other (symm.co_resident): `perMultiprocessor` workgroups on each of the
/// device's multiprocessors on GPUs, `onCpu` on CPU ranks, and never more
/// than the device holds of `kernel` at once with `threads` threads and
/// `sharedBytes` of dynamic shared memory per workgroup (its registers
/// count on GPUs), so that the launch is not refused.
inline int64_t residentGrid(symm_module *module, const char *kernel,
                            unsigned threads, size_t sharedBytes,
                            int64_t perMultiprocessor, int64_t onCpu) {
  int64_t resident = 0;
  check(symm_kernel_max_resident(module, kernel, threads, sharedBytes,
                                 &resident),
        kernel);
  return std::max<int64_t>(
      1, std::min(deviceGrid(perMultiprocessor, onCpu), resident));
}

/// Where a workload's compiled kernels are by default: `<name>.so` (host),
/// `.ptx` (cuda) or `.hsaco` (hip) next to the executable, where CMake and
/// the GPU bundles put them; on CPU ranks that check races
/// (SYMM_HOST_CHECK_RACES=1), `races/<name>.so`, compiled with the checks;
/// with a trace (SYMM_TRACE, --trace), `traced/<name>.<ext>`, compiled with
/// symm-compile --trace.
inline std::string kernelsPath(const std::string &name) {
  std::string exe(4096, '\0');
  ssize_t n = readlink("/proc/self/exe", exe.data(), exe.size() - 1);
  std::string dir = n > 0 ? exe.substr(0, size_t(n)) : std::string(".");
  dir = dir.substr(0, dir.find_last_of('/') + 1);
  std::string backend = symm_backend_name();
  const char *ext = backend == "cuda"  ? "ptx"
                    : backend == "hip" ? "hsaco"
                                       : "so";
  const char *races = std::getenv("SYMM_HOST_CHECK_RACES");
  if (backend == "host" && races && std::string(races) == "1")
    dir += "races/";
  else if (std::getenv("SYMM_TRACE"))
    dir += "traced/";
  return dir + name + "." + ext;
}

/// What the host needs of the Hopper GEMM main loop (the device library's
/// library/gemm_hopper.mlir, and the GEMM workloads' *_hopper.mlir that carry
/// a copy): 128 x 256 tiles, 64-deep K steps, three warpgroups, 4 stages of
/// 48 KiB plus 1 KiB of alignment slack.
constexpr int64_t kHopperTileN = 256, kHopperTileK = 64;
constexpr unsigned kHopperThreads = 384, kHopperSharedBytes = 197632;
/// N and K of a Hopper GEMM are multiples of 8 elements: the rows of A and
/// B are TMA strides, multiples of 16 bytes (the boxes read zeros past N
/// and K).
constexpr int64_t kHopperMultiple = 8;

/// Ends the program, naming the option, where --n or --k is not a Hopper
/// GEMM's (kHopperMultiple).
inline void checkHopperSizes(const Args &args, int64_t n, int64_t k) {
  if (n % kHopperMultiple)
    args.fail("--n=" + std::to_string(n) +
              " is not a multiple of 8 (the hopper kernel's TMA rows of B "
              "are multiples of 16 bytes)");
  if (k % kHopperMultiple)
    args.fail("--k=" + std::to_string(k) +
              " is not a multiple of 8 (the hopper kernel's TMA rows of A "
              "are multiples of 16 bytes)");
}

/// A TMA descriptor of a row-major bf16 matrix (rows x cols, at `matrix`,
/// which may be a peer's through symm_translate) as the Hopper main loop
/// reads it: boxes of `boxRows` x 64 elements with the 128-byte swizzle (128
/// rows for A, 64 for B).
inline void *hopperTensorMap(const void *matrix, int64_t rows, int64_t cols,
                             uint32_t boxRows) {
  uint64_t sizes[2] = {uint64_t(rows), uint64_t(cols)};
  uint64_t strides[2] = {uint64_t(cols), 1};
  uint32_t box[2] = {boxRows, 64};
  void *map = nullptr;
  check(symm_tensor_map_create(matrix, 2, sizes, strides, box, 2, 128, &map),
        "symm_tensor_map_create");
  return map;
}
/// A (rows x k) and B (k x cols) of the Hopper main loop.
inline void *hopperMapA(const void *a, int64_t rows, int64_t k) {
  return hopperTensorMap(a, rows, k, 128);
}
inline void *hopperMapB(const void *b, int64_t k, int64_t cols) {
  return hopperTensorMap(b, k, cols, 64);
}

} // namespace workload

#endif // SYMM_EXAMPLES_WORKLOAD_H
