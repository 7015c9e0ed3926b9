//===- Races.cpp - The CPU target's race detector ---------------*- C++ -*-===//
//
// Happens-before race detection for kernels on CPU ranks (Races.h). Every
// access a checked kernel makes to heap or workgroup memory is recorded in
// shadow memory (four cells per 8 bytes: block, thread, clock, the bytes, read
// or write, plain or atomic, and where in the source) and checked against the
// cells already there: two accesses of different threads to a common byte, at
// least one a write, not both atomic, where the accessing thread does not know
// the earlier one, are a race.
//
// A thread knows an access when the access happened before it: its own
// earlier ones, its block's before the last barrier it passed (block phases),
// those a release published to an atomic it later read with acquire ordering
// at a scope that includes both threads, everything of launches that
// finished before its launch started on its stream or before the host waited
// for them, and everything before the last symm_barrier. A release publishes
// the releasing thread's knowledge in a sync object in shared memory, keyed by
// the atomic's address, which acquires join; since releases only add to it, a
// race can be missed (a relaxed store after a release does not end what the
// release published) but never invented.
//
// Knowledge is RaceKnowledge.h; the shadow memory, sync objects and strings
// every rank shares are RaceMemory.h.
//
//===----------------------------------------------------------------------===//

#include "Races.h"
#include "../core/Environment.h"
#include "../core/RuntimeState.h"
#include "RaceMemory.h"
#include "symm/abi.h"

#include <algorithm>
#include <atomic>
#include <cinttypes>
#include <cstring>
#include <dlfcn.h>
#include <memory>
#include <mutex>
#include <set>
#include <unistd.h>
#include <unordered_map>

using namespace symm;
using namespace symm::races;

namespace {

//===----------------------------------------------------------------------===//
// The process's detector
//===----------------------------------------------------------------------===//

struct Detector {
  bool on = false;
  int rank = 0, size = 1;
  size_t heapBytes = 0;
  std::vector<char *> heaps;
  SharedMemory memory;

  std::atomic<uint32_t> nextBlock{1};

  std::mutex hostMutex;
  KnowledgeRef host = std::make_shared<Knowledge>();
  /// What every thread knows since the last symm_barrier.
  KnowledgeRef barrierKnown = std::make_shared<Knowledge>();
  std::unordered_map<void *, KnowledgeRef> streams, events;
  unsigned barriers = 0;

  std::mutex reportMutex;
  std::set<std::pair<uint32_t, uint32_t>> reported;

  std::mutex siteMutex;
  std::unordered_map<const char *, uint32_t> sites;
};

Detector &detector() {
  static Detector *d = new Detector;
  return *d;
}

uint32_t siteId(Detector &d, const char *site) {
  // Most accesses come from few sites: a small cache per worker first.
  struct Entry {
    const char *site;
    uint32_t id;
  };
  // On the heap: the runtime is loaded with dlopen (Python), where a large
  // thread-local array does not fit the static TLS block the runtime's
  // initial-exec variables put it in.
  thread_local std::unique_ptr<Entry[]> cache;
  if (!cache)
    cache = std::make_unique<Entry[]>(512);
  Entry &e = cache[(reinterpret_cast<uintptr_t>(site) >> 3) % 512];
  if (e.site == site)
    return e.id;
  std::lock_guard<std::mutex> lock(d.siteMutex);
  auto [it, fresh] = d.sites.try_emplace(site, 0);
  if (fresh)
    it->second = d.memory.intern(site);
  e = {site, it->second};
  return it->second;
}

/// Adds `known`, released by a thread of `block` at `scope`, to what the
/// address `key` published.
void publish(Detector &d, uint64_t key, uint32_t block, uint32_t scope,
             const Knowledge &known) {
  KnowledgeRef everyone;
  {
    std::lock_guard<std::mutex> lock(d.hostMutex);
    everyone = d.barrierKnown;
  }
  d.memory.publish(key, block, scope, known, *everyone);
}

} // namespace

