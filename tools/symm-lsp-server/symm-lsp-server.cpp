//===- symm-lsp-server.cpp - MLIR language server for Symm ------*- C++ -*-===//
//
// Upstream's MLIR language server with Symm's dialects: diagnostics, hover,
// go-to-definition and completion for .mlir kernels in any LSP editor.
//
//===----------------------------------------------------------------------===//

#include "symm/InitAllSymm.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-lsp-server/MlirLspServerMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  mlir::symm::registerAllSymm(registry);
  return mlir::failed(mlir::MlirLspServerMain(argc, argv, registry));
}
