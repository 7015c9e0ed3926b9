//===- CollectivesTest.cpp - Correctness of symm/collectives.h --*- C++ -*-===//
//
//   symm-run -n N symm-collectives-test [quick | large | races | choice |
//                                        chain | halves | config-error TEXT |
//                                        copy-engine-stall [exit]]
//
// Every collective x element type x reduce op x count (all-reduce with each
// algorithm), compared on every rank with a reference computed here: exact
// for integers; for floating point one-shot and two-shot fold in rank order
// in f32 (f64 for f64) like the reference and round once (and so do the
// low-latency all-reduce, "ll", at counts of whole vectors, and the
// low-latency two-shot, "ll_two_shot", the LL128 one-shot, "ll128", and
// the LL128 two-shot, "ll128_two_shot", at any count), so the results
// must match within one unit in the last place of the element type (the
// tolerance below), and in practice do bit for bit. The ring folds each
// segment in ring order from the segment's rank and rounds to the element
// type at each of its world - 1 hops, so for it the tolerance is world - 1
// units in the last place (the inputs keep sums exact, so only products of
// bf16 can round differently). Then in place and out of place, heap, device
// and (host backend) host buffers, back-to-back calls on one stream and on
// two streams, and the argument errors. Prints "collectives ok" on success;
// exits non-zero with the first failures.
//
//===----------------------------------------------------------------------===//

#include "symm/collectives.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <iterator>
#include <string>
#include <unistd.h>
#include <vector>

namespace {

int rank, world;
int failures = 0;
bool hostBackend;

#define CHECK_OK(call)                                                         \
  do {                                                                         \
    symm_status st_ = (call);                                                  \
    if (st_ != SYMM_SUCCESS) {                                                 \
      printf("FAILED %s:%d: %s: %s\n", __FILE__, __LINE__, #call,              \
             symm_last_error());                                               \
      exit(1);                                                                 \
    }                                                                          \
  } while (0)

// Every element type (symm/dtypes.def), so that a type added there is
// tested here.
const symm_dtype kDtypes[] = {
#define SYMM_DTYPE(ENUMERATOR, NAME, BYTES, ACCUMULATOR) ENUMERATOR,
#include "symm/dtypes.def"
};
const char *const kOpNames[] = {"sum", "prod", "min", "max"};

bool isFloat(symm_dtype d) { return d >= SYMM_FLOAT16; }

// bf16 and f16 by hand (round to nearest even), so the reference does not
// depend on the compiler's half-precision support.
uint16_t toBf16(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  u += 0x7fff + ((u >> 16) & 1);
  return uint16_t(u >> 16);
}
float fromBf16(uint16_t h) {
  uint32_t u = uint32_t(h) << 16;
  float f;
  memcpy(&f, &u, 4);
  return f;
}
uint16_t toF16(float f) {
  // Values here are small multiples of 1/4 and products of four of them:
  // normal numbers, so only the mantissa needs rounding.
  uint32_t u;
  memcpy(&u, &f, 4);
  uint32_t sign = (u >> 16) & 0x8000;
  int32_t exp = int32_t((u >> 23) & 0xff) - 127 + 15;
  uint32_t mant = u & 0x7fffff;
  if ((u & 0x7fffffff) == 0)
    return uint16_t(sign);
  uint32_t rounded = mant + 0xfff + ((mant >> 13) & 1);
  if (rounded & 0x800000) {
    rounded = 0;
    ++exp;
  }
  return uint16_t(sign | (uint32_t(exp) << 10) | (rounded >> 13));
}
float fromF16(uint16_t h) {
  uint32_t sign = uint32_t(h & 0x8000) << 16;
  int32_t exp = (h >> 10) & 0x1f;
  uint32_t mant = h & 0x3ff;
  uint32_t u = exp == 0 && mant == 0
                   ? sign
                   : sign | (uint32_t(exp - 15 + 127) << 23) | (mant << 13);
  float f;
  memcpy(&f, &u, 4);
  return f;
}

/// Element `i` as a double, and back (rounded to the element type).
double get(symm_dtype d, const void *p, size_t i) {
  switch (d) {
  case SYMM_INT8:
    return static_cast<const int8_t *>(p)[i];
  case SYMM_INT32:
    return static_cast<const int32_t *>(p)[i];
  case SYMM_INT64:
    return double(static_cast<const int64_t *>(p)[i]);
  case SYMM_FLOAT16:
    return fromF16(static_cast<const uint16_t *>(p)[i]);
  case SYMM_BFLOAT16:
    return fromBf16(static_cast<const uint16_t *>(p)[i]);
  case SYMM_FLOAT32:
    return static_cast<const float *>(p)[i];
  case SYMM_FLOAT64:
    return static_cast<const double *>(p)[i];
  }
  return 0;
}
void put(symm_dtype d, void *p, size_t i, double v) {
  switch (d) {
  case SYMM_INT8:
    static_cast<int8_t *>(p)[i] = int8_t(int64_t(v));
    return;
  case SYMM_INT32:
    static_cast<int32_t *>(p)[i] = int32_t(int64_t(v));
    return;
  case SYMM_INT64:
    static_cast<int64_t *>(p)[i] = int64_t(v);
    return;
  case SYMM_FLOAT16:
    static_cast<uint16_t *>(p)[i] = toF16(float(v));
    return;
  case SYMM_BFLOAT16:
    static_cast<uint16_t *>(p)[i] = toBf16(float(v));
    return;
  case SYMM_FLOAT32:
    static_cast<float *>(p)[i] = float(v);
    return;
  case SYMM_FLOAT64:
    static_cast<double *>(p)[i] = v;
    return;
  }
}

/// The input of rank `r`, element `i`, call `seed`: small integers (halves
/// for floating point), so that sums and products of four are exact in the
/// accumulator and rounding happens once, as in the kernels.
double input(symm_dtype d, int r, size_t i, int seed) {
  int64_t v = int64_t((i * 7 + size_t(r) * 13 + size_t(seed) * 3) % 15) - 7;
  return isFloat(d) ? double(v) * 0.5 : double(v);
}

/// The reduction of `vals` (rank order) as the kernels compute it, rounded
/// to the element type.
double reduce(symm_dtype d, symm_reduce_op op,
              const std::vector<double> &vals) {
  if (!isFloat(d)) {
    // Two's complement wrap-around for sum and product, like arith.addi.
    int64_t acc = int64_t(vals[0]);
    for (size_t q = 1; q < vals.size(); ++q) {
      int64_t v = int64_t(vals[q]);
      switch (op) {
      case SYMM_SUM:
        acc = int64_t(uint64_t(acc) + uint64_t(v));
        break;
      case SYMM_PROD:
        acc = int64_t(uint64_t(acc) * uint64_t(v));
        break;
      case SYMM_MIN:
        acc = std::min(acc, v);
        break;
      case SYMM_MAX:
        acc = std::max(acc, v);
        break;
      }
    }
    char buf[8];
    put(d, buf, 0, double(acc));
    return get(d, buf, 0);
  }
  double acc = vals[0];
  for (size_t q = 1; q < vals.size(); ++q) {
    double v = vals[q];
    switch (op) {
    case SYMM_SUM:
      acc += v;
      break;
    case SYMM_PROD:
      acc *= v;
      break;
    case SYMM_MIN:
      acc = std::min(acc, v);
      break;
    case SYMM_MAX:
      acc = std::max(acc, v);
      break;
    }
    if (d != SYMM_FLOAT64)
      acc = double(float(acc));
  }
  char buf[8];
  put(d, buf, 0, acc);
  return get(d, buf, 0);
}

/// Relative tolerance: one unit in the last place of the element type.
double tolerance(symm_dtype d) {
  switch (d) {
  case SYMM_FLOAT16:
    return 1.0 / 1024;
  case SYMM_BFLOAT16:
    return 1.0 / 128;
  case SYMM_FLOAT32:
    return 1.0 / (1 << 23);
  case SYMM_FLOAT64:
    return 1.0 / (1ull << 52);
  default:
    return 0;
  }
}

enum class Place { Heap, Device, Host };
const char *const kPlaceNames[] = {"heap", "device", "host"};

/// A buffer of `bytes` bytes in one kind of memory, filled from and read
/// back into host vectors.
struct Buffer {
  Place place;
  size_t bytes;
  void *ptr = nullptr;
  std::vector<char> host;
  Buffer(Place place, size_t bytes) : place(place), bytes(bytes) {
    size_t n = std::max<size_t>(bytes, 1);
    if (place == Place::Heap)
      CHECK_OK(symm_malloc(n, &ptr));
    else if (place == Place::Device)
      CHECK_OK(symm_device_malloc(n, &ptr));
    else {
      host.resize(n);
      ptr = host.data();
    }
  }
  ~Buffer() {
    if (place == Place::Heap)
      CHECK_OK(symm_free(ptr));
    else if (place == Place::Device)
      CHECK_OK(symm_device_free(ptr));
  }
  void write(const std::vector<char> &data, size_t at = 0) {
    if (!data.empty())
      CHECK_OK(
          symm_memcpy(static_cast<char *>(ptr) + at, data.data(), data.size()));
  }
  std::vector<char> read() {
    std::vector<char> out(bytes);
    if (bytes)
      CHECK_OK(symm_memcpy(out.data(), ptr, bytes));
    return out;
  }
};

std::string describe(const char *what, symm_dtype d, int op, size_t count,
                     Place place, bool inPlace) {
  char buf[256];
  snprintf(buf, sizeof(buf), "%s %s%s%s count=%zu %s %s", what,
           symm_dtype_name(d), op >= 0 ? " " : "", op >= 0 ? kOpNames[op] : "",
           count, kPlaceNames[int(place)],
           inPlace ? "in-place" : "out-of-place");
  return buf;
}

/// Compares `got` with `want` (element values) within `ulps` units in the
/// last place for floating point, reporting the first mismatches.
void compare(const std::string &what, symm_dtype d,
             const std::vector<char> &got, const std::vector<double> &want,
             int ulps = 1) {
  int reported = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    double g = get(d, got.data(), i), w = want[i];
    if (std::fabs(g - w) <= ulps * tolerance(d) * std::fabs(w))
      continue;
    if (reported++ < 3)
      printf("FAILED %s: element %zu is %g, expected %g\n", what.c_str(), i, g,
             w);
  }
  if (reported)
    ++failures;
}

