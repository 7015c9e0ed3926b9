//===- InitAllSymm.cpp - Register Symm's dialects and passes ----*- C++ -*-===//

#include "symm/InitAllSymm.h"

#include "symm/Dialect/Symm/IR/SymmDialect.h"

void mlir::symm::registerAllSymmDialects(DialectRegistry &registry) {
  registry.insert<SymmDialect>();
}

void mlir::symm::registerAllSymmPasses() {}
