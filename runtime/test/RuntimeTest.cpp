//===- RuntimeTest.cpp - Multi-process tests of the runtime -----*- C++ -*-===//
//
// Each test forks its ranks as processes with the environment symm-run would
// give them, runs a body in each, and checks every rank's exit status.
//
//===----------------------------------------------------------------------===//

#include "symm/runtime.h"
#include "symm/abi.h"

#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <dlfcn.h>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <malloc.h>
#include <set>
#include <string>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>
#include <tuple>
#include <unistd.h>
#include <vector>

// The entry points compiled programs call (MLIR's gpu-to-llvm signatures).
extern "C" {
void *mgpuModuleLoad(void *data, size_t size);
void *mgpuModuleGetFunction(void *module, const char *name);
void mgpuLaunchKernel(void *function, intptr_t gridX, intptr_t gridY,
                      intptr_t gridZ, intptr_t blockX, intptr_t blockY,
                      intptr_t blockZ, int32_t smem, void *stream,
                      void **params, void **extra, size_t paramsCount);
void mgpuStreamSynchronize(void *stream);
void mgpuMemcpy(void *dst, void *src, size_t bytes, void *stream);
void *mgpuEventCreate();
void mgpuEventRecord(void *event, void *stream);
void mgpuStreamWaitEvent(void *stream, void *event);
void mgpuEventSynchronize(void *event);
void *mgpuTensorMapEncodeTiledMemref(int64_t tensorRank, void *descriptor,
                                     int64_t dataType, int64_t interleave,
                                     int64_t swizzle, int64_t l2promo,
                                     int64_t oobFill, int64_t *inputBoxDims);
}

namespace {

/// Exit code of a rank body that failed an expectation.
constexpr int kFailed = 42;

#define RANK_EXPECT(cond)                                                      \
  do {                                                                         \
    if (!(cond)) {                                                             \
      fprintf(stderr, "rank check failed at line %d: %s (%s)\n", __LINE__,     \
              #cond, symm_last_error());                                       \
      _exit(kFailed);                                                          \
    }                                                                          \
  } while (0)

struct RankResult {
  int status;
  double seconds;
};

/// Runs `body(rank)` in `size` processes; `started` limits how many ranks are
/// actually started (to test a rendezvous that cannot complete).
std::vector<RankResult>
runRanks(int size, const std::function<int(int)> &body,
         std::vector<std::pair<std::string, std::string>> env = {},
         int started = -1) {
  if (started < 0)
    started = size;
  char dir[] = "/tmp/symm-test-XXXXXX";
  EXPECT_NE(mkdtemp(dir), nullptr);
  auto begin = std::chrono::steady_clock::now();
  std::vector<pid_t> pids;
  for (int r = 0; r < started; ++r) {
    pid_t pid = fork();
    if (pid == 0) {
      setenv("SYMM_RANK", std::to_string(r).c_str(), 1);
      setenv("SYMM_WORLD_SIZE", std::to_string(size).c_str(), 1);
      setenv("SYMM_RENDEZVOUS", dir, 1);
      setenv("SYMM_BACKEND", "host", 1);
      setenv("SYMM_HEAP_SIZE", "16M", 1);
      setenv("SYMM_TIMEOUT", "10", 1);
      for (auto &[k, v] : env)
        setenv(k.c_str(), v.c_str(), 1);
      _exit(body(r));
    }
    pids.push_back(pid);
  }
  std::vector<RankResult> results;
  for (pid_t pid : pids) {
    int status = 0;
    waitpid(pid, &status, 0);
    double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - begin)
            .count();
    results.push_back({status, seconds});
  }
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
  EXPECT_FALSE(ec) << ec.message();
  return results;
}

/// The bytes of the host module with kernels k0 ... k255, or empty when the
/// compiler was not built.
std::string testKernels() {
  std::ifstream in(SYMM_TEST_KERNELS, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)),
                     std::istreambuf_iterator<char>());
}
constexpr int kTestKernelCount = 256;

bool exitedWith(const RankResult &r, int code) {
  return WIFEXITED(r.status) && WEXITSTATUS(r.status) == code;
}

TEST(Runtime, Identity) {
  auto results = runRanks(3, [](int rank) {
    RANK_EXPECT(symm_init() == SYMM_SUCCESS);
    RANK_EXPECT(symm_rank() == rank);
    RANK_EXPECT(symm_world_size() == 3);
    RANK_EXPECT(std::string(symm_backend_name()) == "host");
    RANK_EXPECT(symm_heap_size() == 16u << 20);
    RANK_EXPECT(symm_finalize() == SYMM_SUCCESS);
    return 0;
  });
  for (auto &r : results)
    EXPECT_TRUE(exitedWith(r, 0));
}

TEST(Runtime, SymmetricAllocationAndTranslation) {
  auto results = runRanks(3, [](int rank) {
    RANK_EXPECT(symm_init() == SYMM_SUCCESS);
    void *base, *a, *b, *c;
    RANK_EXPECT(symm_heap_base(rank, &base) == SYMM_SUCCESS);
    RANK_EXPECT(symm_malloc(100, &a) == SYMM_SUCCESS);
    RANK_EXPECT(symm_malloc(1000, &b) == SYMM_SUCCESS);
    RANK_EXPECT(symm_free(a) == SYMM_SUCCESS);
    // The freed block is reused first-fit, identically on every rank.
    RANK_EXPECT(symm_malloc(200, &c) == SYMM_SUCCESS);
    RANK_EXPECT(c == a);
    RANK_EXPECT(static_cast<char *>(b) - static_cast<char *>(base) == 256);
    // Each rank writes its rank into the next rank's copy of b.
    int next = (rank + 1) % 3;
    void *remote;
    RANK_EXPECT(symm_translate(b, next, &remote) == SYMM_SUCCESS);
    void *peerBase;
    RANK_EXPECT(symm_heap_base(next, &peerBase) == SYMM_SUCCESS);
    RANK_EXPECT(peerBase != base); // every heap mapped at its own address
    RANK_EXPECT(remote == static_cast<char *>(peerBase) + 256);
    *static_cast<int *>(remote) = 1000 + rank;
    RANK_EXPECT(symm_barrier() == SYMM_SUCCESS);
    int prev = (rank + 2) % 3;
    RANK_EXPECT(*static_cast<int *>(b) == 1000 + prev);
    RANK_EXPECT(symm_finalize() == SYMM_SUCCESS);
    return 0;
  });
  for (auto &r : results)
    EXPECT_TRUE(exitedWith(r, 0));
}

TEST(Runtime, AsymmetricAllocationIsReportedOnEveryRank) {
  auto results = runRanks(2, [](int rank) {
    RANK_EXPECT(symm_init() == SYMM_SUCCESS);
    void *p;
    symm_status s = symm_malloc(rank == 0 ? 64 : 128, &p);
    RANK_EXPECT(s == SYMM_ERROR_ASYMMETRIC);
    std::string message = symm_last_error();
    RANK_EXPECT(message.find("rank 0 passed 64") != std::string::npos);
    RANK_EXPECT(message.find("rank 1 passed 128") != std::string::npos);
    return 0;
  });
  for (auto &r : results)
    EXPECT_TRUE(exitedWith(r, 0));
}

TEST(Runtime, FullHeapSaysWhatIsFree) {
  auto results = runRanks(
      2,
      [](int) {
        RANK_EXPECT(symm_init() == SYMM_SUCCESS);
        void *p;
        RANK_EXPECT(symm_malloc(512 << 10, &p) == SYMM_SUCCESS);
        RANK_EXPECT(symm_malloc(1 << 20, &p) == SYMM_ERROR_OUT_OF_HEAP);
        std::string message = symm_last_error();
        RANK_EXPECT(message.find("524288 of 1048576 bytes are free") !=
                    std::string::npos);
        RANK_EXPECT(message.find("SYMM_HEAP_SIZE") != std::string::npos);
        RANK_EXPECT(symm_finalize() == SYMM_SUCCESS);
        return 0;
      },
      {{"SYMM_HEAP_SIZE", "1M"}});
  for (auto &r : results)
    EXPECT_TRUE(exitedWith(r, 0));
}

