//===- Runtime.cpp - Symm runtime state and C API ---------------*- C++ -*-===//

#include "Runtime.h"
#include "Environment.h"
#include "Manifest.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <mutex>
#include <sys/stat.h>
#include <unistd.h>

using namespace symm;

namespace {

constexpr size_t kAllocationAlignment = 256;

struct Allocation {
  size_t offset, bytes;
};

struct ModuleRecord;

} // namespace

/// A kernel of a loaded module, resolved on its first launch.
struct symm::Kernel {
  ModuleRecord *module;
  std::string name;
  void *function = nullptr;
};

namespace {

/// One loaded module, what its manifest says, and its kernels by name. Host
/// threads may launch from one module at once: `mutex` guards `kernels`.
struct ModuleRecord {
  void *handle = nullptr;
  Manifest manifest;
  std::mutex mutex;
  /// A map, so that a Kernel's address is stable while the module lives.
  std::map<std::string, Kernel> kernels;
};

struct State {
  bool initialized = false;
  int rank = 0, size = 1, localRank = 0;
  double timeout = 60;
  std::unique_ptr<Backend> backend;
  Bootstrap bootstrap;
  std::vector<char *> bases;
  size_t heapBytes = 0;
  /// The rendezvous folder derived from the job's identity (not symm-run's),
  /// while this rank may have to remove it.
  std::string ownedDir;
  std::vector<Allocation> allocations; // live, sorted by offset
  uint64_t collectiveSeq = 0;
};

// Never destroyed: compiled programs use the runtime from static destructors.
State &state() {
  static State *s = new State;
  return *s;
}
std::mutex &apiMutex() {
  static std::mutex *m = new std::mutex;
  return *m;
}
thread_local std::string lastError;

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

const std::initializer_list<const char *> kRankVariables = {
    env::kRank, "OMPI_COMM_WORLD_RANK", "RANK", "PMI_RANK"};

/// A folder only this user can write into: created (0700) when missing,
/// checked when it exists, since whoever can write into it can take the
/// rendezvous socket's place.
symm_status privateFolder(const std::string &dir, bool create) {
  if (create && mkdir(dir.c_str(), 0700) == 0)
    return SYMM_SUCCESS;
  if (create && errno != EEXIST)
    return fail(SYMM_ERROR_BACKEND,
                "cannot create the rendezvous folder %s: %s", dir.c_str(),
                strerror(errno));
  struct stat info {};
  if (lstat(dir.c_str(), &info) != 0)
    return fail(SYMM_ERROR_INVALID_ARGUMENT, "the rendezvous folder %s: %s",
                dir.c_str(), strerror(errno));
  if (!S_ISDIR(info.st_mode))
    return fail(SYMM_ERROR_INVALID_ARGUMENT,
                "the rendezvous folder %s is not a folder", dir.c_str());
  if (info.st_uid != geteuid())
    return fail(SYMM_ERROR_INVALID_ARGUMENT,
                "the rendezvous folder %s belongs to uid %u, not to this user "
                "(uid %u); remove it or give the job another id",
                dir.c_str(), static_cast<unsigned>(info.st_uid),
                static_cast<unsigned>(geteuid()));
  if (info.st_mode & (S_IWGRP | S_IWOTH))
    return fail(SYMM_ERROR_INVALID_ARGUMENT,
                "the rendezvous folder %s is writable by other users (mode "
                "%03o); it must be private to this user (0700)",
                dir.c_str(), static_cast<unsigned>(info.st_mode & 0777));
  return SYMM_SUCCESS;
}

/// The rendezvous folder: symm-run's, or one derived from the launcher's job
/// identity so that every rank of the job finds the same one (`derived`).
symm_status rendezvousDir(std::string &dir, bool &derived) {
  derived = false;
  if (const char *given = env::get(env::kRendezvous)) {
    dir = given;
    return privateFolder(dir, /*create=*/false);
  }
  std::string job;
  for (const char *n : {"TORCHELASTIC_RUN_ID", "PMIX_NAMESPACE",
                        "OMPI_MCA_orte_ess_jobid", "MASTER_PORT"})
    if (const char *v = env::get(n)) {
      job = std::string(n) + "-" + v;
      break;
    }
  for (char &c : job)
    if (!isalnum(static_cast<unsigned char>(c)) && c != '-')
      c = '_';
  dir = "/tmp/symm-" + std::to_string(getuid()) + "-" + job;
  derived = true;
  return privateFolder(dir, /*create=*/true);
}

symm_status requireInit() {
  if (!state().initialized)
    return fail(SYMM_ERROR_NOT_INITIALIZED,
                "the runtime is not initialised; call symm_init first");
  return SYMM_SUCCESS;
}

/// The collective calls, as ranks compare them.
enum class Collective : uint64_t { Malloc = 1, Free, Barrier, Finalize };

const char *collectiveName(uint64_t kind) {
  switch (static_cast<Collective>(kind)) {
  case Collective::Malloc:
    return "symm_malloc";
  case Collective::Free:
    return "symm_free";
  case Collective::Barrier:
    return "symm_barrier";
  case Collective::Finalize:
    return "symm_finalize";
  }
  return "an unknown collective";
}

/// Every rank's collective call meets the others'. It fails on every rank when
/// a rank made another call (a barrier against a finalize, a malloc against a
/// free) or passed another `value` (a size, an offset).
symm_status collective(Collective kind, const char *what, uint64_t value) {
  State &s = state();
  uint64_t mine[3] = {s.collectiveSeq++, static_cast<uint64_t>(kind), value};
  std::vector<uint64_t> all(3 * s.size);
  if (symm_status st = s.bootstrap.allgather(mine, sizeof(mine), all.data()))
    return st;
  for (int r = 0; r < s.size; ++r) {
    const uint64_t *theirs = &all[3 * r];
    if (theirs[0] != all[0] || theirs[1] != all[1])
      return fail(SYMM_ERROR_ASYMMETRIC,
                  "mismatched collective calls: rank 0 called %s (collective "
                  "call #%llu), rank %d called %s (collective call #%llu); "
                  "every rank must make the same collective calls in the "
                  "same order",
                  collectiveName(all[1]),
                  static_cast<unsigned long long>(all[0]), r,
                  collectiveName(theirs[1]),
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

} // namespace

symm_status symm::fail(symm_status status, const char *format, ...) {
  char buffer[1024];
  va_list args;
  va_start(args, format);
  vsnprintf(buffer, sizeof(buffer), format, args);
  va_end(args);
  lastError = "rank " + std::to_string(currentRank()) + ": " + buffer;
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

extern "C" {

/// Ends what a failed symm_init started, so that nothing is left behind.
static symm_status abandonInit(symm_status status) {
  State &s = state();
  if (s.backend)
    s.backend->destroyHeap();
  s.bootstrap.close();
  s.backend.reset();
  s.bases.clear();
  // The folder empties once rank 0 has gone; the last rank to fail removes it.
  if (!s.ownedDir.empty())
    rmdir(s.ownedDir.c_str());
  s.ownedDir.clear();
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

  std::string backend =
      env::get(env::kBackend) ? env::get(env::kBackend) : "host";
  Backend *b = nullptr;
  if (backend == "host")
    b = createHostBackend();
  else if (backend == "cuda")
    b = createCudaBackend();
  else if (backend == "hip")
    b = createHipBackend();
  else
    return fail(SYMM_ERROR_INVALID_ARGUMENT,
                "%s='%s' is not one of host, cuda, hip", env::kBackend,
                backend.c_str());
  if (!b)
    return SYMM_ERROR_UNAVAILABLE;
  s.backend.reset(b);
  if (symm_status st = s.backend->init(s.localRank))
    return abandonInit(st);
  // A single rank meets nobody.
  std::string dir;
  if (s.size > 1) {
    bool derived = false;
    if (symm_status st = rendezvousDir(dir, derived))
      return abandonInit(st);
    if (derived)
      s.ownedDir = dir;
  }
  if (symm_status st = s.bootstrap.connect(s.rank, s.size, dir, s.timeout))
    return abandonInit(st);
  // Every rank has connected and rank 0 has unlinked the socket: the folder
  // is empty, and a job that fails later leaves nothing behind.
  if (s.rank == 0 && !s.ownedDir.empty())
    rmdir(s.ownedDir.c_str());
  s.ownedDir.clear();
  if (symm_status st = s.backend->createHeap(s.heapBytes, s.bootstrap, s.bases))
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
  symm_status status = s.backend->synchronize();
  // Leaving is collective too: a rank that leaves while a peer waits in a
  // barrier, or still allocates, is an error on both.
  if (status == SYMM_SUCCESS)
    status = collective(Collective::Finalize, "symm_finalize", 0);
  s.backend->destroyHeap();
  s.bootstrap.close();
  s.backend.reset();
  s.allocations.clear();
  s.bases.clear();
  s.initialized = false;
  return status;
}

const char *symm_last_error(void) { return lastError.c_str(); }

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
size_t symm_heap_size(void) { return state().heapBytes; }

size_t symm_heap_free(void) {
  State &s = state();
  size_t used = 0;
  for (const Allocation &a : s.allocations)
    used += a.bytes;
  return s.heapBytes - used;
}

symm_status symm_malloc(size_t bytes, void **ptr) {
  std::lock_guard<std::mutex> lock(apiMutex());
  if (symm_status st = requireInit())
    return st;
  if (!ptr)
    return fail(SYMM_ERROR_INVALID_ARGUMENT,
                "symm_malloc: null result pointer");
  State &s = state();
  if (symm_status st =
          collective(Collective::Malloc, "symm_malloc size", bytes))
    return st;
  size_t rounded = std::max<size_t>((bytes + kAllocationAlignment - 1) &
                                        ~(kAllocationAlignment - 1),
                                    kAllocationAlignment);
  // First fit over the gaps between live allocations: every rank computes
  // the same offset from the same history.
  size_t offset = 0, largest = 0;
  auto it = s.allocations.begin();
  for (; it != s.allocations.end(); ++it) {
    if (it->offset - offset >= rounded)
      break;
    largest = std::max(largest, it->offset - offset);
    offset = it->offset + it->bytes;
  }
  if (it == s.allocations.end() && s.heapBytes - offset < rounded) {
    largest = std::max(largest, s.heapBytes - offset);
    return fail(SYMM_ERROR_OUT_OF_HEAP,
                "symm_malloc of %zu bytes does not fit in the symmetric heap: "
                "%zu of %zu bytes are free, the largest free block is %zu "
                "bytes; raise SYMM_HEAP_SIZE",
                bytes, symm_heap_free(), s.heapBytes, largest);
  }
  s.allocations.insert(it, Allocation{offset, rounded});
  *ptr = s.bases[s.rank] + offset;
  return SYMM_SUCCESS;
}

symm_status symm_free(void *ptr) {
  std::lock_guard<std::mutex> lock(apiMutex());
  if (symm_status st = requireInit())
    return st;
  State &s = state();
  char *p = static_cast<char *>(ptr);
  char *base = s.bases[s.rank];
  if (p < base || p >= base + s.heapBytes)
    return fail(SYMM_ERROR_NOT_IN_HEAP,
                "symm_free(%p): not in this rank's symmetric heap [%p, %p)",
                ptr, static_cast<void *>(base),
                static_cast<void *>(base + s.heapBytes));
  auto it =
      std::find_if(s.allocations.begin(), s.allocations.end(),
                   [&](const Allocation &a) { return base + a.offset == p; });
  if (it == s.allocations.end())
    return fail(SYMM_ERROR_INVALID_ARGUMENT,
                "symm_free(%p): offset %zu of the symmetric heap is not the "
                "start of a live allocation",
                ptr, static_cast<size_t>(p - base));
  if (symm_status st =
          collective(Collective::Free, "symm_free offset", it->offset))
    return st;
  // Work still in flight may use the buffer.
  if (symm_status st = s.backend->synchronize())
    return st;
  s.allocations.erase(it);
  return SYMM_SUCCESS;
}

symm_status symm_barrier(void) {
  std::lock_guard<std::mutex> lock(apiMutex());
  if (symm_status st = requireInit())
    return st;
  if (symm_status st = state().backend->synchronize())
    return st;
  return collective(Collective::Barrier, "symm_barrier", 0);
}

symm_status symm_heap_base(int rank, void **base) {
  if (symm_status st = requireInit())
    return st;
  State &s = state();
  if (rank < 0 || rank >= s.size)
    return fail(SYMM_ERROR_INVALID_ARGUMENT,
                "rank %d is out of range (world size %d)", rank, s.size);
  *base = s.bases[rank];
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

symm_status symm_translate(const void *local, int peer, void **remote) {
  if (symm_status st = requireInit())
    return st;
  State &s = state();
  if (peer < 0 || peer >= s.size)
    return fail(SYMM_ERROR_INVALID_ARGUMENT,
                "peer %d is out of range (world size %d)", peer, s.size);
  const char *p = static_cast<const char *>(local);
  char *base = s.bases[s.rank];
  if (p < base || p >= base + s.heapBytes)
    return fail(SYMM_ERROR_NOT_IN_HEAP,
                "%p is not in this rank's symmetric heap [%p, %p)", local,
                static_cast<void *>(base),
                static_cast<void *>(base + s.heapBytes));
  *remote = s.bases[peer] + (p - base);
  return SYMM_SUCCESS;
}

static symm_status loadModule(const void *data, size_t size,
                              const std::string &manifestPath,
                              symm_module **module) {
  if (symm_status st = requireInit())
    return st;
  if (!data || size == 0 || !module)
    return fail(SYMM_ERROR_INVALID_ARGUMENT, "empty module");
  auto record = std::make_unique<ModuleRecord>();
  if (!manifestPath.empty()) {
    std::string error;
    if (!readManifest(manifestPath, record->manifest, error) && !error.empty())
      return fail(SYMM_ERROR_INVALID_ARGUMENT, "%s", error.c_str());
  }
  Backend &b = *state().backend;
  if (symm_status st = b.loadModule(data, size, &record->handle))
    return st;
  if (!record->manifest.contextArgument)
    if (symm_status st = b.writeContext(record->handle, kernelContext())) {
      b.unloadModule(record->handle);
      return st;
    }
  *module = reinterpret_cast<symm_module *>(record.release());
  return SYMM_SUCCESS;
}

symm_status symm_module_load_data(const void *data, size_t size,
                                  symm_module **module) {
  return loadModule(data, size, "", module);
}

symm_status symm_module_load_file(const char *path, symm_module **module) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return fail(SYMM_ERROR_INVALID_ARGUMENT, "cannot open module '%s'", path);
  std::string bytes((std::istreambuf_iterator<char>(in)),
                    std::istreambuf_iterator<char>());
  return loadModule(bytes.data(), bytes.size(), std::string(path) + ".json",
                    module);
}

symm_status symm_module_unload(symm_module *module) {
  if (symm_status st = requireInit())
    return st;
  if (!module)
    return fail(SYMM_ERROR_INVALID_ARGUMENT, "symm_module_unload: null module");
  auto *record = reinterpret_cast<ModuleRecord *>(module);
  symm_status st = state().backend->unloadModule(record->handle);
  delete record;
  return st;
}

} // extern "C"

/// Checks a launch of `name` against the module's manifest, when it has one.
static symm_status checkManifest(const ModuleRecord &record, const char *name,
                                 size_t numParams) {
  if (!record.manifest.loaded)
    return SYMM_SUCCESS;
  auto it = record.manifest.kernels.find(name);
  if (it == record.manifest.kernels.end()) {
    std::string known;
    for (auto &k : record.manifest.kernels)
      known += (known.empty() ? "" : ", ") + k.first;
    return fail(SYMM_ERROR_INVALID_ARGUMENT,
                "no kernel '%s' in the module; it has: %s", name,
                known.c_str());
  }
  if (it->second.params != numParams) {
    std::string args;
    for (auto &a : it->second.arguments)
      args += (args.empty() ? "" : ", ") + a;
    return fail(SYMM_ERROR_INVALID_ARGUMENT,
                "kernel '%s' takes %zu parameters (arguments: %s; a memref "
                "of rank r is 3 + 2r parameters), got %zu",
                name, it->second.params, args.c_str(), numParams);
  }
  return SYMM_SUCCESS;
}

Kernel *symm::moduleKernel(symm_module *module, const char *name) {
  if (!module || !name)
    return nullptr;
  auto *record = reinterpret_cast<ModuleRecord *>(module);
  std::lock_guard<std::mutex> lock(record->mutex);
  auto it = record->kernels.try_emplace(name, Kernel{record, name}).first;
  return &it->second;
}

const char *symm::kernelName(const Kernel *kernel) {
  return kernel->name.c_str();
}

symm_status symm::launchKernel(Kernel *kernel, const unsigned grid[3],
                               const unsigned block[3], size_t sharedBytes,
                               symm_stream *stream, void **params,
                               size_t numParams) {
  if (symm_status st = requireInit())
    return st;
  if (!kernel)
    return fail(SYMM_ERROR_INVALID_ARGUMENT,
                "symm_launch: null module or name");
  const char *name = kernel->name.c_str();
  ModuleRecord &record = *kernel->module;
  if (symm_status st = checkManifest(record, name, numParams))
    return st;
  for (int d = 0; d < 3; ++d)
    if (grid[d] == 0 || block[d] == 0)
      return fail(SYMM_ERROR_INVALID_ARGUMENT,
                  "kernel '%s': grid and block dimensions must be positive",
                  name);
  Backend &b = *state().backend;
  void *function;
  {
    std::lock_guard<std::mutex> lock(record.mutex);
    if (!kernel->function)
      if (symm_status st =
              b.getFunction(record.handle, name, &kernel->function))
        return st;
    function = kernel->function;
  }
  return b.launch(function, grid, block, static_cast<unsigned>(sharedBytes),
                  stream, params, numParams);
}

extern "C" {

symm_status symm_launch(symm_module *module, const char *kernel,
                        const unsigned grid[3], const unsigned block[3],
                        size_t sharedBytes, symm_stream *stream, void **params,
                        size_t numParams) {
  if (symm_status st = requireInit())
    return st;
  if (!module || !kernel)
    return fail(SYMM_ERROR_INVALID_ARGUMENT,
                "symm_launch: null module or name");
  auto *record = reinterpret_cast<ModuleRecord *>(module);
  if (symm_status st = checkManifest(*record, kernel, numParams))
    return st;
  // Only kernels the module has get an entry: a caller trying names one
  // after another does not grow the table.
  Kernel *entry;
  {
    std::lock_guard<std::mutex> lock(record->mutex);
    auto it = record->kernels.find(kernel);
    if (it == record->kernels.end()) {
      void *function = nullptr;
      if (symm_status st =
              state().backend->getFunction(record->handle, kernel, &function))
        return st;
      it = record->kernels.emplace(kernel, Kernel{record, kernel, function})
               .first;
    }
    entry = &it->second;
  }
  return launchKernel(entry, grid, block, sharedBytes, stream, params,
                      numParams);
}

symm_status symm_stream_create(symm_stream **stream) {
  if (symm_status st = requireInit())
    return st;
  return state().backend->streamCreate(reinterpret_cast<void **>(stream));
}
symm_status symm_stream_destroy(symm_stream *stream) {
  if (symm_status st = requireInit())
    return st;
  return state().backend->streamDestroy(stream);
}
symm_status symm_stream_synchronize(symm_stream *stream) {
  if (symm_status st = requireInit())
    return st;
  return state().backend->streamSynchronize(stream);
}
symm_status symm_synchronize(void) {
  if (symm_status st = requireInit())
    return st;
  return state().backend->synchronize();
}
symm_status symm_device_malloc(size_t bytes, void **ptr) {
  if (symm_status st = requireInit())
    return st;
  return state().backend->memAlloc(bytes, false, ptr);
}
symm_status symm_device_free(void *ptr) {
  if (symm_status st = requireInit())
    return st;
  return state().backend->memFree(ptr);
}
symm_status symm_memcpy(void *dst, const void *src, size_t bytes) {
  if (symm_status st = requireInit())
    return st;
  if (symm_status st = state().backend->memcpy(dst, src, bytes, nullptr))
    return st;
  return state().backend->streamSynchronize(nullptr);
}

} // extern "C"
