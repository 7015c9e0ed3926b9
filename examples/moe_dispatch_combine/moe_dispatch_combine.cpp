//===- moe_dispatch_combine.cpp - Expert-parallel MoE all-to-all ----------===//
//
// Dispatch every (token, choice) to the rank owning its expert, grouped per
// local expert; y = fp16(x * s_e) there; combine out[t] = sum_k w * y back
// at the source. Variants (README.md): bulk_sync (symm_all_to_allv with the
// counts exchanged through the host) and fused (per-token pushes and flags,
// the counts exchanged on the device, the expert scale fused into combine).
//
//===----------------------------------------------------------------------===//

#include "workload.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <numeric>
#include <string>
#include <vector>

using namespace workload;

namespace {

using Half = _Float16;

struct Options {
  std::string variant, kernels;
  int experts = 0, topk = 0, hidden = 0, maxTokens = 0, blocks = 0, threads = 0,
      iters = 0, warmup = 0;
  uint64_t seed = 0;
  bool bench = false;
};

Options parse(int argc, char **argv) {
  Args args("moe_dispatch_combine",
            "expert-parallel MoE dispatch, expert and combine");
  args.option("variant", "fused", "bulk_sync | fused");
  args.option("experts", "auto",
              "experts E (divisible by the ranks, <= 1024; auto: 16 rounded "
              "up to a multiple of the ranks, so any rank count runs)");
  args.option("topk", "4", "experts per token k (<= E)");
  args.option("hidden", "256", "values per token H (fp16, a multiple of 8)");
  args.option("max-tokens", "32", "tokens per rank are random in [1, T_max)");
  args.option("blocks", "auto",
              "workgroups (auto: two per SM on GPUs, at most what the device "
              "holds of the fused combine at once; 8 on CPU ranks)");
  args.option("threads", "auto",
              "threads per workgroup (auto: 256 on GPUs, 32 on CPU ranks)");
  args.option("kernels", "auto",
              "compiled kernels (auto: moe_dispatch_combine.so/.ptx beside "
              "the program)");
  args.parse(argc, argv);
  Options o;
  std::vector<std::string> variants =
      args.choices("variant", {"bulk_sync", "fused"});
  if (variants.size() != 1)
    args.fail("--variant takes one variant");
  o.variant = variants[0];
  auto bounded = [&](const char *name, int64_t hi) {
    int64_t v = args.integer(name);
    if (v > hi)
      args.fail("--" + std::string(name) + "=" + std::to_string(v) +
                " exceeds " + std::to_string(hi));
    return int(v);
  };
  int w = symm_world_size();
  o.experts = args.str("experts") == "auto" ? (16 + w - 1) / w * w
                                            : bounded("experts", 1024);
  o.topk = bounded("topk", 1024);
  o.hidden = bounded("hidden", 1 << 20);
  o.maxTokens = bounded("max-tokens", 1 << 20);
  // 0: auto, once the kernels are loaded (Moe).
  o.blocks = args.str("blocks") == "auto" ? 0 : bounded("blocks", 1 << 16);
  o.threads = args.str("threads") == "auto" ? (onGpu() ? 256 : 32)
                                            : bounded("threads", 1024);
  o.kernels = args.str("kernels") == "auto"
                  ? kernelsPath("moe_dispatch_combine")
                  : args.str("kernels");
  o.seed = uint64_t(args.integer("seed"));
  o.bench = args.has("bench");
  o.iters = int(args.integer("iters"));
  o.warmup = int(args.integer("warmup"));
  if (o.experts % w)
    args.fail("--experts=" + std::to_string(o.experts) +
              " is not divisible by the world size " + std::to_string(w));
  if (o.topk > o.experts)
    args.fail("--topk=" + std::to_string(o.topk) +
              " exceeds --experts=" + std::to_string(o.experts));
  if (o.hidden % 8)
    args.fail("--hidden=" + std::to_string(o.hidden) +
              " is not a multiple of 8 (16-byte vectors of fp16)");
  if (o.maxTokens < 2)
    args.fail("--max-tokens=" + std::to_string(o.maxTokens) +
              " leaves no token count in [1, T_max)");
  // Host memory at most: every rank's tokens, routes and weights (the
  // check regenerates them), the rows this rank may receive with their
  // metadata, and this rank's tokens, result and reference.
  std::string sizes = "--hidden=" + std::to_string(o.hidden) +
                      " --max-tokens=" + std::to_string(o.maxTokens) +
                      " --topk=" + std::to_string(o.topk);
  uint64_t t = uint64_t(o.maxTokens - 1), h = uint64_t(o.hidden),
           k = uint64_t(o.topk);
  requireHostMemory(
      sizes + " on " + std::to_string(w) +
          " ranks (every rank's tokens, "
          "the rows received, the reference)",
      checkedSum(sizes, {checkedProduct(sizes, {uint64_t(w), t, h, 2}),
                         checkedProduct(sizes, {uint64_t(w), t, k, 8}),
                         checkedProduct(sizes, {uint64_t(w), t, k, 2 * h + 16}),
                         checkedProduct(sizes, {t, h, 12})}));
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
  Rng rng(o.seed * 1000003 + uint64_t(rank));
  Inputs in;
  in.tokens = 1 + int(rng.below(uint64_t(o.maxTokens - 1)));
  std::vector<int32_t> all(o.experts);
  std::iota(all.begin(), all.end(), 0);
  for (int t = 0; t < in.tokens; ++t) {
    // Partial Fisher-Yates: k distinct experts.
    for (int c = 0; c < o.topk; ++c) {
      int j = c + int(rng.below(uint64_t(o.experts - c)));
      std::swap(all[c], all[j]);
      in.experts.push_back(all[c]);
    }
    float sum = 0;
    for (int c = 0; c < o.topk; ++c)
      sum += in.weights.emplace_back(rng.uniform(0.05f, 1.0f));
    for (int c = 0; c < o.topk; ++c)
      in.weights[size_t(t) * o.topk + c] /= sum;
  }
  if (withX) {
    in.x.resize(size_t(in.tokens) * o.hidden);
    for (Half &v : in.x)
      v = Half(rng.uniform(-1.0f, 1.0f));
  }
  return in;
}

std::vector<float> makeScales(const Options &o) {
  Rng rng(o.seed * 7919 + 17);
  std::vector<float> scales(o.experts);
  for (float &v : scales)
    v = rng.uniform(0.5f, 1.5f);
  return scales;
}

template <typename T> void zero(T *dst, size_t n) {
  upload(dst, std::vector<T>(n, T(0)));
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
    threads = o.threads;
    check(symm_module_load_file(o.kernels.c_str(), &module),
          "loading the kernels");
    // The fused combine's workgroups wait on each other (symm.co_resident).
    blocks = o.blocks ? o.blocks
                      : int(residentGrid(module, "combine", unsigned(threads),
                                         0, 2, 8));
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
    p.launch(module, kernel, grid, block, stream);
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
  std::vector<double> ref(got.size(), 0.0);
  for (int t = 0; t < in.tokens; ++t)
    for (size_t j = 0; j < h; ++j)
      for (int c = 0; c < o.topk; ++c) {
        size_t slot = size_t(t) * o.topk + c;
        float y =
            float(Half(float(in.x[t * h + j]) * scales[in.experts[slot]]));
        ref[t * h + j] += double(in.weights[slot]) * y;
      }
  Comparison c = compare(
      got.size(), [&](size_t i) { return double(float(got[i])); }, ref, 5e-3,
      1e-2);
  char what[256];
  snprintf(what, sizeof(what),
           "moe_dispatch_combine %s: W=%d E=%d k=%d H=%d tokens=%d rows "
           "received=%zu",
           o.variant.c_str(), world, o.experts, o.topk, o.hidden, in.tokens,
           rows);
  if (!problems.empty()) {
    printf("%s: FAIL %.6g (dispatch: %s)\n", what, c.worst,
           problems.front().c_str());
    return 1;
  }
  return report(what, c);
}

// Per-iteration times: back-to-back iterations with one synchronisation at
// the end (total), then iterations drained after every phase (dispatch,
// expert, combine). Rank 0 prints the slowest rank's times (collected with
// an all-reduce of MAX).
void Moe::benchmark() {
  int iters = o.iters;
  double total =
      timeUs([&] { iteration(false); }, o.warmup, iters, stream) * 1e-6;
  check(symm_barrier(), "barrier");
  time[0] = time[1] = time[2] = 0;
  for (int i = 0; i < iters; ++i) {
    check(symm_barrier(), "barrier");
    iteration(true);
  }
  double mine[4] = {total, time[0] / iters, time[1] / iters, time[2] / iters};
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
  WORKLOAD_CHECK(symm_init());
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
