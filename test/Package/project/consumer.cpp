//===- consumer.cpp - Parse symm IR from an installed Symm ------*- C++ -*-===//

#include "symm/Dialect/Symm/IR/SymmOps.h"
#include "symm/InitAllSymm.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/raw_ostream.h"

int main() {
  mlir::DialectRegistry registry;
  mlir::symm::registerAllSymmDialects(registry);
  mlir::MLIRContext ctx(registry);
  auto module =
      mlir::parseSourceString<mlir::ModuleOp>("%me = symm.rank : i32\n", &ctx);
  if (!module)
    return 1;
  int ranks = 0;
  module->walk([&](mlir::symm::RankOp) { ++ranks; });
  llvm::outs() << "consumer: " << ranks << " symm.rank\n";
  return ranks == 1 ? 0 : 1;
}
