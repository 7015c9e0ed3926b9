//===- Launch.cpp - Launch one kernel of a compiled module ------*- C++ -*-===//
//
//   symm-launch MODULE KERNEL NUM_PARAMS [THREADS]
//   symm-launch --version
//
// Loads MODULE (and its manifest) with the runtime and launches KERNEL with
// NUM_PARAMS zero-valued 64-bit parameters on THREADS threads (1), printing the
// runtime's status and message. For tests of the runtime's launch checks.
//
//===----------------------------------------------------------------------===//

#include "Environment.h"
#include "symm/runtime.h"
#include "symm/version.h"

#include <climits>
#include <cstdio>
#include <cstring>
#include <optional>
#include <vector>

static const char *const kUsage =
    "usage: symm-launch MODULE KERNEL NUM_PARAMS [THREADS]\n";

/// Parameter counts past any kernel's: a typo must not allocate gigabytes.
static constexpr int kMaxParams = 4096;

static int report(const char *what, symm_status status) {
  if (status == SYMM_SUCCESS)
    return 0;
  printf("%s: %s: %s\n", what, symm_status_string(status), symm_last_error());
  return 1;
}

int main(int argc, char **argv) {
  if (argc == 2 && strcmp(argv[1], "--version") == 0) {
    printf("symm-launch (Symm) %s\n", SYMM_VERSION);
    return 0;
  }
  if (argc != 4 && argc != 5) {
    fputs(kUsage, stderr);
    return 2;
  }
  // Checked before anything starts; atoi read "abc" as 0.
  std::optional<int> count = symm::env::parseInt(argv[3], 0, kMaxParams);
  std::optional<int> threads =
      argc == 5 ? symm::env::parseInt(argv[4], 1, INT_MAX) : 1;
  if (!count || !threads) {
    fprintf(stderr, "symm-launch: %s '%s' is not a number from %d to %d\n%s",
            count ? "THREADS" : "NUM_PARAMS", count ? argv[4] : argv[3],
            count ? 1 : 0, count ? INT_MAX : kMaxParams, kUsage);
    return 2;
  }
  if (report("init", symm_init()))
    return 1;
  symm_module *module = nullptr;
  if (report("load", symm_module_load_file(argv[1], &module)))
    return 1;
  std::vector<uint64_t> values(*count, 0);
  std::vector<void *> params;
  for (uint64_t &v : values)
    params.push_back(&v);
  unsigned one[3] = {1, 1, 1};
  unsigned block[3] = {unsigned(*threads), 1, 1};
  if (report("launch", symm_launch(module, argv[2], one, block, 0, nullptr,
                                   params.data(), params.size())))
    return 1;
  if (report("synchronize", symm_synchronize()))
    return 1;
  printf("launched %s\n", argv[2]);
  symm_module_unload(module);
  return report("finalize", symm_finalize());
}
