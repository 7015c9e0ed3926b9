//===- HostDeviceImpl.h - What the CPU target's device shares ---*- C++ -*-===//
//
// A GPU runs a launch's blocks on its multiprocessors, a limited number at a
// time, and switches between the warps of a resident block for free. Here a
// fixed pool of worker OS threads plays the multiprocessors: a worker claims
// blocks of a launch (at most `residentBlocks` of the launch at once, the rest
// start as blocks finish) and runs every thread of its blocks as a fiber, a
// user-level context on a stack of its own. Fibers switch only where a GPU
// thread waits: gpu.barrier, gpu.shuffle and the back-off of spin loops
// (symm.wait, symm.backoff). A block's fibers never leave its worker, so
// thread-locals stay valid across switches and a block's own state needs no
// locks. A fiber that runs kernel code for a whole monitor tick without
// switching (a computation, or a spin loop without back-off) is preempted by
// a signal, so the threads it may wait for get to run.
//
// A launch that needs more co-resident blocks than it gets would hang on a GPU
// too; a monitor thread reports it instead (see Impl::watch).
//
// The files, by concern: Fibers.cpp (context switches, a fiber's life),
// Stacks.cpp (fiber stacks), Signals.cpp (preemption, stack overflows),
// Scheduler.cpp (workers claim and run blocks), Monitor.cpp (deadlocks,
// stalls, preemption), Config.cpp (the environment), Builtins.cpp (what
// kernels call).
//
//===----------------------------------------------------------------------===//

#ifndef SYMM_RUNTIME_LIB_HOST_HOSTDEVICEIMPL_H
#define SYMM_RUNTIME_LIB_HOST_HOSTDEVICEIMPL_H

#include "HostDevice.h"

#include <chrono>
#include <condition_variable>
#include <csignal>
#include <mutex>
#include <thread>
#include <time.h>
#include <ucontext.h>

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#include <sanitizer/common_interface_defs.h>
#define SYMM_HOST_ASAN 1
#endif
#endif

namespace symm::races {
struct Block;
struct Thread;
} // namespace symm::races

namespace symm::host {

/// What a GPU thread's private memory and allocas may use, like the 512 KiB
/// the CPU target always gave a thread.
constexpr size_t kFiberStackBytes = 512 * 1024;

//===----------------------------------------------------------------------===//
// Context switching (Fibers.cpp)
//===----------------------------------------------------------------------===//

#if defined(__x86_64__)
// Saves the callee-saved registers on the current stack, stores the stack
// pointer in *save and resumes the context whose stack pointer is `next`: a
// few nanoseconds, where swapcontext makes a system call for the signal mask
// on every switch. The floating-point control state (MXCSR, x87 control word)
// is not switched: a worker's fibers share it, as kernels never change it.
extern "C" void symmHostSwitch(void **save, void *next);

struct Registers {
  void *sp = nullptr;
};

inline void switchRegisters(Registers &from, Registers &to) {
  symmHostSwitch(&from.sp, to.sp);
}
#else
struct Registers {
  ucontext_t uc;
};

inline void switchRegisters(Registers &from, Registers &to) {
  swapcontext(&from.uc, &to.uc);
}
#endif

/// A fiber's or a worker's context and the stack it runs on. Built with
/// AddressSanitizer, every switch between stacks is announced: ASan otherwise
/// takes a fiber's frames for a thread's stack gone astray ("ASan is ignoring
/// requested __asan_handle_no_return") and may report false errors.
struct Context {
  Registers registers;
  char *stackBottom = nullptr;
  size_t stackSize = 0;
};

/// Whether the context a switch leaves runs again. ASan keeps the fake stack
/// of one that does (its frames for finding stack-use-after-return) and frees
/// the fake stack of one that does not: a fiber that returned or failed.
enum class Leaving { ToResume, ForGood };

inline void switchContext(Context &from, Context &to,
                          Leaving leaving = Leaving::ToResume) {
#if SYMM_HOST_ASAN
  void *fakeStack = nullptr;
  __sanitizer_start_switch_fiber(leaving == Leaving::ToResume ? &fakeStack
                                                              : nullptr,
                                 to.stackBottom, to.stackSize);
#else
  (void)leaving;
#endif
  switchRegisters(from.registers, to.registers);
#if SYMM_HOST_ASAN
  __sanitizer_finish_switch_fiber(fakeStack, nullptr, nullptr);
#endif
}

/// A context that starts `start` on the stack below `top` (16-byte aligned);
/// `start` begins with enterContext().
void makeContext(Context &context, char *top, void (*start)());
/// The first code a new context runs: the switch to it is complete.
void enterContext();
/// The context of the calling thread, on the thread's own stack.
void setThreadStack(Context &context);

//===----------------------------------------------------------------------===//
// Stacks (Stacks.cpp)
//===----------------------------------------------------------------------===//

/// Fiber stacks are mapped once and reused by every later launch. Each has an
/// inaccessible guard page below it, so an overflow faults instead of writing
/// into its neighbour, while the kernel's limit on mappings allows it: each
/// guarded stack costs two of vm.max_map_count's mappings.
class Stacks {
public:
  Stacks();
  /// Every stack is free again once the workers are gone.
  ~Stacks();

