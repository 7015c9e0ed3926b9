//===- symm-opt.cpp - mlir-opt with the symm dialect and passes -*- C++ -*-===//

#include "symm/InitAllSymm.h"
#include "symm/version.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/CommandLine.h"

int main(int argc, char **argv) {
  llvm::cl::SetVersionPrinter([](llvm::raw_ostream &os) {
    os << "symm-opt (Symm) " SYMM_VERSION "\n"
       << "LLVM version " LLVM_VERSION_STRING "\n";
  });
  mlir::DialectRegistry registry;
  mlir::symm::registerAllSymm(registry);
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "Symm optimizer driver\n", registry));
}
