//===- HostBackend.cpp - The CPU backend ------------------------*- C++ -*-===//
//
// Heaps are memfd shared memory passed between ranks as file descriptors and
// mapped by every peer at an address of its own choosing, so translation
// between heaps is real. Modules are shared objects loaded from memory.
// Kernels run on the HostDevice's fibers (HostDeviceImpl.h). Streams are
// threads that run their work in order, so launches on two streams run
// concurrently. A stream being captured appends its work to a list instead, and
// a graph is that list, enqueued whole on every launch.
//
//===----------------------------------------------------------------------===//

#include "../core/Runtime.h"
#include "HostDevice.h"
#include "Races.h"
#include "symm/abi.h"

extern "C" int64_t _symm_host_clock_ns();

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <dlfcn.h>
#include <functional>
#include <link.h>
#include <memory>
#include <mutex>
#include <pthread.h>
#include <string>
#include <sys/mman.h>
#include <thread>
#include <unistd.h>
#include <vector>

using namespace symm;

namespace {

/// Work runs in order on one worker thread. The first failure is kept and
/// reported by the next synchronisation; until then the stream runs only the
/// work that others may wait for (event records and waits), as a GPU's
/// stream stops at a fault: a launch after one that timed out would wait
/// for the same peers, and each would take SYMM_TIMEOUT again.
class HostStream {
public:
  using Work = std::function<symm_status()>;
  /// Whether work runs after a failure on its stream (`Always`) or not.
  enum class After { Skipped, Always };
  /// What a capture recorded; launches of a graph share it, so a graph
  /// destroyed while a launch of it is still queued stays until that runs.
  using Recording = std::shared_ptr<const std::vector<Work>>;

  HostStream() : worker([this] { run(); }) {}
  ~HostStream() {
    {
      std::lock_guard<std::mutex> lock(mutex);
      stopping = true;
    }
    ready.notify_all();
    worker.join();
  }
  void enqueue(Work work, After after = After::Skipped) {
    std::lock_guard<std::mutex> lock(mutex);
    if (capture) {
      capture->push_back(std::move(work));
      return;
    }
    queue.push_back({std::move(work), after});
    ++pending;
    ready.notify_all();
  }
  /// Enqueues a recording's work, in order, with no other work between.
  void enqueue(const Recording &recording) {
    std::lock_guard<std::mutex> lock(mutex);
    for (size_t i = 0; i < recording->size(); ++i) {
      Work work = [recording, i] { return (*recording)[i](); };
      if (capture) {
        capture->push_back(std::move(work));
        continue;
      }
      queue.push_back({std::move(work), After::Skipped});
      ++pending;
    }
    ready.notify_all();
  }
  void beginCapture() {
    std::lock_guard<std::mutex> lock(mutex);
    capture = std::make_unique<std::vector<Work>>();
  }
  Recording endCapture() {
    std::lock_guard<std::mutex> lock(mutex);
    return Recording(std::move(capture));
  }
  bool capturing() {
    std::lock_guard<std::mutex> lock(mutex);
    return capture != nullptr;
  }
  symm_status synchronize() {
    std::unique_lock<std::mutex> lock(mutex);
    idle.wait(lock, [&] { return pending == 0; });
    symm_status result = status;
    if (result != SYMM_SUCCESS) {
      std::string notRun;
      if (skipped)
        notRun = "; " + std::to_string(skipped) + " later operation" +
                 (skipped == 1 ? "" : "s") + " on the stream did not run";
      fail(result, "%s%s", error.c_str(), notRun.c_str());
    }
    status = SYMM_SUCCESS;
    skipped = 0;
    return result;
  }

private:
  void run() {
    std::unique_lock<std::mutex> lock(mutex);
    while (true) {
      ready.wait(lock, [&] { return stopping || !queue.empty(); });
      if (queue.empty())
        return;
      auto [work, after] = std::move(queue.front());
      queue.pop_front();
      if (status != SYMM_SUCCESS && after == After::Skipped) {
        ++skipped;
      } else {
        lock.unlock();
        symm_status result = work();
        std::string message = result ? symm_last_error() : "";
        lock.lock();
        if (result != SYMM_SUCCESS && status == SYMM_SUCCESS) {
          status = result;
          // Drop the "rank N: " prefix fail() adds again on report.
          size_t colon = message.find(": ");
          error =
              colon == std::string::npos ? message : message.substr(colon + 2);
        }
      }
      if (--pending == 0)
        idle.notify_all();
    }
  }

