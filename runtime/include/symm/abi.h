/*===- abi.h - The contract between the compiler and the runtime --*- C -*-===*\
|*                                                                            *|
|* Every fact that code compiled by Symm and the runtime that loads it must  *|
|* agree on: the kernel context (kernel_context.h), the memref parameter      *|
|* expansion, and the CPU target's entry points, id codes and limits. The    *|
|* compiler builds its LLVM types and calls from these names; the runtime     *|
|* implements them; runtime/test/Abi.cpp fails when the two disagree.         *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef SYMM_ABI_H
#define SYMM_ABI_H

#include "symm/kernel_context.h"

/* A memref argument of rank r is passed as its descriptor's fields: allocated
 * pointer, aligned pointer, offset, r sizes and r strides. */
#define SYMM_MEMREF_PARAMS(rank) (3 + 2 * (rank))

/* ---- Targets ----------------------------------------------------------- */

/* symm-compile --target names: the CPU target, and the chips a target kind
 * compiles for when none is named (the cuda and hip backends run them). */
#define SYMM_TARGET_HOST "host"
#define SYMM_DEFAULT_NVIDIA_TARGET "sm_90"
#define SYMM_DEFAULT_AMD_TARGET "gfx942"

/* ---- The CPU target ---------------------------------------------------- */

/* `void _symm_kernel_<name>(void **params)` runs one thread of kernel <name>
 * with params[i] pointing at its i-th parameter;
 * `const int64_t _symm_kernel_<name>_params[]` = {count, size of each}. */
#define SYMM_HOST_KERNEL_PREFIX "_symm_kernel_"
#define SYMM_HOST_KERNEL_PARAMS_SUFFIX "_params"

/* int64_t SYMM_HOST_ID_FN(int32_t which, int32_t dim): `which` is a
 * symm_host_id, `dim` 0..2 (x, y, z). */
#define SYMM_HOST_ID_FN "_symm_host_id"
typedef enum symm_host_id {
  SYMM_HOST_ID_THREAD = 0,     /* gpu.thread_id */
  SYMM_HOST_ID_BLOCK = 1,      /* gpu.block_id */
  SYMM_HOST_ID_BLOCK_DIM = 2,  /* gpu.block_dim */
  SYMM_HOST_ID_GRID_DIM = 3,   /* gpu.grid_dim */
  SYMM_HOST_ID_LANE = 4,       /* gpu.lane_id (dim ignored) */
  SYMM_HOST_ID_DYNAMIC_SHARED_BYTES = 5, /* the launch's dynamic shared memory */
  SYMM_HOST_ID_COUNT = 6
} symm_host_id;

/* void SYMM_HOST_BARRIER_FN(void): gpu.barrier. */
#define SYMM_HOST_BARRIER_FN "_symm_host_barrier"
/* void *SYMM_HOST_SHARED_MEMORY_FN(int64_t static_bytes): the block's
 * workgroup memory; dynamic shared memory starts at static_bytes. */
#define SYMM_HOST_SHARED_MEMORY_FN "_symm_host_shared_memory"
/* int64_t SYMM_HOST_SHUFFLE_FN(int64_t value, int32_t offset, int32_t width,
 * int32_t mode, int8_t *valid): gpu.shuffle, `mode` in gpu::ShuffleMode's
 * order (xor, down, up, idx). */
#define SYMM_HOST_SHUFFLE_FN "_symm_host_shuffle"
/* void SYMM_HOST_YIELD_FN(void): the back-off of a spin loop (symm.wait,
 * symm.backoff); lets the threads the loop waits for run. */
#define SYMM_HOST_YIELD_FN "_symm_host_yield"
typedef enum symm_host_shuffle_mode {
  SYMM_HOST_SHUFFLE_XOR = 0,
  SYMM_HOST_SHUFFLE_DOWN = 1,
  SYMM_HOST_SHUFFLE_UP = 2,
  SYMM_HOST_SHUFFLE_IDX = 3
} symm_host_shuffle_mode;

