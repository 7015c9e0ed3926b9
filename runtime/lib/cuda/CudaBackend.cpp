//===- CudaBackend.cpp - The CUDA driver API as a GpuApi --------*- C++ -*-===//
//
// The driver is opened with dlopen (CudaDriver.h declares what is used), so
// the backend builds everywhere and runs where libcuda.so.1 is. Each rank uses
// device local_rank % count.
//
//===----------------------------------------------------------------------===//

#include "../gpu/GpuBackend.h"
#include "CudaDriver.h"

#include <cstdlib>
#include <memory>

using namespace symm;
using namespace symm::cuda;

namespace {

bool open(DriverLibrary &lib, Driver &d) {
  auto load = [&](const char *symbol, auto &fn) {
    return lib.load(symbol, fn);
  };
  return lib.open({"libcuda.so.1"}) && load("cuInit", d.init) &&
         load("cuDeviceGetCount", d.deviceGetCount) &&
         load("cuDeviceGet", d.deviceGet) &&
         load("cuDeviceGetAttribute", d.deviceGetAttribute) &&
         load("cuDevicePrimaryCtxRetain", d.primaryCtxRetain) &&
         load("cuCtxSetCurrent", d.ctxSetCurrent) &&
         load("cuCtxSynchronize", d.ctxSynchronize) &&
         load("cuGetErrorString", d.getErrorString) &&
         load("cuMemAlloc_v2", d.memAlloc) &&
         load("cuMemAllocManaged", d.memAllocManaged) &&
         load("cuMemFree_v2", d.memFree) &&
         load("cuIpcGetMemHandle", d.ipcGetMemHandle) &&
         load("cuIpcOpenMemHandle_v2", d.ipcOpenMemHandle) &&
         load("cuIpcCloseMemHandle", d.ipcCloseMemHandle) &&
         load("cuModuleLoadData", d.moduleLoadData) &&
         load("cuModuleUnload", d.moduleUnload) &&
         load("cuModuleGetFunction", d.moduleGetFunction) &&
         load("cuModuleGetGlobal_v2", d.moduleGetGlobal) &&
         load("cuMemcpyHtoD_v2", d.memcpyHtoD) &&
         load("cuLaunchKernel", d.launchKernel) &&
         load("cuStreamCreate", d.streamCreate) &&
         load("cuStreamDestroy_v2", d.streamDestroy) &&
         load("cuStreamSynchronize", d.streamSynchronize) &&
         load("cuStreamQuery", d.streamQuery) &&
         load("cuEventCreate", d.eventCreate) &&
         load("cuEventDestroy_v2", d.eventDestroy) &&
         load("cuEventRecord", d.eventRecord) &&
         load("cuEventSynchronize", d.eventSynchronize) &&
         load("cuEventQuery", d.eventQuery) &&
         load("cuStreamWaitEvent", d.streamWaitEvent) &&
         load("cuStreamBeginCapture_v2", d.streamBeginCapture) &&
         load("cuStreamEndCapture", d.streamEndCapture) &&
         load("cuStreamIsCapturing", d.streamIsCapturing) &&
         load("cuGraphInstantiateWithFlags", d.graphInstantiateWithFlags) &&
         load("cuGraphLaunch", d.graphLaunch) &&
         load("cuGraphExecDestroy", d.graphExecDestroy) &&
         load("cuGraphDestroy", d.graphDestroy) &&
         load("cuMemcpyAsync", d.memcpyAsync) &&
         load("cuMemsetD32Async", d.memsetD32Async) &&
         load("cuMemsetD16Async", d.memsetD16Async) &&
         load("cuMemHostRegister_v2", d.memHostRegister) &&
         load("cuFuncSetAttribute", d.funcSetAttribute) &&
         load("cuOccupancyMaxActiveBlocksPerMultiprocessor",
              d.occupancyMaxActiveBlocksPerMultiprocessor) &&
         load("cuLinkCreate_v2", d.linkCreate) &&
         load("cuLinkAddData_v2", d.linkAddData) &&
         load("cuLinkAddFile_v2", d.linkAddFile) &&
         load("cuLinkComplete", d.linkComplete) &&
         load("cuLinkDestroy", d.linkDestroy);
}

/// cuTensorMapEncodeTiled of a checked request: strides in bytes, without
/// the innermost one, every element of the box taken.
Result encodeTensorMap(const Driver &d, void *map, const TensorMapRequest &r) {
  uint64_t strideBytes[4] = {};
  for (int i = 1; i < r.rank; ++i)
    strideBytes[i - 1] = r.strides[i] * r.elementBytes;
  const uint32_t elementStrides[5] = {1, 1, 1, 1, 1};
  return d.tensorMapEncodeTiled(map, r.dataType, uint32_t(r.rank), r.base,
                                r.sizes, strideBytes, r.box, elementStrides,
                                r.interleave, r.swizzle, r.l2promo, r.oobFill);
}

DevicePtr dptr(const void *p) { return reinterpret_cast<DevicePtr>(p); }

/// Lets `function` have `shared` bytes of dynamic shared memory: Hopper
/// kernels stage tiles in up to 227 KiB, past the 48 KiB a kernel has
/// without opting in (which the occupancy calculator also counts).
Result allowShared(const Driver &d, Function function, unsigned shared) {
  if (shared <= kDefaultSharedBytesLimit)
    return 0;
  return d.funcSetAttribute(function, kFuncAttributeMaxDynamicSharedSizeBytes,
                            int(shared));
}

} // namespace