//===----------------------------------------------------------------------===//
// Threads, blocks and launches
//===----------------------------------------------------------------------===//

struct symm::races::Launch {
  std::string kernel;
  uint32_t kernelName = 0;
  /// The launch's blocks are first .. first + count - 1; 0 when the rank ran
  /// out of block numbers (the launch is not checked and fails).
  uint32_t first = 0;
  unsigned count = 0;
  KnowledgeRef initial;
  std::mutex mutex;
  Knowledge final;
  std::atomic<uint64_t> races{0};
};

struct symm::races::Thread {
  Block *block;
  uint16_t linear;
  uint32_t clock;
  /// The block's barrier phase this thread arrived in.
  uint32_t arrived;
  KnowledgeRef known;
  /// Releases read by relaxed atomics, joined by a later acquire fence.
  std::unordered_map<uint64_t, std::vector<Tagged>> pending;
  /// What the last release fence published, and its scope; released by the
  /// relaxed atomic writes after it.
  KnowledgeRef fenced;
  uint32_t fencedScope;
  /// The version of each sync object this thread joined last.
  std::unordered_map<uint64_t, uint64_t> seen;
};

struct symm::races::Block {
  Launch *launch;
  uint32_t id;
  unsigned bid[3], dims[3];
  std::vector<Thread> threads;
  char *shared;
  size_t sharedBytes;
  /// The shadow of workgroup memory; cells of another block are stale.
  std::vector<Cell> cells;
  uint32_t phase;
  Knowledge arriving;
  KnowledgeRef afterBarrier;
  Knowledge finished;
};

