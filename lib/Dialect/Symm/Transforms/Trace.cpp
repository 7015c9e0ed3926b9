//===- Trace.cpp - Kernel events for traces ---------------------*- C++ -*-===//
//
// Puts a symm.trace.record at each event of a kernel that a trace shows:
// its beginning and end, named ranges, waits, signals (and release stores of
// flags) and tile transfers (docs/Tracing.md). Without recording, only the
// named ranges go, so that the code is what it is without them.
//
//===----------------------------------------------------------------------===//

#include "symm/Dialect/Symm/IR/SymmOps.h"
#include "symm/Dialect/Symm/IR/SymmUtils.h"
#include "symm/Dialect/Symm/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"
#include "symm/abi.h"

namespace mlir::symm {
#define GEN_PASS_DEF_SYMMTRACE
#include "symm/Dialect/Symm/Transforms/Passes.h.inc"
} // namespace mlir::symm

using namespace mlir;
using namespace mlir::symm;

namespace {

Value constantI64(OpBuilder &b, Location loc, int64_t value) {
  return arith::ConstantIntOp::create(b, loc, b.getI64Type(), value);
}

Value indexToI64(OpBuilder &b, Location loc, Value index) {
  return arith::IndexCastUIOp::create(b, loc, b.getI64Type(), index);
}

/// The address of `memref[indices]` in this rank's view, which the runtime
/// turns into an offset in the heap of the flag's owner.
Value elementAddress(OpBuilder &b, Location loc, Value memref,
                     ValueRange indices) {
  return indexToI64(b, loc, buildElementAddress(b, loc, memref, indices));
}

/// `(peer << 32) | value`: the flag's owner (-1: this rank; -2: every
/// peer, SYMM_TRACE_EVERY_PEER) and the low 32 bits of the value.
Value peerAndValue(OpBuilder &b, Location loc, Value peer, Value value,
                   bool everyPeer = false) {
  Type i32 = b.getI32Type();
  Value high =
      everyPeer ? constantI64(b, loc, SYMM_TRACE_EVERY_PEER)
      : peer ? arith::ExtUIOp::create(b, loc, b.getI64Type(), peer).getResult()
             : constantI64(b, loc, 0xffffffff);
  high = arith::ShLIOp::create(b, loc, high, constantI64(b, loc, 32));
  unsigned width = value.getType().getIntOrFloatBitWidth();
  if (width > 32)
    value = arith::TruncIOp::create(b, loc, i32, value);
  else if (width < 32)
    value = arith::ExtUIOp::create(b, loc, i32, value);
  Value low = arith::ExtUIOp::create(b, loc, b.getI64Type(), value);
  return arith::OrIOp::create(b, loc, high, low);
}

void record(OpBuilder &b, Location loc, TraceEventKind kind, ValueRange args,
            StringRef name = {}) {
  TraceRecordOp::create(
      b, loc, kind, name.empty() ? StringAttr() : b.getStringAttr(name), args);
}

/// The events of a flag: its address and `(peer << 32) | value`.
void recordFlag(OpBuilder &b, Location loc, TraceEventKind kind, Value memref,
                ValueRange indices, Value peer, Value value,
                bool everyPeer = false) {
  record(b, loc, kind,
         {elementAddress(b, loc, memref, indices),
          peerAndValue(b, loc, peer, value, everyPeer)});
}

/// Whether `loop` counts 0, 1, ..., symm.world_size - 1 (the ranks).
bool overEveryRank(scf::ForOp loop) {
  if (!matchPattern(loop.getLowerBound(), m_Zero()) ||
      !matchPattern(loop.getStep(), m_One()))
    return false;
  Value upper = loop.getUpperBound();
  while (Operation *cast = upper.getDefiningOp()) {
    if (!isa<arith::IndexCastOp, arith::IndexCastUIOp>(cast))
      break;
    upper = cast->getOperand(0);
  }
  return upper.getDefiningOp<WorldSizeOp>() != nullptr;
}

/// The loop over peers a signal is made in, if any: the innermost scf.for
/// around it that counts the ranks, whose counter the peer comes from,
/// while the flag and the value come from outside it (symm_announce's, which
/// signals every peer). Its event is recorded once before that loop, as a
/// signal to every peer (made before any of the signals, so that no wait they
/// satisfy ends first): an event inside the loop stops the loop from being
/// unrolled and costs the rest of the kernel more (on Hopper, ptxas then moved
/// the GEMM main loop's wgmma descriptors out of the uniform datapath:
/// docs/Tracing.md).
scf::ForOp peerLoop(SignalOp signal) {
  auto loop = signal->getParentOfType<scf::ForOp>();
  if (!loop || loop.isDefinedOutsideOfLoop(signal.getPeer()) ||
      !overEveryRank(loop))
    return {};
  auto outside = [&](Value v) { return loop.isDefinedOutsideOfLoop(v); };
  if (!outside(signal.getMemref()) || !outside(signal.getValue()) ||
      !llvm::all_of(signal.getIndices(), outside))
    return {};
  return loop;
}

/// A tile transfer's begin and end around `op`, with `peer`.
void recordTransfer(OpBuilder &b, Operation *op, TraceEventKind begin,
                    TraceEventKind end, Value peer) {
  Location loc = op->getLoc();
  b.setInsertionPoint(op);
  Value args[] = {arith::ExtUIOp::create(b, loc, b.getI64Type(), peer),
                  constantI64(b, loc, 0)};
  record(b, loc, begin, args);
  b.setInsertionPointAfter(op);
  record(b, loc, end, args);
}

template <typename OpT> void recordRange(OpT op, TraceEventKind kind) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  Value id =
      op.getId() ? indexToI64(b, loc, op.getId()) : constantI64(b, loc, -1);
  record(b, loc, kind, {id}, op.getName());
  op.erase();
}

