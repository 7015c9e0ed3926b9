//===- Manifest.h - The kernel manifest of a compiled module ----*- C++ -*-===//
//
// The one writer of the manifest whose schema symm/manifest.h defines. The
// manifest describes kernels as they were lowered: a kernel's parameter count
// and whether it takes the kernel context come from its LLVM signature after
// the pipeline, its arguments' descriptions from its signature as declared
// (or outlined), recorded while the pipeline runs.
//
//===----------------------------------------------------------------------===//

#ifndef SYMM_DRIVER_MANIFEST_H
#define SYMM_DRIVER_MANIFEST_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassInstrumentation.h"
#include <map>

#include <memory>
#include <string>

namespace mlir::symm {

class ManifestWriter {
public:
  /// Records the signature of every kernel (gpu.func) under `root` that has
  /// not been recorded yet.
  void recordKernels(Operation *root);

  /// Records kernels after every top-level pass, so that kernels a pass
  /// creates (gpu-kernel-outlining) are described as they first appear.
  std::unique_ptr<PassInstrumentation> createInstrumentation();

  /// The manifest's JSON text for `lowered`, a module whose device code is
  /// LLVM dialect (the pipeline's lowering part has run). Fails with a
  /// diagnostic when a lowered kernel disagrees with its recorded signature.
  FailureOr<std::string> write(ModuleOp lowered, StringRef target,
                               StringRef format, StringRef kernelContext) const;

private:
  /// Argument types per kernel, by "module::kernel".
  std::map<std::string, SmallVector<Type>> signatures;
};

} // namespace mlir::symm

#endif // SYMM_DRIVER_MANIFEST_H
