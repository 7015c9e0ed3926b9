//===- GpuBackend.cpp - A backend over a CUDA-like device API ---*- C++ -*-===//
//
// The heap is one device allocation per rank, exported with IPC handles that
// every peer opens; modules are loaded by the driver and their context global
// written with a host-to-device copy.
//
//===----------------------------------------------------------------------===//

#include "GpuBackend.h"

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstring>
#include <ctime>
#include <mutex>
#include <string_view>
#include <thread>
#include <vector>

using namespace symm;

namespace {

constexpr size_t kIpcHandleBytes = 64;
/// How often a wait for the device asks whether a peer has exited.
constexpr std::chrono::milliseconds kPeerCheckInterval(100);

class GpuBackend : public Backend {
public:
  explicit GpuBackend(GpuApi api) : api(std::move(api)) {}
  /// Finalisation ends here: the descriptors kernels no longer read go.
  ~GpuBackend() override {
    if (tensorMaps.empty())
      return;
    api.makeCurrent();
    for (void *map : tensorMaps)
      api.memFree(map);
  }
  const char *name() const override { return api.name.c_str(); }

  symm_status check(int code, const char *what) {
    if (code == 0)
      return SYMM_SUCCESS;
    return fail(SYMM_ERROR_BACKEND, "%s: %s failed: %s (%d)", api.name.c_str(),
                what, api.errorString(code), code);
  }

  /// Waits until `query` says the work is done, polling (the drivers' own
  /// synchronisation spins too), and ends the wait when a peer process has
  /// exited: a kernel waiting for that peer would never finish, and a GPU
  /// kernel cannot be interrupted. The device runs it until this process
  /// exits, which a compiled program does at once.
  symm_status waitFor(const std::function<int()> &query, const char *what) {
    using Clock = std::chrono::steady_clock;
    Clock::time_point next = Clock::now() + kPeerCheckInterval;
    while (true) {
      int code = query();
      if (code != api.notReady)
        return check(code, what);
      if (Clock::now() < next) {
        std::this_thread::yield();
        continue;
      }
      next = Clock::now() + kPeerCheckInterval;
      std::vector<int> gone = exitedPeers();
      if (!gone.empty())
        return fail(SYMM_ERROR_PEER_FAILED,
                    "%s: %s: the device work has not completed, and rank %d "
                    "has exited (the process is gone): a kernel that waits "
                    "for it cannot complete (the device runs it until this "
                    "process exits)",
                    api.name.c_str(), what, gone.front());
    }
  }

  symm_status init(int localRank) override {
    int count = 0;
    int code = api.init(localRank, &count);
    if (code == 0 && count == 0)
      return fail(SYMM_ERROR_UNAVAILABLE, "%s: no device", api.name.c_str());
    return check(code, "initialisation");
  }

  symm_status createHeap(size_t bytes, Bootstrap &bootstrap,
                         std::vector<char *> &bases) override {
    if (api.createHeap)
      return api.createHeap(bytes, bootstrap, bases);
    if (symm_status s = check(api.heapAlloc(&local, bytes), "heap allocation"))
      return s;
    char handle[kIpcHandleBytes] = {};
    if (symm_status s = check(api.ipcGetHandle(handle, local), "IPC export"))
      return s;
    std::vector<char> all(kIpcHandleBytes * bootstrap.size());
    if (symm_status s =
            bootstrap.allgather(handle, kIpcHandleBytes, all.data()))
      return s;
    bases.assign(bootstrap.size(), nullptr);
    for (int r = 0; r < bootstrap.size(); ++r) {
      if (r == bootstrap.rank()) {
        bases[r] = static_cast<char *>(local);
        continue;
      }
      if (!bootstrap.sameNode(r))
        return fail(SYMM_ERROR_UNAVAILABLE,
                    "%s: rank %d is on another node: this backend maps the "
                    "heaps of one node's ranks only (IPC); across nodes use "
                    "SYMM_BACKEND=nvshmem",
                    api.name.c_str(), r);
      void *peer = nullptr;
      if (int code = api.ipcOpenHandle(&peer, all.data() + r * kIpcHandleBytes))
        return fail(SYMM_ERROR_BACKEND, "%s: cannot map rank %d's heap: %s",
                    api.name.c_str(), r, api.errorString(code));
      bases[r] = static_cast<char *>(peer);
      opened.push_back(peer);
    }
    // No rank may free its heap while a peer still opens it.
    return bootstrap.barrier();
  }

