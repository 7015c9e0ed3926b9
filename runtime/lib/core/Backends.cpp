//===- Backends.cpp - The runtime's backends, one row each ------*- C++ -*-===//
//
// Every backend is a row here: its name (SYMM_BACKEND, symm-run --backend),
// its factory, and the compiler target it runs by default. symm_init,
// symm-run, the lit configuration and the docs read this table.
//
//===----------------------------------------------------------------------===//

#include "Runtime.h"

#include "symm/abi.h"

#include <cstring>

using namespace symm;

namespace {
/// The first row is the default backend.
const BackendInfo kBackends[] = {
    {"host", createHostBackend, SYMM_TARGET_HOST},
    {"cuda", createCudaBackend, SYMM_DEFAULT_NVIDIA_TARGET},
    {"hip", createHipBackend, SYMM_DEFAULT_AMD_TARGET},
    {"nvshmem", createNvshmemBackend, SYMM_DEFAULT_NVIDIA_TARGET},
};
} // namespace

const BackendInfo *symm::findBackend(const char *name) {
  for (const BackendInfo &info : kBackends)
    if (name && !strcmp(info.name, name))
      return &info;
  return nullptr;
}

std::string symm::backendNames() {
  std::string names;
  for (const BackendInfo &info : kBackends)
    names += (names.empty() ? "" : ", ") + std::string(info.name);
  return names;
}

const char *symm_backend_at(size_t index) {
  return index < sizeof(kBackends) / sizeof(kBackends[0])
             ? kBackends[index].name
             : nullptr;
}

const char *symm_backend_default_target(const char *backend) {
  const BackendInfo *info = findBackend(backend);
  return info ? info->defaultTarget : nullptr;
}