  std::mutex mutex;
  std::condition_variable ready, idle;
  std::deque<std::pair<Work, After>> queue;
  /// Where enqueued work goes while the stream is being captured.
  std::unique_ptr<std::vector<Work>> capture;
  size_t pending = 0;
  bool stopping = false;
  symm_status status = SYMM_SUCCESS;
  std::string error;
  size_t skipped = 0; // work not run since the failure in `status`
  std::thread worker;
};

/// An event is a generation counter a stream bumps when it reaches it.
struct HostEvent {
  std::mutex mutex;
  std::condition_variable done;
  uint64_t recorded = 0, reached = 0;
};

struct HostModule {
  void *library = nullptr;
  int fd = -1;
};

/// A kernel entry: `_symm_kernel_<name>(void **params)` and the byte size of
/// each parameter, `_symm_kernel_<name>_params` = {count, size...}.
struct HostFunction {
  void (*entry)(void **);
  const int64_t *paramSizes;
  std::string name;
};

class HostBackend : public Backend {
public:
  ~HostBackend() override {
    for (HostStream *s : streams)
      delete s;
    delete defaultStream;
    delete device;
  }
  const char *name() const override { return "host"; }

  symm_status init(int) override {
    if (symm_status status = config.readEnvironment())
      return status;
    device = new HostDevice(config);
    defaultStream = new HostStream;
    return SYMM_SUCCESS;
  }

  symm_status createHeap(size_t bytes, Bootstrap &bootstrap,
                         std::vector<char *> &bases) override {
    int fd = memfd_create("symm-heap", MFD_CLOEXEC);
    if (fd < 0)
      return fail(SYMM_ERROR_BACKEND, "memfd_create: %s", strerror(errno));
    // A page past the heap holds this rank's progress counter, which every
    // rank's deadlock monitor reads.
    size_t mapBytes = bytes + static_cast<size_t>(sysconf(_SC_PAGESIZE));
    if (ftruncate(fd, static_cast<off_t>(mapBytes)) != 0) {
      close(fd);
      return fail(SYMM_ERROR_BACKEND, "cannot size the heap to %zu bytes: %s",
                  bytes, strerror(errno));
    }
    std::vector<int> fds;
    symm_status status = bootstrap.allgatherFds(fd, fds);
    close(fd);
    if (status != SYMM_SUCCESS)
      return status;
    heapBytes = mapBytes;
    bases.assign(fds.size(), nullptr);
    for (size_t r = 0; r < fds.size(); ++r) {
      void *p = mmap(nullptr, mapBytes, PROT_READ | PROT_WRITE, MAP_SHARED,
                     fds[r], 0);
      close(fds[r]);
      if (p == MAP_FAILED) {
        status = fail(SYMM_ERROR_BACKEND, "cannot map rank %zu's heap: %s", r,
                      strerror(errno));
        continue;
      }
      bases[r] = static_cast<char *>(p);
    }
    mapped = bases;
    if (status == SYMM_SUCCESS) {
      std::vector<std::atomic<uint64_t> *> counters;
      for (char *base : bases)
        counters.push_back(
            reinterpret_cast<std::atomic<uint64_t> *>(base + bytes));
      device->setProgressCounters(std::move(counters), bootstrap.rank());
      status = races::attach(bootstrap, bases, bytes, races::enabled());
    }
    return status;
  }

  void destroyHeap() override {
    // A backend whose init failed has no device.
    if (device)
      device->setProgressCounters({}, -1);
    races::detach();
    for (char *base : mapped)
      if (base)
        munmap(base, heapBytes);
    mapped.clear();
  }

  symm_status loadModule(const void *data, size_t size,
                         void **module) override {
    auto *m = new HostModule;
    m->fd = memfd_create("symm-module", MFD_CLOEXEC);
    if (m->fd < 0 || write(m->fd, data, size) != static_cast<ssize_t>(size)) {
      delete m;
      return fail(SYMM_ERROR_BACKEND, "cannot stage the module: %s",
                  strerror(errno));
    }
    std::string path = "/proc/self/fd/" + std::to_string(m->fd);
    m->library = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!m->library) {
      std::string why = dlerror();
      close(m->fd);
      delete m;
      return fail(SYMM_ERROR_INVALID_ARGUMENT,
                  "cannot load the module as a host shared object (was it "
                  "compiled with --target=host?): %s",
                  why.c_str());
    }
    if (symm_status st = races::checkModule(m->library)) {
      dlclose(m->library);
      close(m->fd);
      delete m;
      return st;
    }
    HostDevice::addCode(m->library);
    *module = m;
    return SYMM_SUCCESS;
  }