TEST(Runtime, SizesBeyondTheHeapAreOutOfHeapNotAliases) {
  auto results = runRanks(2, [](int) {
    RANK_EXPECT(symm_init() == SYMM_SUCCESS);
    void *a, *b, *c;
    RANK_EXPECT(symm_malloc(1000, &a) == SYMM_SUCCESS);
    // Rounded up, these sizes wrapped around to a small block at the next
    // free offset, which the next allocation then shared.
    for (size_t bytes : {SIZE_MAX, SIZE_MAX - 100, size_t(16 << 20) + 1}) {
      RANK_EXPECT(symm_malloc(bytes, &b) == SYMM_ERROR_OUT_OF_HEAP);
      std::string message = symm_last_error();
      RANK_EXPECT(message.find("symm_malloc of " + std::to_string(bytes) +
                               " bytes does not fit") != std::string::npos);
      RANK_EXPECT(message.find("the largest free block is 16776192 bytes") !=
                  std::string::npos);
    }
    RANK_EXPECT(symm_malloc(1000, &c) == SYMM_SUCCESS);
    RANK_EXPECT(static_cast<char *>(c) - static_cast<char *>(a) == 1024);
    RANK_EXPECT(symm_heap_free() == (16u << 20) - 2048);
    RANK_EXPECT(symm_finalize() == SYMM_SUCCESS);
    return 0;
  });
  for (auto &r : results)
    EXPECT_TRUE(exitedWith(r, 0));
}

TEST(Runtime, MisusedHandlesAreErrorsNotCrashes) {
  std::string image = testKernels();
  if (image.empty())
    GTEST_SKIP() << "no compiled test kernels";
  auto results = runRanks(1, [&](int) {
    RANK_EXPECT(symm_init() == SYMM_SUCCESS);
    auto failsWith = [](symm_status status, const char *message) {
      bool ok = status == SYMM_ERROR_INVALID_ARGUMENT &&
                strstr(symm_last_error(), message);
      if (!ok)
        fprintf(stderr, "unexpected: %s\n", symm_last_error());
      return ok;
    };
    symm_module *module;
    RANK_EXPECT(symm_module_load_data(image.data(), image.size(), &module) ==
                SYMM_SUCCESS);
    unsigned one[3] = {1, 1, 1};
    // A params array that is null (fine without parameters), or holds a
    // null entry; null dimensions.
    RANK_EXPECT(symm_launch(module, "k0", one, one, 0, nullptr, nullptr, 0) ==
                SYMM_SUCCESS);
    RANK_EXPECT(failsWith(
        symm_launch(module, "scale_add", one, one, 0, nullptr, nullptr, 7),
        "kernel 'scale_add': 7 parameters but a null params array"));
    RANK_EXPECT(failsWith(
        symm_launch(module, "scale_add", nullptr, one, 0, nullptr, nullptr, 7),
        "kernel 'scale_add': null grid or block"));
    uint64_t slots[7] = {};
    void *withNull[7];
    for (int i = 0; i < 7; ++i)
      withNull[i] = &slots[i];
    withNull[5] = nullptr;
    RANK_EXPECT(failsWith(
        symm_launch(module, "scale_add", one, one, 0, nullptr, withNull, 7),
        "kernel 'scale_add': params[5] is null"));
    // Dynamic shared memory beyond what a launch can take, from C: 1 TiB
    // (which a 32-bit size wrapped to 0), and 1 MiB (beyond the CPU
    // target's 227 KiB, as on an H100).
    RANK_EXPECT(failsWith(symm_launch(module, "k0", one, one, size_t(1) << 40,
                                      nullptr, nullptr, 0),
                          "kernel 'k0': 1099511627776 bytes of dynamic "
                          "shared memory; a launch takes at most 4294967295"));
    RANK_EXPECT(failsWith(symm_launch(module, "k0", one, one, size_t(1) << 20,
                                      nullptr, nullptr, 0),
                          "kernel 'k0': 1048576 bytes of dynamic shared memory "
                          "exceed the CPU target's limit of 232448 bytes"));
    // A stream destroyed twice, or used once destroyed.
    symm_stream *stream;
    RANK_EXPECT(symm_stream_create(&stream) == SYMM_SUCCESS);
    RANK_EXPECT(symm_stream_destroy(stream) == SYMM_SUCCESS);
    RANK_EXPECT(failsWith(symm_stream_destroy(stream),
                          "is not a live stream (destroyed already)"));
    RANK_EXPECT(failsWith(symm_stream_synchronize(stream),
                          "symm_stream_synchronize: stream ") &&
                strstr(symm_last_error(), "was destroyed"));
    RANK_EXPECT(failsWith(symm_stream_begin_capture(stream), "was destroyed"));
    RANK_EXPECT(
        failsWith(symm_launch(module, "k0", one, one, 0, stream, nullptr, 0),
                  "was destroyed"));
    // A module unloaded twice, and launched after its unload.
    RANK_EXPECT(symm_module_unload(module) == SYMM_SUCCESS);
    RANK_EXPECT(failsWith(symm_module_unload(module), "symm_module_unload: ") &&
                strstr(symm_last_error(), "is not a loaded module (unloaded "
                                          "already"));
    RANK_EXPECT(
        failsWith(symm_launch(module, "k0", one, one, 0, nullptr, nullptr, 0),
                  "symm_launch: ") &&
        strstr(symm_last_error(), "is not a loaded module"));
    RANK_EXPECT(failsWith(symm_stream_destroy(nullptr),
                          "the default (null) stream cannot be destroyed"));
    int local;
    RANK_EXPECT(
        failsWith(symm_stream_destroy(reinterpret_cast<symm_stream *>(&local)),
                  "not made by symm_stream_create"));
    RANK_EXPECT(failsWith(symm_stream_create(nullptr), "null result pointer"));
    RANK_EXPECT(symm_finalize() == SYMM_SUCCESS);
    return 0;
  });
  EXPECT_TRUE(exitedWith(results[0], 0));
}

TEST(Runtime, RendezvousTimesOutNamingTheMissingRank) {
  auto results = runRanks(
      3,
      [](int) {
        symm_status s = symm_init();
        RANK_EXPECT(s == SYMM_ERROR_TIMEOUT);
        RANK_EXPECT(std::string(symm_last_error()).find("rank(s) 2 never") !=
                    std::string::npos);
        return 0;
      },
      {{"SYMM_TIMEOUT", "1"}}, /*started=*/2);
  // Rank 0 reports it; rank 1 loses its connection to rank 0 right after.
  EXPECT_TRUE(exitedWith(results[0], 0));
  EXPECT_LT(results[0].seconds, 5.0);
}

TEST(Runtime, KilledRankIsReportedByItsPeers) {
  auto results = runRanks(3, [](int rank) {
    RANK_EXPECT(symm_init() == SYMM_SUCCESS);
    if (rank == 1)
      raise(SIGKILL);
    symm_status s = symm_barrier();
    RANK_EXPECT(s == SYMM_ERROR_PEER_FAILED);
    std::string message = symm_last_error();
    // Rank 0 sees rank 1 go; rank 2 sees rank 0 abandon the barrier.
    RANK_EXPECT(message.find(rank == 0 ? "rank 1" : "rank 0") !=
                std::string::npos);
    return 0;
  });
  EXPECT_TRUE(exitedWith(results[0], 0));
  EXPECT_TRUE(WIFSIGNALED(results[1].status));
  EXPECT_TRUE(exitedWith(results[2], 0));
  EXPECT_LT(results[2].seconds, 5.0);
}