bool symm::cuda::makeCudaApi(GpuApi &api, std::shared_ptr<Driver> &driver,
                             const char *backend) {
  auto d = std::make_shared<Driver>();
  driver = d;
  DriverLibrary lib;
  if (!open(lib, *d)) {
    fail(SYMM_ERROR_UNAVAILABLE,
         "the %s backend needs the NVIDIA driver (libcuda.so.1): %s", backend,
         lib.why().c_str());
    return false;
  }
  api.name = "cuda";
  api.errorString = [d](int code) {
    const char *s = nullptr;
    d->getErrorString(code, &s);
    return s ? s : "unknown CUDA error";
  };
  api.init = [d](int localRank, int *count) {
    // With lazy loading, the first launch of a kernel may wait for the device
    // to go idle, which never happens when another kernel spins on a flag
    // that kernel will raise (producer and consumer on two streams). Load
    // whole modules eagerly unless the user chose otherwise.
    setenv("CUDA_MODULE_LOADING", "EAGER", /*overwrite=*/0);
    if (Result r = d->init(0))
      return int(r);
    if (Result r = d->deviceGetCount(count))
      return int(r);
    if (*count == 0)
      return 0;
    if (Result r = d->deviceGet(&d->device, localRank % *count))
      return int(r);
    if (Result r = d->primaryCtxRetain(&d->context, d->device))
      return int(r);
    return int(d->ctxSetCurrent(d->context));
  };
  api.makeCurrent = [d] { return int(d->ctxSetCurrent(d->context)); };
  api.heapAlloc = [d](void **p, size_t n) {
    DevicePtr ptr;
    Result r = d->memAlloc(&ptr, n);
    *p = reinterpret_cast<void *>(ptr);
    return int(r);
  };
  api.heapFree = [d](void *p) { return int(d->memFree(dptr(p))); };
  api.ipcGetHandle = [d](void *handle, void *p) {
    return int(
        d->ipcGetMemHandle(static_cast<IpcMemHandle *>(handle), dptr(p)));
  };
  api.ipcOpenHandle = [d](void **p, const void *handle) {
    DevicePtr ptr;
    Result r =
        d->ipcOpenMemHandle(&ptr, *static_cast<const IpcMemHandle *>(handle),
                            kIpcMemLazyEnablePeerAccess);
    *p = reinterpret_cast<void *>(ptr);
    return int(r);
  };
  api.ipcCloseHandle = [d](void *p) {
    return int(d->ipcCloseMemHandle(dptr(p)));
  };
  api.moduleLoad = [d](void **m, const void *image) {
    return int(d->moduleLoadData(reinterpret_cast<Module *>(m), image));
  };
  api.moduleUnload = [d](void *m) {
    return int(d->moduleUnload(static_cast<Module>(m)));
  };
  api.moduleGetFunction = [d](void **f, void *m, const char *name) {
    return int(d->moduleGetFunction(reinterpret_cast<Function *>(f),
                                    static_cast<Module>(m), name));
  };
  api.moduleGetGlobal = [d](void **p, size_t *bytes, void *m,
                            const char *name) {
    DevicePtr ptr;
    Result r = d->moduleGetGlobal(&ptr, bytes, static_cast<Module>(m), name);
    *p = reinterpret_cast<void *>(ptr);
    return int(r);
  };
  api.memcpyToDevice = [d](void *dst, const void *src, size_t n) {
    return int(d->memcpyHtoD(dptr(dst), src, n));
  };
  lib.load("cuLaunchKernelEx", d->launchKernelEx);
  api.launch = [d](void *f, const unsigned g[3], const unsigned b[3],
                   unsigned shared, void *stream, void **params, bool early) {
    if (Result r = allowShared(*d, static_cast<Function>(f), shared))
      return int(r);
    if (!early || !d->launchKernelEx)
      return int(d->launchKernel(static_cast<Function>(f), g[0], g[1], g[2],
                                 b[0], b[1], b[2], shared,
                                 static_cast<Stream>(stream), params, nullptr));
    // A programmatic dependent launch: the kernel may start once every
    // workgroup of the kernel ahead of it has signalled (or ended), and
    // waits for that kernel's end itself (griddepcontrol.wait).
    LaunchAttribute attribute{};
    attribute.id = kLaunchAttributeProgrammaticStreamSerialization;
    attribute.value.programmaticStreamSerializationAllowed = 1;
    LaunchConfig config{g[0],       g[1], g[2],   b[0],
                        b[1],       b[2], shared, static_cast<Stream>(stream),
                        &attribute, 1};
    return int(
        d->launchKernelEx(&config, static_cast<Function>(f), params, nullptr));
  };
  api.occupancy = [d](void *f, int threads, size_t shared, int *blocks) {
    if (Result r = allowShared(*d, static_cast<Function>(f), unsigned(shared)))
      return int(r);
    return int(d->occupancyMaxActiveBlocksPerMultiprocessor(
        blocks, static_cast<Function>(f), threads, shared));
  };
  api.multiprocessors = [d](int *count) {
    return int(d->deviceGetAttribute(
        count, kDeviceAttributeMultiprocessorCount, d->device));
  };
  api.streamCreate = [d](void **s) {
    return int(
        d->streamCreate(reinterpret_cast<Stream *>(s), kStreamNonBlocking));
  };
  api.streamDestroy = [d](void *s) {
    return int(d->streamDestroy(static_cast<Stream>(s)));
  };
  api.streamSynchronize = [d](void *s) {
    return int(d->streamSynchronize(static_cast<Stream>(s)));
  };
  api.streamQuery = [d](void *s) {
    return int(d->streamQuery(static_cast<Stream>(s)));
  };
  api.deviceSynchronize = [d] { return int(d->ctxSynchronize()); };
  api.eventCreate = [d](void **e) {
    return int(
        d->eventCreate(reinterpret_cast<Event *>(e), kEventDisableTiming));
  };
  api.eventDestroy = [d](void *e) {
    return int(d->eventDestroy(static_cast<Event>(e)));
  };
  api.eventRecord = [d](void *e, void *s) {
    return int(d->eventRecord(static_cast<Event>(e), static_cast<Stream>(s)));
  };
  api.eventSynchronize = [d](void *e) {
    return int(d->eventSynchronize(static_cast<Event>(e)));
  };
  api.eventQuery = [d](void *e) {
    return int(d->eventQuery(static_cast<Event>(e)));
  };
  api.notReady = kErrorNotReady;
  api.streamWaitEvent = [d](void *s, void *e) {
    return int(
        d->streamWaitEvent(static_cast<Stream>(s), static_cast<Event>(e), 0));
  };
  api.streamBeginCapture = [d](void *s) {
    return int(d->streamBeginCapture(static_cast<Stream>(s),
                                     kStreamCaptureModeThreadLocal));
  };
  api.streamEndCapture = [d](void *s, void **g) {
    return int(d->streamEndCapture(static_cast<Stream>(s),
                                   reinterpret_cast<Graph *>(g)));
  };
  api.streamIsCapturing = [d](void *s, bool *capturing) {
    int status = kStreamCaptureStatusNone;
    Result r = d->streamIsCapturing(static_cast<Stream>(s), &status);
    *capturing = status != kStreamCaptureStatusNone;
    return int(r);
  };
  api.graphInstantiate = [d](void **exec, void *g) {
    return int(d->graphInstantiateWithFlags(reinterpret_cast<GraphExec *>(exec),
                                            static_cast<Graph>(g), 0));
  };
  api.graphLaunch = [d](void *exec, void *s) {
    return int(
        d->graphLaunch(static_cast<GraphExec>(exec), static_cast<Stream>(s)));
  };
  api.graphExecDestroy = [d](void *exec) {
    return int(d->graphExecDestroy(static_cast<GraphExec>(exec)));
  };
  api.graphDestroy = [d](void *g) {
    return int(d->graphDestroy(static_cast<Graph>(g)));
  };
  api.memAlloc = [d](void **p, size_t n) {
    DevicePtr ptr;
    Result r = d->memAlloc(&ptr, n);
    *p = reinterpret_cast<void *>(ptr);
    return int(r);
  };
  api.memAllocShared = [d](void **p, size_t n) {
    DevicePtr ptr;
    Result r = d->memAllocManaged(&ptr, n, kMemAttachGlobal);
    *p = reinterpret_cast<void *>(ptr);
    return int(r);
  };
  api.memFree = [d](void *p) { return int(d->memFree(dptr(p))); };
  api.memcpyAsync = [d](void *dst, const void *src, size_t n, void *s) {
    return int(d->memcpyAsync(dptr(dst), dptr(src), n, static_cast<Stream>(s)));
  };
  api.memset32Async = [d](void *dst, uint32_t v, size_t n, void *s) {
    return int(d->memsetD32Async(dptr(dst), v, n, static_cast<Stream>(s)));
  };
  api.memset16Async = [d](void *dst, uint16_t v, size_t n, void *s) {
    return int(d->memsetD16Async(dptr(dst), v, n, static_cast<Stream>(s)));
  };
  api.hostRegister = [d](void *p, size_t n) {
    return int(d->memHostRegister(p, n, /*flags=*/0));
  };
  // Stream memory operations: without them the copy-engine collectives are
  // not chosen, and forcing one says the backend has none.
  lib.load("cuStreamWriteValue32_v2", d->streamWriteValue32);
  lib.load("cuStreamWaitValue32_v2", d->streamWaitValue32);
  if (d->streamWriteValue32 && d->streamWaitValue32) {
    api.streamWriteValue32 = [d](void *s, uint32_t *p, uint32_t v) {
      return int(d->streamWriteValue32(static_cast<Stream>(s), dptr(p), v,
                                       kStreamWriteValueDefault));
    };
    api.streamWaitValue32 = [d](void *s, uint32_t *p, uint32_t v) {
      return int(d->streamWaitValue32(static_cast<Stream>(s), dptr(p), v,
                                      kStreamWaitValueGeq));
    };
  }
  // Drivers before CUDA 12 have no TMA: the backend then reports it
  // unsupported.
  lib.load("cuTensorMapEncodeTiled", d->tensorMapEncodeTiled);
  if (d->tensorMapEncodeTiled)
    api.encodeTensorMap = [d](void *map, const TensorMapRequest &r) {
      return int(encodeTensorMap(*d, map, r));
    };
  return true;
}

Backend *symm::createCudaBackend() {
  GpuApi api;
  std::shared_ptr<Driver> driver;
  if (!makeCudaApi(api, driver, "cuda"))
    return nullptr;
  return createGpuBackend(std::move(api));
}
