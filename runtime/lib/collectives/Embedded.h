//===- Embedded.h - Collective kernels compiled at build time ---*- C++ -*-===//
//
// The collectives' kernels, compiled by symm-compile for every target when
// the runtime is built with the compiler, and embedded in the library.
//
//===----------------------------------------------------------------------===//

#ifndef SYMM_RUNTIME_LIB_COLLECTIVES_EMBEDDED_H
#define SYMM_RUNTIME_LIB_COLLECTIVES_EMBEDDED_H

#include <cstddef>
#include <string>
#include <vector>

namespace symm::collectives {

struct EmbeddedModule {
  const char *backend; // the runtime backend that loads it: host, cuda, hip
  const char *dtype;   // MLIR element type: i8, i32, ..., f64
  size_t elementBytes; // its size, as the kernels were instantiated for
  const unsigned char *data;
  size_t size;
  std::string manifest;       // the manifest symm-compile wrote for it
  const char *manifestSource; // where it was, for errors
};

/// Every embedded module; empty when the runtime was built without the
/// compiler.
std::vector<EmbeddedModule> embeddedModules();

} // namespace symm::collectives

#endif // SYMM_RUNTIME_LIB_COLLECTIVES_EMBEDDED_H