/* void SYMM_HOST_PEER_OUT_OF_RANGE_FN(const char *op, int32_t peer): reports
 * that `op` (its name and source location) translated to a peer outside
 * [0, world size) and ends the process with status 1. CPU-target kernels
 * call it before every translation whose peer is out of range. */
#define SYMM_HOST_PEER_OUT_OF_RANGE_FN "_symm_peer_out_of_range"

/* Lanes of a subgroup (gpu.subgroup_size, gpu.lane_id, gpu.shuffle). */
#define SYMM_HOST_SUBGROUP_SIZE 32
/* Subgroups of a block whose values gpu.all_reduce combines through
 * workgroup memory on the CPU target: blocks of up to 4096 threads. */
#define SYMM_HOST_ALL_REDUCE_MAX_SUBGROUPS 128
/* Static workgroup memory a CPU-target kernel may use, like NVIDIA's 48 KiB. */
#define SYMM_HOST_STATIC_SHARED_BYTES (48 * 1024)

/* ---- Race checks on the CPU target (symm-compile --check-races) -------- */

/* A kernel compiled with race checks calls these around its memory accesses
 * (runtime/lib/host/Races.h); `site` names the access's operation and source
 * location. `flags` holds SYMM_RACE_ACQUIRE and SYMM_RACE_RELEASE and the
 * scope (0 workgroup, 1 device, 2 system) shifted by SYMM_RACE_SCOPE_SHIFT.
 * void SYMM_RACE_ACCESS_FN(void *address, int64_t bytes, int32_t write,
 *   const char *site): a plain load or store (memcpy, memset: both ranges).
 * void SYMM_RACE_MASKED_FN(void *address, int64_t element_bytes,
 *   int64_t mask, int32_t write, const char *site): the elements of a masked
 *   vector load or store whose bit of `mask` is set.
 * void SYMM_RACE_ATOMIC_BEFORE_FN(void *address, int32_t flags): before an
 *   atomic store, read-modify-write or compare-and-swap (its release).
 * void SYMM_RACE_ATOMIC_AFTER_FN(void *address, int64_t bytes, int32_t flags,
 *   int32_t wrote, const char *site): after every atomic (the access, whether
 *   it wrote, and its acquire).
 * void SYMM_RACE_FENCE_FN(int32_t flags).
 * Such a module defines `int32_t SYMM_RACE_MARKER_SYMBOL`, by which the
 * runtime tells it from one compiled without checks. */
#define SYMM_RACE_ACCESS_FN "_symm_race_access"
#define SYMM_RACE_MASKED_FN "_symm_race_masked"
#define SYMM_RACE_ATOMIC_BEFORE_FN "_symm_race_atomic_before"
#define SYMM_RACE_ATOMIC_AFTER_FN "_symm_race_atomic_after"
#define SYMM_RACE_FENCE_FN "_symm_race_fence"
#define SYMM_RACE_MARKER_SYMBOL "_symm_races_checked"
#define SYMM_RACE_ACQUIRE 1
#define SYMM_RACE_RELEASE 2
#define SYMM_RACE_SCOPE_SHIFT 2

/* ---- Traces (symm-compile --trace) ------------------------------------- */

/* A module compiled with --trace defines `symm_trace_buffer
 * SYMM_TRACE_SYMBOL` (zero: nothing is recorded), which the runtime writes
 * when it loads the module under SYMM_TRACE, and the constant string table
 * SYMM_TRACE_NAMES_SYMBOL: each kernel's and trace range's name, each
 * preceded by a NUL byte (the table starts with one).
 * The first lane of each subgroup (warp, wavefront) records: slot
 * `block * subgroups per block + subgroup` (the linear block and subgroup
 * ids) of `slots`. It adds 1 to counts[slot] and, when the count it read is
 * below `capacity`, writes the event at events[slot * capacity + count];
 * an event past the capacity is dropped and only counted, like those of a
 * slot past `slots` (in counts[slots]). */
#define SYMM_TRACE_SYMBOL "__symm_trace"
#define SYMM_TRACE_NAMES_SYMBOL "__symm_trace_names"

