//===- Signals.cpp - Preemption and stack overflows -------------*- C++ -*-===//
//
// A fiber that runs kernel code for a whole monitor tick without switching is
// preempted by a signal, which switches it out from its handler; a fault in
// the guard page below a fiber's stack is reported as that thread's stack
// overflow.
//
//===----------------------------------------------------------------------===//

#include "../core/Runtime.h"
#include "HostDeviceImpl.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <unistd.h>

using namespace symm;
using namespace symm::host;

//===----------------------------------------------------------------------===//
// Preemption
//===----------------------------------------------------------------------===//

namespace {

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

/// Switches away from the interrupted fiber, which stays ready; it resumes by
/// returning from this handler. SA_NODEFER keeps the signal deliverable to
/// the fibers that run meanwhile.
void onPreemptSignal(int, siginfo_t *, void *context) {
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
void onSegv(int signal, siginfo_t *info, void *) {
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

} // namespace

void host::installSignalHandlers(struct sigaction &previousPreempt) {
  struct sigaction action = {};
  action.sa_sigaction = onPreemptSignal;
  action.sa_flags = SA_SIGINFO | SA_NODEFER | SA_RESTART;
  sigemptyset(&action.sa_mask);
  sigaction(kPreemptSignal, &action, &previousPreempt);
  struct sigaction overflow = {};
  overflow.sa_sigaction = onSegv;
  overflow.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigemptyset(&overflow.sa_mask);
  sigaction(SIGSEGV, &overflow, &previousSegvAction);
}

void host::restoreSignalHandlers(const struct sigaction &previousPreempt) {
  sigaction(kPreemptSignal, &previousPreempt, nullptr);
  sigaction(SIGSEGV, &previousSegvAction, nullptr);
}

void host::setSignalStack(Worker &worker) {
  worker.signalStack.reset(new char[kSignalStackBytes]);
  stack_t signalStack = {};
  signalStack.ss_sp = worker.signalStack.get();
  signalStack.ss_size = kSignalStackBytes;
  sigaltstack(&signalStack, nullptr);
}

void host::preempt(Worker &worker) {
  pthread_kill(worker.thread.native_handle(), kPreemptSignal);
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
