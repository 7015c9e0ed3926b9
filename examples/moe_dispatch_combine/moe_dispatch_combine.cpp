//===- moe_dispatch_combine.cpp - Expert-parallel MoE all-to-all ----------===//
//
// Dispatch every (token, choice) to the rank owning its expert, grouped per
// local expert; y = fp16(x * s_e) there; combine out[t] = sum_k w * y back
// at the source. Variants (README.md): bulk_sync (symm_all_to_allv with the
// counts exchanged through the host) and fused (per-token pushes and flags,
// the counts exchanged on the device, the expert scale fused into combine).
//
//===----------------------------------------------------------------------===//

#include "symm/collectives.h"
#include "symm/runtime.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <numeric>
#include <random>
#include <string>
#include <unistd.h>
#include <vector>

namespace {

using Half = _Float16;

struct Options {
  std::string variant = "fused";
  int experts = 16, topk = 4, hidden = 256, maxTokens = 32;
  unsigned seed = 1;
  int blocks = 0, threads = 0; // 0: the backend's default
  bool bench = false;
  int iters = 0, warmup = 0;
  std::string kernels;
};

[[noreturn]] void die(const char *fmt, const char *what) {
  fprintf(stderr, "moe_dispatch_combine: rank %d: ", symm_rank());
  fprintf(stderr, fmt, what);
  fprintf(stderr, "\n");
  exit(1);
}

// The runtime's messages name the rank already.
void check(symm_status status, const char *what) {
  if (status == SYMM_SUCCESS)
    return;
  fprintf(stderr, "moe_dispatch_combine: %s: %s\n", what, symm_last_error());
  exit(1);
}

int parseInt(const char *flag, const char *text, int lo, int hi) {
  char *end = nullptr;
  long v = strtol(text, &end, 10);
  if (!*text || *end || v < lo || v > hi)
    die("%s", (std::string(flag) + " '" + text + "' is not an integer in " +
               std::to_string(lo) + ".." + std::to_string(hi))
                  .c_str());
  return int(v);
}

Options parse(int argc, char **argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&]() -> const char * {
      if (i + 1 >= argc)
        die("%s needs a value", a.c_str());
      return argv[++i];
    };
    if (a == "--variant")
      o.variant = value();
    else if (a == "--experts")
      o.experts = parseInt("--experts", value(), 1, 1024);
    else if (a == "--topk")
      o.topk = parseInt("--topk", value(), 1, 1024);
    else if (a == "--hidden")
      o.hidden = parseInt("--hidden", value(), 8, 1 << 20);
    else if (a == "--max-tokens")
      o.maxTokens = parseInt("--max-tokens", value(), 2, 1 << 20);
    else if (a == "--seed")
      o.seed = unsigned(parseInt("--seed", value(), 0, 1 << 30));
    else if (a == "--blocks")
      o.blocks = parseInt("--blocks", value(), 1, 1 << 16);
    else if (a == "--threads")
      o.threads = parseInt("--threads", value(), 1, 1024);
    else if (a == "--iters")
      o.iters = parseInt("--iters", value(), 1, 1 << 20);
    else if (a == "--warmup")
      o.warmup = parseInt("--warmup", value(), 0, 1 << 20);
    else if (a == "--kernels")
      o.kernels = value();
    else if (a == "--bench")
      o.bench = true;
    else if (a == "-h" || a == "--help") {
      printf("usage: moe_dispatch_combine [--variant bulk_sync|fused] "
             "[--experts E] [--topk K] [--hidden H] [--max-tokens T] "
             "[--seed S] [--blocks B] [--threads N] [--bench [--iters N] "
             "[--warmup N]] [--kernels PATH]\n");
      exit(0);
    } else
      die("unknown argument '%s' (see --help)", a.c_str());
  }
  if (o.variant != "bulk_sync" && o.variant != "fused")
    die("--variant '%s' is not bulk_sync or fused", o.variant.c_str());
  int w = symm_world_size();
  if (o.experts % w)
    die("%s", ("--experts " + std::to_string(o.experts) +
               " is not divisible by the world size " + std::to_string(w))
                  .c_str());
  if (o.topk > o.experts)
    die("%s", ("--topk " + std::to_string(o.topk) + " exceeds --experts " +
               std::to_string(o.experts))
                  .c_str());
  if (o.hidden % 8)
    die("%s", ("--hidden " + std::to_string(o.hidden) +
               " is not a multiple of 8 (16-byte vectors of fp16)")
                  .c_str());
  return o;
}

