//===- EntryPoints.cpp - Functions compiled programs call -------*- C++ -*-===//
//
// The `mgpu*` functions MLIR's gpu-to-llvm lowering calls (signatures as in
// MLIR 22's CUDA runtime wrappers) and the `_symm_program_*` functions that
// convert-symm-to-llvm calls, over the selected backend. A compiled program
// has no way to handle an error, so these report it with the rank and exit.
//
//===----------------------------------------------------------------------===//

#include "Runtime.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <string>
#include <unistd.h>

using namespace symm;

void finishProgram();

namespace {
/// Ends a compiled program that cannot go on. Exit handlers do not run: the
/// failure may come from inside a module constructor, and the destructors
/// would then unload a module that never loaded. Peers see this rank's
/// connections close and fail at once.
[[noreturn]] void die() {
  fflush(nullptr);
  _exit(1);
}

void check(symm_status status, const char *what) {
  if (status == SYMM_SUCCESS)
    return;
  fprintf(stderr, "symm: %s failed: %s\n", what, symm_last_error());
  die();
}

/// The backend of a compiled program, initialising the runtime on first use.
/// Finalisation is registered with atexit after the device driver's own exit
/// handlers, so it runs before them.
Backend &program() {
  static bool registered = false;
  Backend *backend = initializedBackend();
  if (!backend)
    check(SYMM_ERROR_NOT_INITIALIZED, "initialising the runtime");
  if (!registered) {
    registered = true;
    atexit(finishProgram);
  }
  return *backend;
}
} // namespace

#define SYMM_ENTRY extern "C" SYMM_EXPORT

namespace {
/// A ranked memref descriptor as MLIR passes it to C (StridedMemRefType):
/// `rank` sizes, then `rank` strides, in elements, outermost first.
struct RankedMemRef {
  char *allocated, *aligned;
  int64_t offset, sizesAndStrides[];
};

/// The element size of each CUtensorMapDataType code upstream's
/// nvgpu.tma.create.descriptor lowering passes (uint8 ... tfloat32_ftz).
constexpr uint32_t kTensorMapElementBytes[] = {1, 2, 4, 4, 8, 8, 2,
                                               4, 8, 2, 4, 4, 4};
} // namespace

SYMM_ENTRY void *mgpuModuleLoad(void *data, size_t size) {
  void *module = nullptr;
  program();
  check(symm_module_load_data(data, size,
                              reinterpret_cast<symm_module **>(&module)),
        "loading a GPU module");
  return module;
}

SYMM_ENTRY void *mgpuModuleLoadJIT(void *data, int) {
  // PTX is JIT-compiled by the driver on load; nothing else to do here.
  return mgpuModuleLoad(data, 0);
}

SYMM_ENTRY void mgpuModuleUnload(void *module) {
  // Kernels may still run at process exit: finish them first.
  symm_synchronize();
  symm_module_unload(reinterpret_cast<symm_module *>(module));
}

/// The module owns the Kernel: the same one for every launch of a name.
SYMM_ENTRY void *mgpuModuleGetFunction(void *module, const char *name) {
  return moduleKernel(reinterpret_cast<symm_module *>(module), name);
}

SYMM_ENTRY void mgpuLaunchKernel(void *function, intptr_t gridX, intptr_t gridY,
                                 intptr_t gridZ, intptr_t blockX,
                                 intptr_t blockY, intptr_t blockZ, int32_t smem,
                                 void *stream, void **params, void **,
                                 size_t paramsCount) {
  auto *kernel = static_cast<Kernel *>(function);
  unsigned grid[3] = {unsigned(gridX), unsigned(gridY), unsigned(gridZ)};
  unsigned block[3] = {unsigned(blockX), unsigned(blockY), unsigned(blockZ)};
  if (symm_status st = launchKernel(
          kernel, grid, block, static_cast<size_t>(smem),
          reinterpret_cast<symm_stream *>(stream), params, paramsCount)) {
    std::string what =
        kernel ? "launching kernel '" + std::string(kernelName(kernel)) + "'"
               : "launching a kernel";
    check(st, what.c_str());
  }
}

