//===- RuntimeState.h - The state behind the C API --------------*- C++ -*-===//
//
// The C API is implemented in four parts that share this state: Runtime.cpp
// (initialisation, collectives, streams), Heap.cpp (the symmetric heap),
// Modules.cpp (modules and launches) and Graphs.cpp (stream capture).
//
//===----------------------------------------------------------------------===//

#ifndef SYMM_RUNTIME_LIB_CORE_RUNTIMESTATE_H
#define SYMM_RUNTIME_LIB_CORE_RUNTIMESTATE_H

#include "Runtime.h"

#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace symm {

struct Allocation {
  size_t offset, bytes;
};

struct State {
  bool initialized = false;
  int rank = 0, size = 1, localRank = 0;
  double timeout = 60;
  std::unique_ptr<Backend> backend;
  std::unique_ptr<Bootstrap> bootstrap;
  std::vector<char *> bases;
  size_t heapBytes = 0;
  std::vector<Allocation> allocations; // live, sorted by offset
  uint64_t collectiveSeq = 0;
  bool checkCollectives = false; // SYMM_CHECK_COLLECTIVES
  bool earlyLaunch = true;       // SYMM_EARLY_LAUNCH
};

/// The runtime's state; never destroyed, since compiled programs use the
/// runtime from static destructors.
State &state();
/// Serialises the calls that change the state.
std::mutex &apiMutex();
/// An error unless symm_init has succeeded.
symm_status requireInit();

/// An error naming `call` while a capture begun by symm_stream_begin_capture
/// is open (on any thread), so that a call that may wait for the device
/// changes nothing.
symm_status requireNoCapture(const char *call);
/// Records that a capture of `stream`, if open, launches a kernel of
/// `module`; cheap when no capture is open.
void noteLaunch(symm_stream *stream, symm_module *module);
/// An error while a live graph launches kernels of `module`.
symm_status requireNoGraphUses(symm_module *module);
/// Ends and discards the capture of `stream`, if any, before it goes.
void discardCapture(symm_stream *stream);
/// Discards every open capture and destroys every graph (finalisation).
void discardGraphs();

/// The collective calls, as ranks compare them: the heap's, and a
/// collective of symm/collectives.h in checked mode (SYMM_CHECK_COLLECTIVES).
enum class Collective : uint64_t { Malloc = 1, Free, Barrier, Finalize, Check };
/// Every rank's collective call meets the others'. It fails on every rank when
/// a rank made another call (a barrier against a finalize, a malloc against a
/// free, an all-reduce against a broadcast: `call` for Check) or passed
/// another `value` (a size, an offset). `seq` receives the call's number.
symm_status collective(Collective kind, const char *what, uint64_t value,
                       CollectiveCall call = CollectiveCall::None,
                       uint64_t *seq = nullptr);

} // namespace symm

#endif // SYMM_RUNTIME_LIB_CORE_RUNTIMESTATE_H