std::vector<char> fill(symm_dtype d, size_t count, int r, int seed,
                       size_t first = 0) {
  std::vector<char> v(count * symm_dtype_size(d));
  for (size_t i = 0; i < count; ++i)
    put(d, v.data(), i, input(d, r, first + i, seed));
  return v;
}

/// Recv starts as garbage so that a missing store shows.
std::vector<char> garbage(size_t bytes) {
  return std::vector<char>(bytes, 0x5a);
}

/// Sets `var` to `value`, or unsets it for null.
void setOrUnset(const char *var, const char *value) {
  if (value)
    setenv(var, value, 1);
  else
    unsetenv(var);
}

/// The all-reduce algorithm `algo` forces (SYMM_ALL_REDUCE_ALGO), or the
/// choice by size for null.
void forceAlgorithm(const char *algo) {
  setOrUnset("SYMM_ALL_REDUCE_ALGO", algo);
}

/// The reduce-scatter algorithm `algo` forces (SYMM_REDUCE_SCATTER_ALGO),
/// or the choice by size for null.
void forceReduceScatter(const char *algo) {
  setOrUnset("SYMM_REDUCE_SCATTER_ALGO", algo);
}

/// SYMM_BROADCAST_ALGO as the environment set it, if it did: a variant of
/// the suite that forces an algorithm on every broadcast which forces none.
const char *environmentBroadcast = nullptr;

/// The broadcast algorithm `algo` forces (SYMM_BROADCAST_ALGO), or for null
/// the environment's (the choice by size where it sets none).
void forceBroadcast(const char *algo) {
  setOrUnset("SYMM_BROADCAST_ALGO", algo ? algo : environmentBroadcast);
}

/// The floating-point tolerance of `algo` in units in the last place: the
/// ring rounds at each of its world - 1 hops.
int ulpsOf(const char *algo) {
  return algo && !strcmp(algo, "ring") ? std::max(1, world - 1) : 1;
}

void testAllReduce(symm_dtype d, symm_reduce_op op, size_t count, Place place,
                   bool inPlace, const char *algo, int seed) {
  size_t es = symm_dtype_size(d), bytes = count * es;
  Buffer send(place, bytes), recvBuf(place, bytes);
  Buffer &recv = inPlace ? send : recvBuf;
  send.write(fill(d, count, rank, seed));
  if (!inPlace)
    recv.write(garbage(bytes));
  forceAlgorithm(algo);
  CHECK_OK(symm_all_reduce(send.ptr, recv.ptr, count, d, op, nullptr));
  forceAlgorithm(nullptr);
  CHECK_OK(symm_synchronize());
  std::vector<double> want(count);
  for (size_t i = 0; i < count; ++i) {
    std::vector<double> vals;
    for (int q = 0; q < world; ++q)
      vals.push_back(input(d, q, i, seed));
    want[i] = reduce(d, op, vals);
  }
  std::string what = std::string("all_reduce ") + (algo ? algo : "by size");
  compare(describe(what.c_str(), d, op, count, place, inPlace), d, recv.read(),
          want, ulpsOf(algo));
}

void testReduceScatter(symm_dtype d, symm_reduce_op op, size_t count,
                       Place place, bool inPlace, int seed,
                       const char *algo = nullptr) {
  size_t es = symm_dtype_size(d);
  Buffer send(place, count * world * es), recvBuf(place, count * es);
  send.write(fill(d, count * world, rank, seed));
  void *recv =
      inPlace ? static_cast<char *>(send.ptr) + rank * count * es : recvBuf.ptr;
  if (!inPlace)
    recvBuf.write(garbage(count * es));
  forceReduceScatter(algo);
  CHECK_OK(symm_reduce_scatter(send.ptr, recv, count, d, op, nullptr));
  forceReduceScatter(nullptr);
  CHECK_OK(symm_synchronize());
  std::vector<double> want(count);
  for (size_t i = 0; i < count; ++i) {
    std::vector<double> vals;
    for (int q = 0; q < world; ++q)
      vals.push_back(input(d, q, rank * count + i, seed));
    want[i] = reduce(d, op, vals);
  }
  std::vector<char> got = inPlace ? send.read() : recvBuf.read();
  if (inPlace)
    got.erase(got.begin(), got.begin() + rank * count * es);
  std::string what =
      std::string("reduce_scatter ") + (algo ? algo : "by size");
  compare(describe(what.c_str(), d, op, count, place, inPlace), d, got, want,
          ulpsOf(algo));
}

void testAllGather(symm_dtype d, size_t count, Place place, bool inPlace,
                   int seed) {
  size_t es = symm_dtype_size(d);
  Buffer sendBuf(place, count * es), recv(place, count * world * es);
  recv.write(garbage(count * world * es));
  void *send = sendBuf.ptr;
  if (inPlace) {
    send = static_cast<char *>(recv.ptr) + rank * count * es;
    recv.write(fill(d, count, rank, seed), rank * count * es);
  } else {
    sendBuf.write(fill(d, count, rank, seed));
  }
  CHECK_OK(symm_all_gather(send, recv.ptr, count, d, nullptr));
  CHECK_OK(symm_synchronize());
  std::vector<double> want;
  for (int q = 0; q < world; ++q)
    for (size_t i = 0; i < count; ++i)
      want.push_back(input(d, q, i, seed));
  compare(describe("all_gather", d, -1, count, place, inPlace), d, recv.read(),
          want);
}

void testAllToAll(symm_dtype d, size_t count, Place place, bool inPlace,
                  int seed) {
  size_t es = symm_dtype_size(d), n = count * world;
  Buffer send(place, n * es), recvBuf(place, n * es);
  Buffer &recv = inPlace ? send : recvBuf;
  // Block j of rank q's send: input(q, j * count + i).
  send.write(fill(d, n, rank, seed));
  if (!inPlace)
    recv.write(garbage(n * es));
  CHECK_OK(symm_all_to_all(send.ptr, recv.ptr, count, d, nullptr));
  CHECK_OK(symm_synchronize());
  std::vector<double> want;
  for (int q = 0; q < world; ++q)
    for (size_t i = 0; i < count; ++i)
      want.push_back(input(d, q, rank * count + i, seed));
  compare(describe("all_to_all", d, -1, count, place, inPlace), d, recv.read(),
          want);
}

void testBroadcast(symm_dtype d, size_t count, Place place, bool inPlace,
                   int root, int seed, const char *algo = nullptr) {
  size_t es = symm_dtype_size(d);
  Buffer send(place, count * es), recvBuf(place, count * es);
  Buffer &recv = inPlace ? send : recvBuf;
  send.write(rank == root ? fill(d, count, root, seed) : garbage(count * es));
  if (!inPlace)
    recv.write(garbage(count * es));
  // Null keeps the environment's choice (test/Collectives/algorithm-choice).
  if (algo)
    forceBroadcast(algo);
  CHECK_OK(symm_broadcast(send.ptr, recv.ptr, count, d, root, nullptr));
  if (algo)
    forceBroadcast(nullptr);
  CHECK_OK(symm_synchronize());
  std::vector<double> want;
  for (size_t i = 0; i < count; ++i)
    want.push_back(input(d, root, i, seed));
  std::string what = std::string("broadcast") + (algo ? " " : "") +
                     (algo ? algo : "") + " root " + std::to_string(root);
  compare(describe(what.c_str(), d, -1, count, place, inPlace), d, recv.read(),
          want);
}

/// Rank r sends (r + j + i) % 3 * c elements to rank j for a base count c:
/// some pairs exchange nothing, and the sizes differ per pair.
size_t pairCount(int from, int to, size_t c) {
  return size_t((from + 2 * to) % 3) * c;
}

/// A broadcast whose root sends from one element past a 16-byte boundary
/// while every other rank's buffers are aligned, at a low-latency size: the
/// ranks must still run the same kernel (when alignment chose the
/// low-latency path, the root took another path than its peers, which then
/// waited for it until the timeout).
void testBroadcastShifted(size_t count, int root, int seed) {
  symm_dtype d = SYMM_INT32;
  size_t es = symm_dtype_size(d);
  Buffer send(Place::Heap, (count + 1) * es), recv(Place::Heap, count * es);
  send.write(rank == root ? fill(d, count, root, seed) : garbage(count * es),
             es);
  recv.write(garbage(count * es));
  const char *from = static_cast<const char *>(send.ptr) + es;
  CHECK_OK(symm_broadcast(from, recv.ptr, count, d, root, nullptr));
  CHECK_OK(symm_synchronize());
  std::vector<double> want;
  for (size_t i = 0; i < count; ++i)
    want.push_back(input(d, root, i, seed));
  compare(describe("broadcast from a shifted buffer", d, -1, count, Place::Heap,
                   false),
          d, recv.read(), want);
}