SYMM_ENTRY void *mgpuStreamCreate() {
  void *stream = nullptr;
  check(program().streamCreate(&stream), "creating a stream");
  return stream;
}
SYMM_ENTRY void mgpuStreamDestroy(void *stream) {
  check(program().streamDestroy(stream), "destroying a stream");
}
SYMM_ENTRY void mgpuStreamSynchronize(void *stream) {
  check(program().streamSynchronize(stream), "synchronising a stream");
}
SYMM_ENTRY void mgpuStreamWaitEvent(void *stream, void *event) {
  check(program().streamWaitEvent(stream, event), "waiting for an event");
}
SYMM_ENTRY void *mgpuEventCreate() {
  void *event = nullptr;
  check(program().eventCreate(&event), "creating an event");
  return event;
}
SYMM_ENTRY void mgpuEventDestroy(void *event) {
  check(program().eventDestroy(event), "destroying an event");
}
SYMM_ENTRY void mgpuEventSynchronize(void *event) {
  check(program().eventSynchronize(event), "synchronising an event");
}
SYMM_ENTRY void mgpuEventRecord(void *event, void *stream) {
  check(program().eventRecord(event, stream), "recording an event");
}
SYMM_ENTRY void *mgpuMemAlloc(uint64_t bytes, void *, bool hostShared) {
  void *ptr = nullptr;
  check(program().memAlloc(bytes, hostShared, &ptr),
        "allocating device memory");
  return ptr;
}
SYMM_ENTRY void mgpuMemFree(void *ptr, void *stream) {
  check(program().streamSynchronize(stream), "synchronising a stream");
  check(program().memFree(ptr), "freeing device memory");
}
SYMM_ENTRY void mgpuMemcpy(void *dst, void *src, size_t bytes, void *stream) {
  check(program().memcpy(dst, src, bytes, stream), "copying memory");
}
SYMM_ENTRY void mgpuMemset32(void *dst, unsigned int value, size_t count,
                             void *stream) {
  check(program().memset(dst, value, 4, count, stream), "setting memory");
}
SYMM_ENTRY void mgpuMemset16(void *dst, unsigned short value, size_t count,
                             void *stream) {
  check(program().memset(dst, value, 2, count, stream), "setting memory");
}
SYMM_ENTRY void mgpuMemHostRegister(void *ptr, uint64_t bytes) {
  check(program().hostRegister(ptr, bytes), "registering host memory");
}
/// gpu.host_register of a memref: `descriptor` is a ranked descriptor of
/// `rank` dimensions whose memory, from the element at the offset, is
/// registered.
SYMM_ENTRY void mgpuMemHostRegisterMemRef(int64_t rank, void *descriptor,
                                          int64_t elementBytes) {
  auto *memref = static_cast<RankedMemRef *>(descriptor);
  const int64_t *sizes = memref->sizesAndStrides;
  const int64_t *strides = sizes + rank;
  // The extent of a strided memref: one past its last element.
  int64_t elements = 1;
  for (int64_t d = 0; d < rank; ++d) {
    if (sizes[d] == 0)
      return;
    elements += (sizes[d] - 1) * strides[d];
  }
  mgpuMemHostRegister(memref->aligned + memref->offset * elementBytes,
                      static_cast<uint64_t>(elements * elementBytes));
}
SYMM_ENTRY void mgpuSetDefaultDevice(int32_t) {}

