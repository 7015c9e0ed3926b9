//===- Runtime.cpp - Initialisation, collectives and streams ----*- C++ -*-===//

#include "Environment.h"
#include "RuntimeState.h"
#include "Trace.h"

#include <atomic>
#include <cstdio>
#include <cstring>
#include <optional>
#include <set>
#include <unistd.h>

using namespace symm;

State &symm::state() {
  static State *s = new State;
  return *s;
}
std::mutex &symm::apiMutex() {
  static std::mutex *m = new std::mutex;
  return *m;
}
symm_status symm::requireInit() {
  if (!state().initialized)
    return fail(SYMM_ERROR_NOT_INITIALIZED,
                "the runtime is not initialised; call symm_init first");
  return SYMM_SUCCESS;
}

namespace {

/// This thread's last error. A plain array, not a std::string: compiled
/// programs unload their modules (and may fail) from destructors that run
/// after the thread's objects with destructors are gone, and a string
/// written then wrote into freed memory.
thread_local char lastError[1100];

/// The first of `names` that is set, parsed as an integer in [min, max]; an
/// error naming the variable and its value when it is not one.
symm_status envInt(std::initializer_list<const char *> names, int min, int max,
                   int fallback, int &value) {
  value = fallback;
  for (const char *n : names)
    if (const char *v = env::get(n)) {
      std::optional<int> parsed = env::parseInt(v, min, max);
      if (!parsed)
        return fail(SYMM_ERROR_INVALID_ARGUMENT,
                    "%s='%s' is not an integer between %d and %d", n, v, min,
                    max);
      value = *parsed;
      return SYMM_SUCCESS;
    }
  return SYMM_SUCCESS;
}

/// Variable `name` as a switch, 0 or 1 (`fallback` when unset); an error
/// naming it and its value otherwise.
symm_status envSwitch(const char *name, bool fallback, bool &value) {
  value = fallback;
  const char *v = env::get(name);
  if (!v)
    return SYMM_SUCCESS;
  if (strcmp(v, "0") && strcmp(v, "1"))
    return fail(SYMM_ERROR_INVALID_ARGUMENT, "%s='%s' must be 0 or 1", name, v);
  value = !strcmp(v, "1");
  return SYMM_SUCCESS;
}

const std::initializer_list<const char *> kRankVariables = {
    env::kRank, "OMPI_COMM_WORLD_RANK", "RANK", "PMI_RANK"};

/// The collective a heap call on this thread is made for (CollectiveCaller).
thread_local CollectiveCall caller = CollectiveCall::None;

/// A collective call as gathered: its kind and, for Check, the collective;
/// for the heap's calls, the collective they were made for.
std::string collectiveName(uint64_t kind, uint64_t call) {
  auto made = static_cast<CollectiveCall>(call);
  std::string name;
  switch (static_cast<Collective>(kind)) {
  case Collective::Malloc:
    name = "symm_malloc";
    break;
  case Collective::Free:
    name = "symm_free";
    break;
  case Collective::Barrier:
    name = "symm_barrier";
    break;
  case Collective::Finalize:
    name = "symm_finalize";
    break;
  case Collective::Check:
    return collectiveCallName(made);
  default:
    return "an unknown collective";
  }
  if (made != CollectiveCall::None)
    name += std::string(" (which ") + collectiveCallName(made) +
            " made: the first collective call on a stream sets up its "
            "channel)";
  return name;
}

/// The streams symm_stream_create made, and those symm_stream_destroy
/// destroyed since (until a new stream takes their address), so that using a
/// destroyed stream is an error, not a crash or a hang. Other streams (a
/// compiled program's, or on cuda a driver stream made elsewhere) pass.
struct Streams {
  std::mutex mutex;
  std::set<symm_stream *> live, destroyed;
};
Streams &streams() {
  static Streams *s = new Streams;
  return *s;
}

std::atomic<void (*)(symm_stream *)> &streamDestroyHook() {
  static std::atomic<void (*)(symm_stream *)> hook{nullptr};
  return hook;
}

} // namespace

void symm::setStreamDestroyHook(void (*hook)(symm_stream *)) {
  streamDestroyHook() = hook;
}

const char *symm::collectiveCallName(CollectiveCall call) {
  switch (call) {
  case CollectiveCall::None:
    break;
  case CollectiveCall::AllGather:
    return "symm_all_gather";
  case CollectiveCall::AllReduce:
    return "symm_all_reduce";
  case CollectiveCall::ReduceScatter:
    return "symm_reduce_scatter";
  case CollectiveCall::AllToAll:
    return "symm_all_to_all";
  case CollectiveCall::AllToAllv:
    return "symm_all_to_allv";
  case CollectiveCall::Broadcast:
    return "symm_broadcast";
  }
  return "an unknown collective";
}

