//===- Environment.h - Variables the runtime reads --------------*- C++ -*-===//
//
// The variables symm-run sets for its ranks and the runtime reads, and the
// parsers of their values. symm-run links this too, so that it rejects a bad
// option while parsing, with the same rules the runtime applies.
//
//===----------------------------------------------------------------------===//

#ifndef SYMM_RUNTIME_LIB_CORE_ENVIRONMENT_H
#define SYMM_RUNTIME_LIB_CORE_ENVIRONMENT_H

#include <cstddef>
#include <optional>
#include <string>

namespace symm {
namespace env {

constexpr const char *kRank = "SYMM_RANK";
constexpr const char *kWorldSize = "SYMM_WORLD_SIZE";
constexpr const char *kLocalRank = "SYMM_LOCAL_RANK";
constexpr const char *kRendezvous = "SYMM_RENDEZVOUS";
constexpr const char *kBackend = "SYMM_BACKEND";
constexpr const char *kBootstrap = "SYMM_BOOTSTRAP";
constexpr const char *kHeapSize = "SYMM_HEAP_SIZE";
constexpr const char *kTimeout = "SYMM_TIMEOUT";
/// The nvshmem backend's NVSHMEM: a folder with lib/libnvshmem_host.so.3.
constexpr const char *kNvshmemHome = "SYMM_NVSHMEM_HOME";
/// Race checks on the CPU target (runtime/lib/host/Races.h): 1 or 0, and
/// the MiB of shared memory for what releases publish.
constexpr const char *kCheckRaces = "SYMM_HOST_CHECK_RACES";
constexpr const char *kRaceMemory = "SYMM_HOST_RACE_MEMORY";
constexpr const char *kRaceShadow = "SYMM_HOST_RACE_SHADOW";
constexpr const char *kCheckCollectives = "SYMM_CHECK_COLLECTIVES";
/// 0: no kernel is a programmatic dependent launch, whatever its manifest
/// allows (symm.early_launch).
constexpr const char *kEarlyLaunch = "SYMM_EARLY_LAUNCH";
/// Traces (runtime/lib/core/Trace.h): the file to write, the events each
/// subgroup keeps and the subgroups that record.
constexpr const char *kTrace = "SYMM_TRACE";
constexpr const char *kTraceEvents = "SYMM_TRACE_EVENTS";
constexpr const char *kTraceSlots = "SYMM_TRACE_SLOTS";
/// A job id for ranks started without symm-run, before the launchers'.
constexpr const char *kJobId = "SYMM_JOB_ID";
/// This rank's node, where ranks of one kernel must count as apart.
constexpr const char *kNodeId = "SYMM_NODE_ID";
/// The tcp bootstrap's port at rank 0 (else MASTER_PORT + 1).
constexpr const char *kMasterPort = "SYMM_MASTER_PORT";

/// The value of `name`, or null when it is unset or empty.
const char *get(const char *name);

/// A size like 1048576, 64K, 256M or 1.5G (an optional B after the suffix),
/// at least one byte and at most kMaxSize bytes.
std::optional<size_t> parseSize(const char *text);
constexpr size_t kMaxSize = size_t(1) << 62;

/// A positive number of seconds, at most kMaxSeconds (what one poll() may
/// wait, in milliseconds, is an int).
std::optional<double> parseSeconds(const char *text);
constexpr double kMaxSeconds = 2147483;

/// A decimal integer with nothing after it, within [min, max].
std::optional<int> parseInt(const char *text, int min, int max);

/// What parseSize and parseSeconds accept, for messages.
constexpr const char *kSizeForm =
    "a size (bytes with an optional K, M, G or T suffix, e.g. 268435456, 256M, "
    "1G; at most 2^62 bytes)";
constexpr const char *kSecondsForm =
    "a number of seconds (more than 0, at most 2147483)";

/// Why `text` is not a valid value of `name`, for messages:
/// "SYMM_TIMEOUT='abc' is not a number of seconds (...)".
std::string describeSize(const char *name, const char *text);
std::string describeSeconds(const char *name, const char *text);

} // namespace env
} // namespace symm

#endif // SYMM_RUNTIME_LIB_CORE_ENVIRONMENT_H