  symm_status unloadModule(void *module) override {
    auto *m = static_cast<HostModule *>(module);
    HostDevice::removeCode(m->library);
    dlclose(m->library);
    close(m->fd);
    delete m;
    return SYMM_SUCCESS;
  }

  symm_status getFunction(void *module, const char *name,
                          void **function) override {
    auto *m = static_cast<HostModule *>(module);
    std::string entry = std::string(SYMM_HOST_KERNEL_PREFIX) + name;
    void *fn = dlsym(m->library, entry.c_str());
    auto *sizes = static_cast<const int64_t *>(
        dlsym(m->library, (entry + SYMM_HOST_KERNEL_PARAMS_SUFFIX).c_str()));
    if (!fn || !sizes)
      return fail(SYMM_ERROR_INVALID_ARGUMENT, "no kernel '%s' in the module",
                  name);
    *function =
        new HostFunction{reinterpret_cast<void (*)(void **)>(fn), sizes, name};
    return SYMM_SUCCESS;
  }

  symm_status writeContext(void *module,
                           const symm_kernel_context &context) override {
    auto *m = static_cast<HostModule *>(module);
    void *global = dlsym(m->library, SYMM_CONTEXT_SYMBOL);
    // A module whose kernels never use the context has none.
    if (global)
      std::memcpy(global, &context, sizeof(context));
    return SYMM_SUCCESS;
  }

  symm_status findGlobal(void *module, const char *name, void **address,
                         size_t *bytes) override {
    auto *m = static_cast<HostModule *>(module);
    *address = dlsym(m->library, name);
    Dl_info info{};
    ElfW(Sym) *symbol = nullptr;
    *bytes = 0;
    if (*address &&
        dladdr1(*address, &info, reinterpret_cast<void **>(&symbol),
                RTLD_DL_SYMENT) &&
        symbol)
      *bytes = symbol->st_size;
    return SYMM_SUCCESS;
  }
  symm_status readClock(uint64_t *ns) override {
    *ns = uint64_t(_symm_host_clock_ns());
    return SYMM_SUCCESS;
  }
  // CPU ranks share one host's memory, hence its CLOCK_MONOTONIC.
  bool ranksShareClock() const override { return true; }

  symm_status
  launch(void *function, const unsigned grid[3], const unsigned block[3],
         unsigned sharedBytes, void *stream, void **params, size_t numParams,
         bool /*early: a rank runs its launches in order*/) override {
    auto *fn = static_cast<HostFunction *>(function);
    if (static_cast<size_t>(fn->paramSizes[0]) != numParams)
      return fail(SYMM_ERROR_INVALID_ARGUMENT,
                  "kernel '%s' takes %lld parameters, got %zu",
                  fn->name.c_str(), static_cast<long long>(fn->paramSizes[0]),
                  numParams);
    uint64_t threads = uint64_t(block[0]) * block[1] * block[2];
    if (threads > config.maxBlockThreads)
      return fail(SYMM_ERROR_INVALID_ARGUMENT,
                  "kernel '%s': blocks of %llu threads exceed the CPU "
                  "target's limit of %u threads per block "
                  "(SYMM_HOST_MAX_THREADS)",
                  fn->name.c_str(), static_cast<unsigned long long>(threads),
                  config.maxBlockThreads);
    if (sharedBytes > config.maxDynamicShared)
      return fail(SYMM_ERROR_INVALID_ARGUMENT,
                  "kernel '%s': %u bytes of dynamic shared memory exceed the "
                  "CPU target's limit of %u bytes per block "
                  "(SYMM_HOST_MAX_SHARED; an H100 or H200 gives a block 227 "
                  "KiB)",
                  fn->name.c_str(), sharedBytes, config.maxDynamicShared);
    // The caller may reuse its argument storage once launch returns.
    std::vector<std::vector<char>> values(numParams);
    for (size_t i = 0; i < numParams; ++i) {
      values[i].resize(static_cast<size_t>(fn->paramSizes[i + 1]));
      std::memcpy(values[i].data(), params[i], values[i].size());
    }
    LaunchShape shape;
    for (int d = 0; d < 3; ++d) {
      shape.grid[d] = grid[d];
      shape.block[d] = block[d];
    }
    shape.dynamicShared = sharedBytes;
    HostDevice *device = this->device;
    HostStream *s = toStream(stream);
    s->enqueue([device, fn, shape, s, values = std::move(values)]() {
      std::vector<void *> pointers;
      for (auto &v : values)
        pointers.push_back(const_cast<char *>(v.data()));
      races::LaunchPtr race = races::startLaunch(
          s, fn->name.c_str(), shape.grid[0] * shape.grid[1] * shape.grid[2]);
      HostLaunch kernel;
      kernel.name = fn->name.c_str();
      kernel.entry = fn->entry;
      kernel.shape = shape;
      kernel.params = pointers.data();
      kernel.race = race.get();
      symm_status status = device->run(kernel);
      if (race)
        if (symm_status checked = races::endLaunch(*race, s); !status)
          status = checked;
      return status;
    });
    return SYMM_SUCCESS;
  }

