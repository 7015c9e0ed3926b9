//===- HostDevice.cpp - Running kernels on CPU fibers -----------*- C++ -*-===//
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
//===----------------------------------------------------------------------===//

#include "HostDevice.h"
#include "../core/Runtime.h"
#include "Races.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <dlfcn.h>
#include <link.h>
#include <mutex>
#include <sched.h>
#include <string>
#include <sys/mman.h>
#include <thread>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#include <pthread.h>
#include <sanitizer/common_interface_defs.h>
#define SYMM_HOST_ASAN 1
#endif
#endif

using namespace symm;

namespace {

/// What a GPU thread's private memory and allocas may use, like the 512 KiB
/// the CPU target always gave a thread.
constexpr size_t kFiberStackBytes = 512 * 1024;

//===----------------------------------------------------------------------===//
// Context switching
//===----------------------------------------------------------------------===//

#if defined(__x86_64__)
// Saves the callee-saved registers on the current stack, stores the stack
// pointer in *save and resumes the context whose stack pointer is `next`: a
// few nanoseconds, where swapcontext makes a system call for the signal mask
// on every switch. The floating-point control state (MXCSR, x87 control word)
// is not switched: a worker's fibers share it, as kernels never change it.
extern "C" void symmHostSwitch(void **save, void *next);
asm(R"(
  .pushsection .text
  .p2align 4
  .globl symmHostSwitch
  .hidden symmHostSwitch
  .type symmHostSwitch,@function
symmHostSwitch:
  pushq %rbp
  pushq %rbx
  pushq %r12
  pushq %r13
  pushq %r14
  pushq %r15
  movq %rsp, (%rdi)
  movq %rsi, %rsp
  popq %r15
  popq %r14
  popq %r13
  popq %r12
  popq %rbx
  popq %rbp
  ret
  .size symmHostSwitch, .-symmHostSwitch
  .popsection
)");

struct Registers {
  void *sp = nullptr;
};

void switchRegisters(Registers &from, Registers &to) {
  symmHostSwitch(&from.sp, to.sp);
}

/// Registers that start `start` on the stack below `top` (16-byte aligned).
void makeRegisters(Registers &context, char *top, void (*start)()) {
  // Popped by symmHostSwitch: six registers, then the return address;
  // `start` begins with the stack pointer 8 bytes off 16-byte alignment, as
  // after a call.
  auto *sp = reinterpret_cast<uint64_t *>(top) - 8;
  for (int i = 0; i < 6; ++i)
    sp[i] = 0;
  sp[6] = reinterpret_cast<uint64_t>(start);
  sp[7] = 0;
  context.sp = sp;
}
#else
struct Registers {
  ucontext_t uc;
};

void switchRegisters(Registers &from, Registers &to) {
  swapcontext(&from.uc, &to.uc);
}

void makeRegisters(Registers &context, char *top, void (*start)()) {
  getcontext(&context.uc);
  context.uc.uc_stack.ss_sp = top - kFiberStackBytes;
  context.uc.uc_stack.ss_size = kFiberStackBytes;
  context.uc.uc_link = nullptr;
  makecontext(&context.uc, start, 0);
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

void switchContext(Context &from, Context &to,
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

/// The first code a new context runs: the switch to it is complete.
void enterContext() {
#if SYMM_HOST_ASAN
  __sanitizer_finish_switch_fiber(nullptr, nullptr, nullptr);
#endif
}

/// A context that starts `start` on the stack below `top` (16-byte aligned);
/// `start` begins with enterContext().
void makeContext(Context &context, char *top, void (*start)()) {
  makeRegisters(context.registers, top, start);
  context.stackBottom = top - kFiberStackBytes;
  context.stackSize = kFiberStackBytes;
}

/// The context of the calling thread, on the thread's own stack.
void setThreadStack(Context &context) {
#if SYMM_HOST_ASAN
  pthread_attr_t attributes;
  if (pthread_getattr_np(pthread_self(), &attributes) != 0)
    return;
  void *bottom = nullptr;
  pthread_attr_getstack(&attributes, &bottom, &context.stackSize);
  context.stackBottom = static_cast<char *>(bottom);
  pthread_attr_destroy(&attributes);
#else
  (void)context;
#endif
}

//===----------------------------------------------------------------------===//
// Stacks
//===----------------------------------------------------------------------===//

/// Fiber stacks are mapped once and reused by every later launch. Each has an
/// inaccessible guard page below it, so an overflow faults instead of writing
/// into its neighbour, while the kernel's limit on mappings allows it: each
/// guarded stack costs two of vm.max_map_count's mappings.
class Stacks {
public:
  Stacks() {
    page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    long maps = 65530;
    if (FILE *f = fopen("/proc/sys/vm/max_map_count", "r")) {
      if (fscanf(f, "%ld", &maps) != 1)
        maps = 65530;
      fclose(f);
    }
    // Leave room for everything else the process maps.
    guardBudget = maps > 16384 ? static_cast<size_t>(maps - 16384) / 2 : 0;
  }

  /// Appends the tops of `count` stacks to `tops`; false when no memory is
  /// left.
  bool take(size_t count, std::vector<char *> &tops) {
    std::lock_guard<std::mutex> lock(mutex);
    for (; count && !free.empty(); --count) {
      tops.push_back(free.back());
      free.pop_back();
    }
    for (; count; --count) {
      bool guard = guarded < guardBudget;
      size_t bytes = kFiberStackBytes + (guard ? page : 0);
      void *base =
          mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
               MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
      if (base == MAP_FAILED)
        return false;
      if (guard) {
        mprotect(base, page, PROT_NONE);
        ++guarded;
      }
      mappings.push_back({base, bytes});
      tops.push_back(static_cast<char *>(base) + bytes);
    }
    return true;
  }

  void give(std::vector<char *> &tops) {
    std::lock_guard<std::mutex> lock(mutex);
    free.insert(free.end(), tops.begin(), tops.end());
    tops.clear();
  }

  /// Every stack is free again once the workers are gone.
  ~Stacks() {
    for (auto [base, bytes] : mappings)
      munmap(base, bytes);
  }

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

struct Launch {
  const char *name;
  void (*entry)(void **);
  LaunchShape shape;
  void **params;
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
  races::Launch *race;
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

// Initial-exec: every runtime call of a kernel reads it, and a general-dynamic
// access is a call of its own.
__attribute__((tls_model("initial-exec"))) thread_local Worker *thisWorker =
    nullptr;

void bump(std::atomic<uint64_t> &counter) {
  counter.store(counter.load(std::memory_order_relaxed) + 1,
                std::memory_order_relaxed);
}

Fiber &self() {
  if (!thisWorker || !thisWorker->current) {
    fprintf(stderr,
            "symm: rank %d: a CPU-target device function was called "
            "outside a kernel launch\n",
            currentRank());
    exit(1);
  }
  return *thisWorker->current;
}

//===----------------------------------------------------------------------===//
// Preemption
//===----------------------------------------------------------------------===//

/// The code of loaded kernel modules. A fiber is preempted only while it runs
/// kernel code: there it holds no lock of the runtime or the C library.
struct CodeRange {
  std::atomic<uintptr_t> begin{0}, end{0};
  void *library = nullptr; // Guarded by codeMutex.
};
constexpr int kMaxModules = 256;
CodeRange codeRanges[kMaxModules];
std::mutex codeMutex;

bool inKernelCode(uintptr_t pc) {
  for (CodeRange &r : codeRanges)
    if (pc >= r.begin.load(std::memory_order_acquire) &&
        pc < r.end.load(std::memory_order_acquire))
      return true;
  return false;
}

/// Sent by the monitor to a worker whose fiber has run for a whole tick.
constexpr int kPreemptSignal = SIGURG;

uintptr_t interruptedPc(void *context) {
  auto *uc = static_cast<ucontext_t *>(context);
#if defined(__x86_64__)
  return static_cast<uintptr_t>(uc->uc_mcontext.gregs[REG_RIP]);
#elif defined(__aarch64__)
  return static_cast<uintptr_t>(uc->uc_mcontext.pc);
#else
  (void)uc;
  return 0;
#endif
}

void suspend(Fiber &fiber, Leaving leaving = Leaving::ToResume);

/// Switches away from the interrupted fiber, which stays ready; it resumes by
/// returning from this handler. SA_NODEFER keeps the signal deliverable to
/// the fibers that run meanwhile.
void preempt(int, siginfo_t *, void *context) {
  Worker *worker = thisWorker;
  if (!worker || !worker->current || !inKernelCode(interruptedPc(context)))
    return;
  int saved = errno;
  bump(worker->preemptions);
  suspend(*worker->current);
  errno = saved;
}

//===----------------------------------------------------------------------===//
// Stack overflows
//===----------------------------------------------------------------------===//

constexpr size_t kSignalStackBytes = 64 * 1024;
struct sigaction previousSegvAction;

/// A fault in the guard page below the running fiber's stack is a stack
/// overflow: say whose, then let the fault end the process as any crash.
/// Other faults go to the handler that was there before.
void segv(int signal, siginfo_t *info, void *) {
  Worker *worker = thisWorker;
  if (worker && worker->current) {
    Fiber &f = *worker->current;
    char *bottom = f.block->stacks[f.linear] - kFiberStackBytes;
    auto *at = static_cast<char *>(info->si_addr);
    if (at < bottom && at >= bottom - sysconf(_SC_PAGESIZE)) {
      const Launch &l = *f.block->launch;
      char message[512];
      int n = snprintf(message, sizeof(message),
                       "symm: rank %d: thread (%u, %u, %u) of block (%u, %u, "
                       "%u) of kernel '%s' overflowed its %zu KiB stack\n",
                       currentRank(), f.tid[0], f.tid[1], f.tid[2],
                       f.block->bid[0], f.block->bid[1], f.block->bid[2],
                       l.name, kFiberStackBytes / 1024);
      ssize_t written =
          write(STDERR_FILENO, message, std::min<size_t>(n, sizeof(message)));
      (void)written;
      ::signal(SIGSEGV, SIG_DFL);
      return;
    }
  }
  sigaction(SIGSEGV, &previousSegvAction, nullptr);
  // A fault happens again when the instruction is retried; a SIGSEGV sent by
  // kill() or raise() (si_code <= 0) would be lost, so send it once more: it
  // is delivered with the previous action when this handler returns.
  if (info->si_code <= 0)
    raise(signal);
}

/// Leaves `fiber`, whose state says why, for the next ready fiber of its
/// block or, after the last, for its worker; returns when resumed.
void suspend(Fiber &fiber, Leaving leaving) {
  Worker &worker = *thisWorker;
  std::vector<Fiber> &fibers = fiber.block->fibers;
  for (size_t i = fiber.linear + 1; i < fibers.size(); ++i) {
    if (fibers[i].state == FiberState::Ready) {
      worker.current = &fibers[i];
      bump(worker.switches);
      switchContext(fiber.context, fibers[i].context, leaving);
      return;
    }
  }
  worker.current = nullptr;
  switchContext(fiber.context, worker.context, leaving);
}

void releaseBarrier(Block &block) {
  block.atBarrier = 0;
  for (Fiber &f : block.fibers)
    if (f.state == FiberState::AtBarrier)
      f.state = FiberState::Ready;
}

void releaseShuffle(Block &block, int subgroup) {
  Subgroup &s = block.subgroups[subgroup];
  s.arrived = 0;
  s.parity ^= 1;
  size_t first = size_t(subgroup) * kHostSubgroupSize;
  size_t last = std::min(first + kHostSubgroupSize, block.fibers.size());
  for (size_t i = first; i < last; ++i)
    if (block.fibers[i].state == FiberState::AtShuffle)
      block.fibers[i].state = FiberState::Ready;
}

/// A thread that returned no longer counts at barriers and shuffles.
[[noreturn]] void finish(Fiber &fiber) {
  Block &block = *fiber.block;
  if (fiber.race)
    races::finishThread(*fiber.race);
  fiber.state = FiberState::Done;
  bump(thisWorker->progress);
  --block.live;
  if (block.atBarrier && block.atBarrier == block.live)
    releaseBarrier(block);
  int subgroup = fiber.linear / kHostSubgroupSize;
  Subgroup &s = block.subgroups[subgroup];
  --s.live;
  if (s.arrived && s.arrived == s.live)
    releaseShuffle(block, subgroup);
  suspend(fiber, Leaving::ForGood);
  __builtin_unreachable();
}

void fiberMain() {
  enterContext();
  Fiber &fiber = *thisWorker->current;
  Launch &launch = *fiber.block->launch;
  launch.entry(launch.params);
  finish(fiber);
}

double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
      .count();
}

} // namespace

//===----------------------------------------------------------------------===//
// The device
//===----------------------------------------------------------------------===//

struct HostDevice::Impl {
  explicit Impl(const HostConfig &config);
  ~Impl();
  symm_status run(const char *name, void (*entry)(void **),
                  const LaunchShape &shape, void **params, races::Launch *race);

  void work(Worker &worker);
  bool claim(Worker &worker, Launch *&launch, unsigned &index);
  Block *start(Worker &worker, Launch &launch, unsigned index);
  void runBlock(Worker &worker, Block &block);
  void retire(Worker &worker, Block *block);
  void abandon(Launch &launch, std::string error);
  void watch();
  using Clock = std::chrono::steady_clock;
  void endStalledWaits(bool stalled, Clock::time_point now,
                       std::unique_lock<std::mutex> &lock);
  std::string whyStalled(const std::vector<int> &gone) const;

  HostConfig config;
  Stacks stacks;
  std::vector<std::unique_ptr<Worker>> workers;
  std::thread monitor;

  std::mutex mutex;
  std::condition_variable wake, monitorWake;
  std::vector<Launch *> active;
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

HostDevice::Impl::Impl(const HostConfig &config) : config(config) {
  struct sigaction action = {};
  action.sa_sigaction = preempt;
  action.sa_flags = SA_SIGINFO | SA_NODEFER | SA_RESTART;
  sigemptyset(&action.sa_mask);
  sigaction(kPreemptSignal, &action, &previousAction);
  struct sigaction overflow = {};
  overflow.sa_sigaction = segv;
  overflow.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigemptyset(&overflow.sa_mask);
  sigaction(SIGSEGV, &overflow, &previousSegvAction);
  unsigned count = config.workers;
  if (!count)
    count = std::max(1u, std::thread::hardware_concurrency());
  for (unsigned i = 0; i < count; ++i) {
    workers.push_back(std::make_unique<Worker>());
    workers.back()->device = this;
  }
  for (auto &w : workers)
    w->thread = std::thread([this, w = w.get()] { work(*w); });
  for (auto &w : workers)
    if (pthread_getcpuclockid(w->thread.native_handle(), &w->cpuClock))
      w->cpuClock = CLOCK_MONOTONIC;
  monitor = std::thread([this] { watch(); });
}

HostDevice::Impl::~Impl() {
  {
    std::lock_guard<std::mutex> lock(mutex);
    stopping = true;
  }
  wake.notify_all();
  monitorWake.notify_all();
  // The monitor signals workers: it stops first.
  monitor.join();
  for (auto &w : workers) {
    w->thread.join();
    for (Block *b : w->spare) {
      races::destroyBlock(b->race);
      delete b;
    }
  }
  sigaction(kPreemptSignal, &previousAction, nullptr);
  sigaction(SIGSEGV, &previousSegvAction, nullptr);
}

/// Takes the next block of an active launch if this worker has room for it.
bool HostDevice::Impl::claim(Worker &worker, Launch *&launch, unsigned &index) {
  for (Launch *l : active) {
    if (l->next == l->blocks || l->resident == config.residentBlocks)
      continue;
    unsigned mine = 0;
    for (Block *b : worker.blocks)
      mine += b->launch == l;
    if (mine >= l->perWorker)
      continue;
    launch = l;
    index = l->next++;
    ++l->resident;
    if (l->next == l->blocks)
      claimable.fetch_sub(1);
    return true;
  }
  return false;
}

Block *HostDevice::Impl::start(Worker &worker, Launch &launch, unsigned index) {
  Block *block;
  if (worker.spare.empty()) {
    block = new Block;
  } else {
    block = worker.spare.back();
    worker.spare.pop_back();
  }
  const LaunchShape &shape = launch.shape;
  unsigned threads = launch.threads;
  if (!stacks.take(threads, block->stacks)) {
    stacks.give(block->stacks);
    worker.spare.push_back(block);
    return nullptr;
  }
  block->launch = &launch;
  block->bid[0] = index % shape.grid[0];
  block->bid[1] = (index / shape.grid[0]) % shape.grid[1];
  block->bid[2] = index / (shape.grid[0] * shape.grid[1]);
  block->fibers.resize(threads);
  for (unsigned t = 0; t < threads; ++t) {
    Fiber &f = block->fibers[t];
    f.state = FiberState::Ready;
    f.tid[0] = t % shape.block[0];
    f.tid[1] = (t / shape.block[0]) % shape.block[1];
    f.tid[2] = t / (shape.block[0] * shape.block[1]);
    f.linear = static_cast<int>(t);
    f.shuffleParity = 0;
    f.block = block;
    f.backoffSite = nullptr;
    // Stacks are a multiple of the page size apart: without an offset, the
    // tops of all of a block's stacks would compete for the same cache sets.
    size_t color = (t % 32) * 128;
    makeContext(f.context, block->stacks[t] - color, fiberMain);
  }
  block->shared.assign(kHostStaticSharedBytes + shape.dynamicShared, 0);
  block->slots.resize(2 * size_t(threads));
  block->subgroups.clear();
  for (unsigned first = 0; first < threads; first += kHostSubgroupSize)
    block->subgroups.push_back({static_cast<int>(std::min<unsigned>(
                                    kHostSubgroupSize, threads - first)),
                                0, 0});
  block->live = static_cast<int>(threads);
  block->atBarrier = 0;
  block->checked = false;
  if (launch.race) {
    if (races::Block *race = races::startBlock(
            *launch.race, block->race, index, block->bid, shape.block, threads,
            block->shared.data(), block->shared.size())) {
      block->race = race;
      block->checked = true;
    }
  }
  for (unsigned t = 0; t < threads; ++t)
    block->fibers[t].race =
        block->checked ? races::thread(*block->race, t) : nullptr;
  bump(worker.progress);
  return block;
}

/// Runs the block's ready fibers once each, in order, until each waits,
/// backs off or returns.
void HostDevice::Impl::runBlock(Worker &worker, Block &block) {
  for (Fiber &f : block.fibers) {
    if (f.state != FiberState::Ready)
      continue;
    worker.current = &f;
    bump(worker.switches);
    worker.inFiber.store(true, std::memory_order_relaxed);
    switchContext(worker.context, f.context);
    worker.inFiber.store(false, std::memory_order_relaxed);
    return;
  }
}

void HostDevice::Impl::retire(Worker &worker, Block *block) {
  Launch &launch = *block->launch;
  if (block->checked)
    races::finishBlock(*block->race);
  stacks.give(block->stacks);
  worker.spare.push_back(block);
  std::lock_guard<std::mutex> lock(mutex);
  if (--launch.resident == 0 && launch.next == launch.blocks)
    launch.finished.notify_all();
}

void HostDevice::Impl::work(Worker &worker) {
  thisWorker = &worker;
  setThreadStack(worker.context);
  worker.signalStack.reset(new char[kSignalStackBytes]);
  stack_t signalStack = {};
  signalStack.ss_sp = worker.signalStack.get();
  signalStack.ss_size = kSignalStackBytes;
  sigaltstack(&signalStack, nullptr);
  while (true) {
    if (worker.blocks.empty() || claimable.load(std::memory_order_relaxed)) {
      std::unique_lock<std::mutex> lock(mutex);
      Launch *launch;
      unsigned index;
      while (true) {
        if (!claim(worker, launch, index)) {
          if (!worker.blocks.empty())
            break;
          if (stopping)
            return;
          wake.wait(lock);
          continue;
        }
        lock.unlock();
        Block *block = start(worker, *launch, index);
        lock.lock();
        if (!block) {
          --launch->resident;
          lock.unlock();
          abandon(*launch, "kernel '" + std::string(launch->name) +
                               "': cannot map a stack for a thread of block " +
                               std::to_string(index) +
                               "; lower SYMM_HOST_RESIDENT_BLOCKS");
          lock.lock();
          continue;
        }
        worker.blocks.push_back(block);
      }
    }

    uint64_t before = worker.progress.load(std::memory_order_relaxed);
    for (size_t i = 0; i < worker.blocks.size();) {
      Block *block = worker.blocks[i];
      bool abandoned = block->launch->abandoned.load(std::memory_order_relaxed);
      if (!abandoned)
        runBlock(worker, *block);
      if (abandoned || block->live == 0) {
        worker.blocks[i] = worker.blocks.back();
        worker.blocks.pop_back();
        retire(worker, block);
        continue;
      }
      ++i;
    }
    // Every fiber only backed off: give the core to the workers and ranks
    // they may wait for, on a machine with fewer cores than threads. No
    // sleep: the runtime cannot see the memory a fiber waits on, so a sleep
    // would delay every flag that arrives (a ping-pong across ranks would
    // pay it on every message).
    if (worker.progress.load(std::memory_order_relaxed) == before)
      sched_yield();
  }
}

void HostDevice::Impl::abandon(Launch &launch, std::string error) {
  std::lock_guard<std::mutex> lock(mutex);
  if (launch.failed)
    return;
  launch.failed = true;
  launch.error = std::move(error);
  if (launch.next != launch.blocks) {
    launch.next = launch.blocks;
    claimable.fetch_sub(1);
  }
  launch.abandoned.store(true);
  if (launch.resident == 0)
    launch.finished.notify_all();
}

symm_status HostDevice::Impl::run(const char *name, void (*entry)(void **),
                                  const LaunchShape &shape, void **params,
                                  races::Launch *race) {
  Launch launch;
  launch.race = race;
  launch.name = name;
  launch.entry = entry;
  launch.shape = shape;
  launch.params = params;
  launch.blocks = shape.grid[0] * shape.grid[1] * shape.grid[2];
  launch.threads = shape.block[0] * shape.block[1] * shape.block[2];
  if (!launch.blocks || !launch.threads)
    return SYMM_SUCCESS;
  unsigned resident = std::min(launch.blocks, config.residentBlocks);
  unsigned count = static_cast<unsigned>(workers.size());
  launch.perWorker = (resident + count - 1) / count;
  std::unique_lock<std::mutex> lock(mutex);
  active.push_back(&launch);
  claimable.fetch_add(1);
  // A one-block launch (the common small kernel) needs one worker awake.
  if (launch.blocks == 1)
    wake.notify_one();
  else
    wake.notify_all();
  launch.finished.wait(lock, [&] {
    return launch.resident == 0 && launch.next == launch.blocks;
  });
  active.erase(std::find(active.begin(), active.end(), &launch));
  if (launch.failed)
    return fail(SYMM_ERROR_INVALID_ARGUMENT, "%s", launch.error.c_str());
  return SYMM_SUCCESS;
}

/// The deadlock monitor, and the preemption of fibers that do not switch. A
/// rank is stalled when its host thread waits for device work and, for a
/// whole tick, no worker made progress (started or finished a block, passed a
/// barrier or shuffle, backed off somewhere new), none ran one fiber for the
/// whole tick (a fiber that computes, which is preempted) and none was
/// preempted. Every rank publishes a counter that it advances on each tick it
/// is not stalled. When this rank and every other rank have been stalled for
/// `deadlockSeconds`, nothing can change the memory its fibers wait on: a
/// launch with blocks that never started needs more co-resident blocks than
/// it got, and fails. A rank that runs host code, computes, or waits
/// elsewhere (a bootstrap barrier) keeps every other rank from reporting.
void HostDevice::Impl::watch() {
  using Clock = std::chrono::steady_clock;
  const auto tick = std::chrono::milliseconds(20);
  std::unique_lock<std::mutex> lock(mutex);
  bool stalled = false;
  Clock::time_point since;
  while (!stopping) {
    monitorWake.wait_for(lock, tick);
    if (stopping)
      break;
    bool quiet = !active.empty() && hostWaiting.load() > 0;
    for (auto &w : workers) {
      uint64_t progress = w->progress.load(std::memory_order_relaxed);
      uint64_t switches = w->switches.load(std::memory_order_relaxed);
      uint64_t preemptions = w->preemptions.load(std::memory_order_relaxed);
      timespec cpu;
      clock_gettime(w->cpuClock, &cpu);
      int64_t cpuNs = cpu.tv_sec * 1000000000LL + cpu.tv_nsec;
      // Ran one fiber for at least a millisecond of CPU time: a worker that
      // the system did not schedule during the tick proves nothing.
      bool computing = w->inFiber.load(std::memory_order_relaxed) &&
                       switches == w->seenSwitches &&
                       cpuNs - w->seenCpuNs >= 1000000;
      w->seenCpuNs = cpuNs;
      // A preempted fiber computes or spins without back-off: which, the
      // monitor cannot tell, so it never counts as stalled.
      if (progress != w->seenProgress || computing ||
          preemptions != w->seenPreemptions)
        quiet = false;
      if (computing)
        pthread_kill(w->thread.native_handle(), kPreemptSignal);
      w->seenProgress = progress;
      w->seenSwitches = switches;
      w->seenPreemptions = preemptions;
    }
    // Only this rank's own progress advances its counter: ranks that
    // advanced theirs on seeing the others' would never all be stalled.
    if (!quiet && self >= 0)
      counters[self]->fetch_add(1, std::memory_order_relaxed);
    bool selfQuiet = quiet;
    Clock::time_point now = Clock::now();
    for (size_t r = 0; r < counters.size(); ++r) {
      uint64_t value = counters[r]->load(std::memory_order_relaxed);
      if (value != seenCounters[r])
        counterMoved[r] = now;
      if (static_cast<int>(r) != self && value != seenCounters[r])
        quiet = false;
      seenCounters[r] = value;
    }
    endStalledWaits(selfQuiet, now, lock);
    if (!quiet) {
      stalled = false;
      continue;
    }
    if (!stalled) {
      stalled = true;
      since = Clock::now();
      continue;
    }
    double waited = secondsSince(since);
    if (waited < config.deadlockSeconds)
      continue;
    for (Launch *l : active) {
      if (l->failed || l->next == l->blocks)
        continue;
      char message[512];
      snprintf(message, sizeof(message),
               "kernel '%s' needs more than %u co-resident blocks: its %u "
               "resident "
               "blocks have waited %.1f s without progress on any rank while "
               "%u of its %u blocks could not start (a GPU would hang; "
               "SYMM_HOST_RESIDENT_BLOCKS sets the limit)",
               l->name, config.residentBlocks, l->resident, waited,
               l->blocks - l->next, l->blocks);
      lock.unlock();
      abandon(*l, message);
      lock.lock();
    }
    stalled = false;
  }
}

/// How long this rank must be stalled, with a peer gone, before its
/// launches fail: long enough that a worker the system did not schedule for
/// a tick is not taken for one that cannot go on.
constexpr double kPeerExitedSeconds = 0.5;

/// A wait that depends on another rank ends: when this rank alone has been
/// stalled (`stalled`: its host thread waits for device work that makes no
/// progress) for SYMM_TIMEOUT, or for kPeerExitedSeconds with a peer
/// exited, every launch still running fails naming the ranks it may wait
/// for. GPUs hang in the same place; a rank that computes, runs host code or
/// whose threads spin without back-off is not stalled.
void HostDevice::Impl::endStalledWaits(bool stalled, Clock::time_point now,
                                       std::unique_lock<std::mutex> &lock) {
  if (!stalled) {
    selfStalled = false;
    return;
  }
  if (!selfStalled) {
    selfStalled = true;
    selfStalledSince = now;
    return;
  }
  double waited = std::chrono::duration<double>(now - selfStalledSince).count();
  double timeout = timeoutSeconds();
  std::vector<int> gone;
  if (waited >= std::min(kPeerExitedSeconds, timeout))
    gone = exitedPeers();
  if (gone.empty() && waited < timeout)
    return;
  std::string why = whyStalled(gone);
  for (Launch *l : std::vector<Launch *>(active)) {
    if (l->failed)
      continue;
    char message[768];
    if (gone.empty())
      snprintf(message, sizeof(message),
               "kernel '%s' made no progress for %.1f s (SYMM_TIMEOUT is %g "
               "s): %s",
               l->name, waited, timeout, why.c_str());
    else
      snprintf(message, sizeof(message),
               "kernel '%s' made no progress for %.1f s, and %s", l->name,
               waited, why.c_str());
    lock.unlock();
    abandon(*l, message);
    lock.lock();
  }
  selfStalled = false;
}

/// "ranks 1, 2".
static std::string rankList(const std::vector<int> &ranks) {
  std::string list = ranks.size() == 1 ? "rank " : "ranks ";
  for (size_t i = 0; i < ranks.size(); ++i)
    list += (i ? ", " : "") + std::to_string(ranks[i]);
  return list;
}

/// What the other ranks did while this one was stalled.
std::string HostDevice::Impl::whyStalled(const std::vector<int> &gone) const {
  if (!gone.empty())
    return rankList(gone) + (gone.size() == 1 ? " has" : " have") +
           " exited (the process is gone): no wait on it can complete";
  std::vector<int> busy, stuck;
  for (size_t r = 0; r < counters.size(); ++r)
    if (static_cast<int>(r) != self)
      (counterMoved[r] > selfStalledSince ? busy : stuck)
          .push_back(static_cast<int>(r));
  if (busy.empty() && stuck.empty())
    return "its threads wait for each other, or for memory nothing writes (a "
           "deadlock)";
  if (busy.empty())
    return "every rank's kernels are stalled too: they wait for each other "
           "(a deadlock)";
  std::string why = rankList(busy) + (busy.size() == 1 ? " has" : " have") +
                    " not waited for the device meanwhile (running host "
                    "code, or waiting in a collective call such as "
                    "symm_barrier or symm_finalize)";
  if (!stuck.empty())
    why += "; " + rankList(stuck) + (stuck.size() == 1 ? " is" : " are") +
           " stalled too";
  return why;
}

HostDevice::HostDevice(const HostConfig &config)
    : impl(std::make_unique<Impl>(config)) {}

HostDevice::~HostDevice() = default;

symm_status HostDevice::run(const char *name, void (*entry)(void **),
                            const LaunchShape &shape, void **params,
                            races::Launch *race) {
  return impl->run(name, entry, shape, params, race);
}

races::Thread *races::current() {
  Worker *worker = thisWorker;
  return worker && worker->current ? worker->current->race : nullptr;
}

void HostDevice::addCode(void *library) {
  // The executable segments of the object `library` was loaded from.
  struct link_map *map = nullptr;
  if (dlinfo(library, RTLD_DI_LINKMAP, &map) != 0 || !map)
    return;
  struct Search {
    ElfW(Addr) base;
    uintptr_t begin = 0, end = 0;
  } search{map->l_addr};
  dl_iterate_phdr(
      [](dl_phdr_info *info, size_t, void *data) {
        auto *search = static_cast<Search *>(data);
        if (info->dlpi_addr != search->base)
          return 0;
        for (int i = 0; i < info->dlpi_phnum; ++i) {
          const ElfW(Phdr) &ph = info->dlpi_phdr[i];
          if (ph.p_type != PT_LOAD || !(ph.p_flags & PF_X))
            continue;
          uintptr_t begin = info->dlpi_addr + ph.p_vaddr;
          uintptr_t end = begin + ph.p_memsz;
          search->begin =
              search->begin ? std::min(search->begin, begin) : begin;
          search->end = std::max(search->end, end);
        }
        return 1;
      },
      &search);
  if (!search.end)
    return;
  std::lock_guard<std::mutex> lock(codeMutex);
  for (CodeRange &r : codeRanges) {
    if (!r.library) {
      r.library = library;
      r.begin.store(search.begin);
      r.end.store(search.end);
      return;
    }
  }
}

void HostDevice::removeCode(void *library) {
  std::lock_guard<std::mutex> lock(codeMutex);
  for (CodeRange &r : codeRanges) {
    if (r.library == library) {
      r.end.store(0);
      r.begin.store(0);
      r.library = nullptr;
    }
  }
}

HostDevice::Waiting::Waiting(HostDevice &device) : device(device) {
  device.impl->hostWaiting.fetch_add(1);
}

HostDevice::Waiting::~Waiting() { device.impl->hostWaiting.fetch_sub(1); }

void HostDevice::setProgressCounters(
    std::vector<std::atomic<uint64_t> *> counters, int self) {
  std::lock_guard<std::mutex> lock(impl->mutex);
  impl->seenCounters.assign(counters.size(), 0);
  impl->counterMoved.assign(counters.size(), Impl::Clock::now());
  impl->counters = std::move(counters);
  impl->self = impl->counters.empty() ? -1 : self;
}

//===----------------------------------------------------------------------===//
// The environment
//===----------------------------------------------------------------------===//

/// Reads `name` as an integer in [min, max] into `value` when it is set.
static symm_status readUnsigned(const char *name, unsigned min, unsigned max,
                                unsigned &value) {
  const char *text = getenv(name);
  if (!text)
    return SYMM_SUCCESS;
  char *end;
  errno = 0;
  long long parsed = strtoll(text, &end, 10);
  if (end == text || *end || errno || parsed < min || parsed > max)
    return fail(SYMM_ERROR_INVALID_ARGUMENT,
                "%s='%s' is not a whole number from %u to %u", name, text, min,
                max);
  value = static_cast<unsigned>(parsed);
  return SYMM_SUCCESS;
}

symm_status HostConfig::readEnvironment() {
  if (symm_status s = readUnsigned("SYMM_HOST_RESIDENT_BLOCKS", 1, 1u << 20,
                                   residentBlocks))
    return s;
  if (symm_status s =
          readUnsigned("SYMM_HOST_MAX_THREADS", 1, 1u << 16, maxBlockThreads))
    return s;
  if (symm_status s = readUnsigned("SYMM_HOST_WORKERS", 1, 1024, workers))
    return s;
  if (symm_status s =
          readUnsigned("SYMM_HOST_MAX_SHARED", 0, 1u << 30, maxDynamicShared))
    return s;
  if (const char *text = getenv("SYMM_HOST_DEADLOCK_SECONDS")) {
    char *end;
    double parsed = strtod(text, &end);
    if (end == text || *end || !(parsed >= 0.1 && parsed <= 86400))
      return fail(SYMM_ERROR_INVALID_ARGUMENT,
                  "SYMM_HOST_DEADLOCK_SECONDS='%s' is not a number of seconds "
                  "from 0.1 to 86400",
                  text);
    deadlockSeconds = parsed;
  }
  return SYMM_SUCCESS;
}

//===----------------------------------------------------------------------===//
// What CPU-target kernels call
//===----------------------------------------------------------------------===//

/// Fails the launch of `fiber` with "kernel 'K' <what>" and leaves the fiber
/// for good; its worker then drops the launch's blocks and the launch's
/// stream reports the error. Exiting here instead would run the program's
/// exit handlers, which wait for this very launch.
[[noreturn]] static void failLaunch(Fiber &fiber, const std::string &what) {
  Worker &worker = *thisWorker;
  Launch &launch = *fiber.block->launch;
  worker.device->abandon(launch,
                         "kernel '" + std::string(launch.name) + "' " + what);
  worker.current = nullptr;
  switchContext(fiber.context, worker.context, Leaving::ForGood);
  __builtin_unreachable();
}

void symm::failCurrentLaunch(const std::string &what) {
  failLaunch(self(), what);
}

double symm::currentDeadlockSeconds() {
  self();
  return thisWorker->device->config.deadlockSeconds;
}

extern "C" {

/// `which` is a symm_host_id; `dim` 0..2.
SYMM_EXPORT int64_t _symm_host_id(int32_t which, int32_t dim) {
  Fiber &f = self();
  const LaunchShape &shape = f.block->launch->shape;
  switch (static_cast<symm_host_id>(which)) {
  case SYMM_HOST_ID_THREAD:
    return f.tid[dim];
  case SYMM_HOST_ID_BLOCK:
    return f.block->bid[dim];
  case SYMM_HOST_ID_BLOCK_DIM:
    return shape.block[dim];
  case SYMM_HOST_ID_GRID_DIM:
    return shape.grid[dim];
  case SYMM_HOST_ID_LANE:
    return f.linear % kHostSubgroupSize;
  case SYMM_HOST_ID_DYNAMIC_SHARED_BYTES:
    return shape.dynamicShared;
  case SYMM_HOST_ID_COUNT:
    break;
  }
  failLaunch(f, "asked for host id " + std::to_string(which) +
                    ", which this runtime does not know (compiled by another "
                    "Symm?)");
}

/// Waits for every thread of the block that has not returned.
SYMM_EXPORT void _symm_host_barrier() {
  Fiber &f = self();
  Block &block = *f.block;
  bump(thisWorker->progress);
  if (f.race)
    races::arriveAtBarrier(*f.race);
  if (++block.atBarrier == block.live) {
    releaseBarrier(block);
  } else {
    f.state = FiberState::AtBarrier;
    suspend(f);
  }
  if (f.race)
    races::leaveBarrier(*f.race);
}

/// The block's workgroup memory: `staticBytes` of static attributions, then
/// the launch's dynamic shared memory.
SYMM_EXPORT void *_symm_host_shared_memory(int64_t staticBytes) {
  Fiber &f = self();
  if (static_cast<size_t>(staticBytes) > kHostStaticSharedBytes)
    failLaunch(f, "needs " + std::to_string(staticBytes) +
                      " bytes of static workgroup memory; the CPU target "
                      "provides " +
                      std::to_string(kHostStaticSharedBytes));
  return f.block->shared.data();
}

/// gpu.shuffle over the subgroup (`mode` a symm_host_shuffle_mode). Every
/// lane of the subgroup that has not returned must call it, as on a GPU.
SYMM_EXPORT int64_t _symm_host_shuffle(int64_t value, int32_t offset,
                                       int32_t width, int32_t mode,
                                       int8_t *valid) {
  Fiber &f = self();
  Block &block = *f.block;
  int lane = f.linear % kHostSubgroupSize;
  int first = f.linear - lane;
  int subgroup = f.linear / kHostSubgroupSize;
  Subgroup &s = block.subgroups[subgroup];
  int64_t *slots = block.slots.data() + s.parity * block.fibers.size();
  slots[f.linear] = value;
  bump(thisWorker->progress);
  if (++s.arrived == s.live) {
    releaseShuffle(block, subgroup);
  } else {
    f.state = FiberState::AtShuffle;
    suspend(f);
  }
  int source;
  switch (mode) {
  case SYMM_HOST_SHUFFLE_XOR:
    source = lane ^ offset;
    break;
  case SYMM_HOST_SHUFFLE_DOWN:
    source = lane + offset;
    break;
  case SYMM_HOST_SHUFFLE_UP:
    source = lane - offset;
    break;
  default:
    source = offset;
    break;
  }
  int size = static_cast<int>(block.fibers.size()) - first;
  bool ok = source >= 0 && source < width && source < size;
  *valid = ok;
  return ok ? slots[first + source] : value;
}

/// The back-off of a spin loop: lets the block's other threads, the worker's
/// other blocks and then other workers and ranks run.
SYMM_EXPORT void _symm_host_yield() {
  Worker *worker = thisWorker;
  if (!worker || !worker->current) {
    // Host code spinning on device memory.
    sched_yield();
    return;
  }
  Fiber &f = *worker->current;
  const void *site = __builtin_return_address(0);
  if (site != f.backoffSite) {
    f.backoffSite = site;
    bump(worker->progress);
  }
  suspend(f);
}

} // extern "C"
