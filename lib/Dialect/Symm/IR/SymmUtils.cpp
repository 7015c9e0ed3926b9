//===- SymmUtils.cpp - Helpers shared by Symm's passes --------------------===//
//
// Small IR-building helpers that more than one Symm pass needs.
//
//===----------------------------------------------------------------------===//

#include "symm/Dialect/Symm/IR/SymmUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;

Value symm::buildElementAddress(OpBuilder &b, Location loc, Value memref,
                                ValueRange indices) {
  auto type = cast<MemRefType>(memref.getType());
  auto meta = memref::ExtractStridedMetadataOp::create(b, loc, memref);
  Value linear = meta.getOffset();
  for (auto [index, stride] : llvm::zip(indices, meta.getStrides()))
    linear = arith::AddIOp::create(
        b, loc, linear, arith::MulIOp::create(b, loc, index, stride));
  Value base = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, memref);
  int64_t bytes = (type.getElementTypeBitWidth() + 7) / 8;
  Value offset = arith::MulIOp::create(
      b, loc, linear, arith::ConstantIndexOp::create(b, loc, bytes));
  return arith::AddIOp::create(b, loc, base, offset);
}