  /// The CPU target holds SYMM_HOST_RESIDENT_BLOCKS blocks of a launch at
  /// once, whatever their shape, as that many multiprocessors of one block
  /// each; none of a shape it cannot launch.
  symm_status maxResident(void *, const char *, unsigned threads,
                          unsigned sharedBytes, int64_t *workgroups) override {
    bool fits = threads <= config.maxBlockThreads &&
                sharedBytes <= config.maxDynamicShared;
    *workgroups = fits ? config.residentBlocks : 0;
    return SYMM_SUCCESS;
  }
  symm_status multiprocessors(int *count) override {
    *count = static_cast<int>(config.residentBlocks);
    return SYMM_SUCCESS;
  }

  symm_status streamCreate(void **stream) override {
    auto *s = new HostStream;
    std::lock_guard<std::mutex> lock(mutex);
    streams.push_back(s);
    *stream = s;
    return SYMM_SUCCESS;
  }
  symm_status streamDestroy(void *stream) override {
    if (!stream)
      return SYMM_SUCCESS;
    symm_status status = streamSynchronize(stream);
    std::lock_guard<std::mutex> lock(mutex);
    streams.erase(std::remove(streams.begin(), streams.end(),
                              static_cast<HostStream *>(stream)),
                  streams.end());
    delete static_cast<HostStream *>(stream);
    return status;
  }
  symm_status streamSynchronize(void *stream) override {
    HostDevice::Waiting waiting(*device);
    symm_status status = toStream(stream)->synchronize();
    races::hostWaited(toStream(stream));
    return status;
  }
  symm_status synchronize() override {
    HostDevice::Waiting waiting(*device);
    std::vector<HostStream *> all;
    {
      std::lock_guard<std::mutex> lock(mutex);
      all = streams;
    }
    all.push_back(defaultStream);
    symm_status result = SYMM_SUCCESS;
    for (HostStream *s : all)
      if (symm_status st = s->synchronize(); st && !result)
        result = st;
    races::hostWaitedAll();
    return result;
  }

  symm_status streamBeginCapture(void *stream) override {
    toStream(stream)->beginCapture();
    return SYMM_SUCCESS;
  }
  symm_status streamEndCapture(void *stream, void **graph) override {
    *graph = new HostStream::Recording(toStream(stream)->endCapture());
    return SYMM_SUCCESS;
  }
  symm_status streamIsCapturing(void *stream, bool *capturing) override {
    *capturing = toStream(stream)->capturing();
    return SYMM_SUCCESS;
  }
  symm_status graphLaunch(void *graph, void *stream) override {
    toStream(stream)->enqueue(*static_cast<HostStream::Recording *>(graph));
    return SYMM_SUCCESS;
  }
  symm_status graphDestroy(void *graph) override {
    delete static_cast<HostStream::Recording *>(graph);
    return SYMM_SUCCESS;
  }