// One rank's inputs, the same wherever they are made: tokens t in
// [1, maxTokens), k distinct experts and normalised fp32 weights per token,
// x uniform in [-1, 1) in fp16.
struct Inputs {
  int tokens = 0;
  std::vector<int32_t> experts;
  std::vector<float> weights;
  std::vector<Half> x;
};

Inputs makeInputs(const Options &o, int rank, bool withX) {
  std::mt19937_64 rng(uint64_t(o.seed) * 1000003u + uint64_t(rank));
  Inputs in;
  in.tokens = std::uniform_int_distribution<int>(1, o.maxTokens - 1)(rng);
  std::vector<int32_t> all(o.experts);
  std::iota(all.begin(), all.end(), 0);
  std::uniform_real_distribution<float> unit(0.05f, 1.0f);
  for (int t = 0; t < in.tokens; ++t) {
    // Partial Fisher-Yates: k distinct experts.
    for (int c = 0; c < o.topk; ++c) {
      int j = std::uniform_int_distribution<int>(c, o.experts - 1)(rng);
      std::swap(all[c], all[j]);
      in.experts.push_back(all[c]);
    }
    float sum = 0;
    for (int c = 0; c < o.topk; ++c)
      sum += in.weights.emplace_back(unit(rng));
    for (int c = 0; c < o.topk; ++c)
      in.weights[size_t(t) * o.topk + c] /= sum;
  }
  if (withX) {
    std::uniform_real_distribution<float> value(-1.0f, 1.0f);
    in.x.resize(size_t(in.tokens) * o.hidden);
    for (Half &v : in.x)
      v = Half(value(rng));
  }
  return in;
}

std::vector<float> makeScales(const Options &o) {
  std::mt19937_64 rng(uint64_t(o.seed) * 7919u + 17u);
  std::uniform_real_distribution<float> s(0.5f, 1.5f);
  std::vector<float> scales(o.experts);
  for (float &v : scales)
    v = s(rng);
  return scales;
}

// Kernel parameters: a memref<?xT> is five (allocated and aligned pointer,
// offset, size, stride), an index one 64-bit value, an i32 one 32-bit value.
class Params {
public:
  Params &memref(void *p, size_t n) {
    return word(uint64_t(uintptr_t(p)))
        .word(uint64_t(uintptr_t(p)))
        .word(0)
        .word(n)
        .word(1);
  }
  Params &index(size_t v) { return word(v); }
  Params &i32(int32_t v) {
    int32_t &slot = small.emplace_back(v);
    ptrs.push_back(&slot);
    return *this;
  }
  void **data() { return ptrs.data(); }
  size_t size() const { return ptrs.size(); }

private:
  Params &word(uint64_t v) {
    uint64_t &slot = words.emplace_back(v);
    ptrs.push_back(&slot);
    return *this;
  }
  std::deque<uint64_t> words;
  std::deque<int32_t> small;
  std::vector<void *> ptrs;
};

template <typename T> T *deviceAlloc(size_t n) {
  void *p = nullptr;
  check(symm_device_malloc(std::max<size_t>(n, 1) * sizeof(T), &p),
        "device allocation");
  return static_cast<T *>(p);
}

