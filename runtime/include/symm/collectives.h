/*===- collectives.h - Stream-ordered collectives over the heap ---*- C -*-===*\
|*                                                                            *|
|* NCCL-shaped collectives among all ranks of the job. Every rank makes the   *|
|* same calls in the same order with the same counts; calls are ordered on    *|
|* their stream like kernels. Buffers may be device memory                    *|
|* (symm_device_malloc), the symmetric heap or, on the host backend, host     *|
|* memory, and need not be symmetric. In place works: send == recv (for       *|
|* all-gather send == recv + rank * send_count, for reduce-scatter            *|
|* send + rank * recv_count == recv). Errors are returned as a status, with   *|
|* symm_last_error() naming the rank and the cause. The kernels are written   *|
|* in the symm dialect and embedded in the runtime (see docs/Collectives.md). *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef SYMM_COLLECTIVES_H
#define SYMM_COLLECTIVES_H

#include "symm/runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A dtype or op a caller passes is checked, and refused when it names none
 * (9): in C++ these enums have int as their fixed underlying type, so that
 * every int is one of their values and reading one is defined. */
#ifdef __cplusplus
#define SYMM_ENUM_INT : int
#else
#define SYMM_ENUM_INT
#endif

/* The element types: SYMM_INT8, SYMM_INT32, SYMM_INT64, SYMM_FLOAT16,
   SYMM_BFLOAT16, SYMM_FLOAT32, SYMM_FLOAT64 (symm/dtypes.def). */
typedef enum symm_dtype SYMM_ENUM_INT {
#define SYMM_DTYPE(ENUMERATOR, NAME, BYTES, ACCUMULATOR) ENUMERATOR,
#include "symm/dtypes.def"
} symm_dtype;

typedef enum symm_reduce_op SYMM_ENUM_INT {
  SYMM_SUM,
  SYMM_PROD,
  SYMM_MIN,
  SYMM_MAX
} symm_reduce_op;

/* Rank r's send_count elements land at recv + r * send_count on every rank. */
SYMM_EXPORT symm_status symm_all_gather(const void *send, void *recv,
                                        size_t send_count, symm_dtype dtype,
                                        symm_stream *stream);
/* recv[i] = op over every rank of send[i]; the same bits on every rank. The
   algorithm (ll, ll128, one_shot, two_shot, ring, ll_two_shot,
   ll128_two_shot) is chosen by size and rank count or forced with
   SYMM_ALL_REDUCE_ALGO; the ring folds in ring order and rounds f16/bf16 at
   each hop (docs/Collectives.md). */
SYMM_EXPORT symm_status symm_all_reduce(const void *send, void *recv,
                                        size_t count, symm_dtype dtype,
                                        symm_reduce_op op, symm_stream *stream);
/* Rank r receives block r (recv_count elements) of the reduction of the
   world_size * recv_count elements of send. The algorithm (ll, scatter,
   ring) is chosen by size and rank count or forced with
   SYMM_REDUCE_SCATTER_ALGO; the ring folds in ring order and rounds f16/bf16
   at each hop (docs/Collectives.md). */
SYMM_EXPORT symm_status symm_reduce_scatter(const void *send, void *recv,
                                            size_t recv_count, symm_dtype dtype,
                                            symm_reduce_op op,
                                            symm_stream *stream);
/* Block j of send goes to rank j, which receives it as block i from rank i. */
SYMM_EXPORT symm_status symm_all_to_all(const void *send, void *recv,
                                        size_t count_per_rank, symm_dtype dtype,
                                        symm_stream *stream);
/* root's send (count elements) lands in recv on every rank. The algorithm
   (root, scatter, chain) is chosen by size and rank count or forced with
   SYMM_BROADCAST_ALGO (docs/Collectives.md). */
SYMM_EXPORT symm_status symm_broadcast(const void *send, void *recv,
                                       size_t count, symm_dtype dtype, int root,
                                       symm_stream *stream);
/* Variable-count all-to-all: send_counts[j] elements at send + send_displs[j]
   go to rank j, which receives them at recv + recv_displs[i] as
   recv_counts[i] elements from rank i (counts and displacements in elements,
   one per rank, in host memory). Rank i's send_counts[j] must equal rank j's
   recv_counts[i]. Not in place. */
SYMM_EXPORT symm_status symm_all_to_allv(const void *send,
                                         const size_t *send_counts,
                                         const size_t *send_displs, void *recv,
                                         const size_t *recv_counts,
                                         const size_t *recv_displs,
                                         symm_dtype dtype, symm_stream *stream);

/* Bytes one element of `dtype` occupies; 0 for a value out of range. */
SYMM_EXPORT size_t symm_dtype_size(symm_dtype dtype);
/* The MLIR element type of `dtype` ("i8", ..., "f64"); null for a value out
   of range, so that bindings can list the element types. */
SYMM_EXPORT const char *symm_dtype_name(symm_dtype dtype);

/* The device-side protocol (docs/Collectives.md): each tile slot of a flag
   array holds SYMM_COLL_FLAG_KINDS flags per rank, so a flag array for S
   slots has S * SYMM_COLL_FLAGS_PER_SLOT 32-bit integers. */
#define SYMM_COLL_FLAG_KINDS 4
#define SYMM_COLL_FLAGS_PER_SLOT (SYMM_COLL_FLAG_KINDS * SYMM_MAX_RANKS)
/* The kernels move 16-byte vectors where both sides are aligned; the host
   API's scratch slots and workgroup parts are multiples of them. */
#define SYMM_COLL_VECTOR_BYTES 16

#ifdef __cplusplus
}
#endif

#endif /* SYMM_COLLECTIVES_H */