TEST(Runtime, TensorMapsFromTheHostApi) {
  auto results = runRanks(1, [](int) {
    alignas(16) static uint16_t data[256 * 128];
    uint64_t sizes[2] = {256, 128}, strides[2] = {128, 1};
    uint32_t box[2] = {128, 64};
    void *map = nullptr;
    RANK_EXPECT(symm_tensor_map_create(data, 2, sizes, strides, box, 2, 128,
                                       &map) == SYMM_ERROR_NOT_INITIALIZED);
    RANK_EXPECT(symm_init() == SYMM_SUCCESS);
    // Outermost first, as in a memref; the descriptor holds them innermost
    // first.
    RANK_EXPECT(symm_tensor_map_create(data, 2, sizes, strides, box, 2, 128,
                                       &map) == SYMM_SUCCESS);
    auto *host = static_cast<const symm_host_tensor_map *>(map);
    RANK_EXPECT(host->rank == 2 && host->base == data &&
                host->element_bytes == 2 && host->swizzle == 3 &&
                host->sizes[0] == 128 && host->sizes[1] == 256 &&
                host->strides[1] == 128 && host->box[0] == 64 &&
                host->box[1] == 128);
    auto fails = [&](int elementBytes, int swizzle, const uint32_t *b,
                     void **out, const char *message) {
      bool ok = symm_tensor_map_create(data, 2, sizes, strides, b,
                                       size_t(elementBytes), swizzle,
                                       out) == SYMM_ERROR_INVALID_ARGUMENT &&
                std::string(symm_last_error()).find(message) !=
                    std::string::npos;
      if (!ok)
        fprintf(stderr, "%s\n", symm_last_error());
      return ok;
    };
    RANK_EXPECT(fails(3, 128, box, &map, "elements of 3 bytes"));
    RANK_EXPECT(fails(2, 100, box, &map, "a swizzle of 100 bytes"));
    RANK_EXPECT(fails(2, 128, box, nullptr, "must not be null"));
    uint32_t wide[2] = {128, 128};
    RANK_EXPECT(fails(2, 128, wide, &map,
                      "box rows are 256 bytes: swizzle 3 takes rows of at "
                      "most 128 bytes"));
    RANK_EXPECT(symm_finalize() == SYMM_SUCCESS);
    return 0;
  });
  EXPECT_TRUE(exitedWith(results[0], 0));
}

TEST(Runtime, BadInputIsAnError) {
  auto results = runRanks(1, [](int) {
    RANK_EXPECT(symm_malloc(4, nullptr) == SYMM_ERROR_NOT_INITIALIZED);
    RANK_EXPECT(symm_init() == SYMM_SUCCESS);
    int local = 0;
    void *remote;
    RANK_EXPECT(symm_translate(&local, 0, &remote) == SYMM_ERROR_NOT_IN_HEAP);
    RANK_EXPECT(std::string(symm_last_error()).find("not in this rank's") !=
                std::string::npos);
    void *p;
    RANK_EXPECT(symm_malloc(8, &p) == SYMM_SUCCESS);
    RANK_EXPECT(symm_translate(p, 3, &remote) == SYMM_ERROR_INVALID_ARGUMENT);
    RANK_EXPECT(symm_free(&local) == SYMM_ERROR_NOT_IN_HEAP);
    // The message gives the heap's bounds, as the docs say.
    void *base;
    RANK_EXPECT(symm_heap_base(0, &base) == SYMM_SUCCESS);
    char bounds[64];
    snprintf(bounds, sizeof(bounds), "[%p, %p)", base,
             static_cast<void *>(static_cast<char *>(base) + (16 << 20)));
    RANK_EXPECT(std::string(symm_last_error()).find(bounds) !=
                std::string::npos);
    RANK_EXPECT(std::string(symm_last_error()).rfind("rank 0: ", 0) == 0);
    // Inside the heap but not where an allocation starts.
    RANK_EXPECT(symm_free(static_cast<char *>(p) + 4) ==
                SYMM_ERROR_INVALID_ARGUMENT);
    RANK_EXPECT(std::string(symm_last_error())
                    .find("not the start of a "
                          "live allocation") != std::string::npos);
    RANK_EXPECT(symm_module_unload(nullptr) == SYMM_ERROR_INVALID_ARGUMENT);
    symm_module *module;
    const char garbage[] = "not a shared object";
    RANK_EXPECT(symm_module_load_data(garbage, sizeof(garbage), &module) ==
                SYMM_ERROR_INVALID_ARGUMENT);
    RANK_EXPECT(symm_module_load_file("/nonexistent.so", &module) ==
                SYMM_ERROR_INVALID_ARGUMENT);
    RANK_EXPECT(symm_finalize() == SYMM_SUCCESS);
    return 0;
  });
  EXPECT_TRUE(exitedWith(results[0], 0));
}

TEST(Runtime, BadEnvironmentIsAnError) {
  auto backend = runRanks(
      1,
      [](int) {
        RANK_EXPECT(symm_init() == SYMM_ERROR_INVALID_ARGUMENT);
        RANK_EXPECT(std::string(symm_last_error()).find("SYMM_BACKEND") !=
                    std::string::npos);
        return 0;
      },
      {{"SYMM_BACKEND", "quantum"}});
  EXPECT_TRUE(exitedWith(backend[0], 0));
  auto size =
      runRanks(1,
               [](int) {
                 RANK_EXPECT(symm_init() == SYMM_ERROR_INVALID_ARGUMENT);
                 return 0;
               },
               {{"SYMM_HEAP_SIZE", "lots"}});
  EXPECT_TRUE(exitedWith(size[0], 0));

  // Each value is named; none silently becomes a default.
  for (auto [name, value, expected] :
       std::vector<std::tuple<std::string, std::string, std::string>>{
           {"SYMM_TIMEOUT", "abc",
            "SYMM_TIMEOUT='abc' is not a number of seconds"},
           {"SYMM_TIMEOUT", "-5", "SYMM_TIMEOUT='-5' is not a number"},
           {"SYMM_HEAP_SIZE", "99999999999999999999",
            "SYMM_HEAP_SIZE='99999999999999999999' is not a size"},
           {"SYMM_WORLD_SIZE", "2x",
            "SYMM_WORLD_SIZE='2x' is not an integer between 1 and 64"},
           {"SYMM_BOOTSTRAP", "carrier-pigeon",
            "SYMM_BOOTSTRAP='carrier-pigeon' is not one of socket"},
           {"SYMM_BACKEND", "quantum",
            "SYMM_BACKEND='quantum' is not one of host, cuda, hip"}}) {
    auto results =
        runRanks(1,
                 [expected = expected](int) {
                   RANK_EXPECT(symm_init() == SYMM_ERROR_INVALID_ARGUMENT);
                   RANK_EXPECT(std::string(symm_last_error()).find(expected) !=
                               std::string::npos);
                   return 0;
                 },
                 {{name, value}});
    EXPECT_TRUE(exitedWith(results[0], 0)) << name << "=" << value;
  }
}

TEST(Runtime, MessagesBeforeInitialisationNameTheRank) {
  auto results = runRanks(2, [](int rank) {
    void *p;
    RANK_EXPECT(symm_malloc(4, &p) == SYMM_ERROR_NOT_INITIALIZED);
    std::string prefix = "rank " + std::to_string(rank) + ": ";
    RANK_EXPECT(std::string(symm_last_error()).rfind(prefix, 0) == 0);
    return 0;
  });
  for (auto &r : results)
    EXPECT_TRUE(exitedWith(r, 0));
}

TEST(Runtime, MissingDriverSaysWhatDlopenSaid) {
  if (void *driver = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL)) {
    dlclose(driver);
    GTEST_SKIP() << "this machine has the NVIDIA driver";
  }
  auto results = runRanks(
      1,
      [](int) {
        RANK_EXPECT(symm_init() == SYMM_ERROR_UNAVAILABLE);
        std::string message = symm_last_error();
        RANK_EXPECT(message.find("libcuda.so.1: cannot open shared object "
                                 "file") != std::string::npos);
        RANK_EXPECT(message.find("(null)") == std::string::npos);
        return 0;
      },
      {{"SYMM_BACKEND", "cuda"}});
  EXPECT_TRUE(exitedWith(results[0], 0));
}

/// A 2-D memref descriptor, as compiled code passes one.
struct Memref2D {
  void *allocated, *aligned;
  int64_t offset, sizes[2], strides[2];
};

/// An f16 tensor of 64 rows of 128 elements; upstream's codes: data type 6
/// (f16), no interleave, 128-byte swizzle, no L2 promotion, zero fill.
struct TensorMapCall {
  int64_t rank = 2, dataType = 6, interleave = 0, swizzle = 3, l2promo = 0,
          oobFill = 0;
  int64_t offset = 0, sizes[2] = {64, 128}, strides[2] = {128, 1};
  int64_t box[2] = {64, 64};

  void *run(void *data) {
    Memref2D m = {
        data, data, offset, {sizes[0], sizes[1]}, {strides[0], strides[1]}};
    return mgpuTensorMapEncodeTiledMemref(rank, &m, dataType, interleave,
                                          swizzle, l2promo, oobFill, box);
  }
};