typedef struct symm_trace_buffer {
  uint64_t counts; /* uint64_t[slots + 1] */
  uint64_t events; /* symm_trace_event[slots * capacity] */
  uint32_t slots;
  uint32_t capacity;
  uint32_t module; /* the module's number in the trace */
  uint32_t reserved;
} symm_trace_buffer;

/* The fields' positions, as compiled code indexes them. */
typedef enum symm_trace_buffer_field {
  SYMM_TRACE_FIELD_COUNTS = 0,
  SYMM_TRACE_FIELD_EVENTS = 1,
  SYMM_TRACE_FIELD_SLOTS = 2,
  SYMM_TRACE_FIELD_CAPACITY = 3,
  SYMM_TRACE_FIELD_MODULE = 4,
  SYMM_TRACE_FIELD_RESERVED = 5,
  SYMM_TRACE_FIELD_COUNT = 6
} symm_trace_buffer_field;

/* `time`: nanoseconds of the device's clock (%globaltimer on NVIDIA,
 * s_memrealtime on AMD, CLOCK_MONOTONIC on the CPU target). `a` and `b` by
 * kind: a name, `(module << 32) | offset in the name table`, and the range's
 * id (-1 without); a flag, its address in this rank's view and
 * `(peer << 32) | value` (the peer whose flag it is, -1 for this rank's
 * own, or SYMM_TRACE_EVERY_PEER for a signal recorded once before the loop
 * that makes it to each peer; the value written, added, or seen); a put or
 * get, the peer and 0. */
#define SYMM_TRACE_EVERY_PEER 0xfffffffeu
typedef struct symm_trace_event {
  uint64_t time;
  uint16_t kind; /* symm_trace_kind */
  uint16_t subgroup;
  uint32_t block;
  uint64_t a;
  uint64_t b;
} symm_trace_event;

/* Fields of symm_trace_event as compiled code indexes them. */
typedef enum symm_trace_event_field {
  SYMM_TRACE_EVENT_TIME = 0,
  SYMM_TRACE_EVENT_KIND = 1,
  SYMM_TRACE_EVENT_SUBGROUP = 2,
  SYMM_TRACE_EVENT_BLOCK = 3,
  SYMM_TRACE_EVENT_A = 4,
  SYMM_TRACE_EVENT_B = 5
} symm_trace_event_field;

/* The kinds of events; the symm dialect's TraceEventKind has the same
 * values. */
typedef enum symm_trace_kind {
  SYMM_TRACE_KERNEL_BEGIN = 0,
  SYMM_TRACE_KERNEL_END = 1,
  SYMM_TRACE_RANGE_BEGIN = 2,
  SYMM_TRACE_RANGE_END = 3,
  SYMM_TRACE_WAIT_BEGIN = 4,
  SYMM_TRACE_WAIT_END = 5,
  SYMM_TRACE_SIGNAL = 6,
  SYMM_TRACE_PUT_BEGIN = 7,
  SYMM_TRACE_PUT_END = 8,
  SYMM_TRACE_GET_BEGIN = 9,
  SYMM_TRACE_GET_END = 10,
  SYMM_TRACE_KIND_COUNT = 11
} symm_trace_kind;

/* int64_t SYMM_HOST_CLOCK_FN(void): the CPU target's clock, CLOCK_MONOTONIC
 * in nanoseconds. */
#define SYMM_HOST_CLOCK_FN "_symm_host_clock_ns"

/* ---- Hopper operations on the CPU target -------------------------------- */

/* An nvgpu mbarrier is one 64-bit word of workgroup memory, as on GPUs, that
 * only these functions read and write. `mbarrier` points at it.
 * void SYMM_HOST_MBARRIER_INIT_FN(void *mbarrier, int32_t count): phase 0,
 *   `count` arrivals expected, no transaction bytes.
 * int64_t SYMM_HOST_MBARRIER_ARRIVE_FN(void *mbarrier, int32_t arrivals,
 *   int32_t tx_bytes): adds `tx_bytes` (negative: completes them) to the
 *   transaction count, then arrives `arrivals` times; the phase completes
 *   when no arrival and no transaction byte is pending. Returns the token of
 *   the phase arrived on (its parity).
 * int32_t SYMM_HOST_MBARRIER_TEST_WAIT_FN(void *mbarrier, int64_t token):
 *   whether the phase `token` names has completed.
 * void SYMM_HOST_MBARRIER_WAIT_FN(void *mbarrier, int32_t parity): returns
 *   once the phase of parity `parity` has completed; a wait that sees no
 *   arrival for SYMM_HOST_DEADLOCK_SECONDS fails the launch. */