  /// Appends the tops of `count` stacks to `tops`; false when no memory is
  /// left.
  bool take(size_t count, std::vector<char *> &tops);
  void give(std::vector<char *> &tops);

private:
  std::mutex mutex;
  std::vector<char *> free;
  std::vector<std::pair<void *, size_t>> mappings;
  size_t page, guarded = 0, guardBudget;
};

//===----------------------------------------------------------------------===//
// Launches, blocks, fibers and workers
//===----------------------------------------------------------------------===//

enum class FiberState : uint8_t { Ready, AtBarrier, AtShuffle, Done };

struct Block;

struct Fiber {
  Context context;
  FiberState state;
  unsigned tid[3];
  int linear;
  /// The slot buffer of the shuffle this fiber waits in.
  int shuffleParity;
  Block *block;
  /// Where this fiber last backed off: a new place is progress.
  const void *backoffSite;
  /// The race detector's state of the thread; null when not checked.
  races::Thread *race;
};

struct Launch : HostLaunch {
  unsigned blocks, threads;
  /// Blocks one worker holds at once: the resident blocks spread evenly.
  unsigned perWorker;
  // Guarded by Impl::mutex.
  unsigned next = 0, resident = 0;
  bool failed = false;
  std::string error;
  std::condition_variable finished;
  /// Read by workers without the lock.
  std::atomic<bool> abandoned{false};
};

struct Subgroup {
  int live, arrived, parity;
};

/// A resident block: its fibers, workgroup memory and synchronisation state,
/// touched only by the worker that runs it. Kept for the worker's next
/// block; its stacks return to the pool, for blocks of any size.
struct Block {
  Launch *launch;
  unsigned bid[3];
  std::vector<Fiber> fibers;
  std::vector<char *> stacks;
  std::vector<char> shared;
  /// Two buffers of one value per thread: a shuffle writes one while lanes
  /// that have not yet resumed from the previous one still read the other.
  std::vector<int64_t> slots;
  std::vector<Subgroup> subgroups;
  int live, atBarrier;
  /// The race detector's state, kept for the worker's next block; `checked`
  /// while it belongs to this one.
  races::Block *race = nullptr;
  bool checked = false;
};

struct Worker {
  HostDevice::Impl *device;
  Context context;
  Fiber *current = nullptr;
  std::vector<Block *> blocks, spare;
  std::thread thread;
  /// Where the SIGSEGV handler runs when a fiber's stack is exhausted.
  std::unique_ptr<char[]> signalStack;
  // Written by this worker only; read by the monitor.
  std::atomic<uint64_t> progress{0}, switches{0}, preemptions{0};
  std::atomic<bool> inFiber{false};
  // The monitor's previous reading.
  uint64_t seenProgress = 0, seenSwitches = 0, seenPreemptions = 0;
  /// The worker thread's CPU time, and what the monitor last read of it.
  clockid_t cpuClock;
  int64_t seenCpuNs = 0;
};

/// The worker the calling thread is, or null. Initial-exec: every runtime
/// call of a kernel reads it, and a general-dynamic access is a call of its
/// own; __thread, as a thread_local defined in another file is read through
/// a wrapper call.
extern __thread Worker *thisWorker __attribute__((tls_model("initial-exec")));

inline void bump(std::atomic<uint64_t> &counter) {
  counter.store(counter.load(std::memory_order_relaxed) + 1,
                std::memory_order_relaxed);
}

/// Ends the process: a device function was called outside a kernel.
[[noreturn]] void notInKernel();

/// The calling GPU thread.
inline Fiber &self() {
  if (!thisWorker || !thisWorker->current)
    notInKernel();
  return *thisWorker->current;
}

//===----------------------------------------------------------------------===//
// A fiber's life (Fibers.cpp)
//===----------------------------------------------------------------------===//

/// What every fiber runs: the launch's entry, then it returns for good.
void fiberMain();
/// Leaves `fiber`, whose state says why, for the next ready fiber of its
/// block or, after the last, for its worker; returns when resumed.
void suspend(Fiber &fiber, Leaving leaving = Leaving::ToResume);
void releaseBarrier(Block &block);
void releaseShuffle(Block &block, int subgroup);
/// Fails the launch of `fiber` with "kernel 'K' <what>" and leaves the fiber
/// for good; its worker then drops the launch's blocks and the launch's
/// stream reports the error. Exiting here instead would run the program's
/// exit handlers, which wait for this very launch.
[[noreturn]] void failLaunch(Fiber &fiber, const std::string &what);

//===----------------------------------------------------------------------===//
// Signals (Signals.cpp)
//===----------------------------------------------------------------------===//

/// Installs the handlers of preemption (saving the previous action in
/// `previousPreempt`) and of stack overflows for the device's lifetime.
void installSignalHandlers(struct sigaction &previousPreempt);
void restoreSignalHandlers(const struct sigaction &previousPreempt);
/// Gives the calling worker thread the stack its SIGSEGV handler runs on.
void setSignalStack(Worker &worker);
/// Switches the worker's fiber out if it runs kernel code.
void preempt(Worker &worker);

} // namespace symm::host

