//===- Runtime.h - Symm runtime internals -----------------------*- C++ -*-===//
//
// What the backends share: errors that name the rank, the bootstrap channel
// between ranks, and the backend interface.
//
//===----------------------------------------------------------------------===//

#ifndef SYMM_RUNTIME_LIB_CORE_RUNTIME_H
#define SYMM_RUNTIME_LIB_CORE_RUNTIME_H

#include "symm/runtime.h"

#include <cstdarg>
#include <string>
#include <vector>

namespace symm {

/// Records "rank R: <message>" as the last error and returns `status`.
symm_status fail(symm_status status, const char *format, ...)
    __attribute__((format(printf, 2, 3)));

/// This process's rank, for messages: before initialisation, the rank the
/// launcher gave (-1 when that is not a rank).
int currentRank();

/// The channel between ranks while they set up and synchronise: rank 0 is a
/// hub every other rank connects to over a Unix socket in a private folder.
/// Every operation is bounded by the timeout, and a peer that disappears is
/// reported by rank.
class Bootstrap {
public:
  ~Bootstrap() { close(); }
  /// The folder the ranks meet in: symm-run's (SYMM_RENDEZVOUS), or one
  /// derived from the launcher's job identity so that every rank of the job
  /// finds the same one (`derived`). Only this user may write into it.
  static symm_status rendezvousFolder(std::string &dir, bool &derived);
  symm_status connect(int rank, int size, const std::string &dir,
                      double timeoutSeconds);
  /// Every rank contributes `bytes` bytes; `all` receives size * bytes.
  symm_status allgather(const void *mine, size_t bytes, void *all);
  symm_status barrier();
  /// Every rank contributes a file descriptor; `fds` receives one per rank
  /// (this rank's own at its index), each a new descriptor the caller owns.
  symm_status allgatherFds(int mine, std::vector<int> &fds);
  void close();
  int rank() const { return rank_; }
  int size() const { return size_; }

private:
  symm_status sendAll(int fd, const void *data, size_t bytes, int peer);
  symm_status recvAll(int fd, void *data, size_t bytes, int peer);
  symm_status sendFds(int fd, const int *fds, int count, int peer);
  symm_status recvFds(int fd, int *fds, int count, int peer);
  symm_status waitReadable(int fd, int peer);

  int rank_ = 0, size_ = 1;
  double timeout_ = 60;
  int hub_ = -1;             // on ranks > 0: the connection to rank 0
  std::vector<int> clients_; // on rank 0: connection to each rank
};

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
  virtual symm_status launch(void *function, const unsigned grid[3],
                             const unsigned block[3], unsigned sharedBytes,
                             void *stream, void **params, size_t numParams) = 0;
  virtual symm_status streamCreate(void **stream) = 0;
  virtual symm_status streamDestroy(void *stream) = 0;
  virtual symm_status streamSynchronize(void *stream) = 0;
  virtual symm_status synchronize() = 0;
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
  /// Makes `bytes` of host memory at `ptr` accessible to kernels
  /// (gpu.host_register). Kernels of the CPU target already reach it.
  virtual symm_status hostRegister(void *ptr, size_t bytes) {
    return SYMM_SUCCESS;
  }
};

Backend *createHostBackend();
/// Null, with the error recorded, when the backend is not built in.
Backend *createCudaBackend();
Backend *createHipBackend();

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
/// symm_launch of a Kernel: launches from several host threads may share it.
symm_status launchKernel(Kernel *kernel, const unsigned grid[3],
                         const unsigned block[3], size_t sharedBytes,
                         symm_stream *stream, void **params, size_t numParams);

} // namespace symm

#endif // SYMM_RUNTIME_LIB_CORE_RUNTIME_H
