//===- RaceMemory.cpp - The race detector's shared memory ------*- C++ -*-===//
//
// Sync objects are the serialised knowledge each release to an address
// published, tagged with the releasing block and scope, in an arena with
// power-of-two free lists; a hash table maps addresses to them. Strings are
// interned in an append-only table with a hash index. All of it is guarded by
// spin locks in the same memory, which no thread holds across a switch.
//
//===----------------------------------------------------------------------===//

#include "RaceMemory.h"
#include "../core/Environment.h"
#include "../core/Runtime.h"

#include <cerrno>
#include <cstring>
#include <sys/mman.h>
#include <unistd.h>

using namespace symm;
using namespace symm::races;

struct symm::races::SyncSlot {
  std::atomic<uint64_t> key;
  /// The sync object: an arena offset + 1, 0 for none. Guarded by the lock of
  /// `key`.
  uint64_t object;
};

namespace {
// The bounds of the shared tables.
constexpr size_t kLocks = 1 << 16;
constexpr size_t kSyncSlots = 1 << 20;
constexpr size_t kStringSlots = 1 << 18;
constexpr size_t kStringBytes = 16 << 20;
constexpr int kSizeClasses = 40;
} // namespace

struct symm::races::Control {
  std::atomic<uint32_t> locks[kLocks];
  std::atomic<uint32_t> arenaLock;
  uint64_t arenaTop;
  uint64_t freeLists[kSizeClasses];
  std::atomic<uint32_t> stringLock;
  uint32_t stringTop;
  /// Per barrier parity, each rank's next block number when it entered.
  uint32_t marks[2][SYMM_MAX_RANKS];
  /// Pages of all ranks' heap shadows some access has touched.
  std::atomic<uint64_t> shadowPages;
};

namespace {

size_t pageAlign(size_t n) {
  size_t page = size_t(sysconf(_SC_PAGESIZE));
  return (n + page - 1) / page * page;
}

uint64_t mix(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  x ^= x >> 33;
  return x;
}

//===----------------------------------------------------------------------===//
// Sync objects: what releases to an address published
//===----------------------------------------------------------------------===//

struct SyncHeader {
  uint32_t capacity, bytes;
  uint64_t version;
};

void put32(std::vector<uint8_t> &out, uint32_t v) {
  out.insert(out.end(), reinterpret_cast<uint8_t *>(&v),
             reinterpret_cast<uint8_t *>(&v) + 4);
}
void put64(std::vector<uint8_t> &out, uint64_t v) {
  out.insert(out.end(), reinterpret_cast<uint8_t *>(&v),
             reinterpret_cast<uint8_t *>(&v) + 8);
}
uint32_t get32(const uint8_t *&p) {
  uint32_t v;
  memcpy(&v, p, 4);
  p += 4;
  return v;
}
uint64_t get64(const uint8_t *&p) {
  uint64_t v;
  memcpy(&v, p, 8);
  p += 8;
  return v;
}

std::vector<uint8_t> serialize(const std::vector<Tagged> &entries) {
  std::vector<uint8_t> out;
  for (const Tagged &t : entries) {
    put32(out, t.block);
    put32(out, t.scope);
    put32(out, uint32_t(t.known.complete.size()));
    put32(out, uint32_t(t.known.phases.size()));
    put32(out, uint32_t(t.known.threads.size()));
    for (auto [a, b] : t.known.complete)
      put32(out, a), put32(out, b);
    for (auto [a, b] : t.known.phases)
      put32(out, a), put32(out, b);
    for (auto [a, b] : t.known.threads)
      put64(out, a), put32(out, b);
  }
  return out;
}

std::vector<Tagged> deserialize(const uint8_t *p, size_t bytes) {
  std::vector<Tagged> entries;
  const uint8_t *end = p + bytes;
  while (p < end) {
    Tagged t;
    t.block = get32(p);
    t.scope = get32(p);
    uint32_t nc = get32(p), np = get32(p), nt = get32(p);
    for (uint32_t i = 0; i < nc; ++i) {
      uint32_t a = get32(p);
      t.known.complete.push_back({a, get32(p)});
    }
    for (uint32_t i = 0; i < np; ++i) {
      uint32_t a = get32(p);
      t.known.phases.push_back({a, get32(p)});
    }
    for (uint32_t i = 0; i < nt; ++i) {
      uint64_t a = get64(p);
      t.known.threads.push_back({a, get32(p)});
    }
    entries.push_back(std::move(t));
  }
  return entries;
}

int sizeClass(size_t bytes) {
  int c = 6;
  while ((size_t(1) << c) < bytes)
    ++c;
  return c;
}

} // namespace