CollectiveCaller::CollectiveCaller(CollectiveCall call) : previous(caller) {
  caller = call;
}
CollectiveCaller::~CollectiveCaller() { caller = previous; }

bool symm::checkingCollectives() { return state().checkCollectives; }

symm_status symm::gatherCollectiveArguments(CollectiveCall call,
                                            const std::vector<uint64_t> &mine,
                                            std::vector<uint64_t> &all,
                                            uint64_t &seq) {
  std::lock_guard<std::mutex> lock(apiMutex());
  if (symm_status st = requireInit())
    return st;
  State &s = state();
  if (symm_status st = collective(Collective::Check, collectiveCallName(call),
                                  0, call, &seq))
    return st;
  all.assign(mine.size() * s.size, 0);
  return s.bootstrap->allgather(mine.data(), mine.size() * sizeof(uint64_t),
                                all.data());
}

symm_status symm::collective(Collective kind, const char *what, uint64_t value,
                             CollectiveCall call, uint64_t *seq) {
  State &s = state();
  if (kind != Collective::Check)
    call = caller;
  uint64_t mine[4] = {s.collectiveSeq++, static_cast<uint64_t>(kind), value,
                      static_cast<uint64_t>(call)};
  if (seq)
    *seq = mine[0];
  std::vector<uint64_t> all(4 * s.size);
  if (symm_status st = s.bootstrap->allgather(mine, sizeof(mine), all.data()))
    return st;
  for (int r = 0; r < s.size; ++r) {
    const uint64_t *theirs = &all[4 * r];
    if (theirs[0] != all[0] || theirs[1] != all[1] ||
        (kind == Collective::Check && theirs[3] != all[3]))
      return fail(SYMM_ERROR_ASYMMETRIC,
                  "mismatched collective calls: rank 0 called %s (collective "
                  "call #%llu), rank %d called %s (collective call #%llu); "
                  "every rank must make the same collective calls in the "
                  "same order",
                  collectiveName(all[1], all[3]).c_str(),
                  static_cast<unsigned long long>(all[0]), r,
                  collectiveName(theirs[1], theirs[3]).c_str(),
                  static_cast<unsigned long long>(theirs[0]));
    if (theirs[2] != all[2])
      return fail(SYMM_ERROR_ASYMMETRIC,
                  "asymmetric %s (collective call #%llu): rank 0 passed %llu, "
                  "rank %d passed %llu; every rank must make the same "
                  "collective calls in the same order with the same sizes",
                  what, static_cast<unsigned long long>(mine[0]),
                  static_cast<unsigned long long>(all[2]), r,
                  static_cast<unsigned long long>(theirs[2]));
  }
  return SYMM_SUCCESS;
}

symm_status symm::fail(symm_status status, const char *format, ...) {
  char buffer[1024];
  va_list args;
  va_start(args, format);
  vsnprintf(buffer, sizeof(buffer), format, args);
  va_end(args);
  snprintf(lastError, sizeof(lastError), "rank %d: %s", currentRank(), buffer);
  return status;
}

int symm::currentRank() {
  if (state().initialized)
    return state().rank;
  // Before initialisation (or after it failed), the rank the launcher gave.
  for (const char *n : kRankVariables)
    if (const char *v = env::get(n))
      return env::parseInt(v, 0, SYMM_MAX_RANKS - 1).value_or(-1);
  return 0;
}

double symm::timeoutSeconds() { return state().timeout; }

symm_kernel_context symm::kernelContext() {
  State &s = state();
  symm_kernel_context context{};
  context.rank = s.rank;
  context.world_size = s.size;
  for (int r = 0; r < s.size; ++r)
    context.heap_bases[r] = reinterpret_cast<uint64_t>(s.bases[r]);
  return context;
}

Backend *symm::initializedBackend() {
  if (!state().initialized && symm_init() != SYMM_SUCCESS)
    return nullptr;
  return state().backend.get();
}

