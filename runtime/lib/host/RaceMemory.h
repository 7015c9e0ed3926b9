//===- RaceMemory.h - The race detector's shared memory --------*- C++ -*-===//
//
// What the race detector (Races.h) keeps where every rank sees it: one memfd
// per rank, mapped by all, holding that rank's heap shadow (four recent
// accesses per 8 bytes) and block table, and in rank 0's the locks, the
// interned strings (sites, kernel names), what releases published (sync
// objects in an arena), and the barrier marks. Sparse and fixed in size: a
// program that needs more makes `overflowed` say which bound it passed.
//
//===----------------------------------------------------------------------===//

#ifndef SYMM_RUNTIME_LIB_HOST_RACEMEMORY_H
#define SYMM_RUNTIME_LIB_HOST_RACEMEMORY_H

#include "RaceKnowledge.h"
#include "symm/runtime.h"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <sched.h>
#include <string>
#include <vector>

namespace symm {
class Bootstrap;
} // namespace symm

namespace symm::races {

/// One access in shadow memory: 16 bytes.
struct Cell {
  uint32_t block; // 0: empty
  uint32_t clock;
  uint32_t site; // an interned string
  uint16_t thread;
  uint8_t mask; // the bytes of the 8-byte granule
  uint8_t flags;
};
constexpr uint8_t kWrite = 1, kAtomic = 2;
constexpr int kCells = 4;

/// What a report says of a block of another rank.
struct BlockInfo {
  uint32_t kernel; // an interned string
  uint32_t bid[3];
  uint16_t dims[3];
  uint16_t pad;
  uint64_t pad2;
};

/// Holds a spin lock in shared memory (none for a null word) while alive.
class SpinLock {
public:
  explicit SpinLock(std::atomic<uint32_t> *word) : word(word) {
    if (!word)
      return;
    for (unsigned spins = 0; word->exchange(1, std::memory_order_acquire);) {
      while (word->load(std::memory_order_relaxed))
        if (++spins % 64 == 0)
          sched_yield();
    }
  }
  ~SpinLock() {
    if (word)
      word->store(0, std::memory_order_release);
  }

private:
  std::atomic<uint32_t> *word;
};

struct Control;
struct SyncSlot;

class SharedMemory {
public:
  /// Creates this rank's region and maps every rank's (collective); the
  /// heaps' shadow may take up to `shadowBudget` bytes of all ranks' memory.
  symm_status map(Bootstrap &bootstrap, size_t heapBytes, size_t arenaBytes,
                  size_t shadowBudget);
  void unmap();
  bool mapped() const { return !regions.empty(); }

  /// Rank r's heap shadow (kCells per 8 bytes) and block table.
  Cell *shadow(int r) const;
  /// Counts the pages of rank r's shadow that hold the 8-byte granules
  /// `first` to `last` of its heap against the shadow's budget, the first
  /// time any rank touches each; false once all ranks' pages would pass it
  /// (then the detector has stopped, saying why).
  bool shadowFits(int r, size_t first, size_t last);
  BlockInfo *blocks(int r) const;
  /// The lock of the 8 bytes (or the sync object) of `key`.
  std::atomic<uint32_t> *lockFor(uint64_t key) const;
  /// The marks symm_barrier of parity `parity` exchanges, one per rank.
  uint32_t *marks(unsigned parity) const;

  /// The id of `text` in the shared table, 0 when it is full.
  uint32_t intern(const char *text);
  const char *text(uint32_t id) const;

  /// Adds `known`, released by a thread of `block` at `scope`, to what the
  /// address `key` published, dropping what `everyone` knows.
  void publish(uint64_t key, uint32_t block, uint32_t scope,
               const Knowledge &known, const Knowledge &everyone);
  /// What the address `key` published, unless its version is `seen` (then
  /// false, and nothing changed).
  bool published(uint64_t key, uint64_t &seen, std::vector<Tagged> &entries);

  /// The first bound the program exceeded, empty while none.
  std::string overflowed();
  void exceeded(const std::string &what);

private:
  char *region(int r) const { return regions[size_t(r)]; }
  SyncSlot *findSync(uint64_t key, bool create);
  uint64_t allocate(int sizeClass);
  void release(uint64_t at, int sizeClass);

  std::vector<char *> regions;
  Control *control = nullptr;
  size_t control_, sync, stringIndex, strings, arena, blocks_, touched_,
      shadow_, total;
  size_t arenaBytes = 0;
  size_t page = 0, shadowBudgetPages = 0;
  std::mutex overflowMutex;
  std::string overflow;
};

} // namespace symm::races

#endif // SYMM_RUNTIME_LIB_HOST_RACEMEMORY_H