void testAllToAllv(symm_dtype d, size_t c, Place place, int seed) {
  size_t es = symm_dtype_size(d);
  std::vector<size_t> sc(world), sd(world), rc(world), rd(world);
  size_t sn = 0, rn = 0;
  for (int j = 0; j < world; ++j) {
    sc[j] = pairCount(rank, j, c);
    sd[j] = sn;
    sn += sc[j] + 1; // a gap between blocks
    rc[j] = pairCount(j, rank, c);
    rd[j] = rn;
    rn += rc[j] + 2;
  }
  // Heap allocations are collective: every rank allocates the largest size.
  size_t sMax = 0, rMax = 0;
  for (int q = 0; q < world; ++q) {
    size_t qs = 0, qr = 0;
    for (int j = 0; j < world; ++j) {
      qs += pairCount(q, j, c) + 1;
      qr += pairCount(j, q, c) + 2;
    }
    sMax = std::max(sMax, qs);
    rMax = std::max(rMax, qr);
  }
  Buffer send(place, sMax * es), recv(place, rMax * es);
  send.write(fill(d, sn, rank, seed));
  recv.write(garbage(rMax * es));
  CHECK_OK(symm_all_to_allv(send.ptr, sc.data(), sd.data(), recv.ptr, rc.data(),
                            rd.data(), d, nullptr));
  CHECK_OK(symm_synchronize());
  std::vector<char> got = recv.read();
  std::vector<double> want(rn), have(rn);
  for (size_t i = 0; i < rn; ++i)
    want[i] = have[i] = get(d, garbage(8).data(), 0);
  for (int q = 0; q < world; ++q) {
    // Rank q's displacement for this rank.
    size_t qd = 0;
    for (int j = 0; j < rank; ++j)
      qd += pairCount(q, j, c) + 1;
    for (size_t i = 0; i < rc[q]; ++i)
      want[rd[q] + i] = input(d, q, qd + i, seed);
  }
  compare(describe("all_to_allv", d, -1, c, place, false), d, got, want);
}

/// Whether back-to-back calls' `algo` names a broadcast's.
bool isBroadcast(const char *algo) {
  return algo && (!strcmp(algo, "chain") || !strcmp(algo, "copy_engine") ||
                  !strcmp(algo, "ll128_chain") || !strcmp(algo, "fan"));
}

/// Many calls without waiting, on one stream and alternating two: the flags
/// of one call must never be taken for another's. The all-reduces cycle
/// through `algos` (null: by size; "chain", "copy_engine", "ll128_chain" or
/// "fan": a
/// broadcast with that algorithm from rank k % world instead), so that
/// algorithms which use the same flags (or the same streams) differently follow
/// one another.
void testBackToBack(symm_stream *a, symm_stream *b, size_t count,
                    const std::vector<const char *> &algos) {
  const symm_dtype d = SYMM_INT32;
  const int calls = 12;
  std::vector<Buffer *> sends, recvs;
  for (int k = 0; k < calls; ++k) {
    sends.push_back(new Buffer(Place::Heap, count * 4));
    recvs.push_back(new Buffer(Place::Heap, count * 4 * world));
    sends[k]->write(fill(d, count, rank, k));
  }
  for (int k = 0; k < calls; ++k) {
    symm_stream *s = k % 2 ? b : a;
    if (k % 3 == 2) {
      CHECK_OK(symm_all_gather(sends[k]->ptr, recvs[k]->ptr, count, d, s));
      continue;
    }
    const char *algo = algos[k % algos.size()];
    if (isBroadcast(algo)) { // a broadcast from rank k % world
      forceBroadcast(algo);
      CHECK_OK(
          symm_broadcast(sends[k]->ptr, recvs[k]->ptr, count, d, k % world, s));
      forceBroadcast(nullptr);
      continue;
    }
    forceAlgorithm(algo);
    CHECK_OK(
        symm_all_reduce(sends[k]->ptr, recvs[k]->ptr, count, d, SYMM_SUM, s));
    forceAlgorithm(nullptr);
  }
  CHECK_OK(symm_synchronize());
  for (int k = 0; k < calls; ++k) {
    std::vector<double> want;
    const char *algo = k % 3 == 2 ? "all_gather" : algos[k % algos.size()];
    if (k % 3 == 2) {
      for (int q = 0; q < world; ++q)
        for (size_t i = 0; i < count; ++i)
          want.push_back(input(d, q, i, k));
    } else if (isBroadcast(algo)) {
      for (size_t i = 0; i < count; ++i)
        want.push_back(input(d, k % world, i, k));
    } else {
      for (size_t i = 0; i < count; ++i) {
        std::vector<double> vals;
        for (int q = 0; q < world; ++q)
          vals.push_back(input(d, q, i, k));
        want.push_back(reduce(d, SYMM_SUM, vals));
      }
    }
    std::vector<char> got = recvs[k]->read();
    got.resize(want.size() * 4);
    compare(std::string(a == b ? "one stream" : "two streams") + " call " +
                std::to_string(k) + " " + (algo ? algo : "by size"),
            d, got, want);
  }
  for (int k = calls - 1; k >= 0; --k) {
    delete recvs[k];
    delete sends[k];
  }
}

/// Low-latency calls back to back on one stream: a call that every rank
/// reads from every peer (an all-reduce in LL words or LL128 lines, a
/// reduce-scatter, an all-gather, an all-to-all) whose words fit in half a
/// rank's slot takes the half of its epoch's parity, and after such a call
/// it stores without waiting for the peers' acknowledgements
/// (Kernels.mlir.in, symm_coll_half); the two-shots take the whole slot and
/// wait, also after such a call. Runs of one call (which then never
/// wait), runs that alternate between kinds and between the LL and LL128
/// buffers, calls of a whole slot and broadcasts (which take the whole
/// slot) in between, and grids of 1 and 2 workgroups on CPU ranks. Every
/// call has inputs of its own, so a word overwritten before its peer read
/// it shows in the results or stalls its reader, whose tag never comes.
/// (The words and lines are atomics, which the race detector does not
/// check.) The broadcasts come from rank 0, and the last rank issues them
/// late, so that rank 0 runs ahead unless its calls wait as they must:
/// with broadcasts in halves, rank 0 overwrote the last rank's words
/// before it read them and the suite stalled.
enum class Low {
  AllReduceLl,
  AllReduceLl128,
  ReduceScatter,
  AllGather,
  AllToAll,
  Broadcast,
  AllReduceLlTwoShot,
  AllReduceLl128TwoShot
};

