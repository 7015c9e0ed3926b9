//===- Stacks.cpp - The fibers' stacks --------------------------*- C++ -*-===//
//
// Stacks are mapped once, with a guard page below each while the kernel's
// limit on mappings allows it, and reused by every later launch.
//
//===----------------------------------------------------------------------===//

#include "HostDeviceImpl.h"

#include <cstdio>
#include <sys/mman.h>
#include <unistd.h>

using namespace symm;
using namespace symm::host;

Stacks::Stacks() {
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

bool Stacks::take(size_t count, std::vector<char *> &tops) {
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

void Stacks::give(std::vector<char *> &tops) {
  std::lock_guard<std::mutex> lock(mutex);
  free.insert(free.end(), tops.begin(), tops.end());
  tops.clear();
}

Stacks::~Stacks() {
  for (auto [base, bytes] : mappings)
    munmap(base, bytes);
}
