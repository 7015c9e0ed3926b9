//===- Hopper.cpp - mbarriers, TMA and warpgroup sync on the CPU -*- C++
//-*-===//
//
// What CPU-target kernels call for upstream's nvgpu mbarrier, TMA and
// warpgroup operations (abi.h). A block's threads are fibers of one worker
// that switch only in runtime calls or when preempted in kernel code, never
// inside these functions, so the state in workgroup memory they update needs
// no lock; atomics keep it honest anyway. Waits yield to the block's other
// threads and fail the launch when they see no progress for
// SYMM_HOST_DEADLOCK_SECONDS, where a GPU would hang.
//
//===----------------------------------------------------------------------===//

#include "HostDevice.h"
#include "Races.h"

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <string>

using namespace symm;

extern "C" void _symm_host_yield();
extern "C" int64_t _symm_host_id(int32_t which, int32_t dim);

namespace {

/// An mbarrier word: pending arrivals (bits 0-20), expected arrivals (21-41),
/// transaction bytes as 21-bit two's complement (42-62), phase parity (63).
/// PTX bounds both counts by 2^20 - 1.
constexpr uint64_t kFieldMask = (uint64_t(1) << 21) - 1;
constexpr int64_t kMaxCount = (int64_t(1) << 20) - 1;

struct MBarrier {
  int64_t pending, expected, tx;
  uint64_t phase;

