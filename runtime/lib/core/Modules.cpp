//===- Modules.cpp - Loaded modules and kernel launches ---------*- C++ -*-===//
//
// A module is loaded by the backend and its kernel context written; launches
// are checked against the manifest symm-compile wrote beside it.
//
//===----------------------------------------------------------------------===//

#include "Manifest.h"
#include "RuntimeState.h"
#include "Trace.h"

#include <fstream>
#include <iterator>
#include <map>
#include <set>

using namespace symm;

namespace {
struct ModuleRecord;
} // namespace

/// A kernel of a loaded module, resolved on its first launch.
struct symm::Kernel {
  ModuleRecord *module;
  std::string name;
  void *function = nullptr;
  /// The backend's maxResident by (threads, dynamic shared bytes), asked
  /// once per shape: a co-resident kernel's launches check their grid
  /// against it.
  std::map<std::pair<unsigned, unsigned>, int64_t> resident = {};
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

/// The modules loaded and not yet unloaded, so that a module handle that is
/// not one (unloaded already, or never loaded) is an error, not a crash.
struct LiveModules {
  std::mutex mutex;
  std::set<ModuleRecord *> records;
};
LiveModules &liveModules() {
  static LiveModules *live = new LiveModules;
  return *live;
}

/// `module` as a record, or an error naming `call` when it is not a loaded
/// module.
symm_status liveModule(symm_module *module, const char *call,
                       ModuleRecord *&record) {
  if (!module)
    return fail(SYMM_ERROR_INVALID_ARGUMENT, "%s: null module", call);
  LiveModules &live = liveModules();
  std::lock_guard<std::mutex> lock(live.mutex);
  record = reinterpret_cast<ModuleRecord *>(module);
  if (!live.records.count(record))
    return fail(SYMM_ERROR_INVALID_ARGUMENT,
                "%s: %p is not a loaded module (unloaded already, or not "
                "returned by symm_module_load_*)",
                call, static_cast<void *>(module));
  return SYMM_SUCCESS;
}

/// Loads a module whose manifest `manifest` is (not loaded: none).
symm_status loadModule(const void *data, size_t size, Manifest manifest,
                       symm_module **module) {
  if (symm_status st = requireInit())
    return st;
  if (!data || size == 0 || !module)
    return fail(SYMM_ERROR_INVALID_ARGUMENT, "empty module");
  auto record = std::make_unique<ModuleRecord>();
  record->manifest = std::move(manifest);
  Backend &b = *state().backend;
  if (symm_status st = b.loadModule(data, size, &record->handle))
    return st;
  if (!record->manifest.contextArgument)
    if (symm_status st = b.writeContext(record->handle, kernelContext())) {
      b.unloadModule(record->handle);
      return st;
    }
  if (symm_status st = traceModuleLoaded(b, record->handle)) {
    b.unloadModule(record->handle);
    return st;
  }
  {
    LiveModules &live = liveModules();
    std::lock_guard<std::mutex> lock(live.mutex);
    live.records.insert(record.get());
  }
  *module = reinterpret_cast<symm_module *>(record.release());
  return SYMM_SUCCESS;
}

/// The error for a kernel the module's manifest does not list.
symm_status unknownKernel(const ModuleRecord &record, const char *name) {
  std::string known;
  for (auto &k : record.manifest.kernels)
    known += (known.empty() ? "" : ", ") + k.first;
  return fail(SYMM_ERROR_INVALID_ARGUMENT,
              "no kernel '%s' in the module; it has: %s", name, known.c_str());
}

/// `name`'s Kernel in `record`. Only kernels the module has get an entry: a
/// caller trying names one after another does not grow the table.
symm_status findKernel(ModuleRecord &record, const char *name,
                       Kernel *&entry) {
  std::lock_guard<std::mutex> lock(record.mutex);
  auto it = record.kernels.find(name);
  if (it == record.kernels.end()) {
    void *function = nullptr;
    if (symm_status st =
            state().backend->getFunction(record.handle, name, &function))
      return st;
    it = record.kernels.emplace(name, Kernel{&record, name, function}).first;
  }
  entry = &it->second;
  return SYMM_SUCCESS;
}

/// Checks a launch of `name` with `numParams` parameters against the
/// module's manifest; `info` is the kernel's entry (null without a manifest).
symm_status checkManifest(const ModuleRecord &record, const char *name,
                          size_t numParams, const KernelInfo *&info) {
  info = nullptr;
  if (!record.manifest.loaded)
    return SYMM_SUCCESS;
  auto it = record.manifest.kernels.find(name);
  if (it == record.manifest.kernels.end())
    return unknownKernel(record, name);
  if (it->second.params != numParams) {
    std::string args;
    for (auto &a : it->second.arguments)
      args += (args.empty() ? "" : ", ") + a;
    return fail(SYMM_ERROR_INVALID_ARGUMENT,
                "kernel '%s' takes %zu parameters (arguments: %s; a memref "
                "of rank r is 3 + 2r parameters), got %zu",
                name, it->second.params, args.c_str(), numParams);
  }
  info = &it->second;
  return SYMM_SUCCESS;
}

/// Backends take dynamic shared memory as 32 bits (as the GPU drivers do);
/// each checks its own, far lower, limit.
symm_status checkSharedBytes(const char *name, size_t sharedBytes) {
  if (sharedBytes > UINT32_MAX)
    return fail(SYMM_ERROR_INVALID_ARGUMENT,
                "kernel '%s': %zu bytes of dynamic shared memory; a launch "
                "takes at most 4294967295 (and a device far fewer)",
                name, sharedBytes);
  return SYMM_SUCCESS;
}

/// Resolves `kernel` on the backend and, for workgroups of `threads`
/// threads and `sharedBytes` of dynamic shared memory, how many the device
/// holds at once (`resident`, asked once per shape; null: not asked).
/// Callers have checked `threads` is positive.
symm_status resolveKernel(Kernel &kernel, unsigned threads,
                          unsigned sharedBytes, void *&function,
                          int64_t *resident) {
  ModuleRecord &record = *kernel.module;
  Backend &b = *state().backend;
  std::lock_guard<std::mutex> lock(record.mutex);
  if (!kernel.function)
    if (symm_status st =
            b.getFunction(record.handle, kernel.name.c_str(), &kernel.function))
      return st;
  function = kernel.function;
  if (!resident)
    return SYMM_SUCCESS;
  auto [it, added] =
      kernel.resident.try_emplace(std::make_pair(threads, sharedBytes), 0);
  if (added)
    if (symm_status st = b.maxResident(function, kernel.name.c_str(), threads,
                                       sharedBytes, &it->second)) {
      kernel.resident.erase(it);
      return st;
    }
  *resident = it->second;
  return SYMM_SUCCESS;
}

/// The refusal of a launch of a co-resident kernel whose grid the device
/// cannot hold at once: on a GPU it would hang, on CPU ranks end in the
/// deadlock report.
symm_status refuseGrid(const char *name, uint64_t workgroups, uint64_t threads,
                       unsigned sharedBytes, int64_t resident) {
  if (resident == 0)
    return fail(SYMM_ERROR_INVALID_ARGUMENT,
                "kernel '%s' needs all its workgroups resident at once "
                "(symm.co_resident), but this rank's device holds not one "
                "of its %llu workgroups of %llu threads with %u bytes of "
                "dynamic shared memory; use fewer threads, registers or "
                "shared memory per workgroup",
                name, static_cast<unsigned long long>(workgroups),
                static_cast<unsigned long long>(threads), sharedBytes);
  return fail(SYMM_ERROR_INVALID_ARGUMENT,
              "kernel '%s' needs all its workgroups resident at once "
              "(symm.co_resident), but its grid of %llu workgroups of %llu "
              "threads with %u bytes of dynamic shared memory exceeds the "
              "%lld this rank's device holds at once; launch at most %lld "
              "workgroups (symm_kernel_max_resident), or fewer threads, "
              "registers or shared memory per workgroup",
              name, static_cast<unsigned long long>(workgroups),
              static_cast<unsigned long long>(threads), sharedBytes,
              static_cast<long long>(resident),
              static_cast<long long>(resident));
}

} // namespace

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
  const KernelInfo *info;
  if (symm_status st = checkManifest(record, name, numParams, info))
    return st;
  if (symm_status st = requireLiveStream(stream, "symm_launch"))
    return st;
  if (!grid || !block)
    return fail(SYMM_ERROR_INVALID_ARGUMENT,
                "kernel '%s': null grid or block dimensions", name);
  for (int d = 0; d < 3; ++d)
    if (grid[d] == 0 || block[d] == 0)
      return fail(SYMM_ERROR_INVALID_ARGUMENT,
                  "kernel '%s': grid and block dimensions must be positive",
                  name);
  if (numParams && !params)
    return fail(SYMM_ERROR_INVALID_ARGUMENT,
                "kernel '%s': %zu parameters but a null params array", name,
                numParams);
  for (size_t i = 0; i < numParams; ++i)
    if (!params[i])
      return fail(SYMM_ERROR_INVALID_ARGUMENT,
                  "kernel '%s': params[%zu] is null; each entry points at "
                  "the value of one parameter",
                  name, i);
  if (symm_status st = checkSharedBytes(name, sharedBytes))
    return st;
  unsigned shared = static_cast<unsigned>(sharedBytes);
  uint64_t workgroups = uint64_t(grid[0]) * grid[1] * grid[2];
  uint64_t threads = uint64_t(block[0]) * block[1] * block[2];
  bool coResident = info && info->coResident;
  // Blocks of 2^32 threads or more fit nowhere; the backend's launch says so.
  coResident &= threads <= UINT32_MAX;
  void *function;
  int64_t resident = 0;
  if (symm_status st =
          resolveKernel(*kernel, static_cast<unsigned>(threads), shared,
                        function, coResident ? &resident : nullptr))
    return st;
  // Checked here, so that a launch recorded into a graph is refused too.
  if (coResident && workgroups > uint64_t(resident))
    return refuseGrid(name, workgroups, threads, shared, resident);
  Backend &b = *state().backend;
  bool early = info && info->earlyLaunch && state().earlyLaunch;
  if (symm_status st = b.launch(function, grid, block, shared, stream, params,
                                numParams, early))
    return st;
  noteLaunch(stream, reinterpret_cast<symm_module *>(&record));
  return SYMM_SUCCESS;
}

