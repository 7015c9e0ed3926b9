//===- Monitor.cpp - Deadlocks, stalled waits and preemption ----*- C++ -*-===//
//
// A monitor thread reads the workers' progress every tick: it preempts
// fibers that compute without switching, reports a launch that needs more
// co-resident blocks than it gets, and ends waits on ranks that have exited
// or stalled.
//
//===----------------------------------------------------------------------===//

#include "../core/Runtime.h"
#include "HostDeviceImpl.h"

#include <algorithm>
#include <cstdio>

using namespace symm;
using namespace symm::host;

static double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
      .count();
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
        preempt(*w);
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
static constexpr double kPeerExitedSeconds = 0.5;

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
  std::string why = whyStalled(gone, now);
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

/// What the other ranks did while this one was stalled: a peer whose
/// progress moved in the second half of the stall is busy, else stuck. (Any
/// move since the stall began made a peer that started late busy: under
/// load, four ranks all waiting in kernels were reported as a rank that had
/// not waited for the device, because it had reached its wait a moment
/// after this one.)
std::string HostDevice::Impl::whyStalled(const std::vector<int> &gone,
                                         Clock::time_point now) const {
  if (!gone.empty())
    return rankList(gone) + (gone.size() == 1 ? " has" : " have") +
           " exited (the process is gone): no wait on it can complete";
  Clock::time_point recent = selfStalledSince + (now - selfStalledSince) / 2;
  std::vector<int> busy, stuck;
  for (size_t r = 0; r < counters.size(); ++r)
    if (static_cast<int>(r) != self)
      (counterMoved[r] > recent ? busy : stuck).push_back(static_cast<int>(r));
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