void testHalves(symm_stream *s, size_t small, size_t other, size_t whole,
                size_t whole128) {
  const symm_dtype d = SYMM_INT32;
  const Low ar = Low::AllReduceLl, ar128 = Low::AllReduceLl128,
            ts = Low::AllReduceLlTwoShot, ts128 = Low::AllReduceLl128TwoShot;
  std::vector<std::pair<Low, size_t>> calls;
  auto run = [&](Low kind, size_t count, int times) {
    for (int k = 0; k < times; ++k)
      calls.push_back({kind, count});
  };
  run(ar128, small, 5);
  run(ar128, other, 3);
  run(ar, small, 5);
  for (Low kind : {ar, ar128, Low::ReduceScatter, Low::AllGather,
                   Low::AllToAll, ar128, Low::Broadcast, ar, ar})
    run(kind, small, 1);
  run(ar128, whole128, 2);
  run(ar128, small, 3);
  run(ar, whole, 2);
  run(Low::AllGather, small, 3);
  run(Low::ReduceScatter, other, 3);
  run(Low::AllToAll, small, 3);
  run(Low::Broadcast, small, 3);
  run(ar, other, 3);
  run(Low::Broadcast, small, 2);
  run(Low::AllGather, small, 2);
  // The two-shots: in runs, between the one-shots and the other kinds, of
  // a whole slot, and of 7 elements (segments left empty from 3 ranks).
  run(ts, small, 3);
  run(ts128, small, 3);
  for (Low kind : {ts, ar, ts128, ar128, ts, Low::ReduceScatter, ts128,
                   Low::Broadcast, ts, ts128, Low::AllToAll, ts})
    run(kind, small, 1);
  run(ts, whole, 2);
  run(ts128, whole128, 2);
  run(ts, 7, 2);
  run(ts128, 7, 2);
  run(ts, other, 2);
  // Per call: the elements of send and recv, and what recv must hold.
  std::vector<Buffer *> sends, recvs;
  std::vector<std::vector<double>> wants;
  for (size_t k = 0; k < calls.size(); ++k) {
    auto [kind, n] = calls[k];
    size_t per = kind == Low::ReduceScatter || kind == Low::AllToAll ? n * world : n;
    size_t out = kind == Low::AllGather || kind == Low::AllToAll ? n * world : n;
    sends.push_back(new Buffer(Place::Heap, per * 4));
    recvs.push_back(new Buffer(Place::Heap, out * 4));
    sends[k]->write(fill(d, per, rank, int(k)));
    std::vector<double> want;
    for (size_t i = 0; i < out; ++i) {
      size_t q = i / n, at = i % n;
      std::vector<double> vals;
      switch (kind) {
      case Low::AllGather:
        want.push_back(input(d, int(q), at, int(k)));
        break;
      case Low::AllToAll:
        want.push_back(input(d, int(q), size_t(rank) * n + at, int(k)));
        break;
      case Low::Broadcast:
        want.push_back(input(d, 0, i, int(k)));
        break;
      default: // the sum over ranks of element i (of block `rank`)
        for (int r = 0; r < world; ++r)
          vals.push_back(input(d, r, (kind == Low::ReduceScatter ? size_t(rank) * n : 0) + i, int(k)));
        want.push_back(reduce(d, SYMM_SUM, vals));
      }
    }
    wants.push_back(want);
  }
  const char *names[] = {"ll all-reduce", "ll128 all-reduce", "reduce-scatter",
                         "all-gather",    "all-to-all",       "broadcast",
                         "ll two-shot",   "ll128 two-shot"};
  for (size_t k = 0; k < calls.size(); ++k) {
    auto [kind, n] = calls[k];
    void *in = sends[k]->ptr, *out = recvs[k]->ptr;
    switch (kind) {
    case Low::AllReduceLl:
    case Low::AllReduceLl128:
    case Low::AllReduceLlTwoShot:
    case Low::AllReduceLl128TwoShot:
      forceAlgorithm(kind == Low::AllReduceLl            ? "ll"
                     : kind == Low::AllReduceLl128       ? "ll128"
                     : kind == Low::AllReduceLlTwoShot ? "ll_two_shot"
                                                         : "ll128_two_shot");
      CHECK_OK(symm_all_reduce(in, out, n, d, SYMM_SUM, s));
      forceAlgorithm(nullptr);
      break;
    case Low::ReduceScatter:
      CHECK_OK(symm_reduce_scatter(in, out, n, d, SYMM_SUM, s));
      break;
    case Low::AllGather:
      CHECK_OK(symm_all_gather(in, out, n, d, s));
      break;
    case Low::AllToAll:
      CHECK_OK(symm_all_to_all(in, out, n, d, s));
      break;
    case Low::Broadcast:
      if (rank == world - 1 && world > 1)
        usleep(20000);
      forceBroadcast(nullptr);
      CHECK_OK(symm_broadcast(in, out, n, d, 0, s));
      break;
    }
  }
  CHECK_OK(symm_synchronize());
  for (size_t k = 0; k < calls.size(); ++k)
    compare(std::string("halves, call ") + std::to_string(k) + ": " +
                names[int(calls[k].first)] + " of " + std::to_string(calls[k].second),
            d, recvs[k]->read(), wants[k]);
  for (size_t k = calls.size(); k-- > 0;) {
    delete recvs[k];
    delete sends[k];
  }
}

void expectError(symm_status got, symm_status status, const char *text);

/// Collectives captured once in a graph (symm_stream_begin_capture) and the
/// graph replayed on new inputs: each replay must number its launches anew
/// (the epochs live on the device), so every replay's results are right.
/// Covers each kernel: all-reduce low-latency, one-shot (not whole vectors),
/// two-shot, ring and low-latency two-shot; reduce-scatter low-latency and
/// pipelined; the exchanges low-latency and through the scratch (or direct,
/// under SYMM_COLLECTIVES_DIRECT_MIN=1); the chain and copy-engine
/// broadcasts (whose stream operations replay the values they captured);
/// all-to-allv. Then the first call on a stream, which cannot be captured,
/// is refused with a message.
void testGraph() {
  const symm_dtype d = SYMM_INT32;
  enum Kind { AllReduce, ReduceScatter, AllGather, AllToAll, Broadcast };
  struct Case {
    Kind kind;
    size_t count; // per block
    const char *algo;
    Buffer *send = nullptr, *recv = nullptr;
  };
  std::vector<Case> cases = {
      {AllReduce, 100, nullptr},         {AllReduce, 1001, nullptr},
      {AllReduce, 20000, "two_shot"},    {AllReduce, 20000, "ring"},
      {AllReduce, 20001, "ll_two_shot"}, {AllReduce, 3001, "ll128"},
      {AllReduce, 20001, "ll128_two_shot"},
      {ReduceScatter, 100, nullptr},     {ReduceScatter, 20001, nullptr},
      {ReduceScatter, 20001, "ring"},
      {AllGather, 100, nullptr},         {AllGather, 3001, nullptr},
      {AllToAll, 100, nullptr},          {AllToAll, 3001, nullptr},
      {Broadcast, 100, nullptr},         {Broadcast, 3001, nullptr},
      {Broadcast, 3001, "chain"},        {Broadcast, 3001, "copy_engine"},
      {Broadcast, 3001, "ll128_chain"},  {Broadcast, 3001, "fan"},
      // Above CPU ranks' 1M scratch: the chain's laps (its epochs advance
      // by them in every replay) and the fan's launches per chunk.
      {Broadcast, 270000, "chain"},      {Broadcast, 270000, "fan"}};
  auto blocks = [](Kind k, bool send) {
    switch (k) {
    case AllReduce:
    case Broadcast:
      return 1;
    case ReduceScatter:
      return send ? world : 1;
    case AllGather:
      return send ? 1 : world;
    case AllToAll:
      return world;
    }
    return 1;
  };
  for (Case &c : cases) {
    c.send = new Buffer(Place::Heap, c.count * blocks(c.kind, true) * 4);
    c.recv = new Buffer(Place::Heap, c.count * blocks(c.kind, false) * 4);
  }
  size_t vc = 50; // all-to-allv: rank r sends vc + r + p elements to p
  std::vector<size_t> scounts(world), sdispls(world), rcounts(world),
      rdispls(world);
  size_t sTotal = 0, rTotal = 0;
  for (int p = 0; p < world; ++p) {
    scounts[p] = vc + rank + p;
    rcounts[p] = vc + p + rank;
    sdispls[p] = sTotal;
    rdispls[p] = rTotal;
    sTotal += scounts[p];
    rTotal += rcounts[p];
  }
  // Heap allocations are collective: the same size on every rank.
  size_t vMax = (vc + 2 * world) * world * 4;
  Buffer vsend(Place::Heap, vMax), vrecv(Place::Heap, vMax);
  symm_stream *s = nullptr;
  CHECK_OK(symm_stream_create(&s));
  auto enqueue = [&] {
    for (Case &c : cases) {
      if (c.kind == Broadcast)
        forceBroadcast(c.algo);
      else if (c.kind == ReduceScatter)
        forceReduceScatter(c.algo);
      else
        forceAlgorithm(c.algo);
      switch (c.kind) {
      case AllReduce:
        CHECK_OK(
            symm_all_reduce(c.send->ptr, c.recv->ptr, c.count, d, SYMM_SUM, s));
        break;
      case ReduceScatter:
        CHECK_OK(symm_reduce_scatter(c.send->ptr, c.recv->ptr, c.count, d,
                                     SYMM_SUM, s));
        break;
      case AllGather:
        CHECK_OK(symm_all_gather(c.send->ptr, c.recv->ptr, c.count, d, s));
        break;
      case AllToAll:
        CHECK_OK(symm_all_to_all(c.send->ptr, c.recv->ptr, c.count, d, s));
        break;
      case Broadcast:
        CHECK_OK(symm_broadcast(c.send->ptr, c.recv->ptr, c.count, d, 0, s));
        break;
      }
      forceAlgorithm(nullptr);
      forceReduceScatter(nullptr);
      forceBroadcast(nullptr);
    }
    CHECK_OK(symm_all_to_allv(vsend.ptr, scounts.data(), sdispls.data(),
                              vrecv.ptr, rcounts.data(), rdispls.data(), d, s));
  };
  // The channel and the kernels first, outside the capture.
  enqueue();
  CHECK_OK(symm_stream_synchronize(s));
  symm_graph *graph = nullptr;
  CHECK_OK(symm_stream_begin_capture(s));
  enqueue();
  CHECK_OK(symm_stream_end_capture(s, &graph));
  for (int replay = 0; replay < 3; ++replay) {
    int seed = 1000 + replay;
    for (Case &c : cases) {
      c.send->write(fill(d, c.count * blocks(c.kind, true), rank, seed));
      c.recv->write(garbage(c.recv->bytes));
    }
    std::vector<char> v(sTotal * 4);
    for (int p = 0; p < world; ++p)
      for (size_t i = 0; i < scounts[p]; ++i)
        put(d, v.data(), sdispls[p] + i, input(d, rank, p * 1000 + i, seed));
    vsend.write(v);
    vrecv.write(garbage(rTotal * 4));
    // Replays alternate between the captured stream and the default one.
    CHECK_OK(symm_graph_launch(graph, replay % 2 ? nullptr : s));
    CHECK_OK(symm_synchronize());
    for (Case &c : cases) {
      std::vector<double> want;
      size_t n = c.count;
      for (size_t i = 0; i < n * blocks(c.kind, false); ++i) {
        std::vector<double> vals;
        switch (c.kind) {
        case AllReduce:
          for (int q = 0; q < world; ++q)
            vals.push_back(input(d, q, i, seed));
          want.push_back(reduce(d, SYMM_SUM, vals));
          break;
        case ReduceScatter:
          for (int q = 0; q < world; ++q)
            vals.push_back(input(d, q, rank * n + i, seed));
          want.push_back(reduce(d, SYMM_SUM, vals));
          break;
        case AllGather:
          want.push_back(input(d, int(i / n), i % n, seed));
          break;
        case AllToAll:
          want.push_back(input(d, int(i / n), rank * n + i % n, seed));
          break;
        case Broadcast:
          want.push_back(input(d, 0, i, seed));
          break;
        }
      }
      static const char *const kKinds[] = {"all_reduce", "reduce_scatter",
                                           "all_gather", "all_to_all",
                                           "broadcast"};
      compare(std::string("graph replay ") + std::to_string(replay) + " " +
                  kKinds[c.kind] + (c.algo ? std::string(" ") + c.algo : "") +
                  " count=" + std::to_string(n),
              d, c.recv->read(), want);
    }
    std::vector<double> want;
    for (int q = 0; q < world; ++q)
      for (size_t i = 0; i < rcounts[q]; ++i)
        want.push_back(input(d, q, rank * 1000 + i, seed));
    std::vector<char> got = vrecv.read();
    got.resize(rTotal * 4);
    compare("graph replay " + std::to_string(replay) + " all_to_allv", d, got,
            want);
  }
  CHECK_OK(symm_graph_destroy(graph));
  // A stream's first collective cannot be captured.
  symm_stream *fresh = nullptr;
  CHECK_OK(symm_stream_create(&fresh));
  CHECK_OK(symm_stream_begin_capture(fresh));
  expectError(symm_all_reduce(cases[0].send->ptr, cases[0].recv->ptr, 100, d,
                              SYMM_SUM, fresh),
              SYMM_ERROR_INVALID_ARGUMENT,
              "symm_all_reduce: the first collective on a stream, and the "
              "first with each element type (i32 here), cannot be captured");
  CHECK_OK(symm_stream_end_capture(fresh, &graph));
  CHECK_OK(symm_graph_destroy(graph));
  CHECK_OK(symm_stream_destroy(fresh));
  CHECK_OK(symm_stream_destroy(s));
  for (Case &c : cases) {
    delete c.recv;
    delete c.send;
  }
}

