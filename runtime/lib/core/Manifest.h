//===- Manifest.h - Kernel manifests ----------------------------*- C++ -*-===//
//
// The runtime's reader of the manifest whose schema symm/manifest.h defines.
// The runtime does not link LLVM, so it reads the JSON itself; every field the
// compiler writes has a member here (the driver's round-trip test checks it).
//
//===----------------------------------------------------------------------===//

#ifndef SYMM_RUNTIME_LIB_CORE_MANIFEST_H
#define SYMM_RUNTIME_LIB_CORE_MANIFEST_H

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace symm {

struct ArgumentInfo {
  std::string kind;    // SYMM_MANIFEST_ARG_MEMREF or SYMM_MANIFEST_ARG_SCALAR
  std::string type;    // the MLIR type
  std::string element; // memrefs only, like rank and heap
  int64_t rank = 0;
  bool heap = false;
  size_t params = 0;
};

struct KernelInfo {
  std::string module;
  size_t params = 0;
  bool contextArgument = false;
  /// It may be a programmatic dependent launch (it waits for the grid
  /// before it first thing).
  bool earlyLaunch = false;
  /// Its workgroups wait on each other: a launch must fit on the device at
  /// once (symm.co_resident).
  bool coResident = false;
  std::vector<std::string> arguments; // MLIR types, for messages
  std::vector<ArgumentInfo> argumentInfo;
};

struct Manifest {
  bool loaded = false;
  int64_t schema = 0;
  std::string target, format;
  /// Whether kernels take the context as a parameter rather than reading the
  /// module's context global (context kind "argument").
  bool contextArgument = false;
  std::string contextSymbol, contextLayout;
  size_t contextSize = 0;
  int64_t maxRanks = 0;
  std::map<std::string, KernelInfo> kernels;
};

/// Parses manifest `text`; `source` names it in errors.
bool parseManifest(const std::string &text, const std::string &source,
                   Manifest &manifest, std::string &error);

/// Reads `path`; false with `error` empty when there is no such file.
bool readManifest(const std::string &path, Manifest &manifest,
                  std::string &error);

} // namespace symm

#endif // SYMM_RUNTIME_LIB_CORE_MANIFEST_H