namespace {

/// Advances the thread's clock past a release; false (and checks stop with
/// a message) when it made too many releases in one barrier phase.
void tick(Detector &d, Thread &t) {
  if ((t.clock & kMaxSub) == kMaxSub) {
    d.memory.exceeded("a thread of kernel '" + t.block->launch->kernel +
                      "' made more than " + std::to_string(kMaxSub) +
                      " releases between two barriers");
    return;
  }
  ++t.clock;
}

/// What `t` knows with its own accesses up to now.
Knowledge releasable(const Thread &t) {
  Knowledge k = *t.known;
  k.addThread(t.block->id, t.linear, t.clock + 1);
  return k;
}

/// The address's owner and offset: rank r's heap (owner r), or this block's
/// workgroup memory (owner -1). False for memory the detector does not
/// watch.
bool locate(Detector &d, const Thread &t, uintptr_t a, int &owner,
            size_t &offset) {
  const Block &b = *t.block;
  if (a - reinterpret_cast<uintptr_t>(b.shared) < b.sharedBytes) {
    owner = -1;
    offset = a - reinterpret_cast<uintptr_t>(b.shared);
    return true;
  }
  for (int r = 0; r < d.size; ++r) {
    if (a - reinterpret_cast<uintptr_t>(d.heaps[size_t(r)]) < d.heapBytes) {
      owner = r;
      offset = a - reinterpret_cast<uintptr_t>(d.heaps[size_t(r)]);
      return true;
    }
  }
  return false;
}

/// The sync-object key of an address.
uint64_t syncKey(Detector &d, int owner, size_t offset, uintptr_t address) {
  if (owner >= 0)
    return uint64_t(owner + 1) << 48 | offset;
  return uint64_t(SYMM_MAX_RANKS + 1 + d.rank) << 48 |
         (address & ((uint64_t(1) << 48) - 1));
}

std::string describeThread(Detector &d, uint32_t block, uint16_t thread) {
  int r = int(rankOf(block));
  if (r >= d.size)
    return "an unknown thread";
  const BlockInfo &info = d.memory.blocks(r)[block & (kBlocksPerRank - 1)];
  unsigned dx = std::max<unsigned>(1, info.dims[0]);
  unsigned dy = std::max<unsigned>(1, info.dims[1]);
  char buffer[256];
  snprintf(buffer, sizeof(buffer),
           "rank %d, block (%u, %u, %u), thread (%u, %u, %u) of kernel '%s'", r,
           info.bid[0], info.bid[1], info.bid[2], thread % dx,
           (thread / dx) % dy, thread / (dx * dy), d.memory.text(info.kernel));
  return buffer;
}

std::string describeAccess(uint8_t flags, unsigned bytes) {
  std::string s = flags & kAtomic ? "atomic " : "";
  s += flags & kWrite ? "write" : "read";
  return s + " of " + std::to_string(bytes) + " byte" + (bytes == 1 ? "" : "s");
}

std::string describePlace(Detector &d, const Thread &t, int owner,
                          size_t offset, unsigned bytes) {
  char buffer[256];
  if (owner < 0) {
    snprintf(buffer, sizeof(buffer),
             "byte %zu of the workgroup memory of block (%u, %u, %u) of rank "
             "%d",
             offset, t.block->bid[0], t.block->bid[1], t.block->bid[2], d.rank);
    return buffer;
  }
  // The allocation, when the host is not changing them right now.
  std::string where = "";
  std::unique_lock<std::mutex> lock(apiMutex(), std::try_to_lock);
  if (lock.owns_lock()) {
    const std::vector<Allocation> &all = state().allocations;
    for (size_t i = 0; i < all.size(); ++i) {
      const Allocation &a = all[i];
      if (offset < a.offset || offset >= a.offset + a.bytes)
        continue;
      snprintf(buffer, sizeof(buffer),
               ": element %zu of %u byte%s of heap allocation #%zu (offset "
               "%zu, %zu bytes)",
               (offset - a.offset) / bytes, bytes, bytes == 1 ? "" : "s", i,
               a.offset, a.bytes);
      where = buffer;
    }
  }
  snprintf(buffer, sizeof(buffer), "rank %d's heap at offset %zu", owner,
           offset);
  return buffer + where;
}

unsigned popcount8(uint8_t m) { return unsigned(__builtin_popcount(m)); }

void report(Detector &d, Thread &t, const Cell &mine, const Cell &other,
            int owner, size_t offset, unsigned bytes) {
  ++t.block->launch->races;
  {
    std::lock_guard<std::mutex> lock(d.reportMutex);
    auto key = std::minmax(mine.site, other.site);
    if (!d.reported.insert(key).second || d.reported.size() > 20)
      return;
  }
  std::string message =
      "symm: rank " + std::to_string(d.rank) + ": data race on " +
      describePlace(d, t, owner, offset, bytes) + ":\n  " +
      describeAccess(mine.flags, bytes) + " by " +
      describeThread(d, mine.block, mine.thread) + ": " +
      d.memory.text(mine.site) + "\n  " +
      describeAccess(other.flags, popcount8(other.mask)) + " by " +
      describeThread(d, other.block, other.thread) + ": " +
      d.memory.text(other.site) +
      "\n  and neither happens before the other (no barrier, stream order, "
      "symm_barrier or release -> acquire of a scope that includes both "
      "threads orders them)\n";
  fputs(message.c_str(), stderr);
  fflush(stderr);
}

/// Checks `mine` against a granule's cells and records it; returns whether
/// it races with a cell, copied to `raced`. `onlyBlock`: cells of other
/// blocks are stale (workgroup memory).
bool checkCells(const Thread &t, Cell *cells, const Cell &mine, Cell &raced,
                uint32_t onlyBlock) {
  int replace = -1, same = -1;
  bool race = false;
  for (int i = 0; i < kCells; ++i) {
    const Cell &c = cells[i];
    if (!c.block || (onlyBlock && c.block != onlyBlock)) {
      if (replace < 0)
        replace = i;
      continue;
    }
    if (c.block == mine.block && c.thread == mine.thread) {
      // The thread's own earlier access: keep its write over a read.
      if (c.mask == mine.mask && ((mine.flags & kWrite) || !(c.flags & kWrite)))
        same = i;
      else if (replace < 0)
        replace = i;
      continue;
    }
    if (t.known->knows(c.block, c.thread, c.clock)) {
      if (replace < 0)
        replace = i;
      continue;
    }
    if (!(c.mask & mine.mask) || !((c.flags | mine.flags) & kWrite) ||
        ((c.flags & kAtomic) && (mine.flags & kAtomic)))
      continue;
    if (!race) {
      race = true;
      raced = c;
    }
  }
  int slot = same >= 0      ? same
             : replace >= 0 ? replace
                            : int((mine.clock + mine.thread) % kCells);
  cells[slot] = mine;
  return race;
}

void access(Detector &d, Thread &t, uintptr_t a, size_t bytes, uint8_t flags,
            const char *site) {
  int owner;
  size_t offset;
  if (!bytes || !locate(d, t, a, owner, offset))
    return;
  Block &b = *t.block;
  Cell *cells;
  if (owner < 0) {
    cells = b.cells.data();
  } else {
    cells = d.memory.shadow(owner);
    bytes = std::min(bytes, d.heapBytes - offset);
    if (!d.memory.shadowFits(owner, offset / 8, (offset + bytes - 1) / 8))
      return;
  }
  uint32_t id = siteId(d, site);
  size_t end = offset + bytes;
  for (size_t g = offset / 8; g <= (end - 1) / 8; ++g) {
    size_t lo = std::max(offset, g * 8) - g * 8;
    size_t hi = std::min(end, g * 8 + 8) - g * 8;
    uint8_t mask = uint8_t(((1u << hi) - 1) & ~((1u << lo) - 1));
    Cell mine{b.id, t.clock, id, t.linear, mask, flags};
    Cell other{};
    bool race;
    {
      SpinLock lock(owner >= 0 ? d.memory.lockFor(syncKey(d, owner, g * 8, 0))
                               : nullptr);
      race =
          checkCells(t, cells + g * kCells, mine, other, owner < 0 ? b.id : 0);
    }
    if (race)
      report(d, t, mine, other, owner,
             g * 8 + unsigned(__builtin_ctz(mine.mask & other.mask)),
             unsigned(bytes));
  }
}

/// Joins what the address published into `t`'s knowledge at `scope`, or,
/// for a relaxed read (`acquire` false), keeps it for a later acquire fence.
void absorb(Detector &d, Thread &t, uint64_t key, uint32_t scope,
            bool acquire) {
  std::vector<Tagged> entries;
  // A relaxed read leaves the version unjoined, for a later acquire read.
  uint64_t &seen = t.seen[key], unjoined = seen;
  if (!d.memory.published(key, acquire ? seen : unjoined, entries))
    return;
  for (Tagged &e : entries)
    e.scope = std::min(e.scope, scope);
  if (!acquire) {
    t.pending[key] = std::move(entries);
    return;
  }
  for (const Tagged &e : entries)
    if (inScope(e.scope, e.block, t.block->id))
      t.known = joined(t.known, e.known);
}

} // namespace

