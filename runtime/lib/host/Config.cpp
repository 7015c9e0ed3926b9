//===- Config.cpp - The CPU target's settings -------------------*- C++ -*-===//
//
// SYMM_HOST_* variables set the execution model (docs/CPUTarget.md); a bad
// value is an error naming the variable.
//
//===----------------------------------------------------------------------===//

#include "../core/Runtime.h"
#include "HostDevice.h"

#include <cerrno>
#include <cstdlib>

using namespace symm;

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