TEST(Runtime, TensorMapsOnTheHostBackend) {
  auto results = runRanks(1, [](int) {
    alignas(16) static uint16_t data[64 * 128];
    TensorMapCall call;
    call.offset = 8;
    call.box[0] = 32;
    auto *map = static_cast<const symm_host_tensor_map *>(call.run(data));
    // Dimensions innermost first; the base includes the offset.
    RANK_EXPECT(map->rank == 2 && map->element_bytes == 2);
    RANK_EXPECT(map->base == data + 8);
    RANK_EXPECT(map->sizes[0] == 128 && map->sizes[1] == 64);
    RANK_EXPECT(map->strides[0] == 1 && map->strides[1] == 128);
    RANK_EXPECT(map->box[0] == 64 && map->box[1] == 32);
    RANK_EXPECT(map->swizzle == 3 && map->oob_fill == 0);
    RANK_EXPECT(map->data_type == 6);
    return 0;
  });
  EXPECT_TRUE(exitedWith(results[0], 0));
}

TEST(Runtime, BadTensorMapsEndTheProgramNamingTheCause) {
  struct Case {
    std::function<void(TensorMapCall &)> change;
    const char *message;
  };
  const Case cases[] = {
      {[](TensorMapCall &c) { c.rank = 6; },
       "a TMA descriptor of a 6-dimensional tensor: TMA takes 1 to 5 dimensions"},
      {[](TensorMapCall &c) { c.dataType = 13; },
       "a TMA descriptor of data type 13: not a CUtensorMapDataType code"},
      {[](TensorMapCall &c) { c.interleave = 1; },
       "interleaved layout 1; the CPU target supports interleave=none only"},
      {[](TensorMapCall &c) { c.swizzle = 4; }, "swizzle 4, L2 promotion 0, out-of-bounds fill 0: not CUtensorMap codes"},
      {[](TensorMapCall &c) { c.oobFill = 2; },
       "out-of-bounds fill 2: not CUtensorMap codes"},
      {[](TensorMapCall &c) {
         c.oobFill = 1;
         c.dataType = 1; // uint16: box rows stay 128 bytes
       },
       "a NaN out-of-bounds fill needs a floating-point element type"},
      {[](TensorMapCall &c) { c.offset = 1; }, "the tensor's first element must be 16-byte aligned"},
      {[](TensorMapCall &c) { c.strides[1] = 2; },
       "an innermost stride of 2 elements: the innermost dimension must be contiguous"},
      {[](TensorMapCall &c) { c.sizes[0] = 0; },
       "0 elements in dimension 1 (innermost first): TMA takes 1 to 2^32"},
      {[](TensorMapCall &c) { c.box[0] = 257; },
       "a box of 257 elements in dimension 1 (innermost first): TMA boxes take 1 to 256"},
      {[](TensorMapCall &c) { c.strides[0] = 100; },
       "a stride of 200 bytes in dimension 1 (innermost first): TMA strides "
       "are multiples of 16 bytes below 2^40"},
      {[](TensorMapCall &c) { c.box[1] = 4; },
       "box rows are 8 bytes: TMA box rows are multiples of 16 bytes"},
      {[](TensorMapCall &c) { c.box[1] = 128; },
       "box rows are 256 bytes: swizzle 3 takes rows of at most 128 bytes"},
  };
  for (const Case &c : cases) {
    char path[] = "/tmp/symm-tensor-map-XXXXXX";
    int fd = mkstemp(path);
    ASSERT_GE(fd, 0);
    close(fd);
    auto results = runRanks(1, [&](int) {
      RANK_EXPECT(freopen(path, "w", stderr) != nullptr);
      alignas(16) static uint16_t data[64 * 128];
      TensorMapCall call;
      c.change(call);
      call.run(data);
      return 0;
    });
    std::ifstream in(path);
    std::string output((std::istreambuf_iterator<char>(in)),
                       std::istreambuf_iterator<char>());
    unlink(path);
    EXPECT_TRUE(exitedWith(results[0], 1)) << c.message;
    EXPECT_NE(output.find(std::string("symm: nvgpu.tma.create.descriptor "
                                      "failed: rank 0: ")),
              std::string::npos)
        << output;
    EXPECT_NE(output.find(c.message), std::string::npos) << output;
  }
}

TEST(Runtime, MismatchedCollectivesFailOnEveryRank) {
  // Rank 1 allocates while rank 0 waits in a barrier.
  auto results = runRanks(2, [](int rank) {
    RANK_EXPECT(symm_init() == SYMM_SUCCESS);
    void *p;
    symm_status s = rank == 0 ? symm_barrier() : symm_malloc(64, &p);
    RANK_EXPECT(s == SYMM_ERROR_ASYMMETRIC);
    std::string message = symm_last_error();
    RANK_EXPECT(message.find("rank 0 called symm_barrier (collective call "
                             "#0), rank 1 called symm_malloc") !=
                std::string::npos);
    return 0;
  });
  for (auto &r : results)
    EXPECT_TRUE(exitedWith(r, 0));

  // Rank 1 leaves while rank 0 still waits in a barrier: both fail.
  results = runRanks(2, [](int rank) {
    RANK_EXPECT(symm_init() == SYMM_SUCCESS);
    symm_status s = rank == 0 ? symm_barrier() : symm_finalize();
    RANK_EXPECT(s == SYMM_ERROR_ASYMMETRIC);
    RANK_EXPECT(std::string(symm_last_error()).find("called symm_finalize") !=
                std::string::npos);
    return 0;
  });
  for (auto &r : results)
    EXPECT_TRUE(exitedWith(r, 0));
}

TEST(Runtime, RendezvousFolderOfAnotherUserIsRefused) {
  if (geteuid() != 0)
    GTEST_SKIP() << "giving a folder to another user needs root";
  std::string job = "symm-test-" + std::to_string(getpid());
  std::string dir = "/tmp/symm-0-MASTER_PORT-" + job;
  ASSERT_EQ(mkdir(dir.c_str(), 0700), 0) << strerror(errno);
  ASSERT_EQ(chown(dir.c_str(), 65534, 65534), 0) << strerror(errno);
  auto results = runRanks(
      2,
      [](int) {
        RANK_EXPECT(symm_init() == SYMM_ERROR_INVALID_ARGUMENT);
        RANK_EXPECT(
            std::string(symm_last_error())
                .find("belongs to uid 65534, not to this user (uid 0)") !=
            std::string::npos);
        return 0;
      },
      {{"SYMM_RENDEZVOUS", ""}, {"MASTER_PORT", job}}, /*started=*/1);
  EXPECT_TRUE(exitedWith(results[0], 0));
  // The folder was not this job's to remove.
  EXPECT_EQ(rmdir(dir.c_str()), 0);
}

TEST(Runtime, KernelHandlesAreOwnedByTheModule) {
  std::string image = testKernels();
  if (image.empty())
    GTEST_SKIP() << "no compiled test kernels";
  auto results = runRanks(1, [&](int) {
    void *module = mgpuModuleLoad(image.data(), image.size());
    void *k0 = mgpuModuleGetFunction(module, "k0");
    RANK_EXPECT(k0 && mgpuModuleGetFunction(module, "k0") == k0);
    RANK_EXPECT(mgpuModuleGetFunction(module, "k1") != k0);
    // Every launch looks its kernel up, as gpu-to-llvm's code does; memory
    // in use must not grow with the number of launches.
    auto launch = [&] {
      mgpuLaunchKernel(mgpuModuleGetFunction(module, "k0"), 1, 1, 1, 1, 1, 1, 0,
                       nullptr, nullptr, nullptr, 0);
    };
    for (int i = 0; i < 1000; ++i)
      launch();
    mgpuStreamSynchronize(nullptr);
    size_t before = mallinfo2().uordblks;
    // A leak of 40 B per launch grows by 800 KB; the stream's queue and the
    // workers' allocations move by a few tens of KB from run to run.
    for (int i = 0; i < 20000; ++i)
      launch();
    mgpuStreamSynchronize(nullptr);
    size_t after = mallinfo2().uordblks;
    RANK_EXPECT(after < before + 256 * 1024);
    return 0;
  });
  EXPECT_TRUE(exitedWith(results[0], 0));
}

