//===- HipBackend.cpp - The HIP runtime API as a GpuApi ---------*- C++ -*-===//
//
// libamdhip64 is opened with dlopen. The heap is fine-grained device memory
// (hipExtMallocWithFlags), which peers may access coherently while kernels
// run; it is exported with hipIpcGetMemHandle.
//
//===----------------------------------------------------------------------===//

#include "../gpu/GpuBackend.h"

#ifndef __HIP_PLATFORM_AMD__
#define __HIP_PLATFORM_AMD__ 1
#endif
#include <hip/hip_runtime_api.h>

#include <memory>

using namespace symm;

namespace {

struct Hip {
  decltype(&hipGetDeviceCount) getDeviceCount;
  decltype(&hipSetDevice) setDevice;
  decltype(&hipDeviceSynchronize) deviceSynchronize;
  decltype(&hipGetErrorString) getErrorString;
  decltype(&hipExtMallocWithFlags) extMallocWithFlags;
  hipError_t (*malloc)(void **, size_t);
  hipError_t (*mallocManaged)(void **, size_t, unsigned);
  decltype(&hipFree) free;
  decltype(&hipIpcGetMemHandle) ipcGetMemHandle;
  decltype(&hipIpcOpenMemHandle) ipcOpenMemHandle;
  decltype(&hipIpcCloseMemHandle) ipcCloseMemHandle;
  decltype(&hipModuleLoadData) moduleLoadData;
  decltype(&hipModuleUnload) moduleUnload;
  decltype(&hipModuleGetFunction) moduleGetFunction;
  decltype(&hipModuleGetGlobal) moduleGetGlobal;
  decltype(&hipMemcpyHtoD) memcpyHtoD;
  decltype(&hipModuleLaunchKernel) moduleLaunchKernel;
  decltype(&hipModuleOccupancyMaxActiveBlocksPerMultiprocessor) occupancy;
  decltype(&hipDeviceGetAttribute) deviceGetAttribute;
  decltype(&hipStreamCreateWithFlags) streamCreateWithFlags;
  decltype(&hipStreamDestroy) streamDestroy;
  decltype(&hipStreamSynchronize) streamSynchronize;
  decltype(&hipStreamQuery) streamQuery;
  decltype(&hipEventCreateWithFlags) eventCreateWithFlags;
  decltype(&hipEventDestroy) eventDestroy;
  decltype(&hipEventRecord) eventRecord;
  decltype(&hipEventSynchronize) eventSynchronize;
  decltype(&hipEventQuery) eventQuery;
  decltype(&hipStreamWaitEvent) streamWaitEvent;
  decltype(&hipStreamBeginCapture) streamBeginCapture;
  decltype(&hipStreamEndCapture) streamEndCapture;
  decltype(&hipStreamIsCapturing) streamIsCapturing;
  decltype(&hipGraphInstantiate) graphInstantiate;
  decltype(&hipGraphLaunch) graphLaunch;
  decltype(&hipGraphExecDestroy) graphExecDestroy;
  decltype(&hipGraphDestroy) graphDestroy;
  decltype(&hipMemcpyAsync) memcpyAsync;
  decltype(&hipMemsetD32Async) memsetD32Async;
  decltype(&hipMemsetD16Async) memsetD16Async;
  decltype(&hipHostRegister) hostRegister;
  decltype(&hipStreamWriteValue32) streamWriteValue32 = nullptr;
  decltype(&hipStreamWaitValue32) streamWaitValue32 = nullptr;
  int device = 0;
};

bool open(DriverLibrary &lib, Hip &h) {
  auto load = [&](const char *symbol, auto &fn) {
    return lib.load(symbol, fn);
  };
  return lib.open({"libamdhip64.so", "libamdhip64.so.5"}) &&
         load("hipGetDeviceCount", h.getDeviceCount) &&
         load("hipSetDevice", h.setDevice) &&
         load("hipDeviceSynchronize", h.deviceSynchronize) &&
         load("hipGetErrorString", h.getErrorString) &&
         load("hipExtMallocWithFlags", h.extMallocWithFlags) &&
         load("hipMalloc", h.malloc) &&
         load("hipMallocManaged", h.mallocManaged) && load("hipFree", h.free) &&
         load("hipIpcGetMemHandle", h.ipcGetMemHandle) &&
         load("hipIpcOpenMemHandle", h.ipcOpenMemHandle) &&
         load("hipIpcCloseMemHandle", h.ipcCloseMemHandle) &&
         load("hipModuleLoadData", h.moduleLoadData) &&
         load("hipModuleUnload", h.moduleUnload) &&
         load("hipModuleGetFunction", h.moduleGetFunction) &&
         load("hipModuleGetGlobal", h.moduleGetGlobal) &&
         load("hipMemcpyHtoD", h.memcpyHtoD) &&
         load("hipModuleLaunchKernel", h.moduleLaunchKernel) &&
         load("hipModuleOccupancyMaxActiveBlocksPerMultiprocessor",
              h.occupancy) &&
         load("hipDeviceGetAttribute", h.deviceGetAttribute) &&
         load("hipStreamCreateWithFlags", h.streamCreateWithFlags) &&
         load("hipStreamDestroy", h.streamDestroy) &&
         load("hipStreamSynchronize", h.streamSynchronize) &&
         load("hipStreamQuery", h.streamQuery) &&
         load("hipEventCreateWithFlags", h.eventCreateWithFlags) &&
         load("hipEventDestroy", h.eventDestroy) &&
         load("hipEventRecord", h.eventRecord) &&
         load("hipEventSynchronize", h.eventSynchronize) &&
         load("hipEventQuery", h.eventQuery) &&
         load("hipStreamWaitEvent", h.streamWaitEvent) &&
         load("hipStreamBeginCapture", h.streamBeginCapture) &&
         load("hipStreamEndCapture", h.streamEndCapture) &&
         load("hipStreamIsCapturing", h.streamIsCapturing) &&
         load("hipGraphInstantiate", h.graphInstantiate) &&
         load("hipGraphLaunch", h.graphLaunch) &&
         load("hipGraphExecDestroy", h.graphExecDestroy) &&
         load("hipGraphDestroy", h.graphDestroy) &&
         load("hipMemcpyAsync", h.memcpyAsync) &&
         load("hipMemsetD32Async", h.memsetD32Async) &&
         load("hipMemsetD16Async", h.memsetD16Async) &&
         load("hipHostRegister", h.hostRegister);
}

hipDeviceptr_t dptr(const void *p) {
  return reinterpret_cast<hipDeviceptr_t>(const_cast<void *>(p));
}

} // namespace