  symm_status eventCreate(void **event) override {
    *event = new HostEvent;
    return SYMM_SUCCESS;
  }
  symm_status eventDestroy(void *event) override {
    delete static_cast<HostEvent *>(event);
    return SYMM_SUCCESS;
  }
  symm_status eventRecord(void *event, void *stream) override {
    if (symm_status st = refuseInCapture(stream, "recording an event"))
      return st;
    auto *e = static_cast<HostEvent *>(event);
    uint64_t generation;
    {
      std::lock_guard<std::mutex> lock(e->mutex);
      generation = ++e->recorded;
    }
    HostStream *s = toStream(stream);
    s->enqueue([e, s, generation] {
      races::eventReached(e, s);
      std::lock_guard<std::mutex> lock(e->mutex);
      e->reached = std::max(e->reached, generation);
      e->done.notify_all();
      return SYMM_SUCCESS;
    }, HostStream::After::Always);
    return SYMM_SUCCESS;
  }
  symm_status eventSynchronize(void *event) override {
    auto *e = static_cast<HostEvent *>(event);
    HostDevice::Waiting waiting(*device);
    std::unique_lock<std::mutex> lock(e->mutex);
    uint64_t target = e->recorded;
    e->done.wait(lock, [&] { return e->reached >= target; });
    races::hostWaitedEvent(e);
    return SYMM_SUCCESS;
  }
  symm_status streamWaitEvent(void *stream, void *event) override {
    if (symm_status st = refuseInCapture(stream, "waiting for an event"))
      return st;
    auto *e = static_cast<HostEvent *>(event);
    uint64_t target;
    {
      std::lock_guard<std::mutex> lock(e->mutex);
      target = e->recorded;
    }
    HostStream *s = toStream(stream);
    s->enqueue([e, s, target] {
      std::unique_lock<std::mutex> lock(e->mutex);
      e->done.wait(lock, [&] { return e->reached >= target; });
      races::streamWaitedEvent(s, e);
      return SYMM_SUCCESS;
    }, HostStream::After::Always);
    return SYMM_SUCCESS;
  }

  void barrier(bool passed) override { races::barrier(passed); }

  symm_status memAlloc(size_t bytes, bool, void **ptr) override {
    *ptr =
        aligned_alloc(256, (std::max<size_t>(bytes, 1) + 255) & ~size_t(255));
    if (!*ptr)
      return fail(SYMM_ERROR_BACKEND, "cannot allocate %zu bytes", bytes);
    return SYMM_SUCCESS;
  }
  symm_status memFree(void *ptr) override {
    free(ptr);
    return SYMM_SUCCESS;
  }
  // Copies, sets and stream memory operations run on the stream's worker,
  // and the race detector sees each as a launch of one thread.
  symm_status memcpy(void *dst, const void *src, size_t bytes,
                     void *stream) override {
    HostStream *s = toStream(stream);
    s->enqueue([=] {
      races::StreamOpPtr op = races::startStreamOp(s, "memcpy");
      if (op) {
        races::streamOpAccess(*op, src, bytes, false, kCopySite);
        races::streamOpAccess(*op, dst, bytes, true, kCopySite);
      }
      std::memmove(dst, src, bytes);
      return op ? races::endStreamOp(*op, s) : SYMM_SUCCESS;
    });
    return SYMM_SUCCESS;
  }
  symm_status memset(void *dst, uint32_t value, size_t elementBytes,
                     size_t count, void *stream) override {
    HostStream *s = toStream(stream);
    s->enqueue([=] {
      races::StreamOpPtr op = races::startStreamOp(s, "memset");
      if (op)
        races::streamOpAccess(*op, dst, count * elementBytes, true,
                              "a set on a stream (gpu.memset)");
      char *p = static_cast<char *>(dst);
      for (size_t i = 0; i < count; ++i)
        std::memcpy(p + i * elementBytes, &value, elementBytes);
      return op ? races::endStreamOp(*op, s) : SYMM_SUCCESS;
    });
    return SYMM_SUCCESS;
  }
  bool hasStreamValues() const override { return true; }
  /// A release store: the stream's earlier work ran on this thread.
  symm_status streamWriteValue(uint32_t *address, uint32_t value,
                               void *stream) override {
    HostStream *s = toStream(stream);
    s->enqueue([=] {
      races::StreamOpPtr op = races::startStreamOp(s, "stream write");
      if (op)
        races::streamOpRelease(*op, address, kWriteSite);
      __atomic_store_n(address, value, __ATOMIC_RELEASE);
      return op ? races::endStreamOp(*op, s) : SYMM_SUCCESS;
    });
    return SYMM_SUCCESS;
  }
  /// An acquire load, polled with back-off, that fails naming `what` (what
  /// is awaited, from whom) after SYMM_TIMEOUT or once a peer's process is
  /// gone.
  symm_status streamWaitValue(uint32_t *address, uint32_t value, void *stream,
                              const char *what) override {
    HostStream *s = toStream(stream);
    std::string awaited = what ? what : "a stream wait";
    s->enqueue([=] {
      races::StreamOpPtr op = races::startStreamOp(s, "stream wait");
      symm_status status = waitForValue(address, value, awaited);
      if (op) {
        races::streamOpAcquire(*op, address, kWaitSite);
        if (symm_status checked = races::endStreamOp(*op, s); !status)
          status = checked;
      }
      return status;
    });
    return SYMM_SUCCESS;
  }

