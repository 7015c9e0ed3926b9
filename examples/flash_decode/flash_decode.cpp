//===- flash_decode.cpp - Decode attention over a KV cache split by rank --===//
//
// Batch 1, `heads` query heads of dimension D; the KV cache (fp16, global
// length L) is split across ranks by position. Each rank computes partial
// outputs and log-sum-exps over its shard (online softmax, fp32), the
// partials are combined across ranks, every rank ends with the whole output.
// Variants (README.md): bulk_sync, fine_grained, fused, and bulk_nccl (the
// NCCL baseline: the same kernels around ncclAllGather) in a build with
// FLASH_DECODE_NCCL defined and NCCL linked (bench/workloads/flash_decode.sh).
//
//===----------------------------------------------------------------------===//

#include "workload.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#ifdef FLASH_DECODE_NCCL
#include <nccl.h>
#endif

using namespace workload;

namespace {

using Half = _Float16;

#ifdef FLASH_DECODE_NCCL
[[noreturn]] void die(const std::string &message) {
  fprintf(stderr, "flash_decode: rank %d: %s\n", symm_rank(), message.c_str());
  exit(1);
}
#endif

struct Options {
  std::string variant, kernels;
  int heads = 0, kvHeads = 0, dim = 0, splits = 0, blocks = 0, threads = 0,
      checkHeads = -1, iters = 0, warmup = 0;
  long long length = 0;
  uint64_t seed = 0;
  bool bench = false;
};

Options parse(int argc, char **argv) {
  Args args("flash_decode", "decode attention over a KV cache split across "
                            "the ranks by position");
  args.option("variant", "fused",
              "bulk_sync | fine_grained | fused | bulk_nccl (builds with "
              "NCCL only)");
  args.option("heads", "8", "query heads");
  args.option("kv-heads", "auto", "KV heads, dividing heads (auto: heads)");
  args.option("head-dim", "128", "D: 8, 16, 32, 64, 128 or 256");
  args.option("length", "1024", "global KV length L (K/M suffixes)");
  args.option("splits", "auto",
              "tiles per head of a rank's shard (auto: 16 "
              "on GPUs, 2 on CPU ranks)");
  args.option("blocks", "auto",
              "workgroups, at most one per tile (auto: "
              "528 on GPUs, 8 on CPU ranks)");
  args.option("threads", "auto",
              "threads per workgroup, a multiple of 32 up to 256 "
              "(auto: 256 on GPUs, 32 on CPU ranks)");
  args.option("check-heads", "auto",
              "heads each rank checks (auto: all "
              "when the cache is small, else 2)");
  args.option("kernels", "auto",
              "compiled kernels (auto: flash_decode.so/"
              ".ptx beside the program)");
  args.parse(argc, argv);
  Options o;
  std::vector<std::string> variants = args.choices(
      "variant", {"bulk_sync", "fine_grained", "fused", "bulk_nccl"});
  if (variants.size() != 1)
    args.fail("--variant takes one variant");
  o.variant = variants[0];
#ifndef FLASH_DECODE_NCCL
  if (o.variant == "bulk_nccl")
    args.fail("--variant=bulk_nccl needs a build with NCCL "
              "(bench/workloads/flash_decode.sh bundle makes one)");
#endif
  auto bounded = [&](const char *name, int64_t hi) {
    int64_t v = args.integer(name);
    if (v > hi)
      args.fail("--" + std::string(name) + "=" + std::to_string(v) +
                " exceeds " + std::to_string(hi));
    return v;
  };
  auto automatic = [&](const char *name, int64_t gpu, int64_t cpu, int64_t hi) {
    return args.str(name) == "auto" ? (onGpu() ? gpu : cpu) : bounded(name, hi);
  };
  o.heads = int(bounded("heads", 4096));
  o.kvHeads = int(automatic("kv-heads", o.heads, o.heads, 4096));
  o.dim = int(bounded("head-dim", 256));
  o.length = bounded("length", 1ll << 32);
  o.splits = int(automatic("splits", 16, 2, 4096));
  o.blocks = int(automatic("blocks", 528, 8, 1 << 20));
  o.threads = int(automatic("threads", 256, 32, 1024));
  o.checkHeads = args.str("check-heads") == "auto"
                     ? -1
                     : int(bounded("check-heads", 4096));
  o.kernels = args.str("kernels") == "auto" ? kernelsPath("flash_decode")
                                            : args.str("kernels");
  o.seed = uint64_t(args.integer("seed"));
  o.bench = args.has("bench");
  o.iters = int(args.integer("iters"));
  o.warmup = int(args.integer("warmup"));
  if (o.heads % o.kvHeads)
    args.fail("--heads=" + std::to_string(o.heads) +
              " is not a multiple of --kv-heads=" + std::to_string(o.kvHeads));
  int lanes = o.dim / 8;
  if (o.dim % 8 || 32 % lanes)
    args.fail("--head-dim=" + std::to_string(o.dim) +
              " must be 8, 16, 32, 64, 128 or 256 (D/8 lanes of 16-byte "
              "vectors per row, dividing a 32-lane subgroup)");
  if (o.threads > 256)
    args.fail("--threads=" + std::to_string(o.threads) +
              " exceeds 256: the attend kernel is compiled for workgroups of "
              "at most 256 threads (nvvm.maxntid)");
  if (o.threads % 32)
    args.fail("--threads=" + std::to_string(o.threads) +
              " is not a multiple of 32");
  if (o.threads / lanes > 64)
    args.fail("--threads=" + std::to_string(o.threads) +
              " gives more than 64 rows in flight per block for --head-dim=" +
              std::to_string(o.dim));
  if (o.length < symm_world_size())
    args.fail("--length=" + std::to_string(o.length) +
              " is shorter than the world size " +
              std::to_string(symm_world_size()));
  return o;
}

// An f32 kernel parameter travels in an i32 slot.
int32_t floatBits(float f) {
  int32_t bits;
  std::memcpy(&bits, &f, sizeof(bits));
  return bits;
}

// The inputs' generator, the same as the fill kernel's: the top 24 bits of a
// splitmix64 hash of (key, index), scaled to [-1, 1), rounded to fp16.
Half value(uint64_t key, uint64_t index) {
  uint64_t z = index * 0x9E3779B97F4A7C15ull + key;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return Half(float(z >> 40) * 0x1p-23f - 1.0f);
}

class FlashDecode {
public:
  FlashDecode(const Options &o) : o(o) {
    rank = symm_rank();
    world = symm_world_size();
    splits = o.splits;
    tiles = size_t(o.heads) * splits;
    blocks = o.blocks;
    threads = o.threads;
    start = rank * o.length / world;
    len = (rank + 1) * o.length / world - start;
    p = o.dim + 4;
    keyK = uint64_t(o.seed) * 4 + 1;
    keyV = uint64_t(o.seed) * 4 + 2;
    keyQ = uint64_t(o.seed) * 4 + 3;
    check(symm_module_load_file(o.kernels.c_str(), &module),
          "loading the kernels");
    check(symm_stream_create(&stream), "stream");
    check(symm_stream_create(&side), "stream");

    size_t row = size_t(o.kvHeads) * o.dim;
    k = deviceAlloc<Half>(len * row);
    v = deviceAlloc<Half>(len * row);
    fill(k, len * row, start * row, keyK);
    fill(v, len * row, start * row, keyV);
    std::vector<Half> hq(size_t(o.heads) * o.dim);
    for (size_t i = 0; i < hq.size(); ++i)
      hq[i] = value(keyQ, i);
    q = deviceAlloc<Half>(hq.size());
    upload(q, hq);
    out = deviceAlloc<Half>(hq.size());
    local = heapAlloc<float>(tiles * p);
    ready = heapAlloc<int32_t>(tiles);
    upload(ready, std::vector<int32_t>(tiles, 0));
    pushed = heapAlloc<int32_t>(kPushers);
    upload(pushed, std::vector<int32_t>(kPushers, 0));
    // The low-latency words of fused and fine_grained, one set per parity
    // of the epoch: a rank puts epoch e + 2's tiles only after every peer's
    // combine of epoch e (its attend follows its combine of e + 1, which
    // waited for every peer's tiles of e + 1, put after their combine of e).
    // Whole lines of 16 words: a vector's words lie in the line of its
    // index / 4 (symm_coll_ll_word), so the last vectors may reach past
    // world * tiles * P words into the line they start.
    llWords = (world * tiles * p + 15) / 16 * 16;
    for (int par = 0; par < 2; ++par) {
      ll[par] = heapAlloc<uint64_t>(llWords);
      upload(ll[par], std::vector<uint64_t>(llWords, 0));
    }
    gathered = deviceAlloc<float>(world * tiles * p);
#ifdef FLASH_DECODE_NCCL
    if (o.variant == "bulk_nccl")
      initNccl();
#endif
    check(symm_stream_synchronize(stream), "synchronize");
    check(symm_barrier(), "barrier");
  }