// A kernel whose workgroups wait on each other (symm.co_resident) is
// launched with at most what symm_kernel_max_resident says; a larger grid is
// refused at once, also into a capture, where the unmarked kernel runs into
// the CPU target's deadlock report.
TEST(Runtime, CoResidentGridsBeyondTheDeviceAreRefused) {
  if (testKernels().empty())
    GTEST_SKIP() << "no compiled test kernels";
  auto results = runRanks(
      1,
      [](int) {
        RANK_EXPECT(symm_init() == SYMM_SUCCESS);
        symm_module *module;
        RANK_EXPECT(symm_module_load_file(SYMM_TEST_KERNELS, &module) ==
                    SYMM_SUCCESS);
        int multiprocessors = 0;
        RANK_EXPECT(symm_device_multiprocessors(&multiprocessors) ==
                        SYMM_SUCCESS &&
                    multiprocessors == 4);
        int64_t resident = -1;
        RANK_EXPECT(symm_kernel_max_resident(module, "wait_for_last", 32, 0,
                                             &resident) == SYMM_SUCCESS &&
                    resident == 4);
        // Past the CPU target's threads or shared memory, not one fits.
        RANK_EXPECT(symm_kernel_max_resident(module, "wait_for_last", 2048, 0,
                                             &resident) == SYMM_SUCCESS &&
                    resident == 0);
        RANK_EXPECT(symm_kernel_max_resident(module, "wait_for_last", 32,
                                             1 << 30, &resident) ==
                        SYMM_SUCCESS &&
                    resident == 0);
        auto failsWith = [](symm_status status, const char *message) {
          return status == SYMM_ERROR_INVALID_ARGUMENT &&
                 std::string(symm_last_error()).find(message) !=
                     std::string::npos;
        };
        RANK_EXPECT(failsWith(
            symm_kernel_max_resident(module, "wait_for_last", 0, 0, &resident),
            "rank 0: kernel 'wait_for_last': workgroups of 0 threads"));
        RANK_EXPECT(failsWith(
            symm_kernel_max_resident(module, "wait_for_lst", 32, 0, &resident),
            "rank 0: no kernel 'wait_for_lst' in the module; it has: "));
        RANK_EXPECT(failsWith(
            symm_kernel_max_resident(module, "wait_for_last", 32, 0, nullptr),
            "null kernel name or result"));
        RANK_EXPECT(failsWith(
            symm_kernel_max_resident(module, "wait_for_last", 32,
                                     size_t(1) << 33, &resident),
            "kernel 'wait_for_last': 8589934592 bytes of dynamic shared "
            "memory; a launch takes at most 4294967295"));

        int32_t *flag;
        RANK_EXPECT(symm_malloc(sizeof(int32_t),
                                reinterpret_cast<void **>(&flag)) ==
                    SYMM_SUCCESS);
        uint64_t fields[5] = {reinterpret_cast<uint64_t>(flag),
                              reinterpret_cast<uint64_t>(flag), 0, 1, 1};
        void *params[5] = {&fields[0], &fields[1], &fields[2], &fields[3],
                           &fields[4]};
        unsigned block[3] = {32, 1, 1};
        auto launch = [&](const char *kernel, std::array<unsigned, 3> grid,
                          symm_stream *stream = nullptr) {
          *flag = 0;
          return symm_launch(module, kernel, grid.data(), block, 0, stream,
                             params, 5);
        };
        RANK_EXPECT(launch("wait_for_last", {4, 1, 1}) == SYMM_SUCCESS);
        RANK_EXPECT(symm_synchronize() == SYMM_SUCCESS && *flag == 1);
        auto start = std::chrono::steady_clock::now();
        RANK_EXPECT(failsWith(
            launch("wait_for_last", {5, 1, 1}),
            "rank 0: kernel 'wait_for_last' needs all its workgroups "
            "resident at once (symm.co_resident), but its grid of 5 "
            "workgroups of 32 threads with 0 bytes of dynamic shared memory "
            "exceeds the 4 this rank's device holds at once; launch at most "
            "4 workgroups (symm_kernel_max_resident), or fewer threads, "
            "registers or shared memory per workgroup"));
        RANK_EXPECT(failsWith(launch("wait_for_last", {2, 2, 2}),
                              "its grid of 8 workgroups"));
        block[0] = 2048;
        RANK_EXPECT(failsWith(launch("wait_for_last", {1, 1, 1}),
                              "this rank's device holds not one of its 1 "
                              "workgroups of 2048 threads"));
        block[0] = 32;
        RANK_EXPECT(std::chrono::steady_clock::now() - start <
                    std::chrono::seconds(1));
        RANK_EXPECT(symm_synchronize() == SYMM_SUCCESS && *flag == 0);

        // Refused while recording, so the graph never holds it.
        symm_stream *stream;
        symm_graph *graph;
        RANK_EXPECT(symm_stream_create(&stream) == SYMM_SUCCESS);
        RANK_EXPECT(symm_stream_begin_capture(stream) == SYMM_SUCCESS);
        RANK_EXPECT(failsWith(launch("wait_for_last", {5, 1, 1}, stream),
                              "its grid of 5 workgroups"));
        RANK_EXPECT(launch("wait_for_last", {3, 1, 1}, stream) ==
                    SYMM_SUCCESS);
        RANK_EXPECT(symm_stream_end_capture(stream, &graph) == SYMM_SUCCESS);
        RANK_EXPECT(symm_graph_launch(graph, stream) == SYMM_SUCCESS);
        RANK_EXPECT(symm_stream_synchronize(stream) == SYMM_SUCCESS &&
                    *flag == 1);
        RANK_EXPECT(symm_graph_destroy(graph) == SYMM_SUCCESS);
        RANK_EXPECT(symm_stream_destroy(stream) == SYMM_SUCCESS);

        // Unmarked, the same launch starts and is reported as deadlocked.
        RANK_EXPECT(launch("wait_for_last_unmarked", {5, 1, 1}) ==
                    SYMM_SUCCESS);
        RANK_EXPECT(symm_synchronize() != SYMM_SUCCESS);
        RANK_EXPECT(std::string(symm_last_error())
                        .find("kernel 'wait_for_last_unmarked' needs more "
                              "than 4 co-resident blocks") !=
                    std::string::npos);
        return 0;
      },
      {{"SYMM_HOST_RESIDENT_BLOCKS", "4"},
       {"SYMM_HOST_DEADLOCK_SECONDS", "0.5"}});
  EXPECT_TRUE(exitedWith(results[0], 0));
}

TEST(Runtime, LaunchesFromTwoThreads) {
  std::string image = testKernels();
  if (image.empty())
    GTEST_SKIP() << "no compiled test kernels";
  auto results = runRanks(1, [&](int) {
    RANK_EXPECT(symm_init() == SYMM_SUCCESS);
    for (int round = 0; round < 300; ++round) {
      symm_module *module;
      RANK_EXPECT(symm_module_load_data(image.data(), image.size(), &module) ==
                  SYMM_SUCCESS);
      std::atomic<int> ready{0}, unexpected{0};
      // Both threads look every kernel up for the first time, in opposite
      // orders, through the C API and as compiled programs do. One parameter
      // too many makes each launch fail right after the lookup, so that the
      // threads meet in the kernel table rather than in starting threads.
      auto body = [&](int thread) {
        ++ready;
        while (ready < 2)
          std::this_thread::yield();
        unsigned one[3] = {1, 1, 1};
        uint64_t extra = 0;
        void *params[] = {&extra};
        for (int k = 0; k < kTestKernelCount; ++k) {
          std::string name =
              "k" + std::to_string(thread ? kTestKernelCount - 1 - k : k);
          if (thread == 1 && !mgpuModuleGetFunction(module, name.c_str()))
            ++unexpected;
          if (symm_launch(module, name.c_str(), one, one, 0, nullptr, params,
                          1) != SYMM_ERROR_INVALID_ARGUMENT ||
              !strstr(symm_last_error(), "takes 0 parameters"))
            ++unexpected;
        }
      };
      std::thread a(body, 0), b(body, 1);
      a.join();
      b.join();
      RANK_EXPECT(unexpected == 0);
      RANK_EXPECT(symm_module_unload(module) == SYMM_SUCCESS);
    }
    return 0;
  });
  EXPECT_TRUE(exitedWith(results[0], 0));
}

/// Names in `dir` that look like Symm's.
std::set<std::string> symmEntries(const char *dir) {
  std::set<std::string> names;
  if (DIR *d = opendir(dir)) {
    while (dirent *e = readdir(d))
      if (strstr(e->d_name, "symm"))
        names.insert(e->d_name);
    closedir(d);
  }
  return names;
}