/// Streams destroyed and created between collective calls: a new stream
/// may get a destroyed one's address on some ranks and not on others (here
/// ranks create different numbers of other streams in between), and must
/// find the same channel on every rank, not a channel left by the stream
/// that had its address (which hung: some ranks allocated a channel, others
/// did not).
void testStreamReuse() {
  const symm_dtype d = SYMM_INT32;
  Buffer send(Place::Heap, 64 * 4), recv(Place::Heap, 64 * 4);
  for (int round = 0; round < 12; ++round) {
    symm_stream *s = nullptr;
    std::vector<symm_stream *> extra((round + rank) % 2);
    for (symm_stream *&e : extra)
      CHECK_OK(symm_stream_create(&e));
    CHECK_OK(symm_stream_create(&s));
    int seed = 2000 + round;
    send.write(fill(d, 64, rank, seed));
    CHECK_OK(symm_all_reduce(send.ptr, recv.ptr, 64, d, SYMM_SUM, s));
    CHECK_OK(symm_stream_synchronize(s));
    std::vector<double> want;
    for (size_t i = 0; i < 64; ++i) {
      std::vector<double> vals;
      for (int q = 0; q < world; ++q)
        vals.push_back(input(d, q, i, seed));
      want.push_back(reduce(d, SYMM_SUM, vals));
    }
    compare("all_reduce on a new stream, round " + std::to_string(round), d,
            recv.read(), want);
    // The stream is freed last, so that the next stream created (an extra
    // one on some ranks, the next round's on the others) may take its
    // address.
    for (symm_stream *e : extra)
      CHECK_OK(symm_stream_destroy(e));
    CHECK_OK(symm_stream_destroy(s));
  }
}

/// Fills every free byte of the heap with 32-bit ones, then frees it again:
/// a channel made next lands on memory that looks like low-latency words of
/// epoch 1 (tag 1, data 1), which its first call must not take for data.
/// Blocks of half the free bytes, or less where the free bytes lie in
/// smaller pieces (the large mode's buffers leave holes: on 2 GPUs 10.7 MB
/// were free, the largest piece 4.3 MB); every rank's heap is laid out
/// alike, so every rank fails and halves alike.
void poisonFreeHeap() {
  std::vector<int32_t> ones((size_t(1) << 20) / 4, 1);
  std::vector<void *> blocks;
  for (size_t free = symm_heap_free(); free >= (size_t(1) << 20);
       free = symm_heap_free()) {
    size_t bytes = free / 2 / ones.size() / 4 * ones.size() * 4;
    void *p = nullptr;
    while (bytes >= ones.size() * 4 && symm_malloc(bytes, &p) != SYMM_SUCCESS)
      bytes = bytes / 2 / ones.size() / 4 * ones.size() * 4;
    if (!p)
      break;
    for (size_t at = 0; at < bytes; at += ones.size() * 4)
      CHECK_OK(symm_memcpy(static_cast<char *>(p) + at, ones.data(),
                           ones.size() * 4));
    blocks.push_back(p);
  }
  for (void *p : blocks)
    CHECK_OK(symm_free(p));
}

/// Receive buffers in the heap on even ranks and in device memory on odd
/// ones: large exchanges and two-shot all-reduces store straight into the
/// heap ones and stage the others.
void testMixed(size_t count, int seed) {
  const symm_dtype d = SYMM_INT32;
  size_t n = count * world;
  Buffer heapRecv(Place::Heap, n * 4), deviceRecv(Place::Device, n * 4);
  Buffer send(Place::Heap, n * 4);
  Buffer &recv = rank % 2 ? deviceRecv : heapRecv;
  send.write(fill(d, n, rank, seed));
  recv.write(garbage(n * 4));
  CHECK_OK(symm_all_gather(send.ptr, recv.ptr, count, d, nullptr));
  CHECK_OK(symm_synchronize());
  std::vector<double> want;
  for (int q = 0; q < world; ++q)
    for (size_t i = 0; i < count; ++i)
      want.push_back(input(d, q, i, seed));
  compare("mixed all_gather", d, recv.read(), want);
  recv.write(garbage(n * 4));
  CHECK_OK(symm_all_to_all(send.ptr, recv.ptr, count, d, nullptr));
  CHECK_OK(symm_synchronize());
  want.clear();
  for (int q = 0; q < world; ++q)
    for (size_t i = 0; i < count; ++i)
      want.push_back(input(d, q, rank * count + i, seed));
  compare("mixed all_to_all", d, recv.read(), want);
  recv.write(garbage(n * 4));
  CHECK_OK(symm_all_reduce(send.ptr, recv.ptr, n, d, SYMM_SUM, nullptr));
  CHECK_OK(symm_synchronize());
  want.clear();
  for (size_t i = 0; i < n; ++i) {
    std::vector<double> vals;
    for (int q = 0; q < world; ++q)
      vals.push_back(input(d, q, i, seed));
    want.push_back(reduce(d, SYMM_SUM, vals));
  }
  compare("mixed all_reduce", d, recv.read(), want);
  // The chain broadcast into those, the heap ones at offsets that differ by
  // rank: each rank forwards out of its scratch and copies into its buffer
  // wherever it lies.
  size_t m = n - world, shift = rank % 2 ? 0 : rank * 4;
  int root = world - 1;
  recv.write(garbage(n * 4));
  forceBroadcast("chain");
  CHECK_OK(symm_broadcast(send.ptr, static_cast<char *>(recv.ptr) + shift, m, d,
                          root, nullptr));
  forceBroadcast(nullptr);
  CHECK_OK(symm_synchronize());
  want.clear();
  for (size_t i = 0; i < m; ++i)
    want.push_back(input(d, root, i, seed));
  std::vector<char> got = recv.read();
  got.erase(got.begin(), got.begin() + shift);
  got.resize(m * 4);
  compare("mixed chain broadcast", d, got, want);
}

/// A call that must fail with `status` and a message naming this rank and
/// containing `text`.
void expectError(symm_status got, symm_status status, const char *text) {
  std::string message = symm_last_error();
  std::string me = "rank " + std::to_string(rank) + ":";
  if (got != status || message.find(me) == std::string::npos ||
      message.find(text) == std::string::npos) {
    printf("FAILED error check: got status %d (%s) '%s', expected %d with "
           "'%s'\n",
           int(got), symm_status_string(got), message.c_str(), int(status),
           text);
    ++failures;
  }
}