  /// A symm_host_tensor_map that CPU-target kernels read, checked against
  /// what cuTensorMapEncodeTiled requires, so that a descriptor that works
  /// here also works on a GPU. Kept until the backend is destroyed.
  symm_status encodeTensorMap(const TensorMapRequest &r,
                              void **descriptor) override {
    const char *what = "nvgpu.tma.create.descriptor";
    if (r.rank < 1 || r.rank > SYMM_HOST_TENSOR_MAP_MAX_RANK)
      return fail(SYMM_ERROR_INVALID_ARGUMENT,
                  "%s: %d dimensions; TMA takes 1 to %d", what, r.rank,
                  SYMM_HOST_TENSOR_MAP_MAX_RANK);
    if (r.interleave != 0)
      return fail(SYMM_ERROR_INVALID_ARGUMENT,
                  "%s: interleaved layout %d; the CPU target supports "
                  "interleave=none only",
                  what, r.interleave);
    if (r.swizzle < 0 || r.swizzle > 3)
      return fail(SYMM_ERROR_INVALID_ARGUMENT, "%s: unknown swizzle code %d",
                  what, r.swizzle);
    if (r.oobFill != 0 && r.oobFill != 1)
      return fail(SYMM_ERROR_INVALID_ARGUMENT,
                  "%s: unknown out-of-bounds fill code %d", what, r.oobFill);
    // CU_TENSOR_MAP_DATA_TYPE_FLOAT16 (6) and up are floating point.
    if (r.oobFill == 1 && r.dataType < 6)
      return fail(SYMM_ERROR_INVALID_ARGUMENT,
                  "%s: a NaN out-of-bounds fill needs a floating-point "
                  "element type",
                  what);
    if (reinterpret_cast<uintptr_t>(r.base) % 16)
      return fail(SYMM_ERROR_INVALID_ARGUMENT,
                  "%s: the tensor at %p is not 16-byte aligned", what, r.base);
    if (r.strides[0] != 1)
      return fail(SYMM_ERROR_INVALID_ARGUMENT,
                  "%s: the innermost stride is %llu elements; TMA needs 1",
                  what, static_cast<unsigned long long>(r.strides[0]));
    for (int d = 0; d < r.rank; ++d) {
      if (r.sizes[d] < 1 || r.sizes[d] > (uint64_t(1) << 32))
        return fail(SYMM_ERROR_INVALID_ARGUMENT,
                    "%s: dimension %d (innermost first) has %llu elements; "
                    "TMA takes 1 to 2^32",
                    what, d, static_cast<unsigned long long>(r.sizes[d]));
      if (r.box[d] < 1 || r.box[d] > 256)
        return fail(SYMM_ERROR_INVALID_ARGUMENT,
                    "%s: box dimension %d (innermost first) is %u; TMA "
                    "takes 1 to 256",
                    what, d, r.box[d]);
      uint64_t strideBytes = r.strides[d] * r.elementBytes;
      if (d > 0 && (strideBytes % 16 || strideBytes >= (uint64_t(1) << 40)))
        return fail(SYMM_ERROR_INVALID_ARGUMENT,
                    "%s: stride %d (innermost first) is %llu bytes; TMA "
                    "needs a multiple of 16 below 2^40",
                    what, d, static_cast<unsigned long long>(strideBytes));
    }
    uint64_t rowBytes = uint64_t(r.box[0]) * r.elementBytes;
    if (rowBytes % 16)
      return fail(SYMM_ERROR_INVALID_ARGUMENT,
                  "%s: the box's innermost dimension is %llu bytes; TMA "
                  "needs a multiple of 16",
                  what, static_cast<unsigned long long>(rowBytes));
    if (r.swizzle != 0 && rowBytes > (16u << r.swizzle))
      return fail(SYMM_ERROR_INVALID_ARGUMENT,
                  "%s: the box's innermost dimension is %llu bytes, more "
                  "than the %u-byte swizzle span",
                  what, static_cast<unsigned long long>(rowBytes),
                  16u << r.swizzle);
    auto map = std::make_unique<symm_host_tensor_map>();
    map->rank = r.rank;
    map->element_bytes = r.elementBytes;
    map->data_type = r.dataType;
    map->swizzle = r.swizzle;
    map->oob_fill = r.oobFill;
    map->base = r.base;
    for (int d = 0; d < SYMM_HOST_TENSOR_MAP_MAX_RANK; ++d) {
      bool used = d < r.rank;
      map->sizes[d] = used ? r.sizes[d] : 1;
      map->strides[d] = used ? r.strides[d] : 0;
      map->box[d] = used ? r.box[d] : 1;
    }
    *descriptor = map.get();
    std::lock_guard<std::mutex> lock(mutex);
    tensorMaps.push_back(std::move(map));
    return SYMM_SUCCESS;
  }

private:
  static constexpr const char *kCopySite =
      "a copy on a stream (symm_memcpy, gpu.memcpy, a copy-engine collective)";
  static constexpr const char *kWriteSite =
      "a stream write (a copy-engine collective's flag)";
  static constexpr const char *kWaitSite =
      "a stream wait (a copy-engine collective's flag)";