  ~FlashDecode() {
    symm_stream_destroy(stream);
    symm_stream_destroy(side);
    symm_module_unload(module);
  }

  void iteration() {
    ++epoch;
    int par = epoch & 1;
    if (o.variant == "bulk_sync") {
      attend(0, local);
      check(symm_all_gather(local, gathered, tiles * p, SYMM_FLOAT32, stream),
            "all-gather of the partials");
      combine(gathered, 0);
    } else if (o.variant == "bulk_nccl") {
#ifdef FLASH_DECODE_NCCL
      attend(0, local);
      // On the cuda backend a symm_stream is the CUstream itself.
      ncclResult_t r =
          ncclAllGather(local, gathered, tiles * p, ncclFloat32, comm,
                        reinterpret_cast<cudaStream_t>(stream));
      if (r != ncclSuccess)
        die(std::string("ncclAllGather: ") + ncclGetErrorString(r));
      combine(gathered, 0);
#endif
    } else if (o.variant == "fine_grained") {
      attend(2, local);
      Params a;
      a.memref(local, tiles * p)
          .memref(ready, tiles)
          .memref(ll[par], llWords)
          .memref(pushed, kPushers)
          .index(tiles)
          .index(p)
          .i32(epoch);
      // Few blocks: they spin on attend's tiles beside it.
      size_t pushers = std::min<size_t>(tiles, kPushers);
      launch("push", pushers, 64, a, side);
      combine(gathered, 1, pushers);
    } else {
      attend(1, local);
      combine(gathered, 1);
    }
  }