void testErrors() {
  void *heap = nullptr;
  CHECK_OK(symm_malloc(1024, &heap));
  char *h = static_cast<char *>(heap);
  const symm_status bad = SYMM_ERROR_INVALID_ARGUMENT;
  expectError(symm_all_reduce(nullptr, h, 4, SYMM_FLOAT32, SYMM_SUM, nullptr),
              bad, "send is null");
  expectError(symm_all_reduce(h, h, 4, symm_dtype(9), SYMM_SUM, nullptr), bad,
              "dtype 9 is not a symm_dtype");
  // A value past the last element type has no size and no name.
  size_t types = std::size(kDtypes);
  if (symm_dtype_size(symm_dtype(types)) ||
      symm_dtype_name(symm_dtype(types)) || !symm_dtype_name(kDtypes[0])) {
    printf("FAILED: symm_dtype_size and symm_dtype_name of dtype %zu: %zu, "
           "%s\n",
           types, symm_dtype_size(symm_dtype(types)),
           symm_dtype_name(symm_dtype(types)));
    ++failures;
  }
  expectError(
      symm_all_reduce(h, h, 4, SYMM_FLOAT32, symm_reduce_op(7), nullptr), bad,
      "reduce op 7 is not a symm_reduce_op");
  expectError(symm_broadcast(h, h, 4, SYMM_INT8, world, nullptr), bad,
              "is not a rank");
  expectError(symm_broadcast(h, h, 4, SYMM_INT8, -1, nullptr), bad,
              "root -1 is not a rank");
  expectError(symm_all_gather(h, h, SIZE_MAX / 2, SYMM_INT32, nullptr), bad,
              "overflows");
  expectError(symm_all_to_all(h, h + 8, SIZE_MAX / 3, SYMM_INT64, nullptr), bad,
              "overflows");
  expectError(
      symm_reduce_scatter(h, h, SIZE_MAX / 4, SYMM_INT64, SYMM_MAX, nullptr),
      bad, "overflows");
  expectError(symm_all_reduce(h, h + 4, 16, SYMM_FLOAT32, SYMM_SUM, nullptr),
              bad,
              "overlap but are not in place (in place means send == recv)");
  expectError(symm_all_gather(h + 4, h, 8, SYMM_INT32, nullptr), bad,
              "send == recv + rank * send_count");
  expectError(symm_reduce_scatter(h, h + 4, 8, SYMM_INT32, SYMM_SUM, nullptr),
              bad, "recv == send + rank * recv_count");
  if (world > 1) {
    // A peer's heap as mapped here is remote memory, not a buffer.
    int peer = (rank + 1) % world;
    void *remote = nullptr;
    CHECK_OK(symm_translate(h, peer, &remote));
    std::string text = "recv points into rank " + std::to_string(peer) +
                       "'s heap as mapped here";
    expectError(symm_all_gather(h, remote, 4, SYMM_INT8, nullptr), bad,
                text.c_str());
  }
  // The heap's last bytes, read as a longer buffer.
  void *base = nullptr;
  CHECK_OK(symm_heap_base(rank, &base));
  char *end = static_cast<char *>(base) + symm_heap_size();
  expectError(symm_all_reduce(end - 64, h, 64, SYMM_FLOAT32, SYMM_SUM, nullptr),
              SYMM_ERROR_NOT_IN_HEAP,
              "runs past the end of the symmetric heap");
  size_t counts[SYMM_MAX_RANKS] = {}, displs[SYMM_MAX_RANKS] = {};
  expectError(symm_all_to_allv(h, nullptr, displs, h, counts, displs,
                               SYMM_INT32, nullptr),
              bad, "must not be null");
  counts[0] = 4;
  expectError(symm_all_to_allv(h, counts, displs, h, counts, displs, SYMM_INT32,
                               nullptr),
              bad, "not in place");
  forceBroadcast("tree");
  expectError(symm_broadcast(h, h, 4, SYMM_INT8, 0, nullptr), bad,
              "SYMM_BROADCAST_ALGO='tree' is not one of root, scatter, chain, "
              "ll_chain, copy_engine, ll128_chain, fan");
  forceBroadcast(nullptr);
  forceAlgorithm("three_shot");
  expectError(symm_all_reduce(h, h, 4, SYMM_FLOAT32, SYMM_SUM, nullptr), bad,
              "SYMM_ALL_REDUCE_ALGO='three_shot' is not one of ll, one_shot, "
              "two_shot, ring, ll_two_shot, ll128, ll128_two_shot");
  forceAlgorithm(nullptr);
  forceReduceScatter("two_shot");
  expectError(symm_reduce_scatter(h, h + rank * 4, 4, SYMM_INT8, SYMM_SUM,
                                  nullptr),
              bad,
              "SYMM_REDUCE_SCATTER_ALGO='two_shot' is not one of ll, scatter, "
              "ring");
  forceReduceScatter(nullptr);
  // The exchanges' settings, each restored to the environment's after.
  for (const char *var : {"SYMM_ALL_GATHER_ALGO", "SYMM_ALL_TO_ALL_ALGO"}) {
    const char *was = getenv(var);
    std::string saved = was ? was : "";
    setenv(var, "ring", 1);
    std::string text =
        std::string(var) + "='ring' is not one of stores, copy_engine";
    expectError(!strcmp(var, "SYMM_ALL_GATHER_ALGO")
                    ? symm_all_gather(h, h + 1024, 4, SYMM_INT8, nullptr)
                    : symm_all_to_all(h, h + 1024, 4, SYMM_INT8, nullptr),
                bad, text.c_str());
    setOrUnset(var, was ? saved.c_str() : nullptr);
  }
  CHECK_OK(symm_free(heap));
}

/// Checked mode (SYMM_CHECK_COLLECTIVES=1, run on 2 or more ranks): calls
/// whose arguments differ between ranks fail on every rank, naming both
/// ranks, and leave the ranks paired: a correct call afterwards works.
void testMismatches() {
  void *heap = nullptr;
  CHECK_OK(symm_malloc(4096, &heap));
  char *h = static_cast<char *>(heap);
  const symm_status asymmetric = SYMM_ERROR_ASYMMETRIC;
  int last = world - 1;
  std::string other = "rank " + std::to_string(last) + " passed ";
  expectError(symm_all_reduce(h, h + 1024, 8, SYMM_INT32,
                              rank == last ? SYMM_MAX : SYMM_SUM, nullptr),
              asymmetric,
              ("symm_all_reduce (collective call #1): rank 0 passed op 0 "
               "(sum), " +
               other + "op 3 (max); every rank must pass the same")
                  .c_str());
  expectError(
      symm_broadcast(h, h + 1024, 8, SYMM_INT8, rank == last ? last : 0,
                     nullptr),
      asymmetric,
      ("rank 0 passed root 0, " + other + "root " + std::to_string(last))
          .c_str());
  expectError(
      symm_all_gather(h, h + 1024, 4, rank == last ? SYMM_FLOAT32 : SYMM_INT32,
                      nullptr),
      asymmetric,
      ("rank 0 passed dtype 1 (i32), " + other + "dtype 5 (f32)").c_str());
  expectError(
      symm_reduce_scatter(h, h + 2048, rank == last ? 4 : 2, SYMM_INT32,
                          SYMM_SUM, nullptr),
      asymmetric,
      ("rank 0 passed recv_count 2, " + other + "recv_count 4").c_str());
  // all-to-allv: rank 0 sends one element more to the last rank than that
  // rank expects from it.
  std::vector<size_t> counts(world, 2), displs(world);
  for (int r = 0; r < world; ++r)
    displs[r] = 2 * r;
  std::vector<size_t> sendCounts = counts;
  if (rank == 0)
    sendCounts[last] = 3;
  std::string v = "symm_all_to_allv (collective call #5): rank 0 sends 3 "
                  "elements to rank " +
                  std::to_string(last) + " (its send_counts[" +
                  std::to_string(last) +
                  "]), which expects 2 from it (its recv_counts[0])";
  expectError(symm_all_to_allv(h, sendCounts.data(), displs.data(), h + 2048,
                               counts.data(), displs.data(), SYMM_INT32,
                               nullptr),
              asymmetric, v.c_str());
  // One rank's own mistake (an all-gather that is in place the wrong way)
  // fails the call on every rank.
  symm_status st = symm_all_gather(rank == last ? h + 4 : h + 2048, h, 8,
                                   SYMM_INT32, nullptr);
  if (rank == last)
    expectError(st, SYMM_ERROR_INVALID_ARGUMENT,
                "send and recv overlap but are not in place");
  else
    expectError(st, SYMM_ERROR_PEER_FAILED,
                ("symm_all_gather (collective call #6): rank " +
                 std::to_string(last) +
                 "'s call failed its own checks (invalid argument), so it "
                 "fails on every rank")
                    .c_str());
  // Another collective altogether.
  st = rank == last
           ? symm_broadcast(h, h + 1024, 4, SYMM_INT32, 0, nullptr)
           : symm_all_reduce(h, h + 1024, 4, SYMM_INT32, SYMM_SUM, nullptr);
  expectError(st, asymmetric,
              ("mismatched collective calls: rank 0 called symm_all_reduce "
               "(collective call #7), rank " +
               std::to_string(last) +
               " called symm_broadcast (collective call #7)")
                  .c_str());
  // The ranks are still paired.
  testAllReduce(SYMM_INT32, SYMM_SUM, 100, Place::Heap, false, nullptr, 1);
  CHECK_OK(symm_free(heap));
}

/// Without checked mode, a rank whose call fails its own checks returns
/// while its peers go on; the first collective on a stream sets up its
/// channel with a collective allocation, which meets the failed rank's next
/// collective call. The mismatch names the collective that allocated, not
/// an internal symm_malloc alone.
void testUncheckedMisuse() {
  void *heap = nullptr;
  CHECK_OK(symm_malloc(4096, &heap));
  char *h = static_cast<char *>(heap);
  int last = world - 1;
  symm_status st = symm_all_gather(rank == last ? h + 4 : h + 4 * rank * 8, h,
                                   8, SYMM_INT32, nullptr);
  std::string text =
      "mismatched collective calls: rank 0 called symm_malloc (which "
      "symm_all_gather made: the first collective call on a stream sets up "
      "its channel) (collective call #1), rank " +
      std::to_string(last) + " called symm_barrier (collective call #1)";
  if (rank == last) {
    expectError(st, SYMM_ERROR_INVALID_ARGUMENT,
                "in place means send == recv + rank * send_count");
    expectError(symm_barrier(), SYMM_ERROR_ASYMMETRIC, text.c_str());
  } else {
    expectError(st, SYMM_ERROR_ASYMMETRIC, text.c_str());
  }
}

