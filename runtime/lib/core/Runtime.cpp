//===- Runtime.cpp - Symm runtime state and C API ---------------*- C++ -*-===//

#include "Runtime.h"
#include "Manifest.h"

#include <algorithm>
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

/// One loaded module and what its manifest says.
struct ModuleRecord {
  void *handle = nullptr;
  Manifest manifest;
  std::map<std::string, void *> functions;
};

struct State {
  bool initialized = false;
  int rank = 0, size = 1, localRank = 0;
  double timeout = 60;
  std::unique_ptr<Backend> backend;
  Bootstrap bootstrap;
  std::vector<char *> bases;
  size_t heapBytes = 0;
  /// A rendezvous folder this job made for itself (not symm-run's).
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

const char *env(const char *name) {
  const char *v = getenv(name);
  return v && *v ? v : nullptr;
}

int envInt(std::initializer_list<const char *> names, int fallback) {
  for (const char *n : names)
    if (const char *v = env(n))
      return atoi(v);
  return fallback;
}

/// The rendezvous folder: symm-run's, or one derived from the launcher's job
/// identity so that every rank of the job finds the same one.
std::string rendezvousDir() {
  if (const char *dir = env("SYMM_RENDEZVOUS"))
    return dir;
  std::string job;
  for (const char *n : {"TORCHELASTIC_RUN_ID", "PMIX_NAMESPACE",
                        "OMPI_MCA_orte_ess_jobid", "MASTER_PORT"})
    if (const char *v = env(n)) {
      job = std::string(n) + "-" + v;
      break;
    }
  for (char &c : job)
    if (!isalnum(static_cast<unsigned char>(c)) && c != '-')
      c = '_';
  std::string dir = "/tmp/symm-" + std::to_string(getuid()) + "-" + job;
  mkdir(dir.c_str(), 0700);
  return dir;
}

symm_status requireInit() {
  if (!state().initialized)
    return fail(SYMM_ERROR_NOT_INITIALIZED,
                "the runtime is not initialised; call symm_init first");
  return SYMM_SUCCESS;
}

/// Collective check that every rank makes the same call with the same value.
symm_status checkSymmetric(const char *what, uint64_t value) {
  State &s = state();
  uint64_t mine[2] = {s.collectiveSeq++, value};
  std::vector<uint64_t> all(2 * s.size);
  if (symm_status st = s.bootstrap.allgather(mine, sizeof(mine), all.data()))
    return st;
  for (int r = 0; r < s.size; ++r)
    if (all[2 * r] != mine[0] || all[2 * r + 1] != all[1])
      return fail(SYMM_ERROR_ASYMMETRIC,
                  "asymmetric %s (collective call #%llu): rank 0 passed %llu, "
                  "rank %d passed %llu; every rank must make the same "
                  "collective calls in the same order with the same sizes",
                  what, static_cast<unsigned long long>(mine[0]),
                  static_cast<unsigned long long>(all[1]), r,
                  static_cast<unsigned long long>(all[2 * r + 1]));
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

int symm::currentRank() { return state().rank; }

size_t symm::parseSize(const char *text) {
  char *end = nullptr;
  double value = strtod(text, &end);
  if (end == text || value <= 0)
    return 0;
  switch (*end) {
  case 'k':
  case 'K':
    value *= 1024.0;
    ++end;
    break;
  case 'm':
  case 'M':
    value *= 1024.0 * 1024;
    ++end;
    break;
  case 'g':
  case 'G':
    value *= 1024.0 * 1024 * 1024;
    ++end;
    break;
  default:
    break;
  }
  if (*end == 'B' || *end == 'b')
    ++end;
  return *end ? 0 : static_cast<size_t>(value);
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

Backend &symm::backendOrDie() {
  if (!state().initialized && symm_init() != SYMM_SUCCESS) {
    fprintf(stderr, "symm: %s\n", lastError.c_str());
    exit(1);
  }
  return *state().backend;
}

extern "C" {

symm_status symm_init(void) {
  std::lock_guard<std::mutex> lock(apiMutex());
  State &s = state();
  if (s.initialized)
    return SYMM_SUCCESS;
  s.rank = envInt({"SYMM_RANK", "OMPI_COMM_WORLD_RANK", "RANK", "PMI_RANK"}, 0);
  s.size = envInt(
      {"SYMM_WORLD_SIZE", "OMPI_COMM_WORLD_SIZE", "WORLD_SIZE", "PMI_SIZE"}, 1);
  s.localRank = envInt(
      {"SYMM_LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_RANK", "LOCAL_RANK"}, s.rank);
  if (s.size < 1 || s.size > SYMM_MAX_RANKS || s.rank < 0 || s.rank >= s.size)
    return fail(SYMM_ERROR_INVALID_ARGUMENT,
                "rank %d of world size %d is out of range (at most %d ranks)",
                s.rank, s.size, SYMM_MAX_RANKS);
  if (const char *t = env("SYMM_TIMEOUT"))
    s.timeout = atof(t) > 0 ? atof(t) : 60;
  s.heapBytes = 1ull << 30;
  if (const char *h = env("SYMM_HEAP_SIZE")) {
    s.heapBytes = parseSize(h);
    if (s.heapBytes == 0)
      return fail(
          SYMM_ERROR_INVALID_ARGUMENT,
          "SYMM_HEAP_SIZE='%s' is not a size (e.g. 268435456, 256M, 1G)", h);
  }
  s.heapBytes = (s.heapBytes + 4095) & ~size_t(4095);

  std::string backend = env("SYMM_BACKEND") ? env("SYMM_BACKEND") : "host";
  Backend *b = nullptr;
  if (backend == "host")
    b = createHostBackend();
  else if (backend == "cuda")
    b = createCudaBackend();
  else if (backend == "hip")
    b = createHipBackend();
  else
    return fail(SYMM_ERROR_INVALID_ARGUMENT,
                "SYMM_BACKEND='%s' is not one of host, cuda, hip",
                backend.c_str());
  if (!b)
    return SYMM_ERROR_UNAVAILABLE;
  s.backend.reset(b);
  if (symm_status st = s.backend->init(s.localRank))
    return st;
  // A single rank meets nobody.
  std::string dir = s.size > 1 ? rendezvousDir() : "";
  if (s.size > 1 && !env("SYMM_RENDEZVOUS"))
    s.ownedDir = dir;
  if (symm_status st = s.bootstrap.connect(s.rank, s.size, dir, s.timeout))
    return st;
  if (symm_status st = s.backend->createHeap(s.heapBytes, s.bootstrap, s.bases))
    return st;
  s.initialized = true;
  return SYMM_SUCCESS;
}

symm_status symm_finalize(void) {
  std::lock_guard<std::mutex> lock(apiMutex());
  State &s = state();
  if (!s.initialized)
    return SYMM_SUCCESS;
  symm_status status = s.backend->synchronize();
  if (status == SYMM_SUCCESS)
    status = s.bootstrap.barrier();
  s.backend->destroyHeap();
  s.bootstrap.close();
  // Every rank has connected and left; the socket is gone, so the folder is
  // empty.
  if (s.rank == 0 && !s.ownedDir.empty())
    rmdir(s.ownedDir.c_str());
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
  if (symm_status st = checkSymmetric("symm_malloc size", bytes))
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
  auto it =
      std::find_if(s.allocations.begin(), s.allocations.end(),
                   [&](const Allocation &a) { return base + a.offset == p; });
  if (it == s.allocations.end())
    return fail(SYMM_ERROR_NOT_IN_HEAP,
                "symm_free(%p): not the start of a live symmetric allocation",
                ptr);
  if (symm_status st = checkSymmetric("symm_free offset", it->offset))
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
  return state().bootstrap.barrier();
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
  auto *record = reinterpret_cast<ModuleRecord *>(module);
  symm_status st = state().backend->unloadModule(record->handle);
  delete record;
  return st;
}

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
  if (record->manifest.loaded) {
    auto it = record->manifest.kernels.find(kernel);
    if (it == record->manifest.kernels.end()) {
      std::string known;
      for (auto &k : record->manifest.kernels)
        known += (known.empty() ? "" : ", ") + k.first;
      return fail(SYMM_ERROR_INVALID_ARGUMENT,
                  "no kernel '%s' in the module; it has: %s", kernel,
                  known.c_str());
    }
    if (it->second.params != numParams) {
      std::string args;
      for (auto &a : it->second.arguments)
        args += (args.empty() ? "" : ", ") + a;
      return fail(SYMM_ERROR_INVALID_ARGUMENT,
                  "kernel '%s' takes %zu parameters (arguments: %s; a memref "
                  "of rank r is 3 + 2r parameters), got %zu",
                  kernel, it->second.params, args.c_str(), numParams);
    }
  }
  for (int d = 0; d < 3; ++d)
    if (grid[d] == 0 || block[d] == 0)
      return fail(SYMM_ERROR_INVALID_ARGUMENT,
                  "kernel '%s': grid and block dimensions must be positive",
                  kernel);
  Backend &b = *state().backend;
  void *&function = record->functions[kernel];
  if (!function)
    if (symm_status st = b.getFunction(record->handle, kernel, &function)) {
      record->functions.erase(kernel);
      return st;
    }
  return b.launch(function, grid, block, static_cast<unsigned>(sharedBytes),
                  stream, params, numParams);
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
