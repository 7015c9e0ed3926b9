//===- SymmToHost.cpp - Lower symm device ops for the CPU -------*- C++ -*-===//
//
// CPU decisions: one address space, system scope for everything (x86 and
// AArch64 atomics are coherent across all threads), a call into the
// runtime in spin loops, which switches to the threads the loop waits for,
// and a checked peer in every translation.
//
//===----------------------------------------------------------------------===//

#include "symm/Conversion/Passes.h"
#include "symm/Conversion/SymmToLLVM.h"
#include "symm/abi.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/xxhash.h"

namespace mlir::symm {
#define GEN_PASS_DEF_CONVERTSYMMTOHOST
#include "symm/Conversion/Passes.h.inc"
} // namespace mlir::symm

using namespace mlir;
using namespace mlir::symm;

namespace {

/// The address of a NUL-terminated copy of `text` in `symbols`, one global
/// per distinct text.
Value stringConstant(OpBuilder &b, Location loc, Operation *symbols,
                     StringRef text) {
  std::string name =
      llvm::formatv("__symm_text_{0:x}", llvm::xxh3_64bits(text)).str();
  auto global = dyn_cast_or_null<LLVM::GlobalOp>(
      SymbolTable::lookupSymbolIn(symbols, name));
  if (!global) {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&symbols->getRegion(0).front());
    std::string bytes = (text + Twine('\0')).str();
    global = LLVM::GlobalOp::create(
        b, loc, LLVM::LLVMArrayType::get(b.getI8Type(), bytes.size()),
        /*isConstant=*/true, LLVM::Linkage::Internal, name,
        b.getStringAttr(bytes));
  }
  return LLVM::AddressOfOp::create(b, loc, global);
}

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
    target.reportPeerOutOfRange = [](OpBuilder &b, Location loc, StringRef what,
                                     Value, Value peer, Value) {
      Operation *symbols = SymbolTable::getNearestSymbolTable(
          b.getInsertionBlock()->getParentOp());
      Type ptr = LLVM::LLVMPointerType::get(b.getContext());
      LLVM::CallOp::create(
          b, loc,
          getRuntimeFunction(b, symbols, SYMM_HOST_PEER_OUT_OF_RANGE_FN,
                             {ptr, b.getI32Type()},
                             LLVM::LLVMVoidType::get(b.getContext())),
          ValueRange{stringConstant(b, loc, symbols, what), peer});
    };
    if (failed(lowerSymmProgram(module, target)))
      signalPassFailure();
  }
};

} // namespace