  // The local attention kernel alone (no communication), for --bench.
  void attendOnly() {
    ++epoch;
    attend(0, local);
  }

  void drain() {
    check(symm_stream_synchronize(stream), "synchronize");
    check(symm_stream_synchronize(side), "synchronize");
  }

  int verify();
  void benchmark();

private:
  void launch(const char *kernel, size_t grid, unsigned block, Params &a,
              symm_stream *on) {
    a.launch(module, kernel, unsigned(std::max<size_t>(grid, 1)), block, on);
  }

  void fill(Half *buf, size_t n, size_t first, uint64_t key) {
    Params a;
    a.memref(buf, n).index(n).index(first).index(key);
    launch("fill", std::min<size_t>(1024, (n + 2047) / 2048), 256, a, stream);
  }

  void attend(int mode, float *dst) {
    int par = epoch & 1;
    size_t row = size_t(o.kvHeads) * o.dim;
    Params a;
    a.memref(q, size_t(o.heads) * o.dim)
        .memref(k, len * row)
        .memref(v, len * row)
        .memref(dst, tiles * p)
        .memref(ll[par], llWords)
        .memref(ready, tiles)
        .index(len)
        .index(o.heads)
        .index(o.heads / o.kvHeads)
        .index(o.kvHeads)
        .index(o.dim)
        .index(splits)
        .i32(floatBits(1.0f / std::sqrt(float(o.dim))))
        .i32(mode)
        .i32(epoch);
    launch("attend", std::min<size_t>(tiles, blocks), threads, a, stream);
  }

  // wait: take the tiles out of the words; pushers: acquire that many push
  // workgroups' pushed flags first (fine_grained).
  void combine(float *src, int wait, size_t pushers = 0) {
    Params a;
    a.memref(src, world * tiles * p)
        .memref(ll[epoch & 1], llWords)
        .memref(pushed, kPushers)
        .memref(out, size_t(o.heads) * o.dim)
        .index(o.heads)
        .index(splits)
        .index(o.dim)
        .index(pushers)
        .i32(wait)
        .i32(epoch);
    launch("combine", std::min<size_t>(o.heads, blocks), 128, a, stream);
  }

#ifdef FLASH_DECODE_NCCL
  // NCCL's id travels through rank 0's heap.
  void initNccl() {
    ncclUniqueId id;
    void *slot = heapAlloc<char>(sizeof(id)), *root = nullptr;
    if (rank == 0) {
      if (ncclGetUniqueId(&id) != ncclSuccess)
        die("ncclGetUniqueId failed");
      check(symm_memcpy(slot, &id, sizeof(id)), "upload");
    }
    check(symm_barrier(), "barrier");
    check(symm_translate(slot, 0, &root), "translate");
    check(symm_memcpy(&id, root, sizeof(id)), "download");
    ncclResult_t r = ncclCommInitRank(&comm, world, id, rank);
    if (r != ncclSuccess)
      die(std::string("ncclCommInitRank: ") + ncclGetErrorString(r));
  }
  ncclComm_t comm = nullptr;
#endif