  /// Polls the word at `address` until it reaches `value` (cyclically):
  /// spinning a little, then sleeping up to 100 us between reads, as long
  /// as SYMM_TIMEOUT and every peer's process last.
  static symm_status waitForValue(uint32_t *address, uint32_t value,
                                  const std::string &what) {
    using Clock = std::chrono::steady_clock;
    Clock::time_point start = Clock::now(), check = start;
    double timeout = timeoutSeconds();
    for (unsigned polls = 0;; ++polls) {
      uint32_t seen = __atomic_load_n(address, __ATOMIC_ACQUIRE);
      if (int32_t(seen - value) >= 0)
        return SYMM_SUCCESS;
      if (polls < 64) {
        std::this_thread::yield();
        continue;
      }
      std::this_thread::sleep_for(
          std::chrono::microseconds(std::min(100u, polls - 63)));
      Clock::time_point now = Clock::now();
      if (now - check < std::chrono::milliseconds(100))
        continue;
      check = now;
      double waited = std::chrono::duration<double>(now - start).count();
      if (std::vector<int> gone = exitedPeers(); !gone.empty())
        return fail(SYMM_ERROR_PEER_FAILED,
                    "waiting for %s: rank %d has exited (the process is "
                    "gone) after %.1f s: the wait cannot end",
                    what.c_str(), gone.front(), waited);
      if (waited >= timeout)
        return fail(SYMM_ERROR_TIMEOUT,
                    "waiting for %s: nothing came for %.1f s (SYMM_TIMEOUT "
                    "is %g s)",
                    what.c_str(), waited, timeout);
    }
  }

  HostStream *toStream(void *stream) {
    return stream ? static_cast<HostStream *>(stream) : defaultStream;
  }
  /// An event's generation is taken when it is recorded or waited for, so a
  /// replay would record or wait for a stale one: events stay out of
  /// captures here (a GPU driver turns them into the graph's edges).
  symm_status refuseInCapture(void *stream, const char *what) {
    if (!toStream(stream)->capturing())
      return SYMM_SUCCESS;
    return fail(SYMM_ERROR_INVALID_ARGUMENT,
                "%s on stream %p while it is being captured: the host "
                "backend captures launches, copies and sets, not events",
                what, stream);
  }

  std::mutex mutex;
  HostStream *defaultStream = nullptr;
  std::vector<HostStream *> streams;
  std::vector<char *> mapped;
  size_t heapBytes = 0;
  HostConfig config;
  HostDevice *device = nullptr;
  std::vector<std::unique_ptr<symm_host_tensor_map>> tensorMaps;
};

} // namespace

Backend *symm::createHostBackend() { return new HostBackend; }