Backend *symm::createHipBackend() {
  auto h = std::make_shared<Hip>();
  DriverLibrary lib;
  if (!open(lib, *h)) {
    fail(SYMM_ERROR_UNAVAILABLE,
         "the hip backend needs the ROCm runtime (libamdhip64.so): %s",
         lib.why().c_str());
    return nullptr;
  }
  GpuApi api;
  api.name = "hip";
  api.errorString = [h](int code) {
    return h->getErrorString(static_cast<hipError_t>(code));
  };
  api.init = [h](int localRank, int *count) {
    if (hipError_t e = h->getDeviceCount(count))
      return int(e);
    if (*count == 0)
      return 0;
    h->device = localRank % *count;
    return int(h->setDevice(h->device));
  };
  api.makeCurrent = [h] { return int(h->setDevice(h->device)); };
  api.heapAlloc = [h](void **p, size_t n) {
    return int(h->extMallocWithFlags(p, n, hipDeviceMallocFinegrained));
  };
  api.heapFree = [h](void *p) { return int(h->free(p)); };
  api.ipcGetHandle = [h](void *handle, void *p) {
    return int(h->ipcGetMemHandle(static_cast<hipIpcMemHandle_t *>(handle), p));
  };
  api.ipcOpenHandle = [h](void **p, const void *handle) {
    return int(
        h->ipcOpenMemHandle(p, *static_cast<const hipIpcMemHandle_t *>(handle),
                            hipIpcMemLazyEnablePeerAccess));
  };
  api.ipcCloseHandle = [h](void *p) { return int(h->ipcCloseMemHandle(p)); };
  api.moduleLoad = [h](void **m, const void *image) {
    return int(h->moduleLoadData(reinterpret_cast<hipModule_t *>(m), image));
  };
  api.moduleUnload = [h](void *m) {
    return int(h->moduleUnload(static_cast<hipModule_t>(m)));
  };
  api.moduleGetFunction = [h](void **f, void *m, const char *name) {
    return int(h->moduleGetFunction(reinterpret_cast<hipFunction_t *>(f),
                                    static_cast<hipModule_t>(m), name));
  };
  api.moduleGetGlobal = [h](void **p, size_t *bytes, void *m,
                            const char *name) {
    hipDeviceptr_t ptr;
    hipError_t e =
        h->moduleGetGlobal(&ptr, bytes, static_cast<hipModule_t>(m), name);
    *p = reinterpret_cast<void *>(ptr);
    return int(e);
  };
  api.memcpyToDevice = [h](void *dst, const void *src, size_t n) {
    return int(h->memcpyHtoD(dptr(dst), const_cast<void *>(src), n));
  };
  api.launch = [h](void *f, const unsigned g[3], const unsigned b[3],
                   unsigned shared, void *stream, void **params,
                   bool /*early: HIP has no dependent launch*/) {
    return int(h->moduleLaunchKernel(
        static_cast<hipFunction_t>(f), g[0], g[1], g[2], b[0], b[1], b[2],
        shared, static_cast<hipStream_t>(stream), params, nullptr));
  };
  api.occupancy = [h](void *f, int threads, size_t shared, int *blocks) {
    return int(h->occupancy(blocks, static_cast<hipFunction_t>(f), threads,
                            shared));
  };
  api.multiprocessors = [h](int *count) {
    return int(h->deviceGetAttribute(
        count, hipDeviceAttributeMultiprocessorCount, h->device));
  };
  api.streamCreate = [h](void **s) {
    return int(h->streamCreateWithFlags(reinterpret_cast<hipStream_t *>(s),
                                        hipStreamNonBlocking));
  };
  api.streamDestroy = [h](void *s) {
    return int(h->streamDestroy(static_cast<hipStream_t>(s)));
  };
  api.streamSynchronize = [h](void *s) {
    return int(h->streamSynchronize(static_cast<hipStream_t>(s)));
  };
  api.streamQuery = [h](void *s) {
    return int(h->streamQuery(static_cast<hipStream_t>(s)));
  };
  api.deviceSynchronize = [h] { return int(h->deviceSynchronize()); };
  api.eventCreate = [h](void **e) {
    return int(h->eventCreateWithFlags(reinterpret_cast<hipEvent_t *>(e),
                                       hipEventDisableTiming));
  };
  api.eventDestroy = [h](void *e) {
    return int(h->eventDestroy(static_cast<hipEvent_t>(e)));
  };
  api.eventRecord = [h](void *e, void *s) {
    return int(h->eventRecord(static_cast<hipEvent_t>(e),
                              static_cast<hipStream_t>(s)));
  };
  api.eventSynchronize = [h](void *e) {
    return int(h->eventSynchronize(static_cast<hipEvent_t>(e)));
  };
  api.eventQuery = [h](void *e) {
    return int(h->eventQuery(static_cast<hipEvent_t>(e)));
  };
  api.notReady = hipErrorNotReady;
  api.streamWaitEvent = [h](void *s, void *e) {
    return int(h->streamWaitEvent(static_cast<hipStream_t>(s),
                                  static_cast<hipEvent_t>(e), 0));
  };
  api.streamBeginCapture = [h](void *s) {
    return int(h->streamBeginCapture(static_cast<hipStream_t>(s),
                                     hipStreamCaptureModeThreadLocal));
  };
  api.streamEndCapture = [h](void *s, void **g) {
    return int(h->streamEndCapture(static_cast<hipStream_t>(s),
                                   reinterpret_cast<hipGraph_t *>(g)));
  };
  api.streamIsCapturing = [h](void *s, bool *capturing) {
    hipStreamCaptureStatus status = hipStreamCaptureStatusNone;
    hipError_t e = h->streamIsCapturing(static_cast<hipStream_t>(s), &status);
    *capturing = status != hipStreamCaptureStatusNone;
    return int(e);
  };
  api.graphInstantiate = [h](void **exec, void *g) {
    return int(h->graphInstantiate(reinterpret_cast<hipGraphExec_t *>(exec),
                                   static_cast<hipGraph_t>(g), nullptr, nullptr,
                                   0));
  };
  api.graphLaunch = [h](void *exec, void *s) {
    return int(h->graphLaunch(static_cast<hipGraphExec_t>(exec),
                              static_cast<hipStream_t>(s)));
  };
  api.graphExecDestroy = [h](void *exec) {
    return int(h->graphExecDestroy(static_cast<hipGraphExec_t>(exec)));
  };
  api.graphDestroy = [h](void *g) {
    return int(h->graphDestroy(static_cast<hipGraph_t>(g)));
  };
  api.memAlloc = [h](void **p, size_t n) { return int(h->malloc(p, n)); };
  api.memAllocShared = [h](void **p, size_t n) {
    return int(h->mallocManaged(p, n, hipMemAttachGlobal));
  };
  api.memFree = [h](void *p) { return int(h->free(p)); };
  api.memcpyAsync = [h](void *dst, const void *src, size_t n, void *s) {
    return int(h->memcpyAsync(dst, src, n, hipMemcpyDefault,
                              static_cast<hipStream_t>(s)));
  };
  api.memset32Async = [h](void *dst, uint32_t v, size_t n, void *s) {
    return int(h->memsetD32Async(dptr(dst), static_cast<int>(v), n,
                                 static_cast<hipStream_t>(s)));
  };
  api.memset16Async = [h](void *dst, uint16_t v, size_t n, void *s) {
    return int(h->memsetD16Async(dptr(dst), v, n, static_cast<hipStream_t>(s)));
  };
  api.hostRegister = [h](void *p, size_t n) {
    return int(h->hostRegister(p, n, hipHostRegisterDefault));
  };
  // Stream memory operations, where the runtime has them. HIP's wait
  // compares unsigned (hipStreamWaitValueGte), CUDA's cyclically: the same
  // for the tokens the copy-engine collectives wait for (0 and 1).
  lib.load("hipStreamWriteValue32", h->streamWriteValue32);
  lib.load("hipStreamWaitValue32", h->streamWaitValue32);
  if (h->streamWriteValue32 && h->streamWaitValue32) {
    api.streamWriteValue32 = [h](void *s, uint32_t *p, uint32_t v) {
      return int(h->streamWriteValue32(static_cast<hipStream_t>(s), p, v, 0));
    };
    api.streamWaitValue32 = [h](void *s, uint32_t *p, uint32_t v) {
      return int(h->streamWaitValue32(static_cast<hipStream_t>(s), p, v,
                                      hipStreamWaitValueGte, 0xffffffffu));
    };
  }
  return createGpuBackend(std::move(api));
}