  const Options &o;
  int rank = 0, world = 1, splits = 1, blocks = 1, threads = 32;
  size_t tiles = 1, start = 0, len = 0, p = 0, llWords = 0;
  uint64_t keyK = 0, keyV = 0, keyQ = 0;
  int32_t epoch = 0;
  symm_module *module = nullptr;
  symm_stream *stream = nullptr, *side = nullptr;
  Half *q = nullptr, *k = nullptr, *v = nullptr, *out = nullptr;
  float *local = nullptr, *gathered = nullptr;
  // fine_grained's push workgroups, each with its flag in pushed.
  static constexpr size_t kPushers = 8;
  int32_t *ready = nullptr, *pushed = nullptr;
  uint64_t *ll[2] = {};
};

// Every rank checks the heads it is given against an fp64 softmax over the
// whole cache (re-generated on the host): all heads when the cache is
// small, else --check-heads of them (default 2, spread over the ranks).
int FlashDecode::verify() {
  std::vector<Half> got = download(out, size_t(o.heads) * o.dim);
  size_t d = o.dim, row = size_t(o.kvHeads) * d;
  int count = o.checkHeads;
  if (count < 0)
    count = double(o.heads) * o.length * d <= (1 << 26) ? o.heads : 2;
  count = std::min(count, o.heads);
  std::vector<double> s(o.length), acc(d), ref, gotChecked;
  for (int c = 0; c < count; ++c) {
    int h = count == o.heads ? c : (rank + c * (o.heads / count + 1)) % o.heads;
    int g = h / (o.heads / o.kvHeads);
    std::vector<double> qv(d);
    for (size_t j = 0; j < d; ++j)
      qv[j] = double(float(value(keyQ, h * d + j)));
    double mx = -1e300;
    for (long long pos = 0; pos < o.length; ++pos) {
      double dot = 0;
      for (size_t j = 0; j < d; ++j)
        dot += qv[j] * double(float(value(keyK, pos * row + g * d + j)));
      s[pos] = dot / std::sqrt(double(d));
      mx = std::max(mx, s[pos]);
    }
    std::fill(acc.begin(), acc.end(), 0.0);
    double sum = 0;
    for (long long pos = 0; pos < o.length; ++pos) {
      double e = std::exp(s[pos] - mx);
      sum += e;
      for (size_t j = 0; j < d; ++j)
        acc[j] += e * double(float(value(keyV, pos * row + g * d + j)));
    }
    for (size_t j = 0; j < d; ++j) {
      ref.push_back(acc[j] / sum);
      gotChecked.push_back(double(float(got[h * d + j])));
    }
  }
  Comparison c = compare(
      ref.size(), [&](size_t i) { return gotChecked[i]; }, ref, 2e-4, 1e-2);
  char what[256];
  snprintf(what, sizeof(what),
           "flash_decode %s: W=%d heads=%d kv_heads=%d D=%d L=%lld splits=%d "
           "(%d heads checked)",
           o.variant.c_str(), world, o.heads, o.kvHeads, o.dim, o.length,
           splits, count);
  return report(what, c);
}

// Per-iteration times of back-to-back iterations, and of the local
// attention kernel alone; rank 0 prints the slowest rank's, with the KV
// bytes each rank reads per iteration over that time.
void FlashDecode::benchmark() {
  // The last combine waits for every tile, so the main stream's end also
  // ends fine_grained's pushes.
  double mine[2] = {
      timeUs([&] { iteration(); }, o.warmup, o.iters, stream) * 1e-6,
      timeUs([&] { attendOnly(); }, o.warmup, o.iters, stream) * 1e-6};
  double *dev = deviceAlloc<double>(2);
  upload(dev, std::vector<double>(mine, mine + 2));
  check(symm_all_reduce(dev, dev, 2, SYMM_FLOAT64, SYMM_MAX, stream),
        "all-reduce of the times");
  check(symm_stream_synchronize(stream), "synchronize");
  std::vector<double> worst = download(dev, 2);
  symm_device_free(dev);
  double bytes = 2.0 * len * o.kvHeads * o.dim * sizeof(Half);
  if (rank == 0)
    printf("flash_decode %s W=%d heads=%d kv_heads=%d D=%d L=%lld splits=%d "
           "blocks=%zu threads=%d: total %.1f us/iter (back to back, %.0f "
           "GB/s of KV per rank); attention kernel alone %.1f us (%.0f "
           "GB/s)\n",
           o.variant.c_str(), world, o.heads, o.kvHeads, o.dim, o.length,
           splits, std::min<size_t>(tiles, blocks), threads, worst[0] * 1e6,
           bytes / worst[0] / 1e9, worst[1] * 1e6, bytes / worst[1] / 1e9);
}

} // namespace

int main(int argc, char **argv) {
  WORKLOAD_CHECK(symm_init());
  Options o = parse(argc, argv);
  int status = 0;
  {
    FlashDecode fd(o);
    fd.iteration();
    fd.drain();
    status = fd.verify();
    // Then iterations back to back (both parities of the gathered partials,
    // words of later epochs, no synchronisation between them), checked at
    // the end; with --bench, the timed ones.
    if (o.bench)
      fd.benchmark();
    else
      for (int i = 0; i < 3; ++i)
        fd.iteration();
    fd.drain();
    status |= fd.verify();
  }
  check(symm_finalize(), "finalize");
  return status;
}