symm_status symm::requireLiveStream(symm_stream *stream, const char *call) {
  if (!stream)
    return SYMM_SUCCESS;
  Streams &s = streams();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (s.destroyed.count(stream))
    return fail(SYMM_ERROR_INVALID_ARGUMENT,
                "%s: stream %p was destroyed (symm_stream_destroy)", call,
                static_cast<void *>(stream));
  return SYMM_SUCCESS;
}
extern "C" {

/// Ends what a failed symm_init started, so that nothing is left behind.
static symm_status abandonInit(symm_status status) {
  State &s = state();
  if (s.backend)
    s.backend->destroyHeap();
  unwatchPeers();
  s.bootstrap.reset(); // closes it, removing what a failed rendezvous left
  s.backend.reset();
  s.bases.clear();
  return status;
}

symm_status symm_init(void) {
  std::lock_guard<std::mutex> lock(apiMutex());
  State &s = state();
  if (s.initialized)
    return SYMM_SUCCESS;
  if (symm_status st = envInt(kRankVariables, 0, SYMM_MAX_RANKS - 1, 0, s.rank))
    return st;
  if (symm_status st = envInt(
          {env::kWorldSize, "OMPI_COMM_WORLD_SIZE", "WORLD_SIZE", "PMI_SIZE"},
          1, SYMM_MAX_RANKS, 1, s.size))
    return st;
  if (symm_status st =
          envInt({env::kLocalRank, "OMPI_COMM_WORLD_LOCAL_RANK", "LOCAL_RANK"},
                 0, SYMM_MAX_RANKS - 1, s.rank, s.localRank))
    return st;
  if (s.rank >= s.size)
    return fail(SYMM_ERROR_INVALID_ARGUMENT,
                "rank %d of world size %d is out of range (at most %d ranks)",
                s.rank, s.size, SYMM_MAX_RANKS);
  s.timeout = 60;
  if (const char *t = env::get(env::kTimeout)) {
    std::optional<double> seconds = env::parseSeconds(t);
    if (!seconds)
      return fail(SYMM_ERROR_INVALID_ARGUMENT, "%s",
                  env::describeSeconds(env::kTimeout, t).c_str());
    s.timeout = *seconds;
  }
  s.heapBytes = 1ull << 30;
  if (const char *h = env::get(env::kHeapSize)) {
    std::optional<size_t> bytes = env::parseSize(h);
    if (!bytes)
      return fail(SYMM_ERROR_INVALID_ARGUMENT, "%s",
                  env::describeSize(env::kHeapSize, h).c_str());
    s.heapBytes = *bytes;
  }
  s.heapBytes = (s.heapBytes + 4095) & ~size_t(4095);
  if (symm_status st =
          envSwitch(env::kCheckCollectives, false, s.checkCollectives))
    return st;
  if (symm_status st = envSwitch(env::kEarlyLaunch, true, s.earlyLaunch))
    return st;
  if (symm_status st = checkTraceEnvironment())
    return st;

  std::string backend =
      env::get(env::kBackend) ? env::get(env::kBackend) : symm_backend_at(0);
  const BackendInfo *info = findBackend(backend.c_str());
  if (!info)
    return fail(SYMM_ERROR_INVALID_ARGUMENT, "%s='%s' is not one of %s",
                env::kBackend, backend.c_str(), backendNames().c_str());
  if (symm_status st = createBootstrap(s.bootstrap))
    return st;
  Backend *b = info->create();
  if (!b)
    return SYMM_ERROR_UNAVAILABLE;
  s.backend.reset(b);
  if (symm_status st = s.backend->init(s.localRank))
    return abandonInit(st);
  if (symm_status st = s.bootstrap->connect(s.rank, s.size, s.timeout))
    return abandonInit(st);
  // Which ranks share a node: the peers watched, the heaps mapped.
  if (symm_status st = s.bootstrap->learnNodes())
    return abandonInit(st);
  if (symm_status st = watchPeers(*s.bootstrap))
    return abandonInit(st);
  if (symm_status st =
          s.backend->createHeap(s.heapBytes, *s.bootstrap, s.bases))
    return abandonInit(st);
  s.collectiveSeq = 0;
  s.initialized = true;
  return SYMM_SUCCESS;
}

symm_status symm_finalize(void) {
  std::lock_guard<std::mutex> lock(apiMutex());
  State &s = state();
  if (!s.initialized)
    return SYMM_SUCCESS;
  // Captures left open are abandoned, as when their streams are destroyed;
  // graphs go with the backend.
  discardGraphs();
  symm_status status = s.backend->synchronize();
  // Leaving is collective too: a rank that leaves while a peer waits in a
  // barrier, or still allocates, is an error on both.
  if (status == SYMM_SUCCESS)
    status = collective(Collective::Finalize, "symm_finalize", 0);
  if (status == SYMM_SUCCESS)
    status = writeTrace(s);
  releaseTrace(*s.backend);
  s.backend->destroyHeap();
  unwatchPeers();
  s.bootstrap.reset();
  s.backend.reset();
  s.allocations.clear();
  s.bases.clear();
  s.initialized = false;
  return status;
}

const char *symm_last_error(void) { return lastError; }

const char *symm_status_string(symm_status status) {
  switch (status) {
  case SYMM_SUCCESS:
    return "success";
  case SYMM_ERROR_INVALID_ARGUMENT:
    return "invalid argument";
  case SYMM_ERROR_NOT_INITIALIZED:
    return "not initialised";
  case SYMM_ERROR_TIMEOUT:
    return "timeout";
  case SYMM_ERROR_PEER_FAILED:
    return "peer failed";
  case SYMM_ERROR_OUT_OF_HEAP:
    return "out of heap";
  case SYMM_ERROR_ASYMMETRIC:
    return "asymmetric collective";
  case SYMM_ERROR_NOT_IN_HEAP:
    return "not in the symmetric heap";
  case SYMM_ERROR_BACKEND:
    return "backend error";
  case SYMM_ERROR_UNAVAILABLE:
    return "backend unavailable";
  }
  return "unknown status";
}

int symm_rank(void) { return state().rank; }
int symm_world_size(void) { return state().size; }
const char *symm_backend_name(void) {
  return state().backend ? state().backend->name() : "none";
}
symm_status symm_barrier(void) {
  std::lock_guard<std::mutex> lock(apiMutex());
  if (symm_status st = requireInit())
    return st;
  if (symm_status st = requireNoCapture("symm_barrier"))
    return st;
  if (symm_status st = state().backend->synchronize())
    return st;
  state().backend->barrier(false);
  if (symm_status st = collective(Collective::Barrier, "symm_barrier", 0))
    return st;
  state().backend->barrier(true);
  return SYMM_SUCCESS;
}

symm_status symm_get_kernel_context(symm_kernel_context *context) {
  if (symm_status st = requireInit())
    return st;
  if (!context)
    return fail(SYMM_ERROR_INVALID_ARGUMENT, "null kernel context pointer");
  *context = kernelContext();
  return SYMM_SUCCESS;
}

symm_status symm_stream_create(symm_stream **stream) {
  if (symm_status st = requireInit())
    return st;
  if (!stream)
    return fail(SYMM_ERROR_INVALID_ARGUMENT,
                "symm_stream_create: null result pointer");
  if (symm_status st =
          state().backend->streamCreate(reinterpret_cast<void **>(stream)))
    return st;
  Streams &s = streams();
  std::lock_guard<std::mutex> lock(s.mutex);
  s.live.insert(*stream);
  s.destroyed.erase(*stream);
  return SYMM_SUCCESS;
}
symm_status symm_stream_destroy(symm_stream *stream) {
  if (symm_status st = requireInit())
    return st;
  {
    Streams &s = streams();
    std::lock_guard<std::mutex> lock(s.mutex);
    if (!stream)
      return fail(SYMM_ERROR_INVALID_ARGUMENT,
                  "symm_stream_destroy: the default (null) stream cannot be "
                  "destroyed");
    if (!s.live.count(stream))
      return fail(SYMM_ERROR_INVALID_ARGUMENT,
                  "symm_stream_destroy: %p is not a live stream (%s)",
                  static_cast<void *>(stream),
                  s.destroyed.count(stream) ? "destroyed already"
                                            : "not made by symm_stream_create");
    s.live.erase(stream);
    s.destroyed.insert(stream);
  }
  discardCapture(stream);
  void (*hook)(symm_stream *) = streamDestroyHook();
  if (stream && hook) {
    // The hook's owner may reuse what the stream used once it is idle.
    if (symm_status st = state().backend->streamSynchronize(stream))
      return st;
    hook(stream);
  }
  return state().backend->streamDestroy(stream);
}
symm_status symm_stream_synchronize(symm_stream *stream) {
  if (symm_status st = requireInit())
    return st;
  if (symm_status st = requireLiveStream(stream, "symm_stream_synchronize"))
    return st;
  bool capturing;
  if (symm_status st = streamCapturing(stream, capturing))
    return st;
  if (capturing)
    return fail(SYMM_ERROR_INVALID_ARGUMENT,
                "symm_stream_synchronize: stream %p is being captured, so "
                "its work is only recorded; end the capture "
                "(symm_stream_end_capture) first",
                static_cast<void *>(stream));
  return state().backend->streamSynchronize(stream);
}
symm_status symm_synchronize(void) {
  if (symm_status st = requireInit())
    return st;
  if (symm_status st = requireNoCapture("symm_synchronize"))
    return st;
  return state().backend->synchronize();
}
// Allocating and freeing device memory may wait for the device.
symm_status symm_device_malloc(size_t bytes, void **ptr) {
  if (symm_status st = requireInit())
    return st;
  if (symm_status st = requireNoCapture("symm_device_malloc"))
    return st;
  return state().backend->memAlloc(bytes, false, ptr);
}
symm_status symm_device_free(void *ptr) {
  if (symm_status st = requireInit())
    return st;
  if (symm_status st = requireNoCapture("symm_device_free"))
    return st;
  return state().backend->memFree(ptr);
}
symm_status symm_memcpy(void *dst, const void *src, size_t bytes) {
  if (symm_status st = requireInit())
    return st;
  // It waits for the copy, which a GPU driver refuses during a capture.
  if (symm_status st = requireNoCapture("symm_memcpy"))
    return st;
  if (symm_status st = state().backend->memcpy(dst, src, bytes, nullptr))
    return st;
  return state().backend->streamSynchronize(nullptr);
}

} // extern "C"
