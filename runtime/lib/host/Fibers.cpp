//===- Fibers.cpp - Context switches and a fiber's life ---------*- C++ -*-===//
//
// A GPU thread is a fiber: a context on a stack of its own that its worker
// switches to, and that switches to the next ready fiber of its block where
// it waits.
//
//===----------------------------------------------------------------------===//

#include "../core/Runtime.h"
#include "HostDeviceImpl.h"
#include "Races.h"

#include <cstdio>
#include <cstdlib>

#if SYMM_HOST_ASAN
#include <pthread.h>
#endif

using namespace symm;
using namespace symm::host;

//===----------------------------------------------------------------------===//
// Context switching
//===----------------------------------------------------------------------===//

#if defined(__x86_64__)
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

/// Registers that start `start` on the stack below `top` (16-byte aligned).
static void makeRegisters(Registers &context, char *top, void (*start)()) {
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
static void makeRegisters(Registers &context, char *top, void (*start)()) {
  getcontext(&context.uc);
  context.uc.uc_stack.ss_sp = top - kFiberStackBytes;
  context.uc.uc_stack.ss_size = kFiberStackBytes;
  context.uc.uc_link = nullptr;
  makecontext(&context.uc, start, 0);
}
#endif

void host::makeContext(Context &context, char *top, void (*start)()) {
  makeRegisters(context.registers, top, start);
  context.stackBottom = top - kFiberStackBytes;
  context.stackSize = kFiberStackBytes;
}

void host::enterContext() {
#if SYMM_HOST_ASAN
  __sanitizer_finish_switch_fiber(nullptr, nullptr, nullptr);
#endif
}

void host::setThreadStack(Context &context) {
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
// A fiber's life
//===----------------------------------------------------------------------===//

__thread Worker *host::thisWorker = nullptr;

void host::notInKernel() {
  fprintf(stderr,
          "symm: rank %d: a CPU-target device function was called "
          "outside a kernel launch\n",
          currentRank());
  exit(1);
}

races::Thread *races::current() {
  Worker *worker = thisWorker;
  return worker && worker->current ? worker->current->race : nullptr;
}

void host::suspend(Fiber &fiber, Leaving leaving) {
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

void host::releaseBarrier(Block &block) {
  block.atBarrier = 0;
  for (Fiber &f : block.fibers)
    if (f.state == FiberState::AtBarrier)
      f.state = FiberState::Ready;
}

void host::releaseShuffle(Block &block, int subgroup) {
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
[[noreturn]] static void finish(Fiber &fiber) {
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

void host::fiberMain() {
  enterContext();
  Fiber &fiber = *thisWorker->current;
  Launch &launch = *fiber.block->launch;
  launch.entry(launch.params);
  finish(fiber);
}

void host::failLaunch(Fiber &fiber, const std::string &what) {
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
