//===- Scheduler.cpp - Workers that claim and run blocks --------*- C++ -*-===//
//
// A launch waits in the device's active list while workers claim its blocks,
// at most `residentBlocks` at once, and run each block's fibers until every
// thread returned or the launch was abandoned.
//
//===----------------------------------------------------------------------===//

#include "../core/Runtime.h"
#include "HostDeviceImpl.h"
#include "Races.h"

#include <algorithm>
#include <sched.h>

using namespace symm;
using namespace symm::host;

HostDevice::Impl::Impl(const HostConfig &config) : config(config) {
  installSignalHandlers(previousAction);
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
  restoreSignalHandlers(previousAction);
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
    races::BlockStart started;
    started.index = index;
    started.bid = block->bid;
    started.dims = shape.block;
    started.threads = threads;
    started.shared = block->shared.data();
    started.sharedBytes = block->shared.size();
    if (races::Block *race =
            races::startBlock(*launch.race, block->race, started)) {
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
  setSignalStack(worker);
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

symm_status HostDevice::Impl::run(const HostLaunch &kernel) {
  Launch launch;
  static_cast<HostLaunch &>(launch) = kernel;
  const LaunchShape &shape = kernel.shape;
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

HostDevice::HostDevice(const HostConfig &config)
    : impl(std::make_unique<Impl>(config)) {}

HostDevice::~HostDevice() = default;

symm_status HostDevice::run(const HostLaunch &kernel) {
  return impl->run(kernel);
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