  static MBarrier decode(uint64_t word) {
    MBarrier m;
    m.pending = static_cast<int64_t>(word & kFieldMask);
    m.expected = static_cast<int64_t>((word >> 21) & kFieldMask);
    int64_t tx = static_cast<int64_t>((word >> 42) & kFieldMask);
    m.tx = tx >= (int64_t(1) << 20) ? tx - (int64_t(1) << 21) : tx;
    m.phase = word >> 63;
    return m;
  }
  uint64_t encode() const {
    return (uint64_t(pending) & kFieldMask) |
           ((uint64_t(expected) & kFieldMask) << 21) |
           ((uint64_t(tx) & kFieldMask) << 42) | (phase << 63);
  }
};

std::string threadName() {
  char name[96];
  snprintf(name, sizeof(name),
           "thread (%" PRId64 ", %" PRId64 ", %" PRId64 ") of block (%" PRId64
           ", %" PRId64 ", %" PRId64 ")",
           _symm_host_id(SYMM_HOST_ID_THREAD, 0),
           _symm_host_id(SYMM_HOST_ID_THREAD, 1),
           _symm_host_id(SYMM_HOST_ID_THREAD, 2),
           _symm_host_id(SYMM_HOST_ID_BLOCK, 0),
           _symm_host_id(SYMM_HOST_ID_BLOCK, 1),
           _symm_host_id(SYMM_HOST_ID_BLOCK, 2));
  return name;
}

int64_t linearThread() {
  int64_t x = _symm_host_id(SYMM_HOST_ID_THREAD, 0);
  int64_t y = _symm_host_id(SYMM_HOST_ID_THREAD, 1);
  int64_t z = _symm_host_id(SYMM_HOST_ID_THREAD, 2);
  int64_t dx = _symm_host_id(SYMM_HOST_ID_BLOCK_DIM, 0);
  int64_t dy = _symm_host_id(SYMM_HOST_ID_BLOCK_DIM, 1);
  return x + dx * (y + dy * z);
}

/// Yields until `done()`; `observe()` returns a value that changes whenever
/// the wait makes progress. After SYMM_HOST_DEADLOCK_SECONDS without
/// progress, fails the launch with "<thread> <describe(seconds)>".
template <typename Done, typename Observe, typename Describe>
void waitFor(Done done, Observe observe, Describe describe) {
  using Clock = std::chrono::steady_clock;
  double limit = currentDeadlockSeconds();
  auto since = Clock::now();
  auto seen = observe();
  while (!done()) {
    _symm_host_yield();
    auto now = observe();
    if (now != seen) {
      seen = now;
      since = Clock::now();
      continue;
    }
    double waited = std::chrono::duration<double>(Clock::now() - since).count();
    if (waited >= limit)
      failCurrentLaunch(threadName() + " " + describe(waited));
  }
}

uint64_t load(const uint64_t *word) {
  return __atomic_load_n(word, __ATOMIC_ACQUIRE);
}

/// Atomically applies `update` to the mbarrier; returns the old state.
template <typename Update> MBarrier modify(uint64_t *word, Update update) {
  uint64_t old = load(word);
  while (true) {
    MBarrier m = MBarrier::decode(old);
    MBarrier next = m;
    update(next);
    if (__atomic_compare_exchange_n(word, &old, next.encode(), false,
                                    __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
      return m;
  }
}

std::string describe(const MBarrier &m) {
  return std::to_string(m.pending) + " of " + std::to_string(m.expected) +
         " arrivals and " + std::to_string(m.tx) + " transaction bytes pending";
}

/// Fills `bytes` bytes with the out-of-bounds value: zeros, or a quiet NaN
/// of the map's floating-point type.
void fill(char *dst, size_t elements, const symm_host_tensor_map &map) {
  if (map.oob_fill == 0) {
    std::memset(dst, 0, elements * map.element_bytes);
    return;
  }
  // CUtensorMapDataType: 6 f16, 9 bf16, 8 f64, the rest 32-bit floats.
  uint64_t nan = map.data_type == 6   ? 0x7e00
                 : map.data_type == 9 ? 0x7fc0
                 : map.data_type == 8 ? 0x7ff8000000000000ull
                                      : 0x7fc00000;
  for (size_t i = 0; i < elements; ++i)
    std::memcpy(dst + i * map.element_bytes, &nan, map.element_bytes);
}

/// Visits the box at `coords` row by row (innermost dimension): `row(box
/// offset in elements, tensor pointer of the row's first in-bounds element
/// or null, first and end in-bounds index within the row)`.
template <typename Row>
void forEachRow(const symm_host_tensor_map &map, const int32_t *coords,
                Row row) {
  int rank = map.rank;
  uint32_t index[SYMM_HOST_TENSOR_MAP_MAX_RANK] = {};
  int64_t lo = std::max<int64_t>(0, -int64_t(coords[0]));
  int64_t hi =
      std::min<int64_t>(map.box[0], int64_t(map.sizes[0]) - int64_t(coords[0]));
  size_t offset = 0;
  while (true) {
    bool inside = hi > lo;
    int64_t element = coords[0] + lo;
    for (int d = 1; d < rank && inside; ++d) {
      int64_t c = int64_t(coords[d]) + index[d];
      inside = c >= 0 && c < int64_t(map.sizes[d]);
      element += c * int64_t(map.strides[d]);
    }
    char *at = inside ? static_cast<char *>(map.base) +
                            element * int64_t(map.element_bytes)
                      : nullptr;
    row(offset, at, inside ? lo : 0, inside ? hi : 0);
    offset += map.box[0];
    int d = 1;
    for (; d < rank; ++d) {
      if (++index[d] < map.box[d])
        break;
      index[d] = 0;
    }
    if (d == rank)
      return;
  }
}

} // namespace

extern "C" {

SYMM_EXPORT void _symm_host_mbarrier_init(uint64_t *mbarrier, int32_t count) {
  if (count < 1 || count > kMaxCount)
    failCurrentLaunch(threadName() + ": nvgpu.mbarrier.init with count " +
                      std::to_string(count) + "; it must be 1 to " +
                      std::to_string(kMaxCount));
  MBarrier m{count, count, 0, 0};
  __atomic_store_n(mbarrier, m.encode(), __ATOMIC_RELEASE);
}

SYMM_EXPORT int64_t _symm_host_mbarrier_arrive(uint64_t *mbarrier,
                                               int32_t arrivals,
                                               int32_t txBytes) {
  if (races::Thread *t = races::current())
    races::releaseAt(*t, mbarrier);
  std::string error;
  MBarrier old = modify(mbarrier, [&](MBarrier &m) {
    error.clear();
    if (arrivals > m.pending) {
      error = "arrived " + std::to_string(arrivals) +
              " times on an mbarrier with " + describe(m);
      return;
    }
    m.tx += txBytes;
    if (m.tx > kMaxCount || m.tx < -kMaxCount) {
      error = "took the mbarrier's transaction count to " +
              std::to_string(m.tx) + " bytes, beyond PTX's limit of " +
              std::to_string(kMaxCount);
      return;
    }
    m.pending -= arrivals;
    if (m.pending == 0 && m.tx == 0) {
      m.phase ^= 1;
      m.pending = m.expected;
    }
  });
  if (!error.empty())
    failCurrentLaunch(threadName() + " " + error);
  return static_cast<int64_t>(old.phase);
}

SYMM_EXPORT int32_t _symm_host_mbarrier_test_wait(uint64_t *mbarrier,
                                                  int64_t token) {
  bool done = MBarrier::decode(load(mbarrier)).phase != uint64_t(token & 1);
  if (races::Thread *t = races::current(); t && done)
    races::acquireAt(*t, mbarrier);
  return done;
}

/// The phase of parity `parity` has completed once the current phase has
/// the other parity (PTX's try_wait.parity).
SYMM_EXPORT void _symm_host_mbarrier_wait(uint64_t *mbarrier, int32_t parity) {
  waitFor(
      [&] {
        return MBarrier::decode(load(mbarrier)).phase != uint64_t(parity & 1);
      },
      [&] { return load(mbarrier); },
      [&](double waited) {
        char text[64];
        snprintf(text, sizeof(text), "%.1f s", waited);
        return std::string("waited ") + text + " for phase parity " +
               std::to_string(parity & 1) + " of an mbarrier that made no " +
               "progress (" + describe(MBarrier::decode(load(mbarrier))) +
               "; SYMM_HOST_DEADLOCK_SECONDS sets the limit)";
      });
  if (races::Thread *t = races::current())
    races::acquireAt(*t, mbarrier);
}

SYMM_EXPORT void _symm_host_tma_load(const symm_host_tensor_map *map, void *dst,
                                     uint64_t *mbarrier, int32_t c0, int32_t c1,
                                     int32_t c2, int32_t c3, int32_t c4) {
  const int32_t coords[] = {c0, c1, c2, c3, c4};
  size_t bytes = map->element_bytes;
  char *out = static_cast<char *>(dst);
  size_t total = 0;
  forEachRow(*map, coords,
             [&](size_t offset, const char *at, int64_t lo, int64_t hi) {
               char *row = out + offset * bytes;
               fill(row, size_t(lo), *map);
               if (hi > lo)
                 std::memcpy(row + lo * bytes, at, size_t(hi - lo) * bytes);
               fill(row + hi * bytes, map->box[0] - size_t(hi), *map);
               total += map->box[0] * bytes;
             });
  _symm_host_mbarrier_arrive(mbarrier, 0, -static_cast<int32_t>(total));
}

SYMM_EXPORT void _symm_host_tma_store(const symm_host_tensor_map *map,
                                      const void *src, int32_t c0, int32_t c1,
                                      int32_t c2, int32_t c3, int32_t c4) {
  const int32_t coords[] = {c0, c1, c2, c3, c4};
  size_t bytes = map->element_bytes;
  const char *in = static_cast<const char *>(src);
  forEachRow(*map, coords,
             [&](size_t offset, const char *at, int64_t lo, int64_t hi) {
               if (hi > lo)
                 std::memcpy(const_cast<char *>(at),
                             in + (offset + size_t(lo)) * bytes,
                             size_t(hi - lo) * bytes);
             });
}

SYMM_EXPORT void _symm_host_warpgroup_sync(int64_t *state) {
  int64_t linear = linearThread();
  int64_t group = linear / SYMM_HOST_WARPGROUP_SIZE;
  if (group >= SYMM_HOST_MAX_WARPGROUPS)
    failCurrentLaunch(
        threadName() +
        ": warpgroup operations on the CPU target take blocks "
        "of up to " +
        std::to_string(SYMM_HOST_MAX_WARPGROUPS * SYMM_HOST_WARPGROUP_SIZE) +
        " threads");
  int64_t threads = _symm_host_id(SYMM_HOST_ID_BLOCK_DIM, 0) *
                    _symm_host_id(SYMM_HOST_ID_BLOCK_DIM, 1) *
                    _symm_host_id(SYMM_HOST_ID_BLOCK_DIM, 2);
  int64_t size = std::min<int64_t>(SYMM_HOST_WARPGROUP_SIZE,
                                   threads - group * SYMM_HOST_WARPGROUP_SIZE);
  int64_t *arrived = state + 2 * group, *generation = arrived + 1;
  races::Thread *race = races::current();
  if (race)
    races::releaseAt(*race, generation);
  int64_t mine = __atomic_load_n(generation, __ATOMIC_ACQUIRE);
  if (__atomic_add_fetch(arrived, 1, __ATOMIC_ACQ_REL) == size) {
    __atomic_store_n(arrived, 0, __ATOMIC_RELAXED);
    __atomic_store_n(generation, mine + 1, __ATOMIC_RELEASE);
    if (race)
      races::acquireAt(*race, generation);
    return;
  }
  waitFor([&] { return __atomic_load_n(generation, __ATOMIC_ACQUIRE) != mine; },
          [&] { return __atomic_load_n(arrived, __ATOMIC_ACQUIRE); },
          [&](double waited) {
            char text[64];
            snprintf(text, sizeof(text), "%.1f s", waited);
            return std::string("waited ") + text +
                   " in a warpgroup operation for the other threads of its "
                   "warpgroup (" +
                   std::to_string(__atomic_load_n(arrived, __ATOMIC_ACQUIRE)) +
                   " of " + std::to_string(size) +
                   " arrived; every thread of a warpgroup must execute it)";
          });
  if (race)
    races::acquireAt(*race, generation);
}

} // extern "C"
