//===- Runtime.h - Symm runtime internals -----------------------*- C++ -*-===//
//
// What the backends share: errors that name the rank, the bootstrap interface
// between ranks, and the backend interface, with their tables.
//
//===----------------------------------------------------------------------===//

#ifndef SYMM_RUNTIME_LIB_CORE_RUNTIME_H
#define SYMM_RUNTIME_LIB_CORE_RUNTIME_H

#include "symm/runtime.h"

#include <cstdarg>
#include <memory>
#include <string>
#include <vector>

namespace symm {

/// Records "rank R: <message>" as the last error and returns `status`.
symm_status fail(symm_status status, const char *format, ...)
    __attribute__((format(printf, 2, 3)));

/// This process's rank, for messages: before initialisation, the rank the
/// launcher gave (-1 when that is not a rank).
int currentRank();

/// The collectives of symm/collectives.h, as the runtime's checks name them.
enum class CollectiveCall : uint64_t {
  None,
  AllGather,
  AllReduce,
  ReduceScatter,
  AllToAll,
  AllToAllv,
  Broadcast,
};
/// "symm_all_gather", ...
const char *collectiveCallName(CollectiveCall call);

/// While alive, the heap's collective calls that this thread makes (the
/// allocation and barrier of a stream's first collective) are reported as
/// made by `call`, so that a mismatch names what the user called.
class CollectiveCaller {
public:
  explicit CollectiveCaller(CollectiveCall call);
  ~CollectiveCaller();

private:
  CollectiveCall previous;
};

/// Whether the collectives compare their arguments across ranks
/// (SYMM_CHECK_COLLECTIVES=1).
bool checkingCollectives();
/// Checked mode: this rank's call of `call` meets every rank's (a rank that
/// made another collective call fails every rank), then every rank's `mine`
/// (of one length for one call) is gathered into `all`, rank after rank.
/// `seq` receives the call's number among the collective calls.
symm_status gatherCollectiveArguments(CollectiveCall call,
                                      const std::vector<uint64_t> &mine,
                                      std::vector<uint64_t> &all,
                                      uint64_t &seq);

/// SYMM_TIMEOUT: how long any wait that depends on another rank may last.
double timeoutSeconds();

/// After the rendezvous and learnNodes (collective): learns every peer's
/// process, so that exitedPeers() can tell a peer that is gone from one that
/// is slow.
class Bootstrap;
symm_status watchPeers(Bootstrap &bootstrap);
void unwatchPeers();
/// This node and pid namespace: ranks with the same id see each other's
/// processes (pids, /proc) and can share memory by file descriptor.
uint64_t nodeId();
/// The peers on this node whose processes have exited (peers on other
/// nodes are not watched); cheap enough for every tick of a monitor.
std::vector<int> exitedPeers();

/// The channel between ranks while they set up and synchronise. Every
/// operation is bounded by the timeout, and a peer that disappears is
/// reported by rank. Implementations are rows of the bootstrap table
/// (Bootstrap.cpp), chosen by SYMM_BOOTSTRAP.
class Bootstrap {
public:
  virtual ~Bootstrap() = default;
  virtual const char *name() const = 0;
  /// Meets the other ranks of the job.
  virtual symm_status connect(int rank, int size, double timeoutSeconds) = 0;
  /// Every rank contributes `bytes` bytes; `all` receives size * bytes.
  virtual symm_status allgather(const void *mine, size_t bytes, void *all) = 0;
  virtual symm_status barrier() = 0;
  /// Every rank contributes a file descriptor; `fds` receives one per rank
  /// (this rank's own at its index), each a new descriptor the caller owns.
  /// Only ranks of one node can; a bootstrap that cannot pass descriptors
  /// fails with SYMM_ERROR_UNAVAILABLE.
  virtual symm_status allgatherFds(int mine, std::vector<int> &fds) = 0;
  /// Ends the connections (and whatever a failed connect left behind).
  virtual void close() = 0;
  int rank() const { return rank_; }
  int size() const { return size_; }
  /// After connect (collective): learns every rank's node (nodeId).
  symm_status learnNodes();
  /// Whether `rank` runs on this rank's node, once learnNodes ran.
  bool sameNode(int rank) const {
    return nodes_.empty() || nodes_[rank] == nodes_[rank_];
  }

protected:
  int rank_ = 0, size_ = 1;
  /// Each rank's nodeId.
  std::vector<uint64_t> nodes_;
};

/// A row of the bootstrap table.
struct BootstrapInfo {
  const char *name;
  std::unique_ptr<Bootstrap> (*create)();
};
/// The bootstrap SYMM_BOOTSTRAP names (the table's first by default), or an
/// error naming the variable and every bootstrap.
symm_status createBootstrap(std::unique_ptr<Bootstrap> &bootstrap);

/// Rendezvous over a Unix socket in a private folder: ranks of one node.
std::unique_ptr<Bootstrap> createSocketBootstrap();
/// Rendezvous over TCP at MASTER_ADDR:MASTER_PORT: ranks on any nodes.
std::unique_ptr<Bootstrap> createTcpBootstrap();

/// What a tiled TMA descriptor describes (nvgpu.tma.create.descriptor).
struct TensorMapRequest {
  int rank;            // 1..5
  void *base;          // aligned pointer + offset
  uint64_t sizes[5];   // elements, innermost FIRST
  uint64_t strides[5]; // elements, innermost FIRST (strides[0] == 1)
  uint32_t box[5];     // box elements, innermost FIRST
  uint32_t elementBytes;
  int dataType, interleave, swizzle, l2promo, oobFill; // upstream's codes
};

class Backend;
/// Checks a TMA descriptor request against TMA's limits (one error naming the
/// cause) and has `backend` encode it.
symm_status createTensorMap(Backend &backend, const TensorMapRequest &request,
                            void **descriptor);

/// A device API behind the runtime. Handles are opaque pointers owned by the
/// backend.
class Backend {
public:
  virtual ~Backend() = default;
  virtual const char *name() const = 0;
  virtual symm_status init(int localRank) = 0;
  /// Creates this rank's heap of `bytes` bytes and maps every rank's heap;
  /// `bases[r]` is where rank r's heap is visible in this process.
  virtual symm_status createHeap(size_t bytes, Bootstrap &bootstrap,
                                 std::vector<char *> &bases) = 0;
  virtual void destroyHeap() = 0;
  virtual symm_status loadModule(const void *data, size_t size,
                                 void **module) = 0;
  virtual symm_status unloadModule(void *module) = 0;
  virtual symm_status getFunction(void *module, const char *name,
                                  void **function) = 0;
  virtual symm_status writeContext(void *module,
                                   const symm_kernel_context &context) = 0;
  /// Where the module's global `name` is (for memcpy) and its size; a null
  /// address when the module has none.
  virtual symm_status findGlobal(void *module, const char *name, void **address,
                                 size_t *bytes) = 0;
  /// The clock trace events are stamped with, in nanoseconds, read now.
  virtual symm_status readClock(uint64_t *ns) = 0;
  /// Whether every rank reads the same clock (ranks of one host reading its
  /// monotonic clock), so that traces need no alignment.
  virtual bool ranksShareClock() const { return false; }
  /// `early`: the kernel waits for the grid before it first thing (its
  /// manifest's "early_launch"), so a backend may let it launch before the
  /// kernel ahead of it on the stream ends.
  virtual symm_status launch(void *function, const unsigned grid[3],
                             const unsigned block[3], unsigned sharedBytes,
                             void *stream, void **params, size_t numParams,
                             bool early) = 0;
  /// How many workgroups of `function` (the kernel `name`, for errors) with
  /// `threads` threads and `sharedBytes` of dynamic shared memory each the
  /// device holds at once: workgroups per multiprocessor times
  /// multiprocessors; 0 when not one fits. The runtime has checked that
  /// `threads` is positive.
  virtual symm_status maxResident(void *function, const char *name,
                                  unsigned threads, unsigned sharedBytes,
                                  int64_t *workgroups) = 0;
  /// The device's multiprocessors (SMs, CUs): what a persistent grid is
  /// sized by.
  virtual symm_status multiprocessors(int *count) = 0;
  virtual symm_status streamCreate(void **stream) = 0;
  virtual symm_status streamDestroy(void *stream) = 0;
  virtual symm_status streamSynchronize(void *stream) = 0;
  virtual symm_status synchronize() = 0;
  /// Stream capture (CUDA's, thread-local): the runtime has checked that
  /// `stream` is not null and not capturing already.
  virtual symm_status streamBeginCapture(void *stream) = 0;
  /// Ends the capture and returns the recorded work as a graph ready to
  /// launch; the runtime has checked that `stream` is capturing.
  virtual symm_status streamEndCapture(void *stream, void **graph) = 0;
  /// Whether `stream` (not null) is being captured; called before every
  /// collective, so it must be cheap.
  virtual symm_status streamIsCapturing(void *stream, bool *capturing) = 0;
  virtual symm_status graphLaunch(void *graph, void *stream) = 0;
  virtual symm_status graphDestroy(void *graph) = 0;
  virtual symm_status eventCreate(void **event) = 0;
  virtual symm_status eventDestroy(void *event) = 0;
  virtual symm_status eventRecord(void *event, void *stream) = 0;
  virtual symm_status eventSynchronize(void *event) = 0;
  virtual symm_status streamWaitEvent(void *stream, void *event) = 0;
  virtual symm_status memAlloc(size_t bytes, bool hostShared, void **ptr) = 0;
  virtual symm_status memFree(void *ptr) = 0;
  virtual symm_status memcpy(void *dst, const void *src, size_t bytes,
                             void *stream) = 0;
  virtual symm_status memset(void *dst, uint32_t value, size_t elementBytes,
                             size_t count, void *stream) = 0;
  /// Whether the backend has stream memory operations (streamWriteValue,
  /// streamWaitValue): what orders copies between ranks with no kernel
  /// launched between them (the copy-engine collectives).
  virtual bool hasStreamValues() const { return false; }
  /// Once the stream's earlier work is done and visible to every device and
  /// process (a release at system scope), stores `value` into the 32-bit
  /// word at `address`, in this rank's heap or a peer's as mapped here
  /// (cuStreamWriteValue32).
  virtual symm_status streamWriteValue(uint32_t *address, uint32_t value,
                                       void *stream) {
    return fail(SYMM_ERROR_UNAVAILABLE,
                "the %s backend has no stream memory operations", name());
  }
  /// Holds the stream's later work until the word at `address` (this rank's
  /// memory) reaches `value`, cyclically ((int32_t)(word - value) >= 0, as
  /// the kernels' `reached` waits), then reads it with acquire semantics
  /// (cuStreamWaitValue32 with CU_STREAM_WAIT_VALUE_GEQ). `what` says what
  /// is awaited, from whom ("chunk 3 of 8 ... from rank 0"), for the error
  /// of a wait that cannot end: on CPU ranks one that lasts SYMM_TIMEOUT or
  /// outlives a peer's process; a GPU waits until a peer exits, as a kernel
  /// does.
  virtual symm_status streamWaitValue(uint32_t *address, uint32_t value,
                                      void *stream, const char *what) {
    return fail(SYMM_ERROR_UNAVAILABLE,
                "the %s backend has no stream memory operations", name());
  }
  /// symm_barrier calls this once this rank's device work is done, before
  /// the ranks meet (`passed` false), and after they met.
  virtual void barrier(bool passed) {}
  /// Makes `bytes` of host memory at `ptr` accessible to kernels
  /// (gpu.host_register). Kernels of the CPU target already reach it.
  virtual symm_status hostRegister(void *ptr, size_t bytes) {
    return SYMM_SUCCESS;
  }
  /// A descriptor kernels take as `!nvgpu.tensormap.descriptor`; failures name
  /// the cause.
  virtual symm_status encodeTensorMap(const TensorMapRequest &request,
                                      void **descriptor) {
    return fail(SYMM_ERROR_UNAVAILABLE,
                "the %s backend has no TMA descriptors "
                "(nvgpu.tma.create.descriptor)",
                name());
  }
};

Backend *createHostBackend();
/// Null, with the error recorded, when the backend is not built in.
Backend *createCudaBackend();
Backend *createHipBackend();
Backend *createNvshmemBackend();

/// A row of the backend table (Backends.cpp).
struct BackendInfo {
  const char *name;
  /// Null, with the error recorded, when the backend is not built in.
  Backend *(*create)();
  /// The symm-compile --target its programs are compiled for by default.
  const char *defaultTarget;
};
/// The backend called `name`, or null.
const BackendInfo *findBackend(const char *name);
/// "host, cuda, hip": every backend's name, for messages.
std::string backendNames();

/// The initialised runtime's backend, initialising it on first use (the
/// MLIR entry points run before main); null, with the error recorded, when
/// initialisation fails.
Backend *initializedBackend();
/// The context every loaded module receives.
symm_kernel_context kernelContext();

/// A kernel of a loaded module by name, resolved on its first launch.
struct Kernel;
/// The same Kernel for the same module and name, owned by the module and
/// valid until it is unloaded; null for a null module or name.
Kernel *moduleKernel(symm_module *module, const char *name);
const char *kernelName(const Kernel *kernel); // non-null
/// Whether `stream` is being captured (false for the null stream, which
/// cannot be); what a call that cannot be captured asks first.
symm_status streamCapturing(symm_stream *stream, bool &capturing);

/// An error naming `call` when `stream` is one symm_stream_destroy
/// destroyed (and no new stream has its address).
symm_status requireLiveStream(symm_stream *stream, const char *call);

/// What symm_stream_destroy calls first, with the stream, once its work is
/// done (one hook: the collectives retire the stream's channel, so that a
/// stream created later at the same address does not find it).
void setStreamDestroyHook(void (*hook)(symm_stream *stream));

/// symm_module_load_data with the text of the manifest symm-compile wrote for
/// the module (`source` names it in errors): launches are checked against
/// it, and launch early where it allows.
symm_status loadModuleData(const void *data, size_t size,
                           const std::string &manifest,
                           const std::string &source, symm_module **module);

/// symm_launch of a Kernel: launches from several host threads may share it.
symm_status launchKernel(Kernel *kernel, const unsigned grid[3],
                         const unsigned block[3], size_t sharedBytes,
                         symm_stream *stream, void **params, size_t numParams);

} // namespace symm

#endif // SYMM_RUNTIME_LIB_CORE_RUNTIME_H
