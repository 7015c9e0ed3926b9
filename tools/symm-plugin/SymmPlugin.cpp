//===- SymmPlugin.cpp - Symm as a plugin of a stock mlir-opt ----*- C++ -*-===//
//
// One shared object that is both a dialect plugin and a pass plugin, so that
// `mlir-opt --load-dialect-plugin=SymmPlugin.so
// --load-pass-plugin=SymmPlugin.so` parses, verifies and lowers Symm IR with
// Symm's passes and pipelines, without linking Symm into the tool. The tool
// registers MLIR's own dialects and passes; the plugin adds only Symm's.
//
//===----------------------------------------------------------------------===//

#include "symm/InitAllSymm.h"
#include "symm/version.h"

#include "mlir/Tools/Plugins/DialectPlugin.h"
#include "mlir/Tools/Plugins/PassPlugin.h"
#include "llvm/Support/Compiler.h"

extern "C" LLVM_ATTRIBUTE_WEAK mlir::DialectPluginLibraryInfo
mlirGetDialectPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "Symm", SYMM_VERSION,
          [](mlir::DialectRegistry *registry) {
            mlir::symm::registerAllSymmDialects(*registry);
          }};
}

extern "C" LLVM_ATTRIBUTE_WEAK mlir::PassPluginLibraryInfo
mlirGetPassPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "Symm", SYMM_VERSION,
          [] { mlir::symm::registerAllSymmPasses(); }};
}
