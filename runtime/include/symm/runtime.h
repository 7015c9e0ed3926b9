/*===- runtime.h - The Symm runtime C API -------------------------*- C -*-===*\
|*                                                                            *|
|* Sets up a symmetric heap on every rank (process), maps every peer's heap,  *|
|* loads compiled modules (writing their kernel context) and launches         *|
|* kernels. Backends: host (CPU, always), cuda, hip; chosen at run time by    *|
|* SYMM_BACKEND. Every call returns a status; symm_last_error() says what     *|
|* went wrong, naming the rank.                                               *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef SYMM_RUNTIME_H
#define SYMM_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#include "symm/kernel_context.h"

#if defined(_WIN32)
#define SYMM_EXPORT __declspec(dllexport)
#else
#define SYMM_EXPORT __attribute__((visibility("default")))
#endif

#ifdef __cplusplus
extern "C" {
#endif

typedef enum symm_status {
  SYMM_SUCCESS = 0,
  SYMM_ERROR_INVALID_ARGUMENT, /* bad argument, unknown kernel, bad launch */
  SYMM_ERROR_NOT_INITIALIZED,  /* symm_init was not called or failed */
  SYMM_ERROR_TIMEOUT,     /* a rendezvous or barrier exceeded SYMM_TIMEOUT */
  SYMM_ERROR_PEER_FAILED, /* a peer exited, was killed or reported an error */
  SYMM_ERROR_OUT_OF_HEAP, /* the allocation does not fit in the heap */
  SYMM_ERROR_ASYMMETRIC,  /* ranks made different collective calls */
  SYMM_ERROR_NOT_IN_HEAP, /* a pointer outside the symmetric heap */
  SYMM_ERROR_BACKEND,     /* the device API failed */
  SYMM_ERROR_UNAVAILABLE, /* the backend is not built or has no device */
} symm_status;

typedef struct symm_module symm_module;
typedef struct symm_stream symm_stream;
typedef struct symm_graph symm_graph;

/* Initialises this rank: reads its rank and the world size from the
   environment (SYMM_RANK/SYMM_WORLD_SIZE set by symm-run, torchrun's
   RANK/WORLD_SIZE, Open MPI's OMPI_COMM_WORLD_*; one rank when none is set),
   meets the other ranks and maps every heap. Environment: SYMM_BACKEND
   (host|cuda|hip, default host), SYMM_HEAP_SIZE (bytes, K/M/G/T suffixes,
   default 1G), SYMM_TIMEOUT (seconds, default 60); a value that is not one
   is SYMM_ERROR_INVALID_ARGUMENT, naming it. */
SYMM_EXPORT symm_status symm_init(void);
/* Collective, like symm_barrier: fails when a peer is still in another
   collective call or does not arrive within SYMM_TIMEOUT. */
SYMM_EXPORT symm_status symm_finalize(void);
SYMM_EXPORT const char *symm_last_error(void);
SYMM_EXPORT const char *symm_status_string(symm_status status);

SYMM_EXPORT int symm_rank(void);
SYMM_EXPORT int symm_world_size(void);
SYMM_EXPORT const char *symm_backend_name(void);
/* The backends this runtime knows (one table, runtime/lib/core/Backends.cpp),
   whether built in or not: the index-th name, NULL past the last. */
SYMM_EXPORT const char *symm_backend_at(size_t index);
/* The symm-compile --target a backend runs by default (host, sm_90, gfx942),
   NULL when `backend` is not a backend's name. */
SYMM_EXPORT const char *symm_backend_default_target(const char *backend);

/* Collective (as are symm_barrier and symm_finalize): every rank makes the
   same calls in the same order with the same sizes; a mismatch fails on every
   rank with SYMM_ERROR_ASYMMETRIC. */
SYMM_EXPORT symm_status symm_malloc(size_t bytes, void **ptr);
SYMM_EXPORT symm_status symm_free(void *ptr);
/* Completes this rank's outstanding device work, then waits for every rank. */
SYMM_EXPORT symm_status symm_barrier(void);

/* heap_bases[rank]: where `rank`'s heap is mapped in this process. */
SYMM_EXPORT symm_status symm_heap_base(int rank, void **base);
SYMM_EXPORT size_t symm_heap_size(void);
/* The address of `local`'s symmetric counterpart on `peer`. */
SYMM_EXPORT symm_status symm_translate(const void *local, int peer,
                                       void **remote);
/* The kernel context of this rank (rank, world size, every heap base as
   mapped here). Modules compiled with kernel-context=argument take a pointer
   to it, in memory the device can read, as their last kernel parameter. */
SYMM_EXPORT symm_status symm_get_kernel_context(symm_kernel_context *context);

/* Bytes still free in the heap (the same on every rank). */
SYMM_EXPORT size_t symm_heap_free(void);

/* Loads a compiled module (cubin/PTX, HSACO or host shared object) and writes
   its kernel context. From a file, the manifest `<path>.json` symm-compile
   wrote next to it is read when present, and launches are checked against it.
 */
SYMM_EXPORT symm_status symm_module_load_file(const char *path,
                                              symm_module **module);
SYMM_EXPORT symm_status symm_module_load_data(const void *data, size_t size,
                                              symm_module **module);
/* Waits for this rank's device work (launches still queued may use the
   module), then unloads it. A module unloaded already is an error. */
SYMM_EXPORT symm_status symm_module_unload(symm_module *module);

