//===- symm-reduce.cpp - mlir-reduce with Symm's dialects -------*- C++ -*-===//
//
// Upstream's test-case reducer with Symm's dialects and passes: shrinks an
// input while a script says it is still interesting (for instance, still
// makes symm-compile fail with the same error). docs/Embedding.md shows how.
//
//===----------------------------------------------------------------------===//

#include "symm/InitAllSymm.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Tools/mlir-reduce/MlirReduceMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  mlir::symm::registerAllSymm(registry);
  mlir::MLIRContext context(registry);
  return mlir::failed(mlir::mlirReduceMain(argc, argv, context));
}
