//===- GPUMemoryOpsToAsync.cpp - Synchronous GPU memory ops to async -----===//
//
// gpu-to-llvm lowers only the asynchronous forms of the host-side memory
// operations; whole programs (and MLIR's own GPU tests) write the synchronous
// ones.
//
//===----------------------------------------------------------------------===//

#include "symm/Conversion/Passes.h"

namespace mlir::symm {
#define GEN_PASS_DEF_SYMMGPUMEMORYOPSTOASYNC
#include "symm/Conversion/Passes.h.inc"
} // namespace mlir::symm

using namespace mlir;
using namespace mlir::symm;

namespace {

bool isSynchronousMemoryOp(Operation *op) {
  if (!isa<gpu::AllocOp, gpu::DeallocOp, gpu::MemcpyOp, gpu::MemsetOp>(op))
    return false;
  if (cast<gpu::AsyncOpInterface>(op).getAsyncToken())
    return false;
  auto alloc = dyn_cast<gpu::AllocOp>(op);
  return !alloc || !alloc.getHostShared();
}

/// `op` with an async token result and `stream` as its one dependency. The
/// clone keeps the op's properties (its operand segment sizes among them),
/// and the interface adds the dependency where the op's operands say.
Operation *asyncClone(OpBuilder &b, Operation *op, Value stream) {
  SmallVector<Type> results(op->getResultTypes());
  results.push_back(stream.getType());
  Operation *async = Operation::create(
      op->getLoc(), op->getName(), results, op->getOperands(),
      op->getDiscardableAttrDictionary(), op->getPropertiesStorage(),
      /*successors=*/{}, /*numRegions=*/0);
  b.insert(async);
  cast<gpu::AsyncOpInterface>(async).addAsyncDependency(stream);
  return async;
}

struct SymmGpuMemoryOpsToAsync
    : public symm::impl::SymmGpuMemoryOpsToAsyncBase<SymmGpuMemoryOpsToAsync> {
  void runOnOperation() override {
    SmallVector<Operation *> ops;
    getOperation().walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (isa<gpu::GPUModuleOp>(op))
        return WalkResult::skip();
      if (isSynchronousMemoryOp(op))
        ops.push_back(op);
      return WalkResult::advance();
    });
    auto tokenType = gpu::AsyncTokenType::get(&getContext());
    for (Operation *op : ops) {
      OpBuilder b(op);
      Value stream =
          gpu::WaitOp::create(b, op->getLoc(), tokenType, ValueRange())
              .getAsyncToken();
      Operation *async = asyncClone(b, op, stream);
      gpu::WaitOp::create(b, op->getLoc(), Type(),
                          ValueRange{async->getResults().back()});
      op->replaceAllUsesWith(async->getResults().drop_back());
      op->erase();
    }
  }
};

} // namespace