/* Launches `kernel`; params[i] points at the i-th parameter (memref arguments
   expand into allocated pointer, aligned pointer, offset, sizes, strides). A
   null stream is the default stream. Several host threads may launch from
   one module at once. A null params array (with parameters), a null entry
   in it, more dynamic shared memory than the backend gives a block, an
   unloaded module or a destroyed stream is SYMM_ERROR_INVALID_ARGUMENT. So
   is a grid larger than symm_kernel_max_resident allows for a kernel whose
   manifest says "co_resident" (symm.co_resident: its workgroups wait on each
   other, so such a launch would never end); it is refused before anything
   runs, also while the stream is captured. */
SYMM_EXPORT symm_status symm_launch(symm_module *module, const char *kernel,
                                    const unsigned grid[3],
                                    const unsigned block[3],
                                    size_t shared_bytes, symm_stream *stream,
                                    void **params, size_t num_params);
/* How many workgroups of `kernel` with `threads` threads and `shared_bytes`
   of dynamic shared memory each this rank's device holds at once: on cuda
   and hip the occupancy calculator's workgroups per multiprocessor times the
   multiprocessors (which counts the kernel's registers), on CPU ranks
   SYMM_HOST_RESIDENT_BLOCKS; 0 when not one fits. The largest grid a kernel
   whose workgroups wait on each other can be launched with. An unknown
   kernel or 0 threads is SYMM_ERROR_INVALID_ARGUMENT. */
SYMM_EXPORT symm_status symm_kernel_max_resident(symm_module *module,
                                                 const char *kernel,
                                                 unsigned threads,
                                                 size_t shared_bytes,
                                                 int64_t *workgroups);
/* The multiprocessors (SMs, CUs) of this rank's device, which persistent
   grids are sized by; on CPU ranks SYMM_HOST_RESIDENT_BLOCKS, each holding
   one workgroup. */
SYMM_EXPORT symm_status symm_device_multiprocessors(int *count);
SYMM_EXPORT symm_status symm_stream_create(symm_stream **stream);
/* Destroys a stream from symm_stream_create, once its work is done; the
   null stream, or a stream destroyed already, is an error. */
SYMM_EXPORT symm_status symm_stream_destroy(symm_stream *stream);
SYMM_EXPORT symm_status symm_stream_synchronize(symm_stream *stream);
SYMM_EXPORT symm_status symm_synchronize(void);

/* Graphs, as CUDA's stream capture. Between begin and end, the work put on
   `stream` (launches, and on the GPU backends what the driver captures) is
   recorded instead of run; end returns it as a graph ready to launch, which
   symm_graph_launch enqueues, in order and with the parameter values given
   at record time, on any stream, as often as wanted. Only a stream from
   symm_stream_create can be captured; end a capture on the thread that
   began it. While a capture begun here is open, the calls that may wait for
   the device fail and change nothing: symm_stream_synchronize of its
   stream, symm_synchronize, symm_barrier, symm_free, symm_memcpy,
   symm_device_malloc/free, module load and unload, symm_tensor_map_create.
   Destroying a stream ends its capture and discards
   it; symm_finalize discards open captures and destroys every graph. */
SYMM_EXPORT symm_status symm_stream_begin_capture(symm_stream *stream);
SYMM_EXPORT symm_status symm_stream_end_capture(symm_stream *stream,
                                                symm_graph **graph);
/* *capturing = 1 while `stream` is being captured (on cuda, also by
   cudaStreamBeginCapture on the same stream), 0 otherwise. */
SYMM_EXPORT symm_status symm_stream_is_capturing(symm_stream *stream,
                                                 int *capturing);
/* A null stream is the default stream. */
SYMM_EXPORT symm_status symm_graph_launch(symm_graph *graph,
                                          symm_stream *stream);
/* Launches already enqueued still run. Until then, symm_module_unload of a
   module whose kernels the graph launches fails. */
SYMM_EXPORT symm_status symm_graph_destroy(symm_graph *graph);

/// A TMA descriptor: what a kernel takes as `!nvgpu.tensormap.descriptor`
/// (on NVIDIA a CUtensorMap in device memory, on the CPU target the runtime's
/// own). It describes the `rank`-dimensional tensor (1 to 5) at `base` with
/// `sizes` and `strides` in elements, outermost first as in a memref (the
/// innermost stride 1, the others multiples of 16 bytes), of
/// `element_bytes`-byte elements, copied in boxes of `box` elements
/// (outermost first, 1 to 256 each) with `swizzle_bytes` (0, 32, 64 or 128)
/// swizzling and zeros out of bounds. The kernel's descriptor type must name
/// the same box and swizzle. `base` may be any memory a kernel reaches,
/// including a peer's heap through symm_translate. Valid until
/// symm_finalize.
SYMM_EXPORT symm_status symm_tensor_map_create(const void *base, int rank,
                                               const uint64_t *sizes,
                                               const uint64_t *strides,
                                               const uint32_t *box,
                                               size_t element_bytes,
                                               int swizzle_bytes, void **map);
/* Device memory that is not symmetric, and copies to and from it. */
SYMM_EXPORT symm_status symm_device_malloc(size_t bytes, void **ptr);
SYMM_EXPORT symm_status symm_device_free(void *ptr);
SYMM_EXPORT symm_status symm_memcpy(void *dst, const void *src, size_t bytes);

#ifdef __cplusplus
}
#endif

#endif /* SYMM_RUNTIME_H */
