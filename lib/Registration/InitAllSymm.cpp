//===- InitAllSymm.cpp - Register Symm's dialects and passes ----*- C++ -*-===//

#include "symm/InitAllSymm.h"

#include "symm/Conversion/Passes.h"
#include "symm/Dialect/Symm/IR/SymmDialect.h"
#include "symm/Dialect/Symm/Transforms/Passes.h"
#include "symm/Pipelines/Pipelines.h"
#include "symm/Target/Target.h"

#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"

#include <mutex>

void mlir::symm::registerAllSymmDialects(DialectRegistry &registry) {
  registry.insert<SymmDialect>();
  for (const SymmTarget *target : getTargets())
    target->registerDialects(registry);
}

void mlir::symm::registerAllSymmPasses() {
  // A pipeline registered twice is a fatal error in MLIR.
  static std::once_flag once;
  std::call_once(once, [] {
    registerSymmTransformsPasses();
    registerSymmConversionPasses();
    for (const SymmTarget *target : getTargets())
      target->registerPasses();
    registerSymmPipelines();
  });
}

void mlir::symm::registerAllSymm(DialectRegistry &registry) {
  // Kernels mix upstream dialects freely, and the lowerings need upstream's
  // extensions (ConvertToLLVM interfaces, the GPU targets) and LLVM IR
  // translations: without them a lowering leaves block arguments unconverted
  // or the serialisation finds no translation for gpu.module.
  registerAllDialects(registry);
  registerAllExtensions(registry);
  registerAllToLLVMIRTranslations(registry);
  registerAllSymmDialects(registry);
  static std::once_flag once;
  std::call_once(once, [] {
    registerAllPasses();
    registerAllSymmPasses();
  });
}