/// nvgpu.tma.create.descriptor: `descriptor` is a ranked descriptor of
/// `tensorRank` dimensions, `inputBoxDims` the box, outermost first; the
/// codes are CUtensorMap's. Returns what kernels take as the descriptor.
SYMM_ENTRY void *mgpuTensorMapEncodeTiledMemref(
    int64_t tensorRank, void *descriptor, int64_t dataType, int64_t interleave,
    int64_t swizzle, int64_t l2promo, int64_t oobFill, int64_t *inputBoxDims) {
  Backend &backend = program();
  TensorMapRequest request = {};
  request.rank = static_cast<int>(tensorRank);
  request.dataType = static_cast<int>(dataType);
  request.interleave = static_cast<int>(interleave);
  request.swizzle = static_cast<int>(swizzle);
  request.l2promo = static_cast<int>(l2promo);
  request.oobFill = static_cast<int>(oobFill);
  symm_status status = SYMM_SUCCESS;
  if (dataType < 0 || dataType >= int64_t(std::size(kTensorMapElementBytes))) {
    status = fail(SYMM_ERROR_INVALID_ARGUMENT,
                  "a TMA descriptor of data type %lld: not a "
                  "CUtensorMapDataType code",
                  (long long)dataType);
  } else if (tensorRank < 1 || tensorRank > 5) {
    status = createTensorMap(backend, request, nullptr);
  } else {
    auto *memref = static_cast<RankedMemRef *>(descriptor);
    const int64_t *sizes = memref->sizesAndStrides;
    const int64_t *strides = sizes + tensorRank;
    request.elementBytes = kTensorMapElementBytes[dataType];
    request.base = memref->aligned + memref->offset * request.elementBytes;
    for (int d = 0; d < request.rank; ++d) {
      int64_t from = tensorRank - 1 - d;
      request.sizes[d] = static_cast<uint64_t>(sizes[from]);
      request.strides[d] = static_cast<uint64_t>(strides[from]);
      request.box[d] = static_cast<uint32_t>(inputBoxDims[from]);
    }
  }
  void *map = nullptr;
  if (status == SYMM_SUCCESS)
    status = createTensorMap(backend, request, &map);
  check(status, "nvgpu.tma.create.descriptor");
  return map;
}

/// `bytes` is -1 when the memref's size does not fit in 63 bits or a
/// dynamic size is negative (the lowering checks the product).
SYMM_ENTRY void *_symm_program_alloc(int64_t bytes) {
  void *ptr = nullptr;
  program();
  if (bytes < 0)
    check(fail(SYMM_ERROR_OUT_OF_HEAP,
               "the memref's size in bytes does not fit in 63 bits, or one "
               "of its dynamic sizes is negative; the symmetric heap holds "
               "%zu bytes",
               symm_heap_size()),
          "symm.alloc");
  check(symm_malloc(static_cast<size_t>(bytes), &ptr), "symm.alloc");
  return ptr;
}
SYMM_ENTRY void _symm_program_free(void *ptr) {
  program();
  check(symm_free(ptr), "symm.dealloc");
}
SYMM_ENTRY void _symm_program_barrier() {
  program();
  check(symm_barrier(), "symm.barrier");
}
SYMM_ENTRY int32_t _symm_program_rank() {
  program();
  return symm_rank();
}
SYMM_ENTRY int32_t _symm_program_world_size() {
  program();
  return symm_world_size();
}

/// Finishes the runtime when a compiled program returns from main, so that
/// every rank leaves together and in-flight kernels complete. A rank that
/// cannot leave cleanly (a peer still waits in a barrier, or is stuck) exits
/// with status 1 whatever main returned.
void finishProgram() { check(symm_finalize(), "finalize"); }

// What vector.print lowers to (MLIR's C runner utilities), so that programs
// print without linking anything else. Output is flushed per line: ranks run
// as separate processes whose output symm-run interleaves by line.
SYMM_ENTRY void printI64(int64_t value) { printf("%lld", (long long)value); }
SYMM_ENTRY void printU64(uint64_t value) {
  printf("%llu", (unsigned long long)value);
}
SYMM_ENTRY void printF32(float value) { printf("%g", value); }
SYMM_ENTRY void printF64(double value) { printf("%lg", value); }
SYMM_ENTRY void printString(const char *s) { fputs(s, stdout); }
SYMM_ENTRY void printOpen() { fputs("( ", stdout); }
SYMM_ENTRY void printClose() { fputs(" )", stdout); }
SYMM_ENTRY void printComma() { fputs(", ", stdout); }
SYMM_ENTRY void printNewline() {
  fputc('\n', stdout);
  fflush(stdout);
}