TEST(Runtime, NothingIsLeftBehind) {
  auto before = symmEntries("/dev/shm");
  runRanks(2, [](int rank) {
    RANK_EXPECT(symm_init() == SYMM_SUCCESS);
    void *p;
    RANK_EXPECT(symm_malloc(1 << 20, &p) == SYMM_SUCCESS);
    if (rank == 1)
      raise(SIGKILL);
    symm_barrier();
    return 0;
  });
  EXPECT_EQ(symmEntries("/dev/shm"), before);
}

/// Whether the last error names this rank and contains `text`.
bool lastErrorSays(const char *text) {
  std::string message = symm_last_error();
  std::string prefix = "rank " + std::to_string(symm_rank()) + ": ";
  if (message.rfind(prefix, 0) == 0 && message.find(text) != std::string::npos)
    return true;
  fprintf(stderr, "expected '%s' in: %s\n", text, message.c_str());
  return false;
}

/// Launches scale_add(buf[0..4), a, b) from parameter storage the caller
/// owns.
struct ScaleAdd {
  symm_module *module;
  int32_t *buf;
  void *allocated, *aligned;
  int64_t offset = 0, size = 4, stride = 1;
  int32_t a = 0, b = 0;

  symm_status launch(symm_stream *stream) {
    allocated = aligned = buf;
    void *params[] = {&allocated, &aligned, &offset, &size, &stride, &a, &b};
    unsigned one[3] = {1, 1, 1}, threads[3] = {4, 1, 1};
    return symm_launch(module, "scale_add", one, threads, 0, stream, params, 7);
  }
};

// After a launch fails, its stream runs nothing more but event records and
// waits (which others may wait for) until a synchronisation reports the
// failure, as a GPU's stream stops at a fault: later launches that wait for
// the same peers would each take SYMM_TIMEOUT again.
TEST(Runtime, AFailedStreamRunsNothingMoreUntilItIsReported) {
  std::string image = testKernels();
  if (image.empty())
    GTEST_SKIP() << "no compiled test kernels";
  auto results = runRanks(
      1,
      [&](int) {
        RANK_EXPECT(symm_init() == SYMM_SUCCESS);
        ScaleAdd k;
        RANK_EXPECT(symm_module_load_data(image.data(), image.size(),
                                          &k.module) == SYMM_SUCCESS);
        int32_t *flag;
        RANK_EXPECT(symm_malloc(4 * sizeof(int32_t),
                                reinterpret_cast<void **>(&k.buf)) ==
                        SYMM_SUCCESS &&
                    symm_malloc(sizeof(int32_t),
                                reinterpret_cast<void **>(&flag)) ==
                        SYMM_SUCCESS);
        for (int i = 0; i < 4; ++i)
          k.buf[i] = i;
        *flag = 0;
        symm_stream *s;
        RANK_EXPECT(symm_stream_create(&s) == SYMM_SUCCESS);
        // A grid past the 4 resident blocks: reported as deadlocked.
        uint64_t fields[5] = {reinterpret_cast<uint64_t>(flag),
                              reinterpret_cast<uint64_t>(flag), 0, 1, 1};
        void *params[5] = {&fields[0], &fields[1], &fields[2], &fields[3],
                           &fields[4]};
        unsigned grid[3] = {5, 1, 1}, block[3] = {32, 1, 1};
        RANK_EXPECT(symm_launch(k.module, "wait_for_last_unmarked", grid, block,
                                0, s, params, 5) == SYMM_SUCCESS);
        k.a = 2;
        k.b = 3;
        RANK_EXPECT(k.launch(s) == SYMM_SUCCESS);
        void *event = mgpuEventCreate();
        mgpuEventRecord(event, s);
        RANK_EXPECT(k.launch(s) == SYMM_SUCCESS);
        // The record runs: a wait for it ends.
        mgpuEventSynchronize(event);
        RANK_EXPECT(symm_stream_synchronize(s) != SYMM_SUCCESS);
        RANK_EXPECT(lastErrorSays("kernel 'wait_for_last_unmarked' needs more "
                                  "than 4 co-resident blocks"));
        RANK_EXPECT(lastErrorSays(
            "; 2 later operations on the stream did not run"));
        for (int i = 0; i < 4; ++i)
          RANK_EXPECT(k.buf[i] == i);
        // Reported, the stream runs again.
        RANK_EXPECT(k.launch(s) == SYMM_SUCCESS);
        RANK_EXPECT(symm_stream_synchronize(s) == SYMM_SUCCESS);
        for (int i = 0; i < 4; ++i)
          RANK_EXPECT(k.buf[i] == 2 * i + 3);
        RANK_EXPECT(symm_stream_destroy(s) == SYMM_SUCCESS);
        return 0;
      },
      {{"SYMM_HOST_RESIDENT_BLOCKS", "4"},
       {"SYMM_HOST_DEADLOCK_SECONDS", "0.5"}});
  EXPECT_TRUE(exitedWith(results[0], 0));
}

TEST(Graph, CaptureAndReplay) {
  std::string image = testKernels();
  if (image.empty())
    GTEST_SKIP() << "no compiled test kernels";
  auto results = runRanks(2, [&](int rank) {
    RANK_EXPECT(symm_init() == SYMM_SUCCESS);
    ScaleAdd k;
    RANK_EXPECT(symm_module_load_data(image.data(), image.size(), &k.module) ==
                SYMM_SUCCESS);
    RANK_EXPECT(symm_malloc(4 * sizeof(int32_t),
                            reinterpret_cast<void **>(&k.buf)) == SYMM_SUCCESS);
    // The graph copies its input from `staging` (an asynchronous copy, as
    // compiled programs make), then applies (x * 2 + 1) * 3 + rank + 5.
    static int32_t staging[4];
    symm_stream *s, *t;
    RANK_EXPECT(symm_stream_create(&s) == SYMM_SUCCESS);
    RANK_EXPECT(symm_stream_create(&t) == SYMM_SUCCESS);
    int capturing = -1;
    RANK_EXPECT(symm_stream_is_capturing(s, &capturing) == SYMM_SUCCESS &&
                capturing == 0);
    for (int i = 0; i < 4; ++i)
      k.buf[i] = staging[i] = 100 + i;
    RANK_EXPECT(symm_stream_begin_capture(s) == SYMM_SUCCESS);
    RANK_EXPECT(symm_stream_is_capturing(s, &capturing) == SYMM_SUCCESS &&
                capturing == 1);
    RANK_EXPECT(symm_stream_is_capturing(t, &capturing) == SYMM_SUCCESS &&
                capturing == 0);
    RANK_EXPECT(symm_stream_is_capturing(nullptr, &capturing) == SYMM_SUCCESS &&
                capturing == 0);
    mgpuMemcpy(k.buf, staging, sizeof(staging), s);
    k.a = 2;
    k.b = 1;
    RANK_EXPECT(k.launch(s) == SYMM_SUCCESS);
    // Overwritten after the launch: the graph keeps the values it was given.
    k.a = 3;
    k.b = 5 + rank;
    RANK_EXPECT(k.launch(s) == SYMM_SUCCESS);
    k.a = k.b = 0;
    symm_graph *graph = nullptr;
    RANK_EXPECT(symm_stream_end_capture(s, &graph) == SYMM_SUCCESS && graph);
    RANK_EXPECT(symm_stream_is_capturing(s, &capturing) == SYMM_SUCCESS &&
                capturing == 0);
    // Nothing ran: the copy would have overwritten buf, the launches changed
    // it.
    for (int i = 0; i < 4; ++i)
      staging[i] = -1;
    RANK_EXPECT(symm_stream_synchronize(s) == SYMM_SUCCESS);
    for (int i = 0; i < 4; ++i)
      RANK_EXPECT(k.buf[i] == 100 + i);

    auto expected = [&](int32_t x) { return (x * 2 + 1) * 3 + 5 + rank; };
    // Each replay reads the input as it is then, on either stream.
    for (int n = 0; n < 6; ++n) {
      symm_stream *on = n % 2 ? t : s;
      for (int i = 0; i < 4; ++i)
        staging[i] = 10 * n + i;
      RANK_EXPECT(symm_graph_launch(graph, on) == SYMM_SUCCESS);
      RANK_EXPECT(symm_stream_synchronize(on) == SYMM_SUCCESS);
      for (int i = 0; i < 4; ++i)
        RANK_EXPECT(k.buf[i] == expected(10 * n + i));
    }
    // Two launches in a row: each runs whole, in order (the copy restarts
    // from `staging`).
    for (int i = 0; i < 4; ++i)
      staging[i] = i;
    RANK_EXPECT(symm_graph_launch(graph, s) == SYMM_SUCCESS);
    RANK_EXPECT(symm_graph_launch(graph, s) == SYMM_SUCCESS);
    RANK_EXPECT(symm_stream_synchronize(s) == SYMM_SUCCESS);
    for (int i = 0; i < 4; ++i)
      RANK_EXPECT(k.buf[i] == expected(i));
    // On the default stream, destroyed while the launch may still be
    // queued: that launch runs.
    for (int i = 0; i < 4; ++i)
      staging[i] = 50 + i;
    RANK_EXPECT(symm_graph_launch(graph, nullptr) == SYMM_SUCCESS);
    RANK_EXPECT(symm_graph_destroy(graph) == SYMM_SUCCESS);
    RANK_EXPECT(symm_synchronize() == SYMM_SUCCESS);
    for (int i = 0; i < 4; ++i)
      RANK_EXPECT(k.buf[i] == expected(50 + i));

    // The stream can be captured again, into a graph of its own.
    RANK_EXPECT(symm_stream_begin_capture(s) == SYMM_SUCCESS);
    k.a = -1;
    k.b = 7;
    RANK_EXPECT(k.launch(s) == SYMM_SUCCESS);
    RANK_EXPECT(symm_stream_end_capture(s, &graph) == SYMM_SUCCESS);
    for (int r = 0; r < 3; ++r)
      RANK_EXPECT(symm_graph_launch(graph, t) == SYMM_SUCCESS);
    RANK_EXPECT(symm_stream_synchronize(t) == SYMM_SUCCESS);
    for (int i = 0; i < 4; ++i)
      RANK_EXPECT(k.buf[i] == -(-(-expected(50 + i) + 7) + 7) + 7);
    RANK_EXPECT(symm_graph_destroy(graph) == SYMM_SUCCESS);

    // An empty capture is an empty graph.
    RANK_EXPECT(symm_stream_begin_capture(t) == SYMM_SUCCESS);
    RANK_EXPECT(symm_stream_end_capture(t, &graph) == SYMM_SUCCESS);
    RANK_EXPECT(symm_graph_launch(graph, s) == SYMM_SUCCESS);
    RANK_EXPECT(symm_graph_destroy(graph) == SYMM_SUCCESS);

    RANK_EXPECT(symm_stream_destroy(s) == SYMM_SUCCESS);
    RANK_EXPECT(symm_stream_destroy(t) == SYMM_SUCCESS);
    RANK_EXPECT(symm_module_unload(k.module) == SYMM_SUCCESS);
    RANK_EXPECT(symm_finalize() == SYMM_SUCCESS);
    return 0;
  });
  for (auto &r : results)
    EXPECT_TRUE(exitedWith(r, 0));
}

