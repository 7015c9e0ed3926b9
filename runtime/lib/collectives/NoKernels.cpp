//===- NoKernels.cpp - No embedded collective kernels -----------*- C++ -*-===//
//
// The runtime built without the compiler (SYMM_BUILD_COMPILER=OFF) has no
// collective kernels; the collectives say so when called.
//
//===----------------------------------------------------------------------===//

#include "Embedded.h"

std::vector<symm::collectives::EmbeddedModule>
symm::collectives::embeddedModules() {
  return {};
}
