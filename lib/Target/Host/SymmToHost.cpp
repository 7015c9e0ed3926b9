//===- SymmToHost.cpp - Lower symm device ops for the CPU -------*- C++ -*-===//
//
// CPU decisions: one address space, system scope for everything (x86 and
// AArch64 atomics are coherent across all threads), a call into the
// runtime in spin loops, which switches to the threads the loop waits for,
// and a checked peer in every translation.
//
//===----------------------------------------------------------------------===//

#include "symm/Conversion/SymmToLLVM.h"
#include "symm/Target/Host/HostTarget.h"
#include "symm/Target/Host/Passes.h"
#include "symm/abi.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

namespace mlir::symm {
#define GEN_PASS_DEF_CONVERTSYMMTOHOST
#include "symm/Target/Host/Passes.h.inc"
} // namespace mlir::symm

using namespace mlir;
using namespace mlir::symm;

namespace {

/// CPUs have no bf16 arithmetic, and LLVM's expansion of a bf16 atomicrmw
/// rounds through __truncsfbf2, which libgcc before GCC 13 lacks. A bf16
/// fadd, fmax or fmin is therefore a compare-and-swap loop on the 16 bits
/// whose arithmetic is arith on f32; the pipeline then rounds it to bf16 with
/// integer operations (to nearest even, as GPUs do). Other atomics are plain
/// LLVM atomicrmw.
FailureOr<Value> lowerAtomicRMW(ConversionPatternRewriter &rewriter,
                                AtomicRMWOp op, Value ptr, Value value,
                                StringRef syncScope) {
  AtomicKind kind = op.getKind();
  if (!value.getType().isBF16() ||
      (kind != AtomicKind::fadd && kind != AtomicKind::fmax &&
       kind != AtomicKind::fmin))
    return Value();
  Location loc = op.getLoc();
  Type bf16 = value.getType(), f32 = rewriter.getF32Type();
  Type i16 = rewriter.getI16Type();
  Value operand = arith::ExtFOp::create(rewriter, loc, f32, value);
  Value old = createCASLoop(
      rewriter, loc, ptr, i16, /*alignment=*/2,
      toLLVMOrdering(op.getOrdering()), failureOrdering(op.getOrdering()),
      syncScope, [&](OpBuilder &b, Value current) -> Value {
        Value asBF16 = LLVM::BitcastOp::create(b, loc, bf16, current);
        Value old = arith::ExtFOp::create(b, loc, f32, asBF16);
        Value result;
        if (kind == AtomicKind::fadd)
          result = arith::AddFOp::create(b, loc, old, operand);
        else if (kind == AtomicKind::fmax)
          result = arith::MaxNumFOp::create(b, loc, old, operand);
        else
          result = arith::MinNumFOp::create(b, loc, old, operand);
        Value rounded = arith::TruncFOp::create(b, loc, bf16, result);
        return LLVM::BitcastOp::create(b, loc, i16, rounded);
      });
  return LLVM::BitcastOp::create(rewriter, loc, bf16, old).getResult();
}

} // namespace

SymmTargetInfo mlir::symm::getHostTargetInfo(bool raceScopes) {
  SymmTargetInfo target;
  target.heapAddressSpace = 0;
  target.contextAddressSpace = 0;
  target.gpuAddressSpaces = {0, 0, 0};
  target.syncScopes = {"", "", ""};
  if (raceScopes) {
    target.syncScopes = kHostRaceSyncScopes;
    target.lineSyncScope = kHostRaceLineSyncScope;
  }
  std::array<StringRef, 3> scopes = target.syncScopes;
  target.lowerAtomicRMW = [scopes](ConversionPatternRewriter &rewriter,
                                   AtomicRMWOp op, Value ptr, Value value) {
    return lowerAtomicRMW(rewriter, op, ptr, value,
                          scopes[static_cast<unsigned>(op.getScope())]);
  };
  target.emitBackoff = [](OpBuilder &b, Location loc, std::optional<int64_t>) {
    Operation *symbols = SymbolTable::getNearestSymbolTable(
        b.getInsertionBlock()->getParentOp());
    LLVM::CallOp::create(
        b, loc,
        getRuntimeFunction(b, symbols, SYMM_HOST_YIELD_FN, {},
                           LLVM::LLVMVoidType::get(b.getContext())),
        ValueRange{});
  };
  target.subgroupSize = SYMM_HOST_SUBGROUP_SIZE;
  target.readClock = [](OpBuilder &b, Location loc) -> Value {
    Operation *symbols = SymbolTable::getNearestSymbolTable(
        b.getInsertionBlock()->getParentOp());
    Type i64 = b.getI64Type();
    return LLVM::CallOp::create(
               b, loc,
               getRuntimeFunction(b, symbols, SYMM_HOST_CLOCK_FN, {}, i64),
               ValueRange{})
        .getResult();
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
        ValueRange{getStringConstant(b, loc, symbols, what), peer});
  };
  return target;
}

namespace {

struct ConvertSymmToHost
    : public symm::impl::ConvertSymmToHostBase<ConvertSymmToHost> {
  using Base::Base;
  void runOnOperation() override {
    if (failed(lowerSymmProgram(getOperation(), getHostTargetInfo(checkRaces))))
      signalPassFailure();
  }
};

} // namespace