symm_status symm::loadModuleData(const void *data, size_t size,
                                 const std::string &manifest,
                                 const std::string &source,
                                 symm_module **module) {
  if (symm_status st = requireNoCapture("symm_module_load_data"))
    return st;
  Manifest parsed;
  std::string error;
  if (!parseManifest(manifest, source, parsed, error))
    return fail(SYMM_ERROR_INVALID_ARGUMENT, "%s", error.c_str());
  return loadModule(data, size, std::move(parsed), module);
}

extern "C" {

symm_status symm_module_load_data(const void *data, size_t size,
                                  symm_module **module) {
  // Loading writes the kernel context with a copy that waits for the device.
  if (symm_status st = requireNoCapture("symm_module_load_data"))
    return st;
  return loadModule(data, size, Manifest(), module);
}

symm_status symm_module_load_file(const char *path, symm_module **module) {
  if (symm_status st = requireNoCapture("symm_module_load_file"))
    return st;
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return fail(SYMM_ERROR_INVALID_ARGUMENT, "cannot open module '%s'", path);
  std::string bytes((std::istreambuf_iterator<char>(in)),
                    std::istreambuf_iterator<char>());
  Manifest manifest;
  std::string error;
  if (!readManifest(std::string(path) + ".json", manifest, error) &&
      !error.empty())
    return fail(SYMM_ERROR_INVALID_ARGUMENT, "%s", error.c_str());
  return loadModule(bytes.data(), bytes.size(), std::move(manifest), module);
}

symm_status symm_module_unload(symm_module *module) {
  if (symm_status st = requireInit())
    return st;
  ModuleRecord *record;
  if (symm_status st = liveModule(module, "symm_module_unload", record))
    return st;
  if (symm_status st = requireNoCapture("symm_module_unload"))
    return st;
  // A graph's launches would call into the unloaded code, and so would
  // launches still queued.
  if (symm_status st = requireNoGraphUses(module))
    return st;
  if (symm_status st = state().backend->synchronize())
    return st;
  {
    LiveModules &live = liveModules();
    std::lock_guard<std::mutex> lock(live.mutex);
    live.records.erase(record);
  }
  symm_status st = state().backend->unloadModule(record->handle);
  delete record;
  return st;
}

symm_status symm_kernel_max_resident(symm_module *module, const char *kernel,
                                     unsigned threads, size_t sharedBytes,
                                     int64_t *workgroups) {
  if (symm_status st = requireInit())
    return st;
  ModuleRecord *record;
  if (symm_status st =
          liveModule(module, "symm_kernel_max_resident", record))
    return st;
  if (!kernel || !workgroups)
    return fail(SYMM_ERROR_INVALID_ARGUMENT,
                "symm_kernel_max_resident: null kernel name or result");
  if (threads == 0)
    return fail(SYMM_ERROR_INVALID_ARGUMENT,
                "kernel '%s': workgroups of 0 threads; a workgroup has at "
                "least one",
                kernel);
  if (symm_status st = checkSharedBytes(kernel, sharedBytes))
    return st;
  if (record->manifest.loaded && !record->manifest.kernels.count(kernel))
    return unknownKernel(*record, kernel);
  Kernel *entry;
  if (symm_status st = findKernel(*record, kernel, entry))
    return st;
  void *function;
  if (symm_status st = resolveKernel(*entry, threads,
                                     static_cast<unsigned>(sharedBytes),
                                     function, workgroups))
    return st;
  return SYMM_SUCCESS;
}

symm_status symm_device_multiprocessors(int *count) {
  if (symm_status st = requireInit())
    return st;
  if (!count)
    return fail(SYMM_ERROR_INVALID_ARGUMENT,
                "symm_device_multiprocessors: null result");
  return state().backend->multiprocessors(count);
}

symm_status symm_launch(symm_module *module, const char *kernel,
                        const unsigned grid[3], const unsigned block[3],
                        size_t sharedBytes, symm_stream *stream, void **params,
                        size_t numParams) {
  if (symm_status st = requireInit())
    return st;
  ModuleRecord *record;
  if (symm_status st = liveModule(module, "symm_launch", record))
    return st;
  if (!kernel)
    return fail(SYMM_ERROR_INVALID_ARGUMENT, "symm_launch: null kernel name");
  const KernelInfo *info;
  if (symm_status st = checkManifest(*record, kernel, numParams, info))
    return st;
  Kernel *entry;
  if (symm_status st = findKernel(*record, kernel, entry))
    return st;
  return launchKernel(entry, grid, block, sharedBytes, stream, params,
                      numParams);
}

} // extern "C"