#define SYMM_HOST_MBARRIER_INIT_FN "_symm_host_mbarrier_init"
#define SYMM_HOST_MBARRIER_ARRIVE_FN "_symm_host_mbarrier_arrive"
#define SYMM_HOST_MBARRIER_TEST_WAIT_FN "_symm_host_mbarrier_test_wait"
#define SYMM_HOST_MBARRIER_WAIT_FN "_symm_host_mbarrier_wait"

/* What `nvgpu.tma.create.descriptor` returns on the CPU target (the host
 * backend's encodeTensorMap), and what kernels receive as a
 * `!nvgpu.tensormap.descriptor`. Dimensions are innermost first. */
#define SYMM_HOST_TENSOR_MAP_MAX_RANK 5
typedef struct symm_host_tensor_map {
  int32_t rank;
  uint32_t element_bytes;
  int32_t data_type; /* CUtensorMapDataType */
  int32_t swizzle;   /* CUtensorMapSwizzle: 0 none, 1 32B, 2 64B, 3 128B */
  int32_t oob_fill;  /* CUtensorMapFloatOOBfill: 0 zeros, 1 NaN */
  void *base;
  uint64_t sizes[SYMM_HOST_TENSOR_MAP_MAX_RANK];   /* elements */
  uint64_t strides[SYMM_HOST_TENSOR_MAP_MAX_RANK]; /* elements */
  uint32_t box[SYMM_HOST_TENSOR_MAP_MAX_RANK];     /* elements */
} symm_host_tensor_map;

/* void SYMM_HOST_TMA_LOAD_FN(const symm_host_tensor_map *map, void *dst,
 *   void *mbarrier, int32_t c0, ..., int32_t c4): copies the box at
 *   coordinates c0.. (innermost first, as many as the map has dimensions,
 *   the rest 0) densely to `dst`, elements
 *   outside the tensor filled as the map says, then completes the box's bytes
 *   on the mbarrier. The swizzle is not applied: the CPU target's warpgroup
 *   MMA reads the same unswizzled layout.
 * void SYMM_HOST_TMA_STORE_FN(const symm_host_tensor_map *map,
 *   const void *src, int32_t c0, ..., int32_t c4): the
 *   reverse, skipping elements outside the tensor. */
#define SYMM_HOST_TMA_LOAD_FN "_symm_host_tma_load"
#define SYMM_HOST_TMA_STORE_FN "_symm_host_tma_store"

/* void SYMM_HOST_WARPGROUP_SYNC_FN(int64_t *state): waits for the 128
 * threads of the caller's warpgroup (threads 128w .. 128w+127 of the block,
 * fewer in a last partial one). `state` is SYMM_HOST_MAX_WARPGROUPS pairs of
 * int64 in zeroed workgroup memory. */
#define SYMM_HOST_WARPGROUP_SYNC_FN "_symm_host_warpgroup_sync"
#define SYMM_HOST_WARPGROUP_SIZE 128
#define SYMM_HOST_MAX_WARPGROUPS 32

/* ---- Whole programs (host code, every target) -------------------------- */

/* void *(int64_t bytes), void (void *), void (void), int32_t (void). */
#define SYMM_PROGRAM_ALLOC_FN "_symm_program_alloc"
#define SYMM_PROGRAM_FREE_FN "_symm_program_free"
#define SYMM_PROGRAM_BARRIER_FN "_symm_program_barrier"
#define SYMM_PROGRAM_RANK_FN "_symm_program_rank"
#define SYMM_PROGRAM_WORLD_SIZE_FN "_symm_program_world_size"

#endif /* SYMM_ABI_H */
