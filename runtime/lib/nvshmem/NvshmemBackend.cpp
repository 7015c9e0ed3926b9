//===- NvshmemBackend.cpp - NVSHMEM as a backend ----------------*- C++ -*-===//
//
// The cuda backend with NVSHMEM's symmetric heap. NVSHMEM is bootstrapped
// from Symm's bootstrap (rank 0's unique id, gathered over it), so it runs
// wherever Symm's ranks meet: symm-run, torchrun, mpirun. The heap is
// nvshmem_malloc memory, symmetric by construction; a peer's heap base is
// what nvshmem_ptr gives, null where the peer is not load/store-reachable
// (another node), which kernels compiled with --remote=auto test. A module
// that calls NVSHMEM (--remote=nvshmem or auto) is linked when it loads with
// the device functions it calls (Device.cu) and libnvshmem_device.a, then
// registered with nvshmemx_cumodule_init. libnvshmem_host.so.3 is opened at
// run time, like the CUDA driver.
//
//===----------------------------------------------------------------------===//

#include "../core/Environment.h"
#include "../cuda/CudaDriver.h"
#include "../gpu/GpuBackend.h"

#include "symm/nvshmem.h"

#include <nvshmem.h>
#include <nvshmemx.h>

#include <cstring>
#include <link.h>
#include <memory>
#include <string>
#include <string_view>

using namespace symm;

// The PTX of Device.cu (NUL-terminated), embedded by Nvshmem.cmake.
extern "C" const unsigned char symm_nvshmem_device_ptx[];
extern "C" const size_t symm_nvshmem_device_ptx_size;

