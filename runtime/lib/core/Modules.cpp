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

/// Checks a launch of `name` with `numParams` parameters against the
/// module's manifest; `info` is the kernel's entry (null without a manifest).
symm_status checkManifest(const ModuleRecord &record, const char *name,
                          size_t numParams, const KernelInfo *&info) {
  info = nullptr;
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
  info = &it->second;
  return SYMM_SUCCESS;
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
  // Backends take the size as 32 bits (as the GPU drivers do); each checks
  // its own, far lower, limit.
  if (sharedBytes > UINT32_MAX)
    return fail(SYMM_ERROR_INVALID_ARGUMENT,
                "kernel '%s': %zu bytes of dynamic shared memory; a launch "
                "takes at most 4294967295 (and a device far fewer)",
                name, sharedBytes);
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
  bool early = info && info->earlyLaunch && state().earlyLaunch;
  if (symm_status st =
          b.launch(function, grid, block, static_cast<unsigned>(sharedBytes),
                   stream, params, numParams, early))
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

} // extern "C"