symm_status SharedMemory::map(Bootstrap &bootstrap, size_t heapBytes,
                              size_t arenaBytes, size_t shadowBudget) {
  this->arenaBytes = arenaBytes;
  page = size_t(sysconf(_SC_PAGESIZE));
  shadowBudgetPages = shadowBudget / page;
  control_ = 0;
  sync = pageAlign(sizeof(Control));
  stringIndex = sync + pageAlign(kSyncSlots * sizeof(SyncSlot));
  strings = stringIndex + pageAlign(kStringSlots * sizeof(uint32_t));
  arena = strings + pageAlign(kStringBytes);
  blocks_ = arena + pageAlign(arenaBytes);
  touched_ = blocks_ + pageAlign(kBlocksPerRank * sizeof(BlockInfo));
  size_t shadowBytes = pageAlign((heapBytes + 7) / 8 * kCells * sizeof(Cell));
  // A bit per page of the shadow, in 64-bit words.
  shadow_ = touched_ + pageAlign((shadowBytes / page + 63) / 64 * 8);
  total = shadow_ + shadowBytes;
  int fd = memfd_create("symm-races", MFD_CLOEXEC);
  if (fd < 0)
    return fail(SYMM_ERROR_BACKEND, "race checks: memfd_create: %s",
                strerror(errno));
  if (ftruncate(fd, off_t(total)) != 0) {
    close(fd);
    return fail(SYMM_ERROR_BACKEND,
                "race checks: cannot size their shared memory to %zu bytes: "
                "%s",
                total, strerror(errno));
  }
  std::vector<int> fds;
  symm_status status = bootstrap.allgatherFds(fd, fds);
  close(fd);
  if (status != SYMM_SUCCESS)
    return status;
  regions.assign(fds.size(), nullptr);
  for (size_t r = 0; r < fds.size(); ++r) {
    void *p = mmap(nullptr, total, PROT_READ | PROT_WRITE,
                   MAP_SHARED | MAP_NORESERVE, fds[r], 0);
    close(fds[r]);
    if (p == MAP_FAILED)
      status = fail(SYMM_ERROR_BACKEND,
                    "race checks: cannot map rank %zu's shared memory: %s", r,
                    strerror(errno));
    else
      regions[r] = static_cast<char *>(p);
  }
  if (status != SYMM_SUCCESS) {
    unmap();
    return status;
  }
  control = reinterpret_cast<Control *>(region(0) + control_);
  return SYMM_SUCCESS;
}

void SharedMemory::unmap() {
  for (char *r : regions)
    if (r)
      munmap(r, total);
  regions.clear();
  control = nullptr;
}

Cell *SharedMemory::shadow(int r) const {
  return reinterpret_cast<Cell *>(region(r) + shadow_);
}
bool SharedMemory::shadowFits(int r, size_t first, size_t last) {
  constexpr size_t kGroupBytes = kCells * sizeof(Cell);
  auto *bits = reinterpret_cast<std::atomic<uint64_t> *>(region(r) + touched_);
  for (size_t p = first * kGroupBytes / page; p <= last * kGroupBytes / page;
       ++p) {
    uint64_t bit = uint64_t(1) << (p % 64);
    if (bits[p / 64].load(std::memory_order_relaxed) & bit)
      continue;
    if (control->shadowPages.load(std::memory_order_relaxed) >=
        shadowBudgetPages) {
      exceeded("the heaps' shadow memory (8 bytes per byte of heap that "
               "kernels touch, on every rank) reached " +
               std::to_string((shadowBudgetPages * page) >> 20) + " MiB (" +
               env::kRaceShadow +
               ", by default half of this machine's memory): give the "
               "program a smaller heap (symm-run --heap-size) or fewer "
               "ranks, or raise it");
      return false;
    }
    if (!(bits[p / 64].fetch_or(bit) & bit))
      control->shadowPages.fetch_add(1);
  }
  return true;
}
BlockInfo *SharedMemory::blocks(int r) const {
  return reinterpret_cast<BlockInfo *>(region(r) + blocks_);
}
std::atomic<uint32_t> *SharedMemory::lockFor(uint64_t key) const {
  return &control->locks[mix(key >> 3) % kLocks];
}
uint32_t *SharedMemory::marks(unsigned parity) const {
  return control->marks[parity];
}

void SharedMemory::exceeded(const std::string &what) {
  std::lock_guard<std::mutex> lock(overflowMutex);
  if (overflow.empty())
    overflow = what;
}
std::string SharedMemory::overflowed() {
  std::lock_guard<std::mutex> lock(overflowMutex);
  return overflow;
}

/// An id is the offset of the text + 1.
uint32_t SharedMemory::intern(const char *text) {
  size_t length = strlen(text);
  uint64_t hash = 1469598103934665603ull;
  for (size_t i = 0; i < length; ++i)
    hash = (hash ^ uint8_t(text[i])) * 1099511628211ull;
  SpinLock lock(&control->stringLock);
  uint32_t *index = reinterpret_cast<uint32_t *>(region(0) + stringIndex);
  for (size_t probe = 0; probe < kStringSlots; ++probe) {
    uint32_t &slot = index[(hash + probe) % kStringSlots];
    if (slot) {
      const char *s = (region(0) + strings) + slot - 1;
      if (!strcmp(s, text))
        return slot;
      continue;
    }
    if (control->stringTop + length + 1 > kStringBytes)
      break;
    uint32_t at = control->stringTop;
    memcpy((region(0) + strings) + at, text, length + 1);
    control->stringTop += uint32_t(length + 1);
    slot = at + 1;
    return slot;
  }
  exceeded("its table of source locations (" +
           std::to_string(kStringBytes >> 20) + " MiB) is full");
  return 0;
}