//===----------------------------------------------------------------------===//
// The interface
//===----------------------------------------------------------------------===//

bool symm::races::enabled() {
  static const bool on = [] {
    const char *v = env::get(env::kCheckRaces);
    return v && !strcmp(v, "1");
  }();
  return on;
}

symm_status symm::races::attach(Bootstrap &bootstrap,
                                const std::vector<char *> &heaps,
                                size_t heapBytes, bool mine) {
  Detector &d = detector();
  int size = bootstrap.size();
  d.rank = bootstrap.rank();
  d.size = size;
  if (const char *v = env::get(env::kCheckRaces);
      v && strcmp(v, "0") && strcmp(v, "1"))
    return fail(SYMM_ERROR_INVALID_ARGUMENT, "%s='%s' is neither 0 nor 1",
                env::kCheckRaces, v);
  // A setting in MiB from `least` to `most`, `mib` where it is unset.
  auto mibSetting = [](const char *var, int least, int most,
                       size_t &mib) -> symm_status {
    const char *v = env::get(var);
    if (!v)
      return SYMM_SUCCESS;
    std::optional<int> value = env::parseInt(v, least, most);
    if (!value)
      return fail(SYMM_ERROR_INVALID_ARGUMENT,
                  "%s='%s' is not a number of MiB from %d to %d", var, v, least,
                  most);
    mib = size_t(*value);
    return SYMM_SUCCESS;
  };
  size_t arenaMiB = 256;
  if (symm_status st = mibSetting(env::kRaceMemory, 16, 1 << 20, arenaMiB))
    return st;
  // All ranks' shadows together: by default half of the machine's memory.
  size_t shadowMiB =
      size_t(sysconf(_SC_PHYS_PAGES)) / 2 * size_t(sysconf(_SC_PAGESIZE)) >> 20;
  if (symm_status st = mibSetting(env::kRaceShadow, 1, 1 << 30, shadowMiB))
    return st;
  // Every rank must agree; a rank that differs fails every rank.
  std::vector<uint8_t> all(static_cast<size_t>(size));
  uint8_t flag = mine;
  if (symm_status st = bootstrap.allgather(&flag, 1, all.data()))
    return st;
  for (int r = 0; r < size; ++r)
    if (all[size_t(r)] != all[0])
      return fail(SYMM_ERROR_INVALID_ARGUMENT,
                  "%s is %d on rank 0 and %d on rank %d; race checks need "
                  "every rank",
                  env::kCheckRaces, all[0], all[size_t(r)], r);
  if (!mine)
    return SYMM_SUCCESS;
  if (symm_status st =
          d.memory.map(bootstrap, heapBytes, arenaMiB << 20, shadowMiB << 20))
    return st;
  d.heaps = heaps;
  d.heapBytes = heapBytes;
  d.on = true;
  return SYMM_SUCCESS;
}

