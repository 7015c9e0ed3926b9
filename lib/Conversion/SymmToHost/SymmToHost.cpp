//===- SymmToHost.cpp - Lower symm device ops for the CPU -------*- C++ -*-===//
//
// CPU decisions: one address space, system scope for everything (x86 and
// AArch64 atomics are coherent across all threads), and a yield of the OS
// thread in spin loops.
//
//===----------------------------------------------------------------------===//

#include "symm/Conversion/Passes.h"
#include "symm/Conversion/SymmToLLVM.h"

namespace mlir::symm {
#define GEN_PASS_DEF_CONVERTSYMMTOHOST
#include "symm/Conversion/Passes.h.inc"
} // namespace mlir::symm

using namespace mlir;
using namespace mlir::symm;

namespace {

struct ConvertSymmToHost
    : public symm::impl::ConvertSymmToHostBase<ConvertSymmToHost> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymmTargetInfo target;
    target.heapAddressSpace = 0;
    target.contextAddressSpace = 0;
    target.gpuAddressSpaces = {0, 0, 0};
    target.syncScopes = {"", "", ""};
    target.emitBackoff = [](OpBuilder &b, Location loc,
                            std::optional<int64_t>) {
      Operation *symbols = SymbolTable::getNearestSymbolTable(
          b.getInsertionBlock()->getParentOp());
      LLVM::CallOp::create(
          b, loc,
          getRuntimeFunction(b, symbols, "sched_yield", {}, b.getI32Type()),
          ValueRange{});
    };
    if (failed(lowerSymmProgram(module, target)))
      signalPassFailure();
  }
};

} // namespace