namespace {

/// The NVSHMEM host library's entry points Symm uses: its host-library
/// initialisation (the device state lives in the modules Symm loads, not in
/// this program), the heap, and module registration.
struct Nvshmem {
  int (*hostlibInitAttr)(unsigned flags, nvshmemx_init_attr_t *attr);
  void (*hostlibFinalize)();
  int (*getUniqueid)(nvshmemx_uniqueid_t *id);
  int (*setAttrUniqueidArgs)(int rank, int size, const nvshmemx_uniqueid_t *id,
                             nvshmemx_init_attr_t *attr);
  void *(*malloc)(size_t bytes);
  void (*free)(void *ptr);
  void *(*ptr)(const void *ptr, int pe);
  int (*cumoduleInit)(void *module);
  int (*cumoduleFinalize)(void *module);
  /// The folder libnvshmem_host.so.3 was opened from, which holds
  /// libnvshmem_device.a too (an NVSHMEM install, or the pip wheel).
  std::string libDir;
  bool initialized = false;
  void *heap = nullptr;
};

constexpr const char *kHostLibrary = "libnvshmem_host.so.3";
constexpr const char *kDeviceLibrary = "libnvshmem_device.a";

/// Opens libnvshmem_host.so.3 from SYMM_NVSHMEM_HOME/lib, the library path,
/// or the folder the build found NVSHMEM in.
bool open(Nvshmem &n, std::string &why) {
  std::vector<std::string> names;
  if (const char *home = env::get(env::kNvshmemHome))
    names.push_back(std::string(home) + "/lib/" + kHostLibrary);
  names.push_back(kHostLibrary);
#ifdef SYMM_NVSHMEM_LIB_DIR
  names.push_back(std::string(SYMM_NVSHMEM_LIB_DIR) + "/" + kHostLibrary);
#endif
  void *lib = nullptr;
  for (const std::string &name : names) {
    // Global: NVSHMEM's bootstrap and transport plugins use its symbols.
    if ((lib = dlopen(name.c_str(), RTLD_NOW | RTLD_GLOBAL)))
      break;
    if (why.empty())
      why = dlerror();
  }
  if (!lib)
    return false;
  char origin[4096] = {};
  if (dlinfo(lib, RTLD_DI_ORIGIN, origin) == 0)
    n.libDir = origin;
  auto load = [&](const char *symbol, auto &fn) {
    fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(
        dlsym(lib, symbol));
    if (!fn)
      why = std::string(kHostLibrary) + " has no " + symbol;
    return fn != nullptr;
  };
  return load("nvshmemx_hostlib_init_attr", n.hostlibInitAttr) &&
         load("nvshmemx_hostlib_finalize", n.hostlibFinalize) &&
         load("nvshmemx_get_uniqueid", n.getUniqueid) &&
         load("nvshmemx_set_attr_uniqueid_args", n.setAttrUniqueidArgs) &&
         load("nvshmem_malloc", n.malloc) && load("nvshmem_free", n.free) &&
         load("nvshmem_ptr", n.ptr) &&
         load("nvshmemx_cumodule_init", n.cumoduleInit) &&
         load("nvshmemx_cumodule_finalize", n.cumoduleFinalize);
}

/// NVSHMEM's job over Symm's ranks: rank 0's unique id reaches every rank
/// through the bootstrap, then every rank allocates its part of the heap.
symm_status createHeap(Nvshmem &n, size_t bytes, Bootstrap &bootstrap,
                       std::vector<char *> &bases) {
  nvshmemx_uniqueid_t id = NVSHMEMX_UNIQUEID_INITIALIZER;
  if (bootstrap.rank() == 0)
    if (int code = n.getUniqueid(&id))
      return fail(SYMM_ERROR_BACKEND,
                  "nvshmem: nvshmemx_get_uniqueid failed (%d)", code);
  std::vector<nvshmemx_uniqueid_t> ids(bootstrap.size());
  if (symm_status s = bootstrap.allgather(&id, sizeof id, ids.data()))
    return s;
  nvshmemx_init_attr_t attr = NVSHMEMX_INIT_ATTR_INITIALIZER;
  if (int code = n.setAttrUniqueidArgs(bootstrap.rank(), bootstrap.size(),
                                       &ids[0], &attr))
    return fail(SYMM_ERROR_BACKEND,
                "nvshmem: nvshmemx_set_attr_uniqueid_args failed (%d)", code);
  if (int code = n.hostlibInitAttr(NVSHMEMX_INIT_WITH_UNIQUEID, &attr))
    return fail(SYMM_ERROR_BACKEND,
                "nvshmem: initialisation over %d ranks failed (%d); "
                "NVSHMEM_DEBUG=INFO says why",
                bootstrap.size(), code);
  n.initialized = true;
  // Collective: every rank allocates the same size, in the same order.
  n.heap = n.malloc(bytes);
  if (!n.heap)
    return fail(SYMM_ERROR_OUT_OF_HEAP,
                "nvshmem: nvshmem_malloc of the %zu-byte heap failed; "
                "NVSHMEM_SYMMETRIC_SIZE must be larger than SYMM_HEAP_SIZE",
                bytes);
  bases.assign(bootstrap.size(), nullptr);
  for (int r = 0; r < bootstrap.size(); ++r)
    bases[r] = static_cast<char *>(n.ptr(n.heap, r));
  return bootstrap.barrier();
}

void destroyHeap(Nvshmem &n) {
  if (n.heap)
    n.free(n.heap);
  n.heap = nullptr;
  if (n.initialized)
    n.hostlibFinalize();
  n.initialized = false;
}

/// The registers every function of a PTX module may use when the linker
/// compiles them apart: no more than its tightest kernel's launch bounds
/// allow (65536 / .maxntid threads, or .maxnreg), since a kernel may call
/// any of them. 0 when no kernel has bounds.
unsigned registerLimit(std::string_view ptx) {
  unsigned limit = 0;
  auto lower = [&](unsigned regs) {
    regs = std::min(regs, 255u);
    limit = limit ? std::min(limit, regs) : regs;
  };
  for (size_t at = ptx.find(".maxntid"); at != std::string_view::npos;
       at = ptx.find(".maxntid", at + 1)) {
    unsigned long threads = 1;
    const char *p = ptx.data() + at + strlen(".maxntid");
    for (int d = 0; d < 3; ++d) {
      char *end = nullptr;
      unsigned long n = strtoul(p, &end, 10);
      if (end == p)
        break;
      threads *= std::max(n, 1ul);
      p = end;
      while (*p == ' ' || *p == ',')
        ++p;
    }
    lower(unsigned(65536 / std::max(threads, 1ul)));
  }
  for (size_t at = ptx.find(".maxnreg"); at != std::string_view::npos;
       at = ptx.find(".maxnreg", at + 1))
    lower(unsigned(strtoul(ptx.data() + at + strlen(".maxnreg"), nullptr, 10)));
  return limit;
}

/// Links `image` (PTX or a relocatable cubin) with NVSHMEM's device code
/// into a cubin in `out`.
symm_status link(const symm::cuda::Driver &d, const Nvshmem &n,
                 const void *image, size_t bytes, std::string &out) {
  bool isPtx = !moduleIsElf(image, bytes);
  size_t imageBytes = isPtx ? strnlen(static_cast<const char *>(image),
                                      bytes ? bytes : size_t(-1)) +
                                  1
                            : bytes;
  char log[8192] = {};
  int options[] = {symm::cuda::kJitErrorLogBuffer,
                   symm::cuda::kJitErrorLogBufferSizeBytes,
                   symm::cuda::kJitMaxRegisters};
  unsigned limit =
      isPtx ? registerLimit(std::string_view(static_cast<const char *>(image),
                                             imageBytes - 1))
            : 0;
  void *values[] = {log, reinterpret_cast<void *>(sizeof log),
                    reinterpret_cast<void *>(uintptr_t(limit))};
  symm::cuda::LinkState state = nullptr;
  if (int code = d.linkCreate(limit ? 3 : 2, options, values, &state))
    return fail(SYMM_ERROR_BACKEND, "nvshmem: cuLinkCreate failed (%d)", code);
  std::string device = n.libDir + "/" + kDeviceLibrary;
  int code = d.linkAddData(
      state, isPtx ? symm::cuda::kJitInputPtx : symm::cuda::kJitInputCubin,
      const_cast<void *>(image), imageBytes, "module", 0, nullptr, nullptr);
  const char *step = "adding the module";
  if (!code) {
    step = "adding NVSHMEM's device functions";
    code = d.linkAddData(state, symm::cuda::kJitInputPtx,
                         const_cast<unsigned char *>(symm_nvshmem_device_ptx),
                         symm_nvshmem_device_ptx_size, "symm_nvshmem_device", 0,
                         nullptr, nullptr);
  }
  if (!code) {
    step = device.c_str();
    code = d.linkAddFile(state, symm::cuda::kJitInputLibrary, device.c_str(), 0,
                         nullptr, nullptr);
  }
  void *cubin = nullptr;
  size_t cubinBytes = 0;
  if (!code) {
    step = "completing the link";
    code = d.linkComplete(state, &cubin, &cubinBytes);
  }
  if (!code)
    out.assign(static_cast<const char *>(cubin), cubinBytes);
  d.linkDestroy(state);
  if (code)
    return fail(SYMM_ERROR_BACKEND,
                "nvshmem: linking a module with NVSHMEM's device code failed "
                "at %s (%d): %s",
                step, code, log);
  return SYMM_SUCCESS;
}

} // namespace