/// A copy-engine broadcast whose ranks pass different counts (run without
/// checked mode): rank 0, the root, sends 4 chunks of 1K
/// (SYMM_COLLECTIVES_CE_CHUNK=1K), rank 1 waits for 8. Rank 1's wait for
/// chunk 4 ends after SYMM_TIMEOUT while rank 0 sleeps in host code, or at
/// once when rank 0 has exited (`exits`); either way the error names the
/// chunk and rank 0. Both ranks leave with _exit: their channel's tokens are
/// out of step.
void testCopyEngineStall(bool exits) {
  setenv("SYMM_BROADCAST_ALGO", "copy_engine", 1);
  void *buffer = nullptr;
  CHECK_OK(symm_malloc(8000, &buffer));
  size_t count = rank == 0 ? 1000 : 2000;
  CHECK_OK(symm_broadcast(buffer, buffer, count, SYMM_INT32, 0, nullptr));
  if (rank == 0) {
    CHECK_OK(symm_synchronize());
    printf("copy-engine stall: rank 0 sent its chunks\n");
    fflush(stdout);
    if (!exits) {
      const char *timeout = getenv("SYMM_TIMEOUT");
      sleep(unsigned(3 * (timeout ? atoi(timeout) : 60)));
    }
    _exit(0);
  }
  std::string text =
      std::string("waiting for chunk 4 of 8 of symm_broadcast (copy_engine) "
                  "from rank 0: ") +
      (exits ? "rank 0 has exited (the process is gone)" : "nothing came for");
  expectError(symm_synchronize(),
              exits ? SYMM_ERROR_PEER_FAILED : SYMM_ERROR_TIMEOUT,
              text.c_str());
  printf("%s\n%s\n", symm_last_error(),
         failures ? "copy-engine stall FAILED" : "copy-engine stall ok");
  fflush(stdout);
  _exit(failures ? 1 : 0);
}

} // namespace