  void destroyHeap() override {
    api.makeCurrent();
    if (api.destroyHeap) {
      api.destroyHeap();
      return;
    }
    for (void *p : opened)
      api.ipcCloseHandle(p);
    opened.clear();
    if (local)
      api.heapFree(local);
    local = nullptr;
  }

  symm_status loadModule(const void *data, size_t size,
                         void **module) override {
    api.makeCurrent();
    if (api.loadModule)
      return api.loadModule(module, data, size);
    if (moduleNeedsLinking(data, size))
      return fail(SYMM_ERROR_UNAVAILABLE,
                  "%s: the module calls functions it does not define "
                  "(NVSHMEM's: it was compiled with --remote=nvshmem or "
                  "auto); run it on the nvshmem backend",
                  api.name.c_str());
    return check(api.moduleLoad(module, data), "module load");
  }
  symm_status unloadModule(void *module) override {
    api.makeCurrent();
    return check(api.moduleUnload(module), "module unload");
  }
  symm_status getFunction(void *module, const char *name,
                          void **function) override {
    api.makeCurrent();
    if (api.moduleGetFunction(function, module, name) != 0)
      return fail(SYMM_ERROR_INVALID_ARGUMENT, "no kernel '%s' in the module",
                  name);
    return SYMM_SUCCESS;
  }
  symm_status writeContext(void *module,
                           const symm_kernel_context &context) override {
    api.makeCurrent();
    void *global = nullptr;
    size_t bytes = 0;
    // A module whose kernels never use the context has none.
    if (api.moduleGetGlobal(&global, &bytes, module, SYMM_CONTEXT_SYMBOL) != 0)
      return SYMM_SUCCESS;
    if (bytes != sizeof(context))
      return fail(SYMM_ERROR_INVALID_ARGUMENT,
                  "the module's %s has %zu bytes, the runtime's %zu: compiled "
                  "by another Symm version?",
                  SYMM_CONTEXT_SYMBOL, bytes, sizeof(context));
    return check(api.memcpyToDevice(global, &context, sizeof(context)),
                 "writing the kernel context");
  }
  symm_status findGlobal(void *module, const char *name, void **address,
                         size_t *bytes) override {
    api.makeCurrent();
    *address = nullptr;
    *bytes = 0;
    // A missing symbol is not an error: the module was not built for it.
    if (api.moduleGetGlobal(address, bytes, module, name) != 0)
      *address = nullptr;
    return SYMM_SUCCESS;
  }
  /// NVIDIA's %globaltimer (and AMD's s_memrealtime, scaled) count real
  /// time since the epoch; the host's realtime clock is the one they follow.
  symm_status readClock(uint64_t *ns) override {
    timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    *ns = uint64_t(now.tv_sec) * 1000000000ull + uint64_t(now.tv_nsec);
    return SYMM_SUCCESS;
  }
  symm_status launch(void *function, const unsigned grid[3],
                     const unsigned block[3], unsigned shared, void *stream,
                     void **params, size_t, bool early) override {
    api.makeCurrent();
    return check(
        api.launch(function, grid, block, shared, stream, params, early),
        "kernel launch");
  }
  symm_status maxResident(void *function, const char *, unsigned threads,
                          unsigned shared, int64_t *workgroups) override {
    api.makeCurrent();
    *workgroups = 0;
    // No device takes blocks of 2^31 threads; the calculator takes an int.
    if (threads > INT_MAX)
      return SYMM_SUCCESS;
    int perMultiprocessor = 0, count = 0;
    if (symm_status s = check(api.occupancy(function, int(threads), shared,
                                            &perMultiprocessor),
                              "occupancy query"))
      return s;
    if (symm_status s = multiprocessors(&count))
      return s;
    *workgroups = int64_t(perMultiprocessor) * count;
    return SYMM_SUCCESS;
  }
  symm_status multiprocessors(int *count) override {
    api.makeCurrent();
    return check(api.multiprocessors(count), "multiprocessor count query");
  }
  symm_status streamCreate(void **stream) override {
    api.makeCurrent();
    if (symm_status s = check(api.streamCreate(stream), "stream creation"))
      return s;
    std::lock_guard<std::mutex> lock(mutex);
    streams.push_back(*stream);
    return SYMM_SUCCESS;
  }
  symm_status streamDestroy(void *stream) override {
    api.makeCurrent();
    if (!stream)
      return SYMM_SUCCESS;
    {
      std::lock_guard<std::mutex> lock(mutex);
      streams.erase(std::remove(streams.begin(), streams.end(), stream),
                    streams.end());
    }
    return check(api.streamDestroy(stream), "stream destruction");
  }
  symm_status streamSynchronize(void *stream) override {
    api.makeCurrent();
    return waitFor([&] { return api.streamQuery(stream); },
                   "stream synchronisation");
  }
  /// Every stream this backend made, then the device: a stream a program
  /// made elsewhere is waited for without the peer check.
  symm_status synchronize() override {
    api.makeCurrent();
    std::vector<void *> all{nullptr};
    {
      std::lock_guard<std::mutex> lock(mutex);
      all.insert(all.end(), streams.begin(), streams.end());
    }
    for (void *stream : all)
      if (symm_status s = waitFor([&] { return api.streamQuery(stream); },
                                  "device synchronisation"))
        return s;
    return check(api.deviceSynchronize(), "device synchronisation");
  }
  symm_status streamBeginCapture(void *stream) override {
    api.makeCurrent();
    return check(api.streamBeginCapture(stream), "stream capture");
  }
  /// A symm_graph is the executable graph; the graph it was made of is not
  /// needed once instantiated.
  symm_status streamEndCapture(void *stream, void **graph) override {
    api.makeCurrent();
    void *captured = nullptr;
    if (symm_status s =
            check(api.streamEndCapture(stream, &captured), "ending a capture"))
      return s;
    symm_status s =
        check(api.graphInstantiate(graph, captured), "graph instantiation");
    api.graphDestroy(captured);
    return s;
  }
  symm_status streamIsCapturing(void *stream, bool *capturing) override {
    return check(api.streamIsCapturing(stream, capturing),
                 "capture status query");
  }
  symm_status graphLaunch(void *graph, void *stream) override {
    api.makeCurrent();
    return check(api.graphLaunch(graph, stream), "graph launch");
  }
  symm_status graphDestroy(void *graph) override {
    api.makeCurrent();
    return check(api.graphExecDestroy(graph), "graph destruction");
  }
  symm_status eventCreate(void **event) override {
    api.makeCurrent();
    return check(api.eventCreate(event), "event creation");
  }
  symm_status eventDestroy(void *event) override {
    return check(api.eventDestroy(event), "event destruction");
  }
  symm_status eventRecord(void *event, void *stream) override {
    return check(api.eventRecord(event, stream), "event record");
  }
  symm_status eventSynchronize(void *event) override {
    return waitFor([&] { return api.eventQuery(event); },
                   "event synchronisation");
  }
  symm_status streamWaitEvent(void *stream, void *event) override {
    return check(api.streamWaitEvent(stream, event), "stream wait");
  }
  symm_status memAlloc(size_t bytes, bool hostShared, void **ptr) override {
    api.makeCurrent();
    return check(hostShared ? api.memAllocShared(ptr, bytes)
                            : api.memAlloc(ptr, bytes),
                 "memory allocation");
  }
  symm_status memFree(void *ptr) override {
    api.makeCurrent();
    return check(api.memFree(ptr), "memory release");
  }
  symm_status memcpy(void *dst, const void *src, size_t bytes,
                     void *stream) override {
    api.makeCurrent();
    return check(api.memcpyAsync(dst, src, bytes, stream), "memory copy");
  }
  symm_status memset(void *dst, uint32_t value, size_t elementBytes,
                     size_t count, void *stream) override {
    api.makeCurrent();
    int code = elementBytes == 4
                   ? api.memset32Async(dst, value, count, stream)
                   : api.memset16Async(dst, static_cast<uint16_t>(value), count,
                                       stream);
    return check(code, "memory set");
  }
  bool hasStreamValues() const override {
    return api.streamWriteValue32 && api.streamWaitValue32;
  }
  symm_status streamWriteValue(uint32_t *address, uint32_t value,
                               void *stream) override {
    if (!hasStreamValues())
      return Backend::streamWriteValue(address, value, stream);
    api.makeCurrent();
    return check(api.streamWriteValue32(stream, address, value),
                 "stream write");
  }
  /// A device cannot give up a wait: like a kernel's, it ends when the word
  /// comes, and a peer that exits ends the host's wait for the stream
  /// (waitFor).
  symm_status streamWaitValue(uint32_t *address, uint32_t value, void *stream,
                              const char *what) override {
    if (!hasStreamValues())
      return Backend::streamWaitValue(address, value, stream, what);
    api.makeCurrent();
    return check(api.streamWaitValue32(stream, address, value), "stream wait");
  }
  symm_status hostRegister(void *ptr, size_t bytes) override {
    api.makeCurrent();
    return check(api.hostRegister(ptr, bytes), "host memory registration");
  }
  /// Kernels read the descriptor from device memory, where it stays until
  /// finalisation (a kernel may still use it after the host code that made
  /// it is done).
  symm_status encodeTensorMap(const TensorMapRequest &request,
                              void **descriptor) override {
    if (!api.encodeTensorMap)
      return Backend::encodeTensorMap(request, descriptor);
    api.makeCurrent();
    alignas(kTensorMapAlignment) unsigned char map[kTensorMapBytes];
    if (symm_status s =
            check(api.encodeTensorMap(map, request), "TMA descriptor encoding"))
      return s;
    void *device = nullptr;
    if (symm_status s = check(api.memAlloc(&device, kTensorMapBytes),
                              "TMA descriptor allocation"))
      return s;
    if (symm_status s = check(api.memcpyToDevice(device, map, kTensorMapBytes),
                              "TMA descriptor copy")) {
      api.memFree(device);
      return s;
    }
    tensorMaps.push_back(device);
    *descriptor = device;
    return SYMM_SUCCESS;
  }

private:
  GpuApi api;
  void *local = nullptr;
  std::vector<void *> opened;
  std::vector<void *> tensorMaps;
  /// The streams streamCreate made, for synchronize().
  std::mutex mutex;
  std::vector<void *> streams;
};

} // namespace

bool symm::moduleIsElf(const void *image, size_t bytes) {
  return bytes >= 4 && memcmp(image, "\x7f" "ELF", 4) == 0;
}

bool symm::moduleNeedsLinking(const void *image, size_t bytes) {
  if (moduleIsElf(image, bytes)) {
    // e_type, little-endian, after the 16 bytes of e_ident: 1 is ET_REL.
    const auto *elf = static_cast<const unsigned char *>(image);
    return bytes >= 18 && elf[16] == 1 && elf[17] == 0;
  }
  const char *text = static_cast<const char *>(image);
  std::string_view ptx(text, strnlen(text, bytes ? bytes : size_t(-1)));
  return ptx.find("\n.extern .func") != std::string_view::npos;
}

Backend *symm::createGpuBackend(GpuApi api) {
  return new GpuBackend(std::move(api));
}