TEST(Graph, MisuseIsAnErrorThatChangesNothing) {
  std::string image = testKernels();
  if (image.empty())
    GTEST_SKIP() << "no compiled test kernels";
  auto results = runRanks(2, [&](int) {
    symm_stream *s, *t;
    symm_graph *graph = nullptr;
    RANK_EXPECT(symm_stream_begin_capture(nullptr) ==
                SYMM_ERROR_NOT_INITIALIZED);
    RANK_EXPECT(symm_init() == SYMM_SUCCESS);
    ScaleAdd k;
    RANK_EXPECT(symm_module_load_data(image.data(), image.size(), &k.module) ==
                SYMM_SUCCESS);
    RANK_EXPECT(symm_malloc(4 * sizeof(int32_t),
                            reinterpret_cast<void **>(&k.buf)) == SYMM_SUCCESS);
    void *spare, *device;
    RANK_EXPECT(symm_malloc(64, &spare) == SYMM_SUCCESS);
    RANK_EXPECT(symm_device_malloc(64, &device) == SYMM_SUCCESS);
    RANK_EXPECT(symm_stream_create(&s) == SYMM_SUCCESS);
    RANK_EXPECT(symm_stream_create(&t) == SYMM_SUCCESS);
    for (int i = 0; i < 4; ++i)
      k.buf[i] = i;

    RANK_EXPECT(symm_stream_begin_capture(nullptr) ==
                SYMM_ERROR_INVALID_ARGUMENT);
    RANK_EXPECT(
        lastErrorSays("symm_stream_begin_capture: the default (null) stream "
                      "cannot be captured"));
    RANK_EXPECT(symm_stream_end_capture(s, &graph) ==
                SYMM_ERROR_INVALID_ARGUMENT);
    RANK_EXPECT(lastErrorSays("symm_stream_end_capture: stream "));
    RANK_EXPECT(lastErrorSays(" is not being captured"));
    RANK_EXPECT(symm_stream_end_capture(nullptr, &graph) ==
                SYMM_ERROR_INVALID_ARGUMENT);
    RANK_EXPECT(lastErrorSays("is not being captured"));
    RANK_EXPECT(symm_stream_is_capturing(s, nullptr) ==
                SYMM_ERROR_INVALID_ARGUMENT);
    RANK_EXPECT(lastErrorSays("symm_stream_is_capturing: null result"));
    RANK_EXPECT(symm_graph_launch(nullptr, s) == SYMM_ERROR_INVALID_ARGUMENT);
    RANK_EXPECT(lastErrorSays("symm_graph_launch: null graph"));
    RANK_EXPECT(symm_graph_destroy(nullptr) == SYMM_ERROR_INVALID_ARGUMENT);
    RANK_EXPECT(lastErrorSays("symm_graph_destroy: null graph"));

    RANK_EXPECT(symm_stream_begin_capture(s) == SYMM_SUCCESS);
    k.a = 2;
    k.b = 1;
    RANK_EXPECT(k.launch(s) == SYMM_SUCCESS);
    RANK_EXPECT(symm_stream_begin_capture(s) == SYMM_ERROR_INVALID_ARGUMENT);
    RANK_EXPECT(lastErrorSays("is already being captured"));
    RANK_EXPECT(symm_stream_end_capture(s, nullptr) ==
                SYMM_ERROR_INVALID_ARGUMENT);
    RANK_EXPECT(lastErrorSays("symm_stream_end_capture: null graph pointer"));
    RANK_EXPECT(symm_stream_synchronize(s) == SYMM_ERROR_INVALID_ARGUMENT);
    RANK_EXPECT(lastErrorSays("symm_stream_synchronize: stream "));
    RANK_EXPECT(lastErrorSays(" is being captured"));
    // Every call that waits for the device names the call and the stream.
    char open[64];
    snprintf(open, sizeof(open), "while stream %p is being captured",
             static_cast<void *>(s));
    RANK_EXPECT(symm_synchronize() == SYMM_ERROR_INVALID_ARGUMENT);
    RANK_EXPECT(lastErrorSays("symm_synchronize while") && lastErrorSays(open));
    RANK_EXPECT(lastErrorSays("a call that may wait for the device cannot be "
                              "made during a capture"));
    int32_t copy[4];
    RANK_EXPECT(symm_memcpy(copy, k.buf, sizeof(copy)) ==
                SYMM_ERROR_INVALID_ARGUMENT);
    RANK_EXPECT(lastErrorSays("symm_memcpy while") && lastErrorSays(open));
    // Every rank makes the same calls: neither barrier nor free reaches the
    // other ranks, so what follows still pairs up.
    RANK_EXPECT(symm_barrier() == SYMM_ERROR_INVALID_ARGUMENT);
    RANK_EXPECT(lastErrorSays("symm_barrier while") && lastErrorSays(open));
    RANK_EXPECT(symm_free(spare) == SYMM_ERROR_INVALID_ARGUMENT);
    RANK_EXPECT(lastErrorSays("symm_free while") && lastErrorSays(open));
    // So does every call that may wait for the device on a GPU.
    void *p = nullptr;
    RANK_EXPECT(symm_device_malloc(64, &p) == SYMM_ERROR_INVALID_ARGUMENT);
    RANK_EXPECT(lastErrorSays("symm_device_malloc while") &&
                lastErrorSays(open));
    RANK_EXPECT(symm_device_free(device) == SYMM_ERROR_INVALID_ARGUMENT);
    RANK_EXPECT(lastErrorSays("symm_device_free while") && lastErrorSays(open));
    symm_module *other = nullptr;
    RANK_EXPECT(symm_module_load_data(image.data(), image.size(), &other) ==
                SYMM_ERROR_INVALID_ARGUMENT);
    RANK_EXPECT(lastErrorSays("symm_module_load_data while") &&
                lastErrorSays(open));
    RANK_EXPECT(symm_module_load_file(SYMM_TEST_KERNELS, &other) ==
                SYMM_ERROR_INVALID_ARGUMENT);
    RANK_EXPECT(lastErrorSays("symm_module_load_file while") &&
                lastErrorSays(open));
    RANK_EXPECT(symm_module_unload(k.module) == SYMM_ERROR_INVALID_ARGUMENT);
    RANK_EXPECT(lastErrorSays("symm_module_unload while") &&
                lastErrorSays(open));
    alignas(16) static uint16_t tensor[64 * 64];
    uint64_t sizes[2] = {64, 64}, strides[2] = {64, 1};
    uint32_t box[2] = {64, 64};
    void *map = nullptr;
    RANK_EXPECT(symm_tensor_map_create(tensor, 2, sizes, strides, box, 2, 128,
                                       &map) == SYMM_ERROR_INVALID_ARGUMENT);
    RANK_EXPECT(lastErrorSays("symm_tensor_map_create while") &&
                lastErrorSays(open));
    RANK_EXPECT(!p && !other && !map);
    // Another stream runs as usual meanwhile.
    RANK_EXPECT(symm_stream_synchronize(t) == SYMM_SUCCESS);

    // None of that changed the capture.
    int capturing = 0;
    RANK_EXPECT(symm_stream_is_capturing(s, &capturing) == SYMM_SUCCESS &&
                capturing == 1);
    RANK_EXPECT(symm_stream_end_capture(s, &graph) == SYMM_SUCCESS);
    for (int i = 0; i < 4; ++i)
      RANK_EXPECT(k.buf[i] == i);
    RANK_EXPECT(symm_graph_launch(graph, s) == SYMM_SUCCESS);
    RANK_EXPECT(symm_synchronize() == SYMM_SUCCESS);
    for (int i = 0; i < 4; ++i)
      RANK_EXPECT(k.buf[i] == i * 2 + 1);
    RANK_EXPECT(symm_stream_end_capture(s, &graph) ==
                SYMM_ERROR_INVALID_ARGUMENT);
    RANK_EXPECT(lastErrorSays("is not being captured"));
    RANK_EXPECT(symm_graph_destroy(graph) == SYMM_SUCCESS);
    RANK_EXPECT(symm_free(spare) == SYMM_SUCCESS);
    RANK_EXPECT(symm_device_free(device) == SYMM_SUCCESS);

    // A destroyed graph is no graph.
    RANK_EXPECT(symm_graph_launch(graph, s) == SYMM_ERROR_INVALID_ARGUMENT);
    RANK_EXPECT(lastErrorSays("symm_graph_launch: ") &&
                lastErrorSays(" is not a live graph (destroyed already"));
    RANK_EXPECT(symm_graph_destroy(graph) == SYMM_ERROR_INVALID_ARGUMENT);
    RANK_EXPECT(lastErrorSays("symm_graph_destroy: ") &&
                lastErrorSays(" is not a live graph"));

    // A module stays while a graph launches its kernels, also one that
    // launches them through a graph launched into its capture.
    ScaleAdd k2 = k;
    RANK_EXPECT(symm_module_load_data(image.data(), image.size(), &k2.module) ==
                SYMM_SUCCESS);
    symm_graph *inner, *outer;
    RANK_EXPECT(symm_stream_begin_capture(s) == SYMM_SUCCESS);
    RANK_EXPECT(k2.launch(s) == SYMM_SUCCESS);
    RANK_EXPECT(symm_stream_end_capture(s, &inner) == SYMM_SUCCESS);
    RANK_EXPECT(symm_stream_begin_capture(t) == SYMM_SUCCESS);
    RANK_EXPECT(symm_graph_launch(inner, t) == SYMM_SUCCESS);
    RANK_EXPECT(symm_stream_end_capture(t, &outer) == SYMM_SUCCESS);
    RANK_EXPECT(symm_graph_destroy(inner) == SYMM_SUCCESS);
    RANK_EXPECT(symm_module_unload(k2.module) == SYMM_ERROR_INVALID_ARGUMENT);
    char graphUses[128];
    snprintf(graphUses, sizeof(graphUses),
             "symm_module_unload: graph %p launches kernels of this module; "
             "destroy it (symm_graph_destroy) first",
             static_cast<void *>(outer));
    RANK_EXPECT(lastErrorSays(graphUses));
    for (int i = 0; i < 4; ++i)
      k.buf[i] = i;
    RANK_EXPECT(symm_graph_launch(outer, s) == SYMM_SUCCESS);
    RANK_EXPECT(symm_stream_synchronize(s) == SYMM_SUCCESS);
    for (int i = 0; i < 4; ++i)
      RANK_EXPECT(k.buf[i] == i * 2 + 1);
    RANK_EXPECT(symm_graph_destroy(outer) == SYMM_SUCCESS);
    RANK_EXPECT(symm_module_unload(k2.module) == SYMM_SUCCESS);
    RANK_EXPECT(symm_barrier() == SYMM_SUCCESS);

    // Destroying a stream discards its capture: nothing runs, and the calls
    // that wait for the device work again.
    RANK_EXPECT(symm_stream_begin_capture(t) == SYMM_SUCCESS);
    RANK_EXPECT(k.launch(t) == SYMM_SUCCESS);
    RANK_EXPECT(symm_stream_destroy(t) == SYMM_SUCCESS);
    RANK_EXPECT(symm_synchronize() == SYMM_SUCCESS);
    for (int i = 0; i < 4; ++i)
      RANK_EXPECT(k.buf[i] == i * 2 + 1);
    // So does finalisation, for a capture left open; it destroys the graphs
    // left.
    RANK_EXPECT(symm_stream_begin_capture(s) == SYMM_SUCCESS);
    RANK_EXPECT(k.launch(s) == SYMM_SUCCESS);
    RANK_EXPECT(symm_stream_end_capture(s, &graph) == SYMM_SUCCESS);
    RANK_EXPECT(symm_stream_begin_capture(s) == SYMM_SUCCESS);
    RANK_EXPECT(k.launch(s) == SYMM_SUCCESS);
    RANK_EXPECT(symm_finalize() == SYMM_SUCCESS);
    return 0;
  });
  for (auto &r : results)
    EXPECT_TRUE(exitedWith(r, 0));
}