namespace symm {

//===----------------------------------------------------------------------===//
// The device (Scheduler.cpp, Monitor.cpp)
//===----------------------------------------------------------------------===//

struct HostDevice::Impl {
  explicit Impl(const HostConfig &config);
  ~Impl();
  symm_status run(const HostLaunch &kernel);

  void work(host::Worker &worker);
  bool claim(host::Worker &worker, host::Launch *&launch, unsigned &index);
  host::Block *start(host::Worker &worker, host::Launch &launch,
                     unsigned index);
  void runBlock(host::Worker &worker, host::Block &block);
  void retire(host::Worker &worker, host::Block *block);
  void abandon(host::Launch &launch, std::string error);
  void watch();
  using Clock = std::chrono::steady_clock;
  void endStalledWaits(bool stalled, Clock::time_point now,
                       std::unique_lock<std::mutex> &lock);
  std::string whyStalled(const std::vector<int> &gone,
                         Clock::time_point now) const;

  HostConfig config;
  host::Stacks stacks;
  std::vector<std::unique_ptr<host::Worker>> workers;
  std::thread monitor;

  std::mutex mutex;
  std::condition_variable wake, monitorWake;
  std::vector<host::Launch *> active;
  /// Active launches with blocks not yet claimed, readable without the lock.
  std::atomic<int> claimable{0};
  bool stopping = false;

  std::atomic<int> hostWaiting{0};
  struct sigaction previousAction;
  // Guarded by `mutex`.
  std::vector<std::atomic<uint64_t> *> counters;
  std::vector<uint64_t> seenCounters;
  /// When the monitor last saw each rank's counter move.
  std::vector<Clock::time_point> counterMoved;
  int self = -1;
  /// Since when this rank has been stalled, whatever the others do.
  bool selfStalled = false;
  Clock::time_point selfStalledSince;
};

} // namespace symm

#endif // SYMM_RUNTIME_LIB_HOST_HOSTDEVICEIMPL_H