void symm::races::detach() {
  Detector &d = detector();
  d.on = false;
  d.memory.unmap();
}

symm_status symm::races::checkModule(void *library) {
  if (!enabled() || dlsym(library, SYMM_RACE_MARKER_SYMBOL))
    return SYMM_SUCCESS;
  return fail(SYMM_ERROR_INVALID_ARGUMENT,
              "%s=1, but the module was compiled without race checks: "
              "compile it with symm-compile --check-races (symm-run "
              "--check-races does for a .mlir program)",
              env::kCheckRaces);
}

void symm::races::LaunchDeleter::operator()(Launch *launch) const {
  delete launch;
}

LaunchPtr symm::races::startLaunch(void *stream, const char *kernel,
                                   unsigned blocks) {
  Detector &d = detector();
  if (!d.on)
    return nullptr;
  LaunchPtr l(new Launch);
  l->kernel = kernel;
  l->kernelName = d.memory.intern(kernel);
  l->count = blocks;
  uint32_t first = d.nextBlock.fetch_add(blocks);
  if (uint64_t(first) + blocks <= kBlocksPerRank)
    l->first = uint32_t(d.rank) << kLocalBits | first;
  else
    d.memory.exceeded("rank " + std::to_string(d.rank) + " ran more than " +
                      std::to_string(kBlocksPerRank - 1) + " blocks");
  std::lock_guard<std::mutex> lock(d.hostMutex);
  KnowledgeRef &s = d.streams[stream];
  l->initial = s ? joined(d.host, *s) : d.host;
  return l;
}

symm_status symm::races::endLaunch(Launch &l, void *stream) {
  Detector &d = detector();
  l.final.join(*l.initial);
  if (l.first)
    l.final.addComplete(l.first, l.first + l.count);
  l.final.prune();
  {
    std::lock_guard<std::mutex> lock(d.hostMutex);
    d.streams[stream] = std::make_shared<Knowledge>(std::move(l.final));
  }
  if (std::string why = d.memory.overflowed(); !why.empty())
    return fail(SYMM_ERROR_INVALID_ARGUMENT,
                "kernel '%s': the race detector stopped: %s", l.kernel.c_str(),
                why.c_str());
  if (uint64_t n = l.races.load())
    return fail(SYMM_ERROR_INVALID_ARGUMENT,
                "kernel '%s': %" PRIu64 " racing access%s (reported above)",
                l.kernel.c_str(), n, n == 1 ? "" : "es");
  return SYMM_SUCCESS;
}

