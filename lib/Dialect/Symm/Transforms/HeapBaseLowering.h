//===- HeapBaseLowering.h - Heap-base lowering helpers ---------*- C++ -*-===//
//
// What the peer-access, synchronisation and tile-copy lowerings share: how a
// peer's view of a memref is built and how a signal is raised, so that a
// `put ... signal` lowers its signal exactly like `symm.signal`.
//
//===----------------------------------------------------------------------===//

#ifndef SYMM_LIB_DIALECT_SYMM_TRANSFORMS_HEAPBASELOWERING_H
#define SYMM_LIB_DIALECT_SYMM_TRANSFORMS_HEAPBASELOWERING_H

#include "symm/Dialect/Symm/IR/SymmOps.h"

#include "mlir/IR/PatternMatch.h"

namespace mlir::symm::heapbase {

/// Widest vector access, in bytes, that tile copies and plain vector accesses
/// use.
constexpr int64_t kTileAccessBytes = 16;

/// `memref` itself, or its view on `peer` when there is one, built at the
/// builder's insertion point. The translation is named after `op`, so that a
/// check of its peer can say which access went out of range.
Value viewOnPeer(OpBuilder &b, Operation *op, Value memref, Value peer);

/// Replaces `op` by a release store (`set`) or add (`add`) on the signalled
/// location.
void lowerSignal(RewriterBase &b, SignalOp op);

} // namespace mlir::symm::heapbase

#endif // SYMM_LIB_DIALECT_SYMM_TRANSFORMS_HEAPBASELOWERING_H
