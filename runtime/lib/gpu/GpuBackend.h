//===- GpuBackend.h - A backend over a CUDA-like device API -----*- C++ -*-===//
//
// CUDA and HIP differ in names, not in shape: each fills a GpuApi with its
// functions (loaded with dlopen at run time, so the runtime never needs the
// driver to link) and GpuBackend does the rest.
//
//===----------------------------------------------------------------------===//

#ifndef SYMM_RUNTIME_LIB_GPU_GPUBACKEND_H
#define SYMM_RUNTIME_LIB_GPU_GPUBACKEND_H

#include "../core/Runtime.h"

#include <dlfcn.h>
#include <functional>
#include <initializer_list>
#include <string>
#include <vector>

namespace symm {

/// A driver library opened with dlopen, and what went wrong opening it: the
/// message dlopen gave, or the entry point the library lacks.
class DriverLibrary {
public:
  /// Opens the first of `names` that loads; on failure, error() says why
  /// the first could not be opened.
  bool open(std::initializer_list<const char *> names) {
    for (const char *name : names) {
      if ((lib = dlopen(name, RTLD_NOW | RTLD_LOCAL)))
        return true;
      // dlerror() clears the message: read it once.
      if (error.empty())
        error = dlerror();
    }
    return false;
  }
  template <typename T> bool load(const char *symbol, T &fn) {
    fn = reinterpret_cast<T>(dlsym(lib, symbol));
    if (!fn)
      error = std::string("the library has no ") + symbol;
    return fn != nullptr;
  }
  const std::string &why() const { return error; }

private:
  void *lib = nullptr;
  std::string error;
};

/// Opaque handles are pointers; every call returns 0 on success or the API's
/// error code.
struct GpuApi {
  std::string name; // "cuda", "hip"
  std::function<const char *(int)> errorString;
  std::function<int(int localRank, int *deviceCount)> init;
  std::function<int()> makeCurrent;
  /// Heap memory that peers can map (fine-grained on AMD).
  std::function<int(void **, size_t)> heapAlloc;
  std::function<int(void *)> heapFree;
  std::function<int(void *handle64, void *ptr)> ipcGetHandle;
  std::function<int(void **ptr, const void *handle64)> ipcOpenHandle;
  std::function<int(void *ptr)> ipcCloseHandle;
  std::function<int(void **module, const void *image)> moduleLoad;
  std::function<int(void *module)> moduleUnload;
  std::function<int(void **function, void *module, const char *name)>
      moduleGetFunction;
  std::function<int(void **ptr, size_t *bytes, void *module, const char *name)>
      moduleGetGlobal;
  std::function<int(void *dst, const void *src, size_t bytes)> memcpyToDevice;
  /// `early`: a programmatic dependent launch where the API has one (the
  /// kernel waits for the grid before it first thing).
  std::function<int(void *function, const unsigned grid[3],
                    const unsigned block[3], unsigned shared, void *stream,
                    void **params, bool early)>
      launch;
  /// Workgroups of `function` with `threads` threads and `shared` bytes of
  /// dynamic shared memory that one multiprocessor holds at once (the
  /// driver's occupancy calculator), and the device's multiprocessors.
  std::function<int(void *function, int threads, size_t shared,
                    int *perMultiprocessor)>
      occupancy;
  std::function<int(int *count)> multiprocessors;
  std::function<int(void **)> streamCreate;
  std::function<int(void *)> streamDestroy;
  std::function<int(void *)> streamSynchronize;
  /// 0 when the stream's (event's) work is done, `notReady` while it runs,
  /// else the error the work ended with.
  std::function<int(void *)> streamQuery;
  std::function<int(void *)> eventQuery;
  int notReady = -1;
  std::function<int()> deviceSynchronize;
  /// Stream capture in thread-local mode; capturing is true while a capture
  /// is open, also one the driver has invalidated (it must still be ended).
  std::function<int(void *stream)> streamBeginCapture;
  std::function<int(void *stream, void **graph)> streamEndCapture;
  std::function<int(void *stream, bool *capturing)> streamIsCapturing;
  std::function<int(void **exec, void *graph)> graphInstantiate;
  std::function<int(void *exec, void *stream)> graphLaunch;
  std::function<int(void *exec)> graphExecDestroy;
  std::function<int(void *graph)> graphDestroy;
  std::function<int(void **)> eventCreate;
  std::function<int(void *)> eventDestroy;
  std::function<int(void *, void *)> eventRecord;
  std::function<int(void *)> eventSynchronize;
  std::function<int(void *, void *)> streamWaitEvent;
  std::function<int(void **, size_t)> memAlloc;
  std::function<int(void **, size_t)> memAllocShared;
  std::function<int(void *)> memFree;
  std::function<int(void *, const void *, size_t, void *)> memcpyAsync;
  std::function<int(void *, uint32_t, size_t, void *)> memset32Async;
  std::function<int(void *, uint16_t, size_t, void *)> memset16Async;
  std::function<int(void *, size_t)> hostRegister;
  /// Stream memory operations (Backend::streamWriteValue and
  /// streamWaitValue; the wait is a cyclic greater-or-equal); null where the
  /// driver has none.
  std::function<int(void *stream, uint32_t *address, uint32_t value)>
      streamWriteValue32;
  std::function<int(void *stream, uint32_t *address, uint32_t value)>
      streamWaitValue32;
  /// Optional, for a backend built on this one (nvshmem): a symmetric heap
  /// another library makes, instead of one device allocation exported to
  /// peers with IPC (`bases[r]` null where rank r's heap is not mapped), and
  /// modules that need more than the driver's load (linking); each records
  /// its own error.
  std::function<symm_status(size_t bytes, Bootstrap &bootstrap,
                            std::vector<char *> &bases)>
      createHeap;
  std::function<void()> destroyHeap;
  std::function<symm_status(void **module, const void *image, size_t bytes)>
      loadModule;
  /// Encodes a TMA descriptor into the kTensorMapBytes at `map` (aligned to
  /// kTensorMapAlignment); null where the API has none.
  std::function<int(void *map, const TensorMapRequest &request)>
      encodeTensorMap;
};

/// The size and alignment of a TMA descriptor (CUtensorMap: 64-byte
/// alignment before CUDA 13, 128 since).
constexpr size_t kTensorMapBytes = 128;
constexpr size_t kTensorMapAlignment = 128;

Backend *createGpuBackend(GpuApi api);

/// Whether a module image is an ELF object (a cubin) rather than PTX text.
bool moduleIsElf(const void *image, size_t bytes);
/// Whether a module must be linked before it loads: a relocatable cubin, or
/// PTX that calls functions it does not define (NVSHMEM's, in code compiled
/// with --remote=nvshmem or auto).
bool moduleNeedsLinking(const void *image, size_t bytes);

} // namespace symm

#endif // SYMM_RUNTIME_LIB_GPU_GPUBACKEND_H