template <typename T> T *heapAlloc(size_t n) {
  void *p = nullptr;
  // Rounded to 16 bytes so every allocation keeps 16-byte vectors aligned.
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

template <typename T> void zero(T *dst, size_t n) {
  upload(dst, std::vector<T>(n, T(0)));
}

std::string defaultKernels() {
  char self[4096];
  ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
  std::string dir = ".";
  if (n > 0) {
    self[n] = 0;
    dir = self;
    dir = dir.substr(0, dir.rfind('/'));
  }
  bool host = std::string(symm_backend_name()) == "host";
  return dir + "/moe_dispatch_combine" + (host ? ".so" : ".ptx");
}

double now() {
  return std::chrono::duration<double>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// The workload on one rank: inputs, buffers and the two variants.
class Moe {
public:
  Moe(const Options &o) : o(o) {
    rank = symm_rank();
    world = symm_world_size();
    local = o.experts / world;
    in = makeInputs(o, rank, true);
    scales = makeScales(o);
    items = size_t(in.tokens) * o.topk;
    maxRows = size_t(world) * (o.maxTokens - 1) * o.topk;
    bool host = std::string(symm_backend_name()) == "host";
    // Two blocks per SM of an H200 (combine needs them all resident).
    blocks = o.blocks ? o.blocks : host ? 8 : 264;
    threads = o.threads ? o.threads : host ? 32 : 256;
    check(symm_module_load_file(
              (o.kernels.empty() ? defaultKernels() : o.kernels).c_str(),
              &module),
          "loading the kernels");
    check(symm_stream_create(&stream), "stream");

    size_t h = o.hidden;
    x = deviceAlloc<Half>(items / o.topk * h);
    upload(x, in.x);
    experts = deviceAlloc<int32_t>(items);
    upload(experts, in.experts);
    weights = deviceAlloc<float>(items);
    upload(weights, in.weights);
    scale = deviceAlloc<float>(o.experts);
    upload(scale, scales);
    pos = deviceAlloc<int32_t>(items);
    out = deviceAlloc<Half>(size_t(in.tokens) * h);
    groups = deviceAlloc<int32_t>(local + 1);
    // Symmetric: the sizes are the same on every rank.
    cnt = heapAlloc<int32_t>(2 * size_t(o.experts));
    ready = heapAlloc<int32_t>(1);
    zero(ready, 1);
    if (o.variant == "fused") {
      for (int p = 0; p < 2; ++p) {
        recvX[p] = heapAlloc<Half>(maxRows * h);
        recvMeta[p] = heapAlloc<int32_t>(maxRows * 4);
        recvFlag[p] = heapAlloc<int32_t>(maxRows);
        zero(recvFlag[p], maxRows);
      }
      size_t slots = size_t(o.maxTokens - 1) * o.topk;
      backY = heapAlloc<Half>(slots * h);
      backFlag = heapAlloc<int32_t>(slots);
      zero(backFlag, slots);
    } else {
      sendX = deviceAlloc<Half>(items * h);
      sendMeta = deviceAlloc<int32_t>(items * 4);
      aX = deviceAlloc<Half>(maxRows * h);
      aMeta = deviceAlloc<int32_t>(maxRows * 4);
      gX[0] = deviceAlloc<Half>(maxRows * h);
      gX[1] = deviceAlloc<Half>(maxRows * h);
      gMeta = deviceAlloc<int32_t>(maxRows * 4);
      rcnt = heapAlloc<int32_t>(o.experts);
    }
    check(symm_barrier(), "barrier");
  }

  ~Moe() {
    symm_stream_destroy(stream);
    symm_module_unload(module);
  }

  // One dispatch + expert + combine; with `phases`, the stream is drained
  // after each phase and their times are added to the totals.
  void iteration(bool phases) {
    ++epoch;
    double t0 = now();
    if (o.variant == "fused")
      dispatchFused();
    else
      dispatchBulk();
    double t1 = phases ? drain() : 0;
    if (o.variant == "bulk_sync")
      expertBulk();
    double t2 = phases ? drain() : 0;
    if (o.variant == "fused")
      combineFused();
    else
      combineBulk();
    if (phases) {
      double t3 = drain();
      time[0] += t1 - t0;
      time[1] += t2 - t1;
      time[2] += t3 - t2;
    }
  }

  double drain() {
    check(symm_stream_synchronize(stream), "synchronize");
    return now();
  }

  int verify();
  void benchmark();

private:
  void launch(const char *kernel, unsigned grid, unsigned block, Params &p) {
    unsigned g[3] = {grid, 1, 1}, b[3] = {block, 1, 1};
    check(symm_launch(module, kernel, g, b, 0, stream, p.data(), p.size()),
          kernel);
  }

  int32_t *counts() { return cnt + (epoch & 1) * o.experts; }

  void route() {
    Params p;
    p.memref(experts, items)
        .memref(pos, items)
        .memref(counts(), o.experts)
        .memref(ready, 1)
        .index(items)
        .index(o.experts)
        .i32(epoch);
    launch("route", 1, std::min(1024, std::max(threads, 32)), p);
  }

  void dispatchFused() {
    route();
    int par = epoch & 1;
    Params p;
    p.memref(x, items / o.topk * o.hidden)
        .memref(experts, items)
        .memref(pos, items)
        .memref(counts(), o.experts)
        .memref(ready, 1)
        .memref(recvX[par], maxRows * o.hidden)
        .memref(recvMeta[par], maxRows * 4)
        .memref(recvFlag[par], maxRows)
        .memref(groups, local + 1)
        .index(items)
        .index(o.topk)
        .index(o.hidden)
        .index(o.experts)
        .i32(epoch);
    launch("dispatch", blocks, threads, p);
  }

  void combineFused() {
    int par = epoch & 1;
    size_t slots = size_t(o.maxTokens - 1) * o.topk;
    Params p;
    p.memref(recvX[par], maxRows * o.hidden)
        .memref(recvMeta[par], maxRows * 4)
        .memref(recvFlag[par], maxRows)
        .memref(groups, local + 1)
        .memref(scale, o.experts)
        .memref(backY, slots * o.hidden)
        .memref(backFlag, slots)
        .memref(weights, items)
        .memref(out, size_t(in.tokens) * o.hidden)
        .index(in.tokens)
        .index(o.topk)
        .index(o.hidden)
        .index(local)
        .i32(epoch);
    launch("combine", blocks, threads, p);
  }

  // Counts through the host, as all-to-all with split sizes needs them.
  void dispatchBulk() {
    route();
    {
      Params p;
      p.memref(x, items / o.topk * o.hidden)
          .memref(experts, items)
          .memref(pos, items)
          .memref(counts(), o.experts)
          .memref(sendX, items * o.hidden)
          .memref(sendMeta, items * 4)
          .index(items)
          .index(o.topk)
          .index(o.hidden)
          .index(o.experts);
      launch("pack", blocks, threads, p);
    }
    check(symm_all_to_all(counts(), rcnt, local, SYMM_INT32, stream),
          "all-to-all of the counts");
    check(symm_stream_synchronize(stream), "synchronize");
    std::vector<int32_t> sent = download(counts(), o.experts);
    std::vector<int32_t> got = download(rcnt, o.experts);
    sendRows.assign(world, 0);
    recvRows.assign(world, 0);
    for (int r = 0; r < world; ++r)
      for (int l = 0; l < local; ++l) {
        sendRows[r] += sent[r * local + l];
        recvRows[r] += got[r * local + l];
      }
    groupCounts.assign(local, 0);
    for (int r = 0; r < world; ++r)
      for (int l = 0; l < local; ++l)
        groupCounts[l] += got[r * local + l];
    rows = std::accumulate(recvRows.begin(), recvRows.end(), size_t(0));
    allToAllv(sendX, sendRows, aX, recvRows, o.hidden, SYMM_FLOAT16);
    allToAllv(sendMeta, sendRows, aMeta, recvRows, 4, SYMM_INT32);
    regroup(1);
  }

  void allToAllv(const void *send, const std::vector<size_t> &sendRows,
                 void *recv, const std::vector<size_t> &recvRows, size_t width,
                 symm_dtype type) {
    std::vector<size_t> sc(world), sd(world), rc(world), rd(world);
    for (int r = 0; r < world; ++r) {
      sc[r] = sendRows[r] * width;
      rc[r] = recvRows[r] * width;
      sd[r] = r ? sd[r - 1] + sc[r - 1] : 0;
      rd[r] = r ? rd[r - 1] + rc[r - 1] : 0;
    }
    check(symm_all_to_allv(send, sc.data(), sd.data(), recv, rc.data(),
                           rd.data(), type, stream),
          "all-to-allv");
  }

  void regroup(int toGrouped) {
    Params p;
    p.memref(aX, maxRows * o.hidden)
        .memref(aMeta, maxRows * 4)
        .memref(gX[toGrouped ? 0 : 1], maxRows * o.hidden)
        .memref(gMeta, maxRows * 4)
        .memref(rcnt, o.experts)
        .index(rows)
        .index(o.hidden)
        .index(local)
        .i32(toGrouped);
    launch("regroup", blocks, threads, p);
  }

  void expertBulk() {
    Params p;
    p.memref(gX[0], maxRows * o.hidden)
        .memref(gMeta, maxRows * 4)
        .memref(scale, o.experts)
        .memref(gX[1], maxRows * o.hidden)
        .index(rows)
        .index(o.hidden);
    launch("expert", blocks, threads, p);
  }

  void combineBulk() {
    // y goes back to the all-to-all layout, then home in pack's order.
    regroup(0);
    allToAllv(aX, recvRows, sendX, sendRows, o.hidden, SYMM_FLOAT16);
    Params p;
    p.memref(sendX, items * o.hidden)
        .memref(experts, items)
        .memref(pos, items)
        .memref(counts(), o.experts)
        .memref(weights, items)
        .memref(out, size_t(in.tokens) * o.hidden)
        .index(in.tokens)
        .index(o.topk)
        .index(o.hidden)
        .index(o.experts);
    launch("combine_bulk", blocks, threads, p);
  }

  const Options &o;
  int rank = 0, world = 1, local = 1;
  Inputs in;
  std::vector<float> scales;
  size_t items = 0, maxRows = 0, rows = 0;
  int blocks = 1, threads = 1;
  int32_t epoch = 0;
  symm_module *module = nullptr;
  symm_stream *stream = nullptr;
  Half *x = nullptr, *out = nullptr, *backY = nullptr, *sendX = nullptr,
       *aX = nullptr;
  Half *recvX[2] = {}, *gX[2] = {};
  int32_t *experts = nullptr, *pos = nullptr, *groups = nullptr, *cnt = nullptr,
          *ready = nullptr, *backFlag = nullptr, *sendMeta = nullptr,
          *aMeta = nullptr, *gMeta = nullptr, *rcnt = nullptr;
  int32_t *recvMeta[2] = {}, *recvFlag[2] = {};
  float *weights = nullptr, *scale = nullptr;
  std::vector<size_t> sendRows, recvRows;
  std::vector<int32_t> groupCounts;

public:
  double time[3] = {0, 0, 0};
};

// Checks the grouped dispatch output (every rank's pairs for this rank's
// experts, each once, in its expert's group, with the source's row) and the
// combined output against an fp64 reference. Returns 0 on PASS.
int Moe::verify() {
  std::vector<Half> gx;
  std::vector<int32_t> gmeta, gcount;
  size_t h = o.hidden;
  if (o.variant == "fused") {
    gcount = download(groups, local + 1);
    // A wrong count must not make the check read past the buffers.
    rows = std::min(size_t(std::max(gcount[local], 0)), maxRows);
    gcount.pop_back();
    int par = epoch & 1;
    gx = download(recvX[par], rows * h);
    gmeta = download(recvMeta[par], rows * 4);
  } else {
    gcount = groupCounts;
    gx = download(gX[0], rows * h);
    gmeta = download(gMeta, rows * 4);
  }
  std::vector<std::string> problems;
  // Expected group sizes from every rank's routing.
  std::vector<Inputs> all(world);
  std::vector<int32_t> want(local, 0);
  for (int r = 0; r < world; ++r) {
    all[r] = r == rank ? in : makeInputs(o, r, true);
    for (int32_t e : all[r].experts)
      if (e / local == rank)
        ++want[e % local];
  }
  if (gcount != want ||
      rows != size_t(std::accumulate(want.begin(), want.end(), 0)))
    problems.push_back("group counts differ from the routing");
  size_t start = 0, bad = 0;
  std::vector<std::vector<char>> seen(world);
  for (int r = 0; r < world; ++r)
    seen[r].assign(all[r].experts.size(), 0);
  for (int l = 0; l < local && problems.empty(); ++l) {
    for (size_t i = start; i < start + size_t(gcount[l]) && i < rows; ++i) {
      int32_t e = gmeta[i * 4], s = gmeta[i * 4 + 1], t = gmeta[i * 4 + 2],
              c = gmeta[i * 4 + 3];
      if (e != rank * local + l || s < 0 || s >= world || t < 0 ||
          t >= all[s].tokens || c < 0 || c >= o.topk ||
          all[s].experts[size_t(t) * o.topk + c] != e ||
          seen[s][size_t(t) * o.topk + c]++) {
        ++bad;
        continue;
      }
      if (memcmp(&gx[i * h], &all[s].x[size_t(t) * h], h * sizeof(Half)))
        ++bad;
    }
    start += size_t(gcount[l]);
  }
  if (bad)
    problems.push_back(std::to_string(bad) + " dispatched rows are wrong");

  std::vector<Half> got = download(out, size_t(in.tokens) * h);
  double worst = 0;
  size_t wrong = 0;
  for (int t = 0; t < in.tokens; ++t)
    for (size_t j = 0; j < h; ++j) {
      double ref = 0;
      for (int c = 0; c < o.topk; ++c) {
        size_t slot = size_t(t) * o.topk + c;
        float y =
            float(Half(float(in.x[t * h + j]) * scales[in.experts[slot]]));
        ref += double(in.weights[slot]) * y;
      }
      double err = std::fabs(double(float(got[t * h + j])) - ref);
      if (!(err <= 5e-3 + 1e-2 * std::fabs(ref)))
        ++wrong;
      if (!(err <= worst))
        worst = err;
    }
  if (wrong)
    problems.push_back(std::to_string(wrong) + " outputs out of tolerance");
  char line[256];
  snprintf(line, sizeof(line),
           "moe_dispatch_combine %s: W=%d E=%d k=%d H=%d tokens=%d rows "
           "received=%zu: ",
           o.variant.c_str(), world, o.experts, o.topk, o.hidden, in.tokens,
           rows);
  if (problems.empty()) {
    printf("%sPASS (worst error %.3g)\n", line, worst);
    return 0;
  }
  printf("%sFAIL %.3g (%s)\n", line, worst, problems.front().c_str());
  return 1;
}

// Per-iteration times: back-to-back iterations with one synchronisation at
// the end (total), then iterations drained after every phase (dispatch,
// expert, combine). Rank 0 prints the slowest rank's times (collected with
// an all-reduce of MAX).
void Moe::benchmark() {
  int iters = o.iters ? o.iters : 20, warmup = o.warmup ? o.warmup : 3;
  for (int i = 0; i < warmup; ++i)
    iteration(false);
  check(symm_barrier(), "barrier");
  double t0 = now();
  for (int i = 0; i < iters; ++i)
    iteration(false);
  double total = drain() - t0;
  check(symm_barrier(), "barrier");
  time[0] = time[1] = time[2] = 0;
  for (int i = 0; i < iters; ++i) {
    check(symm_barrier(), "barrier");
    iteration(true);
  }
  double mine[4] = {total / iters, time[0] / iters, time[1] / iters,
                    time[2] / iters};
  double *dev = deviceAlloc<double>(4);
  upload(dev, std::vector<double>(mine, mine + 4));
  check(symm_all_reduce(dev, dev, 4, SYMM_FLOAT64, SYMM_MAX, stream),
        "all-reduce of the times");
  check(symm_stream_synchronize(stream), "synchronize");
  std::vector<double> worst = download(dev, 4);
  symm_device_free(dev);
  if (rank == 0)
    printf("moe_dispatch_combine %s W=%d E=%d k=%d H=%d T_max=%d "
           "blocks=%d threads=%d: total %.1f us/iter (back to back); "
           "phases: dispatch %.1f us, expert %.1f us%s, combine %.1f us\n",
           o.variant.c_str(), world, o.experts, o.topk, o.hidden, o.maxTokens,
           blocks, threads, worst[0] * 1e6, worst[1] * 1e6, worst[2] * 1e6,
           o.variant == "fused" ? " (fused into combine)" : "", worst[3] * 1e6);
}

} // namespace

int main(int argc, char **argv) {
  if (symm_init() != SYMM_SUCCESS) {
    fprintf(stderr, "moe_dispatch_combine: %s\n", symm_last_error());
    return 1;
  }
  Options o = parse(argc, argv);
  int status = 0;
  {
    Moe moe(o);
    moe.iteration(false);
    moe.drain();
    status = moe.verify();
    // Then iterations back to back (both parities of the receive buffers,
    // flags of later epochs, no synchronisation between them), checked at
    // the end; with --bench, the timed ones.
    if (o.bench)
      moe.benchmark();
    else
      for (int i = 0; i < 3; ++i)
        moe.iteration(false);
    moe.drain();
    status |= moe.verify();
  }
  check(symm_finalize(), "finalize");
  return status;
}
