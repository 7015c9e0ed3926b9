//===- HostDevice.h - Running kernels on CPU fibers -------------*- C++ -*-===//
//
// The CPU target's execution model: a fixed pool of worker OS threads runs the
// blocks of every launch, at most `residentBlocks` of a launch at a time, each
// GPU thread a fiber pinned to its block's worker.
//
//===----------------------------------------------------------------------===//

#ifndef SYMM_RUNTIME_LIB_HOST_HOSTDEVICE_H
#define SYMM_RUNTIME_LIB_HOST_HOSTDEVICE_H

#include "symm/abi.h"
#include "symm/runtime.h"

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace symm {

namespace races {
struct Launch;
} // namespace races

struct LaunchShape {
  unsigned grid[3], block[3];
  unsigned dynamicShared;
};

/// One launch of a kernel.
struct HostLaunch {
  const char *name = nullptr;
  void (*entry)(void **) = nullptr;
  LaunchShape shape = {};
  void **params = nullptr;
  /// Where set, the threads' accesses are checked (Races.h).
  races::Launch *race = nullptr;
};

/// The execution model's settings, from SYMM_HOST_* environment variables.
struct HostConfig {
  /// Blocks of one launch that run at once; the rest wait for a free slot.
  unsigned residentBlocks = 132;
  /// Threads one block may have.
  unsigned maxBlockThreads = 1024;
  /// Dynamic workgroup memory one launch may ask for: what an H100 or H200
  /// gives a block (227 KiB), so that a launch that runs here fits there.
  unsigned maxDynamicShared = 227 * 1024;
  /// Worker OS threads; 0 is one per online CPU.
  unsigned workers = 0;
  /// How long every resident block of a launch that still has blocks to
  /// start must wait, with no rank making progress, before the launch is
  /// reported as needing more co-resident blocks.
  double deadlockSeconds = 10;

  /// Reads the environment; a bad value is an error naming the variable.
  symm_status readEnvironment();
};

class HostDevice {
public:
  explicit HostDevice(const HostConfig &config);
  ~HostDevice();

  /// Runs every block of a launch to completion (or until it is reported as
  /// deadlocked); called on a stream's worker thread.
  symm_status run(const HostLaunch &kernel);

  /// Marks the host thread as blocked on device work while alive: a rank
  /// whose host thread runs its own code may still release a waiting kernel.
  class Waiting {
  public:
    explicit Waiting(HostDevice &device);
    ~Waiting();

  private:
    HostDevice &device;
  };

  /// Registers the code of a kernel module (a dlopen handle), where a fiber
  /// that runs too long without switching may be preempted; and forgets it
  /// before the module is unloaded.
  static void addCode(void *library);
  static void removeCode(void *library);

  /// Every rank's progress counter (this rank's at `self`), in memory all
  /// ranks map; empty when there is none.
  void setProgressCounters(std::vector<std::atomic<uint64_t> *> counters,
                           int self);

  struct Impl;

private:
  std::unique_ptr<Impl> impl;
};

/// For runtime functions that kernels call: fails the calling GPU thread's
/// launch with "kernel '<name>' <what>" and leaves the thread for good.
[[noreturn]] void failCurrentLaunch(const std::string &what);
/// SYMM_HOST_DEADLOCK_SECONDS of the device running the calling GPU thread:
/// how long its waits may see no progress before they are reported.
double currentDeadlockSeconds();

constexpr size_t kHostStaticSharedBytes = SYMM_HOST_STATIC_SHARED_BYTES;
constexpr int kHostSubgroupSize = SYMM_HOST_SUBGROUP_SIZE;

} // namespace symm

#endif // SYMM_RUNTIME_LIB_HOST_HOSTDEVICE_H
