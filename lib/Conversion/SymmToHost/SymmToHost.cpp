//===- SymmToHost.cpp - Lower symm device ops for the CPU -------*- C++ -*-===//
//
// CPU decisions: one address space, system scope for everything (x86 and
// AArch64 atomics are coherent across all threads), and a call into the
// runtime in spin loops, which switches to the threads the loop waits for.
//
//===----------------------------------------------------------------------===//

#include "symm/Conversion/Passes.h"
#include "symm/Conversion/SymmToLLVM.h"
#include "symm/abi.h"

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
          getRuntimeFunction(b, symbols, SYMM_HOST_YIELD_FN, {},
                             LLVM::LLVMVoidType::get(b.getContext())),
          ValueRange{});
    };
    if (failed(lowerSymmProgram(module, target)))
      signalPassFailure();
  }
};

} // namespace