void symm::races::hostWaited(void *stream) {
  Detector &d = detector();
  if (!d.on)
    return;
  std::lock_guard<std::mutex> lock(d.hostMutex);
  if (KnowledgeRef s = d.streams[stream])
    d.host = joined(d.host, *s);
}

void symm::races::hostWaitedAll() {
  Detector &d = detector();
  if (!d.on)
    return;
  std::lock_guard<std::mutex> lock(d.hostMutex);
  for (auto &[stream, s] : d.streams)
    if (s)
      d.host = joined(d.host, *s);
}

void symm::races::eventReached(void *event, void *stream) {
  Detector &d = detector();
  if (!d.on)
    return;
  std::lock_guard<std::mutex> lock(d.hostMutex);
  d.events[event] = d.streams[stream];
}

void symm::races::hostWaitedEvent(void *event) {
  Detector &d = detector();
  if (!d.on)
    return;
  std::lock_guard<std::mutex> lock(d.hostMutex);
  if (KnowledgeRef e = d.events[event])
    d.host = joined(d.host, *e);
}

void symm::races::streamWaitedEvent(void *stream, void *event) {
  Detector &d = detector();
  if (!d.on)
    return;
  std::lock_guard<std::mutex> lock(d.hostMutex);
  if (KnowledgeRef e = d.events[event]) {
    KnowledgeRef &s = d.streams[stream];
    s = s ? joined(s, *e) : e;
  }
}

void symm::races::barrier(bool passed) {
  Detector &d = detector();
  if (!d.on)
    return;
  unsigned parity = d.barriers % 2;
  if (!passed) {
    // This rank's device work is done: every block it numbered so far.
    d.memory.marks(parity)[d.rank] = d.nextBlock.load();
    return;
  }
  ++d.barriers;
  auto k = std::make_shared<Knowledge>();
  for (int r = 0; r < d.size; ++r)
    k->addComplete(uint32_t(r) << kLocalBits,
                   uint32_t(r) << kLocalBits | d.memory.marks(parity)[r]);
  std::lock_guard<std::mutex> lock(d.hostMutex);
  d.barrierKnown = k;
  d.host = joined(d.host, *k);
}

struct symm::races::StreamOp {
  LaunchPtr launch;
  Block *block = nullptr;
};

void symm::races::StreamOpDeleter::operator()(StreamOp *op) const {
  if (op->block)
    destroyBlock(op->block);
  delete op;
}

StreamOpPtr symm::races::startStreamOp(void *stream, const char *what) {
  LaunchPtr launch = startLaunch(stream, what, 1);
  if (!launch)
    return nullptr;
  StreamOpPtr op(new StreamOp);
  const unsigned zero[3] = {0, 0, 0}, one[3] = {1, 1, 1};
  op->block = startBlock(*launch, nullptr,
                         {.index = 0, .bid = zero, .dims = one, .threads = 1});
  op->launch = std::move(launch);
  return op;
}

void symm::races::streamOpAccess(StreamOp &op, const void *address,
                                 size_t bytes, bool write, const char *site) {
  if (op.block)
    access(detector(), op.block->threads[0],
           reinterpret_cast<uintptr_t>(address), bytes, write ? kWrite : 0,
           site);
}

namespace {
/// A stream write or wait on the 32-bit flag at `address`: its thread and
/// the flag's synchronisation key, or null where the detector does not
/// follow the operation (no block) or the address (outside every heap).
Thread *streamOpFlag(Detector &d, StreamOp &op, const void *address,
                     uintptr_t &a, uint64_t &key) {
  if (!op.block)
    return nullptr;
  Thread &t = op.block->threads[0];
  a = reinterpret_cast<uintptr_t>(address);
  int owner;
  size_t offset;
  if (!locate(d, t, a, owner, offset))
    return nullptr;
  key = syncKey(d, owner, offset, a);
  return &t;
}
} // namespace