const char *SharedMemory::text(uint32_t id) const {
  return id ? (region(0) + strings) + id - 1 : "(unknown)";
}

/// An arena block of 2^c bytes (an offset + 1), 0 when the arena is full.
uint64_t SharedMemory::allocate(int c) {
  SpinLock lock(&control->arenaLock);
  uint64_t &head = control->freeLists[c];
  if (head) {
    uint64_t at = head;
    memcpy(&head, (region(0) + arena) + at - 1, 8);
    return at;
  }
  size_t bytes = size_t(1) << c;
  if (control->arenaTop + bytes > arenaBytes)
    return 0;
  uint64_t at = control->arenaTop + 1;
  control->arenaTop += bytes;
  return at;
}

void SharedMemory::release(uint64_t at, int c) {
  SpinLock lock(&control->arenaLock);
  memcpy((region(0) + arena) + at - 1, &control->freeLists[c], 8);
  control->freeLists[c] = at;
}

/// The slot of `key`, claimed when `create`; null when absent (or full).
SyncSlot *SharedMemory::findSync(uint64_t key, bool create) {
  SyncSlot *table = reinterpret_cast<SyncSlot *>(region(0) + sync);
  for (size_t probe = 0; probe < 64; ++probe) {
    SyncSlot &s = table[(mix(key) + probe) % kSyncSlots];
    uint64_t k = s.key.load(std::memory_order_acquire);
    if (k == key)
      return &s;
    if (k)
      continue;
    if (!create)
      return nullptr;
    uint64_t empty = 0;
    if (s.key.compare_exchange_strong(empty, key) || empty == key)
      return &s;
  }
  if (create)
    exceeded("its table of synchronising addresses (" +
             std::to_string(kSyncSlots) + " entries) is full");
  return nullptr;
}

void SharedMemory::publish(uint64_t key, uint32_t block, uint32_t scope,
                           const Knowledge &known, const Knowledge &everyone) {
  SpinLock lock(lockFor(key));
  SyncSlot *slot = findSync(key, true);
  if (!slot)
    return;
  std::vector<Tagged> entries;
  SyncHeader header{0, 0, 0};
  if (slot->object) {
    memcpy(&header, (region(0) + arena) + slot->object - 1, sizeof(header));
    entries =
        deserialize(reinterpret_cast<const uint8_t *>((region(0) + arena)) +
                        slot->object - 1 + sizeof(header),
                    header.bytes);
  }
  // What every thread knows since the last symm_barrier need not be kept.
  entries.erase(std::remove_if(entries.begin(), entries.end(),
                               [&](const Tagged &t) {
                                 return everyone.completes(t.block);
                               }),
                entries.end());
  auto it = std::find_if(entries.begin(), entries.end(), [&](const Tagged &t) {
    return t.block == block && t.scope == scope;
  });
  if (it == entries.end())
    entries.push_back({block, scope, known});
  else
    it->known.join(known);
  std::vector<uint8_t> bytes = serialize(entries);
  size_t need = sizeof(SyncHeader) + bytes.size();
  if (!slot->object || header.capacity < need) {
    int c = sizeClass(need);
    uint64_t fresh = allocate(c);
    if (!fresh) {
      exceeded("its memory for what releases published (" +
               std::to_string(arenaBytes >> 20) +
               " MiB, SYMM_HOST_RACE_MEMORY) is full");
      return;
    }
    if (slot->object)
      release(slot->object, sizeClass(header.capacity));
    slot->object = fresh;
    header.capacity = uint32_t(size_t(1) << c);
  }
  header.bytes = uint32_t(bytes.size());
  ++header.version;
  char *at = (region(0) + arena) + slot->object - 1;
  memcpy(at, &header, sizeof(header));
  memcpy(at + sizeof(header), bytes.data(), bytes.size());
}

bool SharedMemory::published(uint64_t key, uint64_t &seen,
                             std::vector<Tagged> &entries) {
  SpinLock lock(lockFor(key));
  SyncSlot *slot = findSync(key, false);
  if (!slot || !slot->object)
    return false;
  SyncHeader header;
  memcpy(&header, (region(0) + arena) + slot->object - 1, sizeof(header));
  if (header.version == seen)
    return false;
  seen = header.version;
  entries = deserialize(reinterpret_cast<const uint8_t *>((region(0) + arena)) +
                            slot->object - 1 + sizeof(header),
                        header.bytes);
  return true;
}
