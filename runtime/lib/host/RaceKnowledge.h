//===- RaceKnowledge.h - What a thread knows happened before ---*- C++ -*-===//
//
// The race detector's vector clocks (Races.h), shaped for GPU programs: a
// thread's knowledge names whole blocks (a finished launch's), blocks up to a
// barrier phase, and single threads up to a clock, so that a block's threads
// share one object after every barrier and what a release publishes stays
// small.
//
//===----------------------------------------------------------------------===//

#ifndef SYMM_RUNTIME_LIB_HOST_RACEKNOWLEDGE_H
#define SYMM_RUNTIME_LIB_HOST_RACEKNOWLEDGE_H

#include "symm/kernel_context.h"

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <memory>
#include <utility>
#include <vector>

namespace symm::races {

//===----------------------------------------------------------------------===//
// Identities and clocks
//===----------------------------------------------------------------------===//

/// A block is rank << kLocalBits | a number of its rank's, from 1; 0 is none.
constexpr unsigned kLocalBits = 22;
constexpr uint32_t kBlocksPerRank = 1u << kLocalBits;
static_assert(SYMM_MAX_RANKS <= (1 << (32 - kLocalBits)),
              "block ids must hold every rank");
inline uint32_t rankOf(uint32_t block) { return block >> kLocalBits; }

/// A thread's clock: the barrier phase it is in, then the releases it made
/// in that phase.
constexpr unsigned kPhaseShift = 16;
constexpr uint32_t kMaxSub = (1u << kPhaseShift) - 1;
inline uint32_t phaseOf(uint32_t clock) { return clock >> kPhaseShift; }

enum Scope : uint32_t { Workgroup = 0, Device = 1, System = 2 };

/// Whether scope `scope` includes threads of blocks `a` and `b`.
inline bool inScope(uint32_t scope, uint32_t a, uint32_t b) {
  if (scope >= System)
    return true;
  if (scope == Device)
    return rankOf(a) == rankOf(b);
  return a == b;
}

//===----------------------------------------------------------------------===//
// Knowledge
//===----------------------------------------------------------------------===//

/// What a thread knows happened before it: every access of the blocks in
/// `complete`, a block's accesses before barrier phase `phases[b]`, and a
/// thread's up to clock `threads[b << 16 | t]`.
class Knowledge {
public:
  using Range = std::pair<uint32_t, uint32_t>; // [first, last)
  std::vector<Range> complete;
  std::vector<std::pair<uint32_t, uint32_t>> phases;
  std::vector<std::pair<uint64_t, uint32_t>> threads;

  static uint64_t key(uint32_t block, uint16_t thread) {
    return uint64_t(block) << 16 | thread;
  }

  bool completes(uint32_t block) const {
    auto it = std::upper_bound(
        complete.begin(), complete.end(), block,
        [](uint32_t b, const Range &r) { return b < r.first; });
    return it != complete.begin() && block < std::prev(it)->second;
  }
  uint32_t phase(uint32_t block) const {
    auto it = std::lower_bound(phases.begin(), phases.end(), block,
                               [](const std::pair<uint32_t, uint32_t> &p,
                                  uint32_t b) { return p.first < b; });
    return it != phases.end() && it->first == block ? it->second : 0;
  }
  /// 0 when the thread has no entry (clocks of entries are at least 1).
  uint32_t clock(uint64_t k) const {
    auto it = std::lower_bound(threads.begin(), threads.end(), k,
                               [](const std::pair<uint64_t, uint32_t> &p,
                                  uint64_t v) { return p.first < v; });
    return it != threads.end() && it->first == k ? it->second : 0;
  }

  bool knows(uint32_t block, uint16_t thread, uint32_t clock) const {
    if (phaseOf(clock) < phase(block) || completes(block))
      return true;
    uint32_t c = this->clock(key(block, thread));
    return c && clock < c;
  }