int main(int argc, char **argv) {
  int buffer[4] = {};
  symm_status early =
      symm_all_reduce(buffer, buffer, 4, SYMM_INT32, SYMM_SUM, nullptr);
  if (early != SYMM_ERROR_NOT_INITIALIZED ||
      !strstr(symm_last_error(), "call symm_init first")) {
    printf("FAILED: a collective before symm_init: %s\n", symm_last_error());
    return 1;
  }
  CHECK_OK(symm_init());
  rank = symm_rank();
  world = symm_world_size();
  hostBackend = !strcmp(symm_backend_name(), "host");
  if (const char *algo = getenv("SYMM_BROADCAST_ALGO"); algo && *algo)
    environmentBroadcast = strdup(algo);
  // config-error TEXT: the environment is wrong; every call says TEXT.
  if (argc == 3 && !strcmp(argv[1], "config-error")) {
    void *p = nullptr;
    CHECK_OK(symm_malloc(64, &p));
    for (int call = 0; call < 2; ++call)
      expectError(symm_all_reduce(p, p, 4, SYMM_INT32, SYMM_SUM, nullptr),
                  SYMM_ERROR_INVALID_ARGUMENT, argv[2]);
    CHECK_OK(symm_free(p));
    CHECK_OK(symm_finalize());
    printf(failures ? "config error FAILED\n" : "config error ok\n");
    return failures ? 1 : 0;
  }
  int seed = 0;
  // choice: one call of each collective at sizes that pick each algorithm
  // (run with SYMM_COLLECTIVES_DEBUG=1, which says what each call launched;
  // test/Collectives/algorithm-choice.test checks it).
  if (argc > 1 && !strcmp(argv[1], "choice")) {
    for (size_t count : {size_t(1000), size_t(1001), size_t(5000),
                         size_t(10000), size_t(15000), size_t(100000)})
      testAllReduce(SYMM_INT32, SYMM_SUM, count, Place::Heap, false, nullptr,
                    ++seed);
    // Forced: the LL128 two-shot, in launches of world_size segments of half
    // a rank's LL128 slot (the low-latency two-shot where LL128 is off).
    testAllReduce(SYMM_INT32, SYMM_SUM, 30001, Place::Heap, false,
                  "ll128_two_shot", ++seed);
    // Forced: the ring, which by size runs only above 32 MB on 3 ranks, 16
    // MB on 4 and 64 MB on more.
    testAllReduce(SYMM_INT32, SYMM_SUM, 100000, Place::Heap, false, "ring",
                  ++seed);
    // Forced: the reduce-scatter's ring.
    testReduceScatter(SYMM_INT32, SYMM_SUM, 100000, Place::Heap, false, ++seed,
                      "ring");
    for (size_t count : {size_t(1000), size_t(1001), size_t(5000)}) {
      testReduceScatter(SYMM_INT32, SYMM_SUM, count, Place::Heap, false,
                        ++seed);
      testAllGather(SYMM_INT32, count, Place::Heap, false, ++seed);
      testAllToAll(SYMM_INT32, count, Place::Heap, false, ++seed);
      testBroadcast(SYMM_INT32, count, Place::Heap, false, 0, ++seed);
    }
    // 1 MB: the chain from 3 ranks on (to 4 ranks; from 64 MB on more);
    // 800 KB too, above the 768 KB where the chain takes over from the
    // low-latency chain on 3 and 4 ranks.
    testBroadcast(SYMM_INT32, size_t(1) << 18, Place::Heap, false, 1, ++seed);
    testBroadcast(SYMM_INT32, 200000, Place::Heap, false, 1, ++seed);
    testBroadcastShifted(1000, 0, ++seed);
    testAllToAllv(SYMM_INT32, 1000, Place::Heap, ++seed);
    // Large broadcasts in place, for what they launch by size (the results
    // are checked at the smaller sizes and in the suite): 16 MB on 2 ranks,
    // the copy engines' by GPUs, never by CPU ranks; 32 MB on 3, the fan.
    // Not where SYMM_BROADCAST_ALGO forces one: the forced runs of `choice`
    // cut launches small (1K copy-engine chunks, one-line LL128 launches),
    // and 32 MB of them took minutes under the race detector.
    auto inPlace = [](size_t bytes, int root) {
      if (environmentBroadcast)
        return;
      void *buffer = nullptr;
      CHECK_OK(symm_malloc(bytes, &buffer));
      CHECK_OK(symm_broadcast(buffer, buffer, bytes, SYMM_INT8, root, nullptr));
      CHECK_OK(symm_synchronize());
      CHECK_OK(symm_free(buffer));
    };
    if (world == 2)
      inPlace(size_t(16) << 20, 0);
    if (world == 3)
      inPlace(size_t(32) << 20, 2);
    // An all-reduce in place just above 32 MB on 3 ranks, and at 32 MB:
    // the ring above, two-shot at it (not checked: the suite checks both).
    if (world == 3 && !getenv("SYMM_ALL_REDUCE_ALGO"))
      for (size_t bytes : {(size_t(32) << 20) + 16, size_t(32) << 20}) {
        void *buffer = nullptr;
        CHECK_OK(symm_malloc(bytes, &buffer));
        CHECK_OK(symm_all_reduce(buffer, buffer, bytes, SYMM_INT8, SYMM_SUM,
                                 nullptr));
        CHECK_OK(symm_synchronize());
        CHECK_OK(symm_free(buffer));
      }
    // Reduce-scatters in place at the ring's limits (not checked: the suite
    // checks both algorithms): on 3 and 4 ranks a 16 MB send buffer, the
    // ring, and one element a block less, the scatter; on 2, 4 and 32 MB,
    // the ring, and one element a block less and more, the scatter.
    std::vector<size_t> limits;
    if (world == 3 || world == 4) {
      size_t ringMin = ((size_t(16) << 20) + world - 1) / world;
      limits = {ringMin, ringMin - 1};
    } else if (world == 2) {
      limits = {size_t(2) << 20, (size_t(2) << 20) - 1, size_t(16) << 20,
                (size_t(16) << 20) + 1};
    }
    if (!getenv("SYMM_REDUCE_SCATTER_ALGO")) {
      for (size_t count : limits) {
        void *buffer = nullptr;
        CHECK_OK(symm_malloc(count * world, &buffer));
        CHECK_OK(symm_reduce_scatter(buffer,
                                     static_cast<char *>(buffer) + rank * count,
                                     count, SYMM_INT8, SYMM_SUM, nullptr));
        CHECK_OK(symm_synchronize());
        CHECK_OK(symm_free(buffer));
      }
    }
    // A reduce-scatter of 320 KB on 4 ranks: the wide grid, which CPU ranks
    // take from 256 KB (GPUs from 32 MB); checked, as every one is.
    if (world == 4)
      testReduceScatter(SYMM_INT32, SYMM_SUM, 20001, Place::Heap, false,
                        ++seed);
    CHECK_OK(symm_finalize());
    printf(failures ? "choice FAILED\n" : "choice ok\n");
    return failures ? 1 : 0;
  }
  // mismatch: checked mode's errors (run with SYMM_CHECK_COLLECTIVES=1);
  // unchecked-misuse: a mistake on one rank without it (=0).
  if (argc > 1 &&
      (!strcmp(argv[1], "mismatch") || !strcmp(argv[1], "unchecked-misuse"))) {
    bool checked = !strcmp(argv[1], "mismatch");
    if (checked)
      testMismatches();
    else
      testUncheckedMisuse();
    if (checked)
      CHECK_OK(symm_finalize());
    printf(failures ? "%s FAILED\n" : "%s ok\n", argv[1]);
    return failures ? 1 : 0;
  }
  // copy-engine-stall [exit]: the copy-engine broadcast's wait that cannot
  // end (on 2 ranks, SYMM_COLLECTIVES_CE_CHUNK=1K).
  if (argc > 1 && !strcmp(argv[1], "copy-engine-stall"))
    testCopyEngineStall(argc > 2 && !strcmp(argv[2], "exit"));
  // graph: only the graph capture test.
  if (argc > 1 && !strcmp(argv[1], "graph")) {
    testGraph();
    testStreamReuse();
    CHECK_OK(symm_finalize());
    printf(failures ? "graph FAILED\n" : "graph ok\n");
    return failures ? 1 : 0;
  }
  // chain: the chain broadcast forced, from every root, every type, back to
  // back, at counts from one vector to several times the scratch (run with
  // a small SYMM_COLLECTIVES_SCRATCH: its pieces then cycle through the
  // scratch's slots in laps, and the fan, beside it, takes a launch per
  // chunk), in place and not; under the race detector in ctest.
  if (argc > 1 && !strcmp(argv[1], "chain")) {
    for (symm_dtype d : {SYMM_INT8, SYMM_BFLOAT16, SYMM_FLOAT32, SYMM_FLOAT64})
      for (size_t count : {size_t(3), size_t(4096), size_t(70001)})
        for (int root = 0; root < world; ++root) {
          testBroadcast(d, count, Place::Heap, root % 2, root, ++seed,
                        "chain");
          testBroadcast(d, count, Place::Device, false, root, ++seed,
                        root ? "chain" : "fan");
        }
    CHECK_OK(symm_finalize());
    printf(failures ? "chain FAILED\n" : "chain ok\n");
    return failures ? 1 : 0;
  }
  // halves: the low-latency calls in halves of their slots alone
  // (testHalves), on the default stream and a stream of its own; ctest runs
  // it without SYMM_CHECK_COLLECTIVES, whose meeting before each call keeps
  // the ranks in step.
  if (argc > 1 && !strcmp(argv[1], "halves")) {
    symm_stream *own = nullptr;
    CHECK_OK(symm_stream_create(&own));
    for (symm_stream *s : {static_cast<symm_stream *>(nullptr), own})
      testHalves(s, 1000, 300, 3500, 8000);
    CHECK_OK(symm_stream_destroy(own));
    CHECK_OK(symm_finalize());
    printf(failures ? "halves FAILED\n" : "halves ok\n");
    return failures ? 1 : 0;
  }
  // quick: only the full type x op matrix at the small counts.
  bool quick = argc > 1 && !strcmp(argv[1], "quick");
  bool large = argc > 1 && !strcmp(argv[1], "large");
  // races: every type and count, but only the sum of the reduce ops. The
  // race detector sees where the kernels load and store, which the op does
  // not change (it is the arithmetic between the same loads), so the other
  // three would repeat the same accesses (run under SYMM_HOST_CHECK_RACES).
  bool races = argc > 1 && !strcmp(argv[1], "races");
  const int lastOp = races ? SYMM_SUM : SYMM_MAX;

  testErrors();

  // Every collective x type x op at counts 0, 1, odd, not a multiple of the
  // 16-byte vector width, and (unless quick) large enough for two-shot and
  // for several chunks of a 64K scratch (collectives-chunked) with each
  // all-reduce algorithm.
  const char *const algos[] = {"ll",          "one_shot", "two_shot",      "ring",
                               "ll_two_shot", "ll128",    "ll128_two_shot"};
  // 1024: whole vectors of every type, which the low-latency all-reduce
  // takes (it runs others one-shot).
  std::vector<size_t> counts = {0, 1, 7, 33, 1024};
  if (!quick) {
    counts.push_back(9001);
    counts.push_back(100003);
  }
  if (large) {
    // Every all-reduce algorithm (and every broadcast, the LL128 chain
    // among them) at 1.1M elements: LL128 launches of a few
    // MB each (SYMM_COLLECTIVES_LL128_MAX), where lines whose lanes had
    // branched apart once arrived torn on GPUs (symm.line_store).
    counts = {size_t(1100000)};
  }
  for (symm_dtype d : kDtypes)
    for (size_t count : counts) {
      for (int op = SYMM_SUM; op <= lastOp; ++op) {
        for (const char *algo : algos)
          testAllReduce(d, symm_reduce_op(op), count, Place::Heap, false, algo,
                        ++seed);
        for (const char *algo : {static_cast<const char *>(nullptr), "ring"})
          testReduceScatter(d, symm_reduce_op(op), count, Place::Heap, false,
                            ++seed, algo);
      }
      testAllGather(d, count, Place::Heap, false, ++seed);
      testAllToAll(d, count, Place::Heap, false, ++seed);
      int root = (seed / 7) % world;
      testBroadcast(d, count, Place::Heap, false, root, ++seed);
      // The roots vary with the seed, so that chains wrap past rank 0. (The
      // root's stores are what CPU ranks choose by size.)
      testBroadcast(d, count, Place::Heap, false, (root + 1) % world, ++seed,
                    "chain");
      testBroadcast(d, count, Place::Heap, false, root, ++seed, "scatter");
      testBroadcast(d, count, Place::Heap, false, (root + 2) % world, ++seed,
                    "copy_engine");
      testBroadcast(d, count, Place::Heap, false, (root + 3) % world, ++seed,
                    "ll128_chain");
      testBroadcast(d, count, Place::Heap, false, (root + 4) % world, ++seed,
                    "fan");
      testAllToAllv(d, count, Place::Heap, ++seed);
    }

  // Buffer kinds and in place, with the algorithm chosen by size.
  std::vector<Place> places = {Place::Heap, Place::Device};
  if (hostBackend)
    places.push_back(Place::Host);
  for (Place place : places)
    for (bool inPlace : {false, true})
      for (size_t count :
           {size_t(5), size_t(1024), size_t(quick ? 100 : 20000)})
        for (symm_dtype d : {SYMM_INT32, SYMM_BFLOAT16}) {
          for (const char *algo : {static_cast<const char *>(nullptr), "ring",
                                   "ll_two_shot", "ll128", "ll128_two_shot"})
            testAllReduce(d, SYMM_SUM, count, place, inPlace, algo, ++seed);
          testReduceScatter(d, SYMM_MAX, count, place, inPlace, ++seed);
          testReduceScatter(d, SYMM_SUM, count, place, inPlace, ++seed, "ring");
          testAllGather(d, count, place, inPlace, ++seed);
          testAllToAll(d, count, place, inPlace, ++seed);
          testBroadcast(d, count, place, inPlace, world - 1, ++seed);
          testBroadcast(d, count, place, inPlace, world - 1, ++seed, "chain");
          testBroadcast(d, count, place, inPlace, 0, ++seed, "copy_engine");
          testBroadcast(d, count, place, inPlace, world / 2, ++seed,
                        "ll128_chain");
          testBroadcast(d, count, place, inPlace, (world + 1) / 2 % world, ++seed,
                        "fan");
          if (!inPlace)
            testAllToAllv(d, count, place, ++seed);
        }

  testMixed(quick ? 100 : 70000, ++seed);

  testGraph();

  // The streams' channels are made on poisoned memory.
  poisonFreeHeap();
  symm_stream *a = nullptr, *b = nullptr;
  CHECK_OK(symm_stream_create(&a));
  CHECK_OK(symm_stream_create(&b));
  // On CPU ranks (the defaults) an LL128 slot holds 293 lines of 28 int32
  // (a half 146 lines, 4088), an LL slot 16K (a half 2048 int32), and a
  // low-latency workgroup takes 2K, on at most 2: 1000 elements in a half
  // of either on 2 workgroups, 300 on 1; 3500 in a whole LL slot, 8000 in
  // a whole LL128 one.
  testHalves(a, 1000, 300, 3500, 8000);
  for (std::vector<const char *> cycle :
       {std::vector<const char *>{nullptr},
        {"ring"},
        {"ll"},
        {"ring", "ll", "one_shot", "two_shot"},
        {"ll_two_shot"},
        {"ll128"},
        {"ll", "ll128", "ll_two_shot", "ll128", "one_shot"},
        {"ll128_two_shot", "ll128", "ll128_two_shot", "ll_two_shot", "ll"},
        {"chain", "ll", "ring", "one_shot", "ll_two_shot", "two_shot"},
        {"copy_engine", "ll", "chain", "copy_engine", "one_shot"},
        {"ll128_chain", "ll128", "chain", "ll128_chain", "ll"},
        {"fan", "ll", "chain", "fan", "ring", "ll128_chain", "fan"}})
    for (symm_stream *second : {a, b})
      testBackToBack(a, second, 100, cycle);
  CHECK_OK(symm_stream_destroy(b));
  CHECK_OK(symm_stream_destroy(a));

  if (failures)
    printf("collectives FAILED: %d checks\n", failures);
  else
    printf("collectives ok: %d ranks\n", world);
  CHECK_OK(symm_finalize());
  return failures ? 1 : 0;
}