/// A flag raised by hand: an integer scalar stored into the heap with
/// release (or stronger) ordering, which a symm.wait may poll for (the
/// collectives' ready flags and acknowledgements).
bool isFlagRelease(StoreOp store) {
  std::optional<MemoryOrdering> ordering = store.getOrdering();
  return ordering &&
         (*ordering == MemoryOrdering::release ||
          *ordering == MemoryOrdering::acq_rel ||
          *ordering == MemoryOrdering::seq_cst) &&
         isa<IntegerType>(store.getValue().getType()) &&
         isHeapMemRef(store.getMemref().getType());
}

void instrumentKernel(gpu::GPUFuncOp kernel) {
  kernel.walk([&](Operation *op) {
    OpBuilder b(op);
    Location loc = op->getLoc();
    if (auto wait = dyn_cast<WaitOp>(op)) {
      recordFlag(b, loc, TraceEventKind::wait_begin, wait.getMemref(),
                 wait.getIndices(), wait.getPeer(), wait.getValue());
      b.setInsertionPointAfter(op);
      recordFlag(b, loc, TraceEventKind::wait_end, wait.getMemref(),
                 wait.getIndices(), wait.getPeer(), wait.getResult());
    } else if (auto signal = dyn_cast<SignalOp>(op)) {
      scf::ForOp loop = peerLoop(signal);
      if (loop)
        b.setInsertionPoint(loop);
      recordFlag(b, loc, TraceEventKind::signal, signal.getMemref(),
                 signal.getIndices(), signal.getPeer(), signal.getValue(),
                 /*everyPeer=*/bool(loop));
    } else if (auto store = dyn_cast<StoreOp>(op);
               store && isFlagRelease(store)) {
      recordFlag(b, loc, TraceEventKind::signal, store.getMemref(),
                 store.getIndices(), store.getPeer(), store.getValue());
    } else if (auto put = dyn_cast<PutOp>(op)) {
      recordTransfer(b, op, TraceEventKind::put_begin, TraceEventKind::put_end,
                     put.getPeer());
      if (put.getSignalFlags()) {
        b.setInsertionPoint(op);
        recordFlag(b, loc, TraceEventKind::signal, put.getSignalFlags(),
                   put.getSignalIndices(), put.getPeer(), put.getSignalValue());
      }
    } else if (auto get = dyn_cast<GetOp>(op)) {
      recordTransfer(b, op, TraceEventKind::get_begin, TraceEventKind::get_end,
                     get.getPeer());
    } else if (auto copy = dyn_cast<CopyOp>(op)) {
      recordTransfer(b, op, TraceEventKind::put_begin, TraceEventKind::put_end,
                     copy.getDstPeer());
    }
  });
  kernel.walk(
      [](TraceBeginOp op) { recordRange(op, TraceEventKind::range_begin); });
  kernel.walk(
      [](TraceEndOp op) { recordRange(op, TraceEventKind::range_end); });

  StringRef name = kernel.getName();
  OpBuilder b = OpBuilder::atBlockBegin(&kernel.getBody().front());
  record(b, kernel.getLoc(), TraceEventKind::kernel_begin,
         {constantI64(b, kernel.getLoc(), -1)}, name);
  kernel.walk([&](gpu::ReturnOp ret) {
    b.setInsertionPoint(ret);
    record(b, ret.getLoc(), TraceEventKind::kernel_end,
           {constantI64(b, ret.getLoc(), -1)}, name);
  });
}

struct SymmTrace : public symm::impl::SymmTraceBase<SymmTrace> {
  using SymmTraceBase::SymmTraceBase;

  void runOnOperation() override {
    if (record) {
      getOperation().walk([](gpu::GPUFuncOp func) {
        if (func.isKernel())
          instrumentKernel(func);
      });
    }
    // Ranges outside kernels (device functions that were not inlined) and
    // every range when not recording.
    getOperation().walk([](Operation *op) {
      if (isa<TraceBeginOp, TraceEndOp>(op))
        op->erase();
    });
  }
};

} // namespace