void symm::races::streamOpRelease(StreamOp &op, const void *address,
                                  const char *site) {
  Detector &d = detector();
  uintptr_t a;
  uint64_t key;
  Thread *t = streamOpFlag(d, op, address, a, key);
  if (!t)
    return;
  publish(d, key, t->block->id, System, releasable(*t));
  tick(d, *t);
  access(d, *t, a, sizeof(uint32_t), kAtomic | kWrite, site);
}

void symm::races::streamOpAcquire(StreamOp &op, const void *address,
                                  const char *site) {
  Detector &d = detector();
  uintptr_t a;
  uint64_t key;
  Thread *t = streamOpFlag(d, op, address, a, key);
  if (!t)
    return;
  access(d, *t, a, sizeof(uint32_t), kAtomic, site);
  absorb(d, *t, key, System, true);
}

symm_status symm::races::endStreamOp(StreamOp &op, void *stream) {
  if (op.block) {
    finishThread(op.block->threads[0]);
    finishBlock(*op.block);
  }
  return endLaunch(*op.launch, stream);
}

Block *symm::races::startBlock(Launch &l, Block *reuse,
                               const BlockStart &start) {
  const unsigned *bid = start.bid, *dims = start.dims;
  unsigned threads = start.threads;
  Detector &d = detector();
  if (!l.first)
    return nullptr;
  Block *b = reuse ? reuse : new Block;
  b->launch = &l;
  b->id = l.first + start.index;
  for (int i = 0; i < 3; ++i) {
    b->bid[i] = bid[i];
    b->dims[i] = dims[i];
  }
  BlockInfo &info = d.memory.blocks(d.rank)[b->id & (kBlocksPerRank - 1)];
  info.kernel = l.kernelName;
  for (int i = 0; i < 3; ++i) {
    info.bid[i] = bid[i];
    info.dims[i] = uint16_t(dims[i]);
  }
  b->threads.resize(threads);
  for (unsigned t = 0; t < threads; ++t) {
    Thread &th = b->threads[t];
    th.block = b;
    th.linear = uint16_t(t);
    th.clock = 0;
    th.arrived = 0;
    th.known = l.initial;
    th.pending.clear();
    th.fenced.reset();
    th.fencedScope = 0;
    th.seen.clear();
  }
  b->shared = start.shared;
  b->sharedBytes = start.sharedBytes;
  size_t cells = (start.sharedBytes + 7) / 8 * kCells;
  if (b->cells.size() < cells)
    b->cells.resize(cells);
  b->phase = 0;
  b->arriving = Knowledge();
  b->afterBarrier.reset();
  b->finished = Knowledge();
  return b;
}

Thread *symm::races::thread(Block &block, unsigned linear) {
  return &block.threads[linear];
}

void symm::races::finishThread(Thread &t) { t.block->finished.join(*t.known); }

void symm::races::finishBlock(Block &b) {
  Launch &l = *b.launch;
  std::lock_guard<std::mutex> lock(l.mutex);
  l.final.join(b.finished);
  b.finished = Knowledge();
}

void symm::races::destroyBlock(Block *b) { delete b; }

void symm::races::arriveAtBarrier(Thread &t) {
  Block &b = *t.block;
  t.arrived = b.phase;
  b.arriving.join(*t.known);
}

void symm::races::leaveBarrier(Thread &t) {
  Block &b = *t.block;
  if (b.phase == t.arrived) {
    // The first thread out publishes what the barrier made known: everything
    // its block did before it, and all that its threads knew.
    auto k = std::make_shared<Knowledge>(std::move(b.arriving));
    b.arriving = Knowledge();
    ++b.phase;
    k->addPhase(b.id, b.phase);
    k->prune();
    b.afterBarrier = k;
  }
  t.known = b.afterBarrier;
  if (b.phase > kMaxSub)
    detector().memory.exceeded("a block of kernel '" + b.launch->kernel +
                               "' passed more than " + std::to_string(kMaxSub) +
                               " barriers");
  t.clock = b.phase << kPhaseShift;
}

