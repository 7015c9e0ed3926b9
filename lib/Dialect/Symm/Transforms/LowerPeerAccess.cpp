//===- LowerPeerAccess.cpp - Peer accesses via translate --------*- C++ -*-===//
//
// Rewrites loads, stores and atomics on a peer into `symm.translate` plus the
// local access, so that targets only lower translate and local accesses.
//
//===----------------------------------------------------------------------===//

#include "HeapBaseLowering.h"
#include "symm/Dialect/Symm/Transforms/Passes.h"

#include "llvm/ADT/TypeSwitch.h"

namespace mlir::symm {
#define GEN_PASS_DEF_SYMMLOWERPEERACCESS
#include "symm/Dialect/Symm/Transforms/Passes.h.inc"
} // namespace mlir::symm

using namespace mlir;
using namespace mlir::symm;

Value heapbase::viewOnPeer(OpBuilder &b, Operation *op, Value memref,
                           Value peer) {
  if (!peer)
    return memref;
  Location loc =
      NameLoc::get(b.getStringAttr(op->getName().getStringRef()), op->getLoc());
  // Folds away when `peer` is this rank.
  return b.createOrFold<TranslateOp>(loc, memref, peer);
}

namespace {

/// Plain accesses become memref/vector accesses; a vector access is aligned
/// to its size (at most 16 bytes) unless the op says otherwise.
std::optional<uint64_t> vectorAlignment(Type type,
                                        std::optional<uint64_t> given) {
  if (given)
    return given;
  auto vector = dyn_cast<VectorType>(type);
  if (!vector || !vector.getElementType().isIntOrFloat())
    return std::nullopt;
  int64_t bits =
      vector.getNumElements() * vector.getElementType().getIntOrFloatBitWidth();
  if (bits % 8 != 0 || !llvm::isPowerOf2_64(bits / 8))
    return std::nullopt;
  return std::min<uint64_t>(bits / 8, heapbase::kTileAccessBytes);
}

void lowerLoad(RewriterBase &b, LoadOp op) {
  if (op.getOrdering() && !op.getPeer())
    return;
  Location loc = op.getLoc();
  b.setInsertionPoint(op);
  Value memref = heapbase::viewOnPeer(b, op, op.getMemref(), op.getPeer());
  Type type = op.getResult().getType();
  if (op.getOrdering()) {
    b.replaceOpWithNewOp<LoadOp>(op, type, memref, op.getIndices(), Value(),
                                 op.getOrderingAttr(), op.getScopeAttr(),
                                 IntegerAttr());
  } else if (auto vector = dyn_cast<VectorType>(type)) {
    auto load = vector::LoadOp::create(b, loc, vector, memref, op.getIndices());
    if (auto align = vectorAlignment(type, op.getAlignment()))
      load.setAlignment(*align);
    b.replaceOp(op, load);
  } else {
    b.replaceOpWithNewOp<memref::LoadOp>(op, memref, op.getIndices());
  }
}

void lowerStore(RewriterBase &b, StoreOp op) {
  if (op.getOrdering() && !op.getPeer())
    return;
  Location loc = op.getLoc();
  b.setInsertionPoint(op);
  Value memref = heapbase::viewOnPeer(b, op, op.getMemref(), op.getPeer());
  Type type = op.getValue().getType();
  if (op.getOrdering()) {
    b.replaceOpWithNewOp<StoreOp>(op, op.getValue(), memref, op.getIndices(),
                                  Value(), op.getOrderingAttr(),
                                  op.getScopeAttr(), IntegerAttr());
  } else if (isa<VectorType>(type)) {
    auto store =
        vector::StoreOp::create(b, loc, op.getValue(), memref, op.getIndices());
    if (auto align = vectorAlignment(type, op.getAlignment()))
      store.setAlignment(*align);
    b.eraseOp(op);
  } else {
    b.replaceOpWithNewOp<memref::StoreOp>(op, op.getValue(), memref,
                                          op.getIndices());
  }
}

/// Atomics and line accesses keep their form and lose their peer.
template <typename OpT> void dropPeer(RewriterBase &b, OpT op) {
  if (!op.getPeer())
    return;
  b.setInsertionPoint(op);
  Value memref = heapbase::viewOnPeer(b, op, op.getMemref(), op.getPeer());
  b.modifyOpInPlace(op, [&] {
    op.getMemrefMutable().assign(memref);
    op.getPeerMutable().clear();
  });
}

struct LowerPeerAccess
    : public symm::impl::SymmLowerPeerAccessBase<LowerPeerAccess> {
  void runOnOperation() override { lowerPeerAccesses(getOperation()); }
};

} // namespace

void symm::lowerPeerAccesses(Operation *root) {
  SmallVector<Operation *> ops;
  root->walk([&](Operation *op) {
    if (isa<LoadOp, StoreOp, AtomicRMWOp, AtomicCASOp, LineStoreOp, LineLoadOp>(
            op))
      ops.push_back(op);
  });
  IRRewriter rewriter(root->getContext());
  for (Operation *op : ops)
    llvm::TypeSwitch<Operation *>(op)
        .Case([&](LoadOp o) { lowerLoad(rewriter, o); })
        .Case([&](StoreOp o) { lowerStore(rewriter, o); })
        .Case([&](AtomicRMWOp o) { dropPeer(rewriter, o); })
        .Case([&](AtomicCASOp o) { dropPeer(rewriter, o); })
        .Case([&](LineStoreOp o) { dropPeer(rewriter, o); })
        .Case([&](LineLoadOp o) { dropPeer(rewriter, o); });
}