  void addComplete(uint32_t first, uint32_t last) {
    if (first >= last)
      return;
    complete.push_back({first, last});
    std::sort(complete.begin(), complete.end());
    coalesce();
  }
  void addPhase(uint32_t block, uint32_t phase) {
    auto it = std::lower_bound(phases.begin(), phases.end(),
                               std::make_pair(block, 0u));
    if (it != phases.end() && it->first == block)
      it->second = std::max(it->second, phase);
    else
      phases.insert(it, {block, phase});
  }
  /// Knows the thread's accesses before clock `clock`.
  void addThread(uint32_t block, uint16_t thread, uint32_t clock) {
    uint64_t k = key(block, thread);
    auto it =
        std::lower_bound(threads.begin(), threads.end(), std::make_pair(k, 0u));
    if (it != threads.end() && it->first == k)
      it->second = std::max(it->second, clock);
    else
      threads.insert(it, {k, clock});
  }

  /// Whether this knows everything `other` does.
  bool covers(const Knowledge &other) const {
    for (const Range &r : other.complete) {
      auto it = std::upper_bound(
          complete.begin(), complete.end(), r.first,
          [](uint32_t b, const Range &x) { return b < x.first; });
      if (it == complete.begin() || std::prev(it)->second < r.second)
        return false;
    }
    for (auto [b, p] : other.phases)
      if (phase(b) < p && !completes(b))
        return false;
    for (auto [k, c] : other.threads) {
      uint32_t b = uint32_t(k >> 16);
      if (clock(k) < c && !completes(b) && phase(b) <= phaseOf(c - 1))
        return false;
    }
    return true;
  }

  void join(const Knowledge &other) {
    if (!other.complete.empty()) {
      std::vector<Range> merged;
      merged.reserve(complete.size() + other.complete.size());
      std::merge(complete.begin(), complete.end(), other.complete.begin(),
                 other.complete.end(), std::back_inserter(merged));
      complete.swap(merged);
      coalesce();
    }
    mergeMax(phases, other.phases);
    mergeMax(threads, other.threads);
    prune();
  }

  /// Drops what a range or a phase already says.
  void prune() {
    phases.erase(
        std::remove_if(phases.begin(), phases.end(),
                       [&](const auto &p) { return completes(p.first); }),
        phases.end());
    threads.erase(std::remove_if(threads.begin(), threads.end(),
                                 [&](const auto &t) {
                                   uint32_t b = uint32_t(t.first >> 16);
                                   return completes(b) ||
                                          phaseOf(t.second - 1) < phase(b);
                                 }),
                  threads.end());
  }

  bool empty() const {
    return complete.empty() && phases.empty() && threads.empty();
  }

private:
  void coalesce() {
    std::vector<Range> out;
    for (const Range &r : complete) {
      if (!out.empty() && r.first <= out.back().second)
        out.back().second = std::max(out.back().second, r.second);
      else
        out.push_back(r);
    }
    complete.swap(out);
  }
  template <typename K>
  static void mergeMax(std::vector<std::pair<K, uint32_t>> &mine,
                       const std::vector<std::pair<K, uint32_t>> &theirs) {
    if (theirs.empty())
      return;
    std::vector<std::pair<K, uint32_t>> out;
    out.reserve(mine.size() + theirs.size());
    size_t i = 0, j = 0;
    while (i < mine.size() || j < theirs.size()) {
      if (j == theirs.size() ||
          (i < mine.size() && mine[i].first < theirs[j].first)) {
        out.push_back(mine[i++]);
      } else if (i == mine.size() || theirs[j].first < mine[i].first) {
        out.push_back(theirs[j++]);
      } else {
        out.push_back(
            {mine[i].first, std::max(mine[i].second, theirs[j].second)});
        ++i, ++j;
      }
    }
    mine.swap(out);
  }
};

using KnowledgeRef = std::shared_ptr<const Knowledge>;

inline KnowledgeRef joined(const KnowledgeRef &a, const Knowledge &b) {
  if (a && a->covers(b))
    return a;
  auto k = std::make_shared<Knowledge>(a ? *a : Knowledge());
  k->join(b);
  return k;
}

/// What one release published: the releasing block and scope, and what the
/// releaser knew.
struct Tagged {
  uint32_t block, scope;
  Knowledge known;
};

} // namespace symm::races

#endif // SYMM_RUNTIME_LIB_HOST_RACEKNOWLEDGE_H