void symm::races::releaseAt(Thread &t, const void *address) {
  Detector &d = detector();
  publish(d, syncKey(d, -1, 0, reinterpret_cast<uintptr_t>(address)),
          t.block->id, Workgroup, releasable(t));
  tick(d, t);
}

void symm::races::acquireAt(Thread &t, const void *address) {
  Detector &d = detector();
  absorb(d, t, syncKey(d, -1, 0, reinterpret_cast<uintptr_t>(address)),
         Workgroup, true);
}

//===----------------------------------------------------------------------===//
// What checked kernels call (symm/abi.h)
//===----------------------------------------------------------------------===//

extern "C" {

SYMM_EXPORT void _symm_race_access(void *address, int64_t bytes, int32_t write,
                                   const char *site) {
  if (Thread *t = current())
    access(detector(), *t, reinterpret_cast<uintptr_t>(address), size_t(bytes),
           write ? kWrite : 0, site);
}

SYMM_EXPORT void _symm_race_masked(void *address, int64_t elementBytes,
                                   int64_t mask, int32_t write,
                                   const char *site) {
  Thread *t = current();
  if (!t)
    return;
  for (uint64_t m = uint64_t(mask); m; m &= m - 1)
    access(detector(), *t,
           reinterpret_cast<uintptr_t>(address) +
               uintptr_t(__builtin_ctzll(m)) * uintptr_t(elementBytes),
           size_t(elementBytes), write ? kWrite : 0, site);
}

SYMM_EXPORT void _symm_race_atomic_before(void *address, int32_t flags) {
  Thread *t = current();
  if (!t)
    return;
  Detector &d = detector();
  int owner;
  size_t offset;
  uintptr_t a = reinterpret_cast<uintptr_t>(address);
  if (!locate(d, *t, a, owner, offset))
    return;
  uint32_t scope = uint32_t(flags) >> SYMM_RACE_SCOPE_SHIFT;
  uint64_t key = syncKey(d, owner, offset, a);
  if (flags & SYMM_RACE_RELEASE) {
    publish(d, key, t->block->id, scope, releasable(*t));
    tick(d, *t);
  } else if (t->fenced) {
    publish(d, key, t->block->id, std::min(scope, t->fencedScope), *t->fenced);
  }
}

SYMM_EXPORT void _symm_race_atomic_after(void *address, int64_t bytes,
                                         int32_t flags, int32_t wrote,
                                         const char *site) {
  Thread *t = current();
  if (!t)
    return;
  Detector &d = detector();
  uintptr_t a = reinterpret_cast<uintptr_t>(address);
  access(d, *t, a, size_t(bytes), uint8_t(kAtomic | (wrote ? kWrite : 0)),
         site);
  int owner;
  size_t offset;
  if (!locate(d, *t, a, owner, offset))
    return;
  absorb(d, *t, syncKey(d, owner, offset, a),
         uint32_t(flags) >> SYMM_RACE_SCOPE_SHIFT,
         (flags & SYMM_RACE_ACQUIRE) != 0);
}

SYMM_EXPORT void _symm_race_fence(int32_t flags) {
  Thread *t = current();
  if (!t)
    return;
  uint32_t scope = uint32_t(flags) >> SYMM_RACE_SCOPE_SHIFT;
  if (flags & SYMM_RACE_ACQUIRE) {
    for (auto &[key, entries] : t->pending)
      for (const Tagged &e : entries)
        if (inScope(std::min(e.scope, scope), e.block, t->block->id))
          t->known = joined(t->known, e.known);
    t->pending.clear();
  }
  if (flags & SYMM_RACE_RELEASE) {
    t->fenced = std::make_shared<Knowledge>(releasable(*t));
    t->fencedScope = scope;
    tick(detector(), *t);
  }
}

} // extern "C"
