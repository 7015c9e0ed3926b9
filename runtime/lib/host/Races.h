//===- Races.h - The CPU target's race detector -----------------*- C++ -*-===//
//
// With SYMM_HOST_CHECK_RACES=1, kernels compiled with `symm-compile
// --check-races` report every access to heap and workgroup memory (and every
// atomic and fence) to this detector, which checks it against the accesses
// other threads made to the same bytes, on every rank, under happens-before:
// program order, workgroup barriers, the order of a stream's work, the host's
// synchronisations, symm_barrier, and release -> acquire through atomics and
// fences of a scope that includes both threads.
//
// Knowledge (what a thread has seen happen before) is a vector clock kept
// small for GPU-shaped programs: whole blocks (all of a finished launch's),
// blocks up to a barrier phase, and single threads up to a clock. Shadow
// memory keeps, for every 8 bytes of every heap, four recent accesses; it and
// what releases published live in memory every rank maps, so an access on one
// rank is checked against another rank's.
//
//===----------------------------------------------------------------------===//

#ifndef SYMM_RUNTIME_LIB_HOST_RACES_H
#define SYMM_RUNTIME_LIB_HOST_RACES_H

#include "symm/runtime.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace symm {
class Bootstrap;
} // namespace symm

namespace symm::races {

struct Thread;
struct Block;
struct Launch;

/// Whether SYMM_HOST_CHECK_RACES=1 (read once per process).
bool enabled();

/// Creates this rank's part of the detector's shared memory (the shadow of
/// its heap, its block table and, on rank 0, the shared tables) and maps
/// every rank's; `heaps[r]` is where rank r's heap of `heapBytes` is mapped.
/// Collective. Every rank must have the same setting; a rank whose setting
/// differs makes every rank fail with a message naming it.
symm_status attach(Bootstrap &bootstrap, const std::vector<char *> &heaps,
                   size_t heapBytes, bool mine);
void detach();

/// Whether the module loaded as `library` (a dlopen handle) was compiled
/// with race checks; an error naming `what` when checks are on and it was
/// not.
symm_status checkModule(void *library);

//===-- The host side: streams, events and barriers (HostBackend) ---------===//

struct LaunchDeleter {
  void operator()(Launch *launch) const;
};
using LaunchPtr = std::unique_ptr<Launch, LaunchDeleter>;

/// A launch about to run on `stream`: it knows what the host knows now and
/// what the stream's earlier work knew. Null when checks are off.
LaunchPtr startLaunch(void *stream, const char *kernel, unsigned blocks);
/// The launch is over: the stream's later work knows everything it did.
/// Fails, naming the kernel, when the launch found races or ran out of the
/// detector's memory.
symm_status endLaunch(Launch &launch, void *stream);
/// The host waited for `stream`'s work (or for all streams' work).
void hostWaited(void *stream);
void hostWaitedAll();
/// An event was reached on `stream` (run on the stream, in order).
void eventReached(void *event, void *stream);
/// The host waited for `event`; `stream` waited for `event`.
void hostWaitedEvent(void *event);
void streamWaitedEvent(void *stream, void *event);
/// symm_barrier: before the ranks meet (this rank's device work is done)
/// and after.
void barrier(bool passed);

/// A copy, set or stream memory operation the host backend runs on
/// `stream`: the detector sees it as a launch of one thread, named `what`,
/// ordered like a kernel on the stream. Null when checks are off.
struct StreamOp;
struct StreamOpDeleter {
  void operator()(StreamOp *op) const;
};
using StreamOpPtr = std::unique_ptr<StreamOp, StreamOpDeleter>;
StreamOpPtr startStreamOp(void *stream, const char *what);
/// The operation reads or writes `bytes` at `address` (plain accesses;
/// `site`, a string that outlives the program's checks, says what made
/// them).
void streamOpAccess(StreamOp &op, const void *address, size_t bytes, bool write,
                    const char *site);
/// An atomic store into the word at `address` with release semantics at
/// system scope (streamWriteValue); call it before the store.
void streamOpRelease(StreamOp &op, const void *address, const char *site);
/// An atomic load of the word at `address` with acquire semantics at system
/// scope (streamWaitValue); call it after the load.
void streamOpAcquire(StreamOp &op, const void *address, const char *site);
/// The operation is over: the stream's later work knows what it did. Fails
/// like endLaunch.
symm_status endStreamOp(StreamOp &op, void *stream);

//===-- The device side (HostDevice) --------------------------------------===//

/// A block that starts: block `index` of its launch, `bid` in the grid, with
/// `threads` threads in `dims` and `sharedBytes` of workgroup memory at
/// `shared`.
struct BlockStart {
  unsigned index = 0;
  const unsigned *bid = nullptr;  // Three dimensions.
  const unsigned *dims = nullptr; // Three dimensions.
  unsigned threads = 0;
  char *shared = nullptr;
  size_t sharedBytes = 0;
};
/// `reuse` is the state a previous block of this worker left (or null).
/// Returns the block's state.
Block *startBlock(Launch &launch, Block *reuse, const BlockStart &start);
Thread *thread(Block &block, unsigned linear);
/// A thread returned; its block finished (every thread returned or the
/// launch was abandoned).
void finishThread(Thread &thread);
void finishBlock(Block &block);
void destroyBlock(Block *block);
/// gpu.barrier: before waiting, and after the barrier released the thread.
void arriveAtBarrier(Thread &thread);
void leaveBarrier(Thread &thread);
/// Synchronisation the runtime itself implements for a block (mbarriers,
/// warpgroup barriers): a release or acquire at workgroup scope through
/// the word at `address`.
void releaseAt(Thread &thread, const void *address);
void acquireAt(Thread &thread, const void *address);

/// The calling GPU thread's state, or null outside a kernel or when checks
/// are off (Fibers.cpp).
Thread *current();

} // namespace symm::races

#endif // SYMM_RUNTIME_LIB_HOST_RACES_H
