//===- LowerSync.cpp - Signal and wait --------------------------*- C++ -*-===//
//
// Lowers `symm.signal` to a release store or add and `symm.wait` to an
// acquire spin loop with back-off.
//
//===----------------------------------------------------------------------===//

#include "HeapBaseLowering.h"
#include "symm/Dialect/Symm/Transforms/Passes.h"

namespace mlir::symm {
#define GEN_PASS_DEF_SYMMLOWERSYNC
#include "symm/Dialect/Symm/Transforms/Passes.h.inc"
} // namespace mlir::symm

using namespace mlir;
using namespace mlir::symm;

void heapbase::lowerSignal(RewriterBase &b, SignalOp op) {
  Location loc = op.getLoc();
  b.setInsertionPoint(op);
  Value memref = viewOnPeer(b, op, op.getMemref(), op.getPeer());
  auto release =
      MemoryOrderingAttr::get(b.getContext(), MemoryOrdering::release);
  if (op.getKind() == SignalKind::set) {
    StoreOp::create(b, loc, op.getValue(), memref, op.getIndices(), Value(),
                    release, op.getScopeAttr(), IntegerAttr());
  } else {
    AtomicRMWOp::create(b, loc, op.getValue().getType(),
                        AtomicKindAttr::get(b.getContext(), AtomicKind::add),
                        op.getValue(), memref, op.getIndices(), Value(),
                        release, op.getScopeAttr());
  }
  b.eraseOp(op);
}

namespace {

arith::CmpIPredicate toCmpPredicate(WaitPredicate predicate) {
  switch (predicate) {
  case WaitPredicate::eq:
    return arith::CmpIPredicate::eq;
  case WaitPredicate::ne:
    return arith::CmpIPredicate::ne;
  case WaitPredicate::lt:
    return arith::CmpIPredicate::slt;
  case WaitPredicate::le:
    return arith::CmpIPredicate::sle;
  case WaitPredicate::gt:
    return arith::CmpIPredicate::sgt;
  case WaitPredicate::ge:
  case WaitPredicate::reached: // on the difference, see lowerWait
    return arith::CmpIPredicate::sge;
  }
  llvm_unreachable("unknown wait predicate");
}

void lowerWait(RewriterBase &b, WaitOp op) {
  Location loc = op.getLoc();
  b.setInsertionPoint(op);
  Value memref = heapbase::viewOnPeer(b, op, op.getMemref(), op.getPeer());
  Type type = op.getValue().getType();
  auto acquire =
      MemoryOrderingAttr::get(b.getContext(), MemoryOrdering::acquire);
  auto loop = scf::WhileOp::create(b, loc, TypeRange{type}, ValueRange{});
  b.createBlock(&loop.getBefore());
  Value seen = LoadOp::create(b, loc, type, memref, op.getIndices(), Value(),
                              acquire, op.getScopeAttr(), IntegerAttr());
  // `reached` compares the wrapping difference with 0: a counter that has
  // wrapped past the largest value is still later than one just before it.
  Value lhs = seen, rhs = op.getValue();
  if (op.getPredicate() == WaitPredicate::reached) {
    lhs = arith::SubIOp::create(b, loc, seen, op.getValue());
    rhs = arith::ConstantIntOp::create(b, loc, type, 0);
  }
  Value holds = arith::CmpIOp::create(b, loc, toCmpPredicate(op.getPredicate()),
                                      lhs, rhs);
  Value keepWaiting = arith::XOrIOp::create(
      b, loc, holds, arith::ConstantIntOp::create(b, loc, 1, 1));
  scf::ConditionOp::create(b, loc, keepWaiting, ValueRange{seen});
  b.createBlock(&loop.getAfter(), {}, TypeRange{type}, {loc});
  BackoffOp::create(b, loc, op.getBackoffAttr());
  scf::YieldOp::create(b, loc);
  b.replaceOp(op, loop.getResults());
}

struct LowerSync : public symm::impl::SymmLowerSyncBase<LowerSync> {
  void runOnOperation() override { lowerSynchronisation(getOperation()); }
};

} // namespace

void symm::lowerSynchronisation(Operation *root) {
  SmallVector<Operation *> ops;
  root->walk([&](Operation *op) {
    if (isa<SignalOp, WaitOp>(op))
      ops.push_back(op);
  });
  IRRewriter rewriter(root->getContext());
  for (Operation *op : ops) {
    if (auto signal = dyn_cast<SignalOp>(op))
      heapbase::lowerSignal(rewriter, signal);
    else
      lowerWait(rewriter, cast<WaitOp>(op));
  }
}
