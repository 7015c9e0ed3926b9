//===- InitAllSymm.cpp - Register Symm's dialects and passes ----*- C++ -*-===//

#include "symm/InitAllSymm.h"

#include "symm/Conversion/Passes.h"
#include "symm/Dialect/Symm/IR/SymmDialect.h"
#include "symm/Dialect/Symm/Transforms/Passes.h"
#include "symm/Pipelines/Pipelines.h"
#include "symm/Target/Host/HostTarget.h"
#include "symm/Target/Host/Passes.h"

void mlir::symm::registerAllSymmDialects(DialectRegistry &registry) {
  registry.insert<SymmDialect>();
  registerHostTargetInterfaceExternalModels(registry);
}

void mlir::symm::registerAllSymmPasses() {
  registerSymmTransformsPasses();
  registerSymmConversionPasses();
  registerSymmHostTargetPasses();
  registerSymmPipelines();
}
