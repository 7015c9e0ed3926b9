//===- Manifest.h - Kernel manifests ----------------------------*- C++ -*-===//

#ifndef SYMM_RUNTIME_LIB_CORE_MANIFEST_H
#define SYMM_RUNTIME_LIB_CORE_MANIFEST_H

#include <map>
#include <string>
#include <vector>

namespace symm {

struct KernelInfo {
  size_t params = 0;
  std::vector<std::string> arguments; // MLIR types, for messages
};

struct Manifest {
  bool loaded = false;
  bool contextArgument = false;
  std::map<std::string, KernelInfo> kernels;
};

/// Reads `path`; false with `error` empty when there is no such file.
bool readManifest(const std::string &path, Manifest &manifest,
                  std::string &error);

} // namespace symm

#endif // SYMM_RUNTIME_LIB_CORE_MANIFEST_H
