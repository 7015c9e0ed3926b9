//===- CudaDriver.h - The part of the CUDA driver API Symm uses -*- C++ -*-===//
//
// Declarations of the CUDA driver entry points the cuda backend opens with
// dlopen, written from the driver API's documented signatures so that the
// backend builds on machines without the CUDA toolkit (CI does) and runs
// wherever the NVIDIA driver is installed. All handles are opaque pointers;
// CUresult is an int whose 0 is CUDA_SUCCESS.
//
//===----------------------------------------------------------------------===//

#ifndef SYMM_RUNTIME_LIB_CUDA_CUDADRIVER_H
#define SYMM_RUNTIME_LIB_CUDA_CUDADRIVER_H

#include <cstddef>
#include <cstdint>
#include <memory>

namespace symm::cuda {

using Result = int;
using Device = int;
using DevicePtr = unsigned long long;
using Context = struct Context_ *;
using Module = struct Module_ *;
using Function = struct Function_ *;
using Stream = struct Stream_ *;
using Event = struct Event_ *;
using Graph = struct Graph_ *;
using GraphExec = struct GraphExec_ *;
using LinkState = struct LinkState_ *;
struct IpcMemHandle {
  char reserved[64];
};

constexpr unsigned kIpcMemLazyEnablePeerAccess = 0x1;
constexpr unsigned kStreamNonBlocking = 0x1;
constexpr unsigned kEventDisableTiming = 0x2;
constexpr unsigned kMemAttachGlobal = 0x1;
/// CUstreamCaptureMode and CUstreamCaptureStatus values.
constexpr int kStreamCaptureModeThreadLocal = 1;
constexpr int kStreamCaptureStatusNone = 0;
constexpr int kFuncAttributeMaxDynamicSharedSizeBytes = 8;
/// CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT.
constexpr int kDeviceAttributeMultiprocessorCount = 16;
/// CU_STREAM_WAIT_VALUE_GEQ (a cyclic greater-or-equal) and
/// CU_STREAM_WRITE_VALUE_DEFAULT (a memory fence before the write).
constexpr unsigned kStreamWaitValueGeq = 0, kStreamWriteValueDefault = 0;
/// CUDA_ERROR_NOT_READY: what a query returns while work still runs.
constexpr int kErrorNotReady = 600;
/// Without opting in, a kernel may have at most 48 KiB of shared memory.
constexpr unsigned kDefaultSharedBytesLimit = 48 * 1024;

/// CUlaunchAttribute: an id (CUlaunchAttributeID), padding to 8 bytes, and
/// a 64-byte union of values; CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_-
/// SERIALIZATION's value is an int (programmaticStreamSerializationAllowed).
struct LaunchAttribute {
  int id;
  char pad[4];
  union {
    char bytes[64];
    int programmaticStreamSerializationAllowed;
  } value;
};
constexpr int kLaunchAttributeProgrammaticStreamSerialization = 6;
/// CUlaunchConfig.
struct LaunchConfig {
  unsigned gridDimX, gridDimY, gridDimZ;
  unsigned blockDimX, blockDimY, blockDimZ;
  unsigned sharedMemBytes;
  Stream stream;
  LaunchAttribute *attrs;
  unsigned numAttrs;
};
static_assert(sizeof(LaunchAttribute) == 72 && sizeof(LaunchConfig) == 56,
              "the layouts of cuda.h's CUlaunchAttribute and CUlaunchConfig");

struct Driver {
  Result (*init)(unsigned flags);
  Result (*deviceGetCount)(int *count);
  Result (*deviceGet)(Device *device, int ordinal);
  Result (*deviceGetAttribute)(int *value, int attribute, Device device);
  Result (*primaryCtxRetain)(Context *context, Device device);
  Result (*ctxSetCurrent)(Context context);
  Result (*ctxSynchronize)();
  Result (*getErrorString)(Result error, const char **text);
  Result (*memAlloc)(DevicePtr *ptr, size_t bytes);
  Result (*memAllocManaged)(DevicePtr *ptr, size_t bytes, unsigned flags);
  Result (*memFree)(DevicePtr ptr);
  Result (*ipcGetMemHandle)(IpcMemHandle *handle, DevicePtr ptr);
  Result (*ipcOpenMemHandle)(DevicePtr *ptr, IpcMemHandle handle,
                             unsigned flags);
  Result (*ipcCloseMemHandle)(DevicePtr ptr);
  Result (*moduleLoadData)(Module *module, const void *image);
  Result (*moduleUnload)(Module module);
  Result (*moduleGetFunction)(Function *function, Module module,
                              const char *name);
  Result (*moduleGetGlobal)(DevicePtr *ptr, size_t *bytes, Module module,
                            const char *name);
  Result (*memcpyHtoD)(DevicePtr dst, const void *src, size_t bytes);
  Result (*launchKernel)(Function function, unsigned gridX, unsigned gridY,
                         unsigned gridZ, unsigned blockX, unsigned blockY,
                         unsigned blockZ, unsigned sharedBytes, Stream stream,
                         void **params, void **extra);
  /// CUDA 12 and newer; null with older drivers, whose launches are then
  /// never early.
  Result (*launchKernelEx)(const LaunchConfig *config, Function function,
                           void **params, void **extra);
  Result (*streamCreate)(Stream *stream, unsigned flags);
  Result (*streamDestroy)(Stream stream);
  Result (*streamSynchronize)(Stream stream);
  Result (*streamQuery)(Stream stream);
  Result (*eventCreate)(Event *event, unsigned flags);
  Result (*eventDestroy)(Event event);
  Result (*eventRecord)(Event event, Stream stream);
  Result (*eventSynchronize)(Event event);
  Result (*eventQuery)(Event event);
  Result (*streamWaitEvent)(Stream stream, Event event, unsigned flags);
  Result (*streamBeginCapture)(Stream stream, int mode);
  Result (*streamEndCapture)(Stream stream, Graph *graph);
  Result (*streamIsCapturing)(Stream stream, int *status);
  Result (*graphInstantiateWithFlags)(GraphExec *exec, Graph graph,
                                      unsigned long long flags);
  Result (*graphLaunch)(GraphExec exec, Stream stream);
  Result (*graphExecDestroy)(GraphExec exec);
  Result (*graphDestroy)(Graph graph);
  Result (*memcpyAsync)(DevicePtr dst, DevicePtr src, size_t bytes,
                        Stream stream);
  Result (*memsetD32Async)(DevicePtr dst, unsigned value, size_t count,
                           Stream stream);
  Result (*memsetD16Async)(DevicePtr dst, unsigned short value, size_t count,
                           Stream stream);
  Result (*memHostRegister)(void *ptr, size_t bytes, unsigned flags);
  Result (*funcSetAttribute)(Function function, int attribute, int value);
  Result (*occupancyMaxActiveBlocksPerMultiprocessor)(int *blocks,
                                                      Function function,
                                                      int blockSize,
                                                      size_t dynamicSharedBytes);
  /// CUDA 12 and newer; null with older drivers. The enums are ints.
  Result (*tensorMapEncodeTiled)(void *map, int dataType, uint32_t rank,
                                 void *globalAddress, const uint64_t *globalDim,
                                 const uint64_t *globalStrides,
                                 const uint32_t *boxDim,
                                 const uint32_t *elementStrides, int interleave,
                                 int swizzle, int l2Promotion, int oobFill);
  /// Stream memory operations: the _v2 entry points, which cuda.h names
  /// cuStreamWriteValue32 and cuStreamWaitValue32 since CUDA 12; null with
  /// drivers that lack them.
  Result (*streamWriteValue32)(Stream stream, DevicePtr address, uint32_t value,
                               unsigned flags);
  Result (*streamWaitValue32)(Stream stream, DevicePtr address, uint32_t value,
                              unsigned flags);
  /// The JIT linker (cuLink*): linking a module with device libraries.
  Result (*linkCreate)(unsigned numOptions, int *options, void **values,
                       LinkState *state);
  Result (*linkAddData)(LinkState state, int type, void *data, size_t bytes,
                        const char *name, unsigned numOptions, int *options,
                        void **values);
  Result (*linkAddFile)(LinkState state, int type, const char *path,
                        unsigned numOptions, int *options, void **values);
  Result (*linkComplete)(LinkState state, void **cubin, size_t *bytes);
  Result (*linkDestroy)(LinkState state);
  Context context = nullptr;
  Device device = 0;
};

/// CUjitInputType and the CUjit_option values the linker is given.
constexpr int kJitInputCubin = 0, kJitInputPtx = 1, kJitInputLibrary = 4;
constexpr int kJitMaxRegisters = 0, kJitErrorLogBuffer = 5,
              kJitErrorLogBufferSizeBytes = 6;

} // namespace symm::cuda

namespace symm {
struct GpuApi;
namespace cuda {
/// Opens the driver and fills `api` with it (the cuda backend's GpuApi);
/// `driver` keeps the entry points for a backend built on it. False, with
/// an error naming `backend` recorded, when libcuda.so.1 cannot be opened.
bool makeCudaApi(GpuApi &api, std::shared_ptr<Driver> &driver,
                 const char *backend);
} // namespace cuda

} // namespace symm

#endif // SYMM_RUNTIME_LIB_CUDA_CUDADRIVER_H