TEST(Graph, EventsInACaptureEndTheProgramOnTheHostBackend) {
  const std::pair<std::function<void(void *, void *)>, const char *> cases[] = {
      {mgpuEventRecord, "symm: recording an event failed: rank 0: recording "
                        "an event on stream "},
      {[](void *event, void *stream) { mgpuStreamWaitEvent(stream, event); },
       "symm: waiting for an event failed: rank 0: waiting for an event on "
       "stream "}};
  for (const auto &c : cases) {
    const char *message = c.second;
    char path[] = "/tmp/symm-graph-event-XXXXXX";
    int fd = mkstemp(path);
    ASSERT_GE(fd, 0);
    close(fd);
    auto results = runRanks(1, [&](int) {
      RANK_EXPECT(freopen(path, "w", stderr) != nullptr);
      RANK_EXPECT(symm_init() == SYMM_SUCCESS);
      symm_stream *s;
      RANK_EXPECT(symm_stream_create(&s) == SYMM_SUCCESS);
      void *event = mgpuEventCreate();
      RANK_EXPECT(symm_stream_begin_capture(s) == SYMM_SUCCESS);
      c.first(event, s);
      return 0;
    });
    std::ifstream in(path);
    std::string output((std::istreambuf_iterator<char>(in)),
                       std::istreambuf_iterator<char>());
    unlink(path);
    EXPECT_TRUE(exitedWith(results[0], 1)) << output;
    EXPECT_NE(output.find(message), std::string::npos) << output;
    EXPECT_NE(output.find(" while it is being captured: the host backend "
                          "captures launches, copies and sets, not events"),
              std::string::npos)
        << output;
  }
}

} // namespace