Backend *symm::createNvshmemBackend() {
  GpuApi api;
  std::shared_ptr<symm::cuda::Driver> d;
  if (!symm::cuda::makeCudaApi(api, d, "nvshmem"))
    return nullptr;
  auto n = std::make_shared<Nvshmem>();
  std::string why;
  if (!open(*n, why)) {
    fail(SYMM_ERROR_UNAVAILABLE,
         "the nvshmem backend needs NVSHMEM's host library (%s): %s; set "
         "%s to an NVSHMEM install or the nvidia-nvshmem wheel's folder",
         kHostLibrary, why.c_str(), env::kNvshmemHome);
    return nullptr;
  }
  api.name = "nvshmem";
  api.createHeap = [n](size_t bytes, Bootstrap &bootstrap,
                       std::vector<char *> &bases) {
    return createHeap(*n, bytes, bootstrap, bases);
  };
  api.destroyHeap = [n] { destroyHeap(*n); };
  auto load = api.moduleLoad;
  auto errorString = api.errorString;
  api.loadModule = [d, n, load, errorString](void **module, const void *image,
                                             size_t bytes) {
    std::string linked;
    if (moduleNeedsLinking(image, bytes)) {
      if (symm_status s = link(*d, *n, image, bytes, linked))
        return s;
      image = linked.data();
    }
    if (int code = load(module, image))
      return fail(SYMM_ERROR_BACKEND, "nvshmem: module load failed: %s (%d)",
                  errorString(code), code);
    void *state = nullptr;
    size_t stateBytes = 0;
    // Only a module that calls NVSHMEM has its device state.
    if (d->moduleGetGlobal(reinterpret_cast<symm::cuda::DevicePtr *>(&state),
                           &stateBytes,
                           static_cast<symm::cuda::Module>(*module),
                           SYMM_NVSHMEM_STATE_SYMBOL) != 0)
      return SYMM_SUCCESS;
    if (int code = n->cumoduleInit(*module))
      return fail(SYMM_ERROR_BACKEND,
                  "nvshmem: nvshmemx_cumodule_init failed (%d): the module "
                  "was linked with another NVSHMEM version?",
                  code);
    return SYMM_SUCCESS;
  };
  auto unload = api.moduleUnload;
  api.moduleUnload = [d, n, unload](void *module) {
    void *state = nullptr;
    size_t stateBytes = 0;
    // NVSHMEM updates every registered module's state: unregister first.
    if (d->moduleGetGlobal(reinterpret_cast<symm::cuda::DevicePtr *>(&state),
                           &stateBytes, static_cast<symm::cuda::Module>(module),
                           SYMM_NVSHMEM_STATE_SYMBOL) == 0)
      n->cumoduleFinalize(module);
    return unload(module);
  };
  return createGpuBackend(std::move(api));
}
