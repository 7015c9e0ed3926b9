//===- symm-opt.cpp - mlir-opt with the symm dialect and passes -*- C++ -*-===//

#include "symm/InitAllSymm.h"
#include "symm/version.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/CommandLine.h"

int main(int argc, char **argv) {
  mlir::registerAllPasses();
  mlir::symm::registerAllSymmPasses();
  llvm::cl::SetVersionPrinter([](llvm::raw_ostream &os) {
    os << "symm-opt (Symm) " SYMM_VERSION "\n"
       << "LLVM version " LLVM_VERSION_STRING "\n";
  });

  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  mlir::registerAllToLLVMIRTranslations(registry);
  mlir::symm::registerAllSymmDialects(registry);
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "Symm optimizer driver\n", registry));
}
