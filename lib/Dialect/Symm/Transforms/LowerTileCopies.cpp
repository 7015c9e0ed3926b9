//===- LowerTileCopies.cpp - Tile copies as loops ---------------*- C++ -*-===//
//
// Lowers `symm.put`, `symm.get` and `symm.copy` into loops that spread the
// tile over the workgroup's threads, with 16-byte vector accesses where both
// tiles allow them.
//
//===----------------------------------------------------------------------===//

#include "HeapBaseLowering.h"
#include "symm/Dialect/Symm/Transforms/Passes.h"

#include "llvm/ADT/TypeSwitch.h"

namespace mlir::symm {
#define GEN_PASS_DEF_SYMMLOWERTILECOPIES
#include "symm/Dialect/Symm/Transforms/Passes.h.inc"
} // namespace mlir::symm

using namespace mlir;
using namespace mlir::symm;

namespace {

/// Builds the copy loops of one tile operation at a time.
class TileCopyLowering {
public:
  TileCopyLowering(RewriterBase &rewriter) : b(rewriter) {}

  /// Replaces `op`, which copies `src` on `srcPeer` to `dst` on `dstPeer`
  /// (null peers are this rank), by its copy loops.
  LogicalResult lowerTile(Operation *op, Value src, Value srcPeer, Value dst,
                          Value dstPeer);

private:
  Value view(Operation *op, Value memref, Value peer) {
    return heapbase::viewOnPeer(b, op, memref, peer);
  }

  Value index(Location loc, int64_t value) {
    return arith::ConstantIndexOp::create(b, loc, value);
  }

  /// The thread's linear id in its workgroup and the workgroup's size.
  std::pair<Value, Value> workgroupThread(Location loc);
  /// How many elements past a `width`-element boundary `memref` starts, and
  /// whether its outer strides keep every row at that same phase.
  std::pair<Value, Value> rowPhase(Location loc, Value memref, int64_t width);
  /// Copies `src` to `dst`, work items spread over the workgroup's threads.
  /// With `width` > 1 a work item is one `width`-element chunk whose bounds
  /// fall on `width`-element boundaries of memory: rows start `phase`
  /// elements past one (a null phase is 0), so the first and last chunk of a
  /// row may be partial and are copied element by element.
  void copyLoop(Location loc, Value src, Value dst, ArrayRef<Value> dims,
                Value tid, Value nthreads, int64_t width, Value phase = {});

  RewriterBase &b;
};

} // namespace

std::pair<Value, Value> TileCopyLowering::workgroupThread(Location loc) {
  auto id = [&](gpu::Dimension d) -> Value {
    return gpu::ThreadIdOp::create(b, loc, d);
  };
  auto dim = [&](gpu::Dimension d) -> Value {
    return gpu::BlockDimOp::create(b, loc, d);
  };
  Value bx = dim(gpu::Dimension::x), by = dim(gpu::Dimension::y);
  Value bz = dim(gpu::Dimension::z);
  // tid = x + bx * (y + by * z)
  Value tid = arith::AddIOp::create(
      b, loc, id(gpu::Dimension::x),
      arith::MulIOp::create(
          b, loc, bx,
          arith::AddIOp::create(
              b, loc, id(gpu::Dimension::y),
              arith::MulIOp::create(b, loc, by, id(gpu::Dimension::z)))));
  Value count =
      arith::MulIOp::create(b, loc, arith::MulIOp::create(b, loc, bx, by), bz);
  return {tid, count};
}

std::pair<Value, Value> TileCopyLowering::rowPhase(Location loc, Value memref,
                                                   int64_t width) {
  auto type = cast<MemRefType>(memref.getType());
  int64_t elementBytes = type.getElementTypeBitWidth() / 8;
  auto meta = memref::ExtractStridedMetadataOp::create(b, loc, memref);
  Value base = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, memref);
  Value start =
      arith::AddIOp::create(b, loc, base,
                            arith::MulIOp::create(b, loc, meta.getOffset(),
                                                  index(loc, elementBytes)));
  Value phase = arith::DivUIOp::create(
      b, loc,
      arith::RemUIOp::create(b, loc, start, index(loc, width * elementBytes)),
      index(loc, elementBytes));
  Value zero = index(loc, 0);
  Value same = arith::ConstantIntOp::create(b, loc, 1, 1);
  for (Value stride : ValueRange(meta.getStrides()).drop_back()) {
    Value strideOk = arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::eq,
        arith::RemUIOp::create(b, loc, stride, index(loc, width)), zero);
    same = arith::AndIOp::create(b, loc, same, strideOk);
  }
  return {phase, same};
}

void TileCopyLowering::copyLoop(Location loc, Value src, Value dst,
                                ArrayRef<Value> dims, Value tid, Value nthreads,
                                int64_t width, Value phase) {
  Value inner = dims.back();
  Value rows = index(loc, 1);
  for (Value d : dims.drop_back())
    rows = b.createOrFold<arith::MulIOp>(loc, rows, d);
  Value vWidth = index(loc, width);
  Value span = phase ? arith::AddIOp::create(b, loc, inner, phase) : inner;
  Value chunksPerRow = b.createOrFold<arith::CeilDivUIOp>(loc, span, vWidth);
  Value total = b.createOrFold<arith::MulIOp>(loc, rows, chunksPerRow);
  auto loop = scf::ForOp::create(b, loc, tid, total, nthreads);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(loop.getBody());
  Value item = loop.getInductionVar();
  Value row = arith::DivUIOp::create(b, loc, item, chunksPerRow);
  Value col = b.createOrFold<arith::MulIOp>(
      loc, arith::RemUIOp::create(b, loc, item, chunksPerRow), vWidth);
  // Delinearise the row over the outer dimensions, innermost first.
  SmallVector<Value> indices(dims.size());
  for (int64_t d = static_cast<int64_t>(dims.size()) - 2; d >= 0; --d) {
    indices[d] = arith::RemUIOp::create(b, loc, row, dims[d]);
    row = arith::DivUIOp::create(b, loc, row, dims[d]);
  }
  auto copyScalars = [&](Value from, Value to) {
    auto scalars = scf::ForOp::create(b, loc, from, to, index(loc, 1));
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(scalars.getBody());
    indices.back() = scalars.getInductionVar();
    Value v = memref::LoadOp::create(b, loc, src, indices);
    memref::StoreOp::create(b, loc, v, dst, indices);
  };
  if (width == 1) {
    indices.back() = col;
    Value v = memref::LoadOp::create(b, loc, src, indices);
    memref::StoreOp::create(b, loc, v, dst, indices);
    return;
  }
  auto elementType = cast<MemRefType>(src.getType()).getElementType();
  auto vectorType = VectorType::get({width}, elementType);
  uint64_t align = width * elementType.getIntOrFloatBitWidth() / 8;
  auto copyVector = [&] {
    indices.back() = col;
    auto v = vector::LoadOp::create(b, loc, vectorType, src, indices);
    v.setAlignment(align);
    auto s = vector::StoreOp::create(b, loc, v, dst, indices);
    s.setAlignment(align);
  };
  if (phase) {
    // Chunk bounds in row coordinates: [col - phase, col - phase + width)
    // clipped to the row.
    Value shifted = arith::SubIOp::create(b, loc, col, phase);
    Value from = arith::MaxSIOp::create(b, loc, shifted, index(loc, 0));
    Value to = arith::MinSIOp::create(
        b, loc, arith::AddIOp::create(b, loc, shifted, vWidth), inner);
    Value full =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                              arith::SubIOp::create(b, loc, to, from), vWidth);
    auto branch = scf::IfOp::create(b, loc, full, /*withElseRegion=*/true);
    b.setInsertionPointToStart(branch.thenBlock());
    col = from;
    copyVector();
    b.setInsertionPointToStart(branch.elseBlock());
    copyScalars(from, to);
    return;
  }
  std::optional<int64_t> staticInner = getConstantIntValue(inner);
  if (staticInner && *staticInner % width == 0) {
    copyVector();
    return;
  }
  // The last chunk of a row may be partial: copy it element by element.
  Value end = arith::AddIOp::create(b, loc, col, vWidth);
  Value full =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ule, end, inner);
  auto branch = scf::IfOp::create(b, loc, full, /*withElseRegion=*/true);
  b.setInsertionPointToStart(branch.thenBlock());
  copyVector();
  b.setInsertionPointToStart(branch.elseBlock());
  copyScalars(col, inner);
}

LogicalResult TileCopyLowering::lowerTile(Operation *op, Value src,
                                          Value srcPeer, Value dst,
                                          Value dstPeer) {
  if (!op->getParentOfType<gpu::GPUFuncOp>() &&
      !op->getParentOfType<gpu::LaunchOp>())
    return op->emitOpError("is workgroup-cooperative and must be inside a GPU "
                           "kernel (gpu.func or gpu.launch)");
  Location loc = op->getLoc();
  b.setInsertionPoint(op);
  src = view(op, src, srcPeer);
  dst = view(op, dst, dstPeer);
  auto srcType = cast<MemRefType>(src.getType());
  auto dstType = cast<MemRefType>(dst.getType());

  SmallVector<Value> dims;
  for (int64_t d = 0; d < srcType.getRank(); ++d) {
    int64_t size = srcType.getDimSize(d);
    if (ShapedType::isDynamic(size))
      size = dstType.getDimSize(d);
    dims.push_back(ShapedType::isDynamic(size)
                       ? memref::DimOp::create(b, loc, src, d).getResult()
                       : index(loc, size));
  }
  auto [tid, nthreads] = workgroupThread(loc);

  // 16-byte accesses need a contiguous innermost dimension on both sides, an
  // element size that divides 16, and rows that start aligned (checked at run
  // time: tiles are usually strided views with dynamic offsets).
  Type element = srcType.getElementType();
  int64_t width = 1;
  auto innerStride = [](MemRefType type) -> std::optional<int64_t> {
    SmallVector<int64_t> strides;
    int64_t offset;
    if (failed(type.getStridesAndOffset(strides, offset)))
      return std::nullopt;
    return strides.back();
  };
  if (element.isIntOrFloat() && element.getIntOrFloatBitWidth() % 8 == 0 &&
      heapbase::kTileAccessBytes % (element.getIntOrFloatBitWidth() / 8) == 0 &&
      innerStride(srcType) == 1 && innerStride(dstType) == 1)
    width = heapbase::kTileAccessBytes / (element.getIntOrFloatBitWidth() / 8);
  if (width > 1) {
    // Rows aligned on both sides: whole chunks. Both sides at the same phase:
    // peel to the boundary, then whole chunks. Otherwise no access can be
    // aligned on both sides at once: element by element.
    auto [srcPhase, srcRowsSame] = rowPhase(loc, src, width);
    auto [dstPhase, dstRowsSame] = rowPhase(loc, dst, width);
    Value together = arith::AndIOp::create(
        b, loc, arith::AndIOp::create(b, loc, srcRowsSame, dstRowsSame),
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, srcPhase,
                              dstPhase));
    Value aligned = arith::AndIOp::create(
        b, loc, together,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, srcPhase,
                              index(loc, 0)));
    auto branch = scf::IfOp::create(b, loc, aligned, /*withElseRegion=*/true);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(branch.thenBlock());
    copyLoop(loc, src, dst, dims, tid, nthreads, width);
    b.setInsertionPointToStart(branch.elseBlock());
    auto peel = scf::IfOp::create(b, loc, together, /*withElseRegion=*/true);
    b.setInsertionPointToStart(peel.thenBlock());
    copyLoop(loc, src, dst, dims, tid, nthreads, width, srcPhase);
    b.setInsertionPointToStart(peel.elseBlock());
    copyLoop(loc, src, dst, dims, tid, nthreads, 1);
  } else {
    copyLoop(loc, src, dst, dims, tid, nthreads, 1);
  }

  if (auto put = dyn_cast<PutOp>(op); put && put.getSignalKind()) {
    // symm.release_barrier: thread 0's signal, a release at the signal's
    // scope, then releases every thread's stores of the tile (each target
    // lowers it to what makes that hold: a barrier on NVIDIA, a fence in
    // every thread and a barrier on AMD). A consumer that acquires the new
    // flag value therefore sees the whole tile.
    ReleaseBarrierOp::create(b, loc, put.getScopeAttr());
    Value first = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, tid,
                                        index(loc, 0));
    auto branch = scf::IfOp::create(b, loc, first, /*withElseRegion=*/false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(branch.thenBlock());
    auto signal =
        SignalOp::create(b, loc, *put.getSignalKind(), put.getSignalValue(),
                         put.getSignalFlags(), put.getSignalIndices(),
                         put.getPeer(), *put.getScope());
    heapbase::lowerSignal(b, signal);
  }
  // The tile is in local memory that the workgroup reads next.
  if (isa<GetOp>(op)) {
    b.setInsertionPoint(op);
    gpu::BarrierOp::create(b, loc);
  }
  b.eraseOp(op);
  return success();
}

namespace {
struct LowerTileCopies
    : public symm::impl::SymmLowerTileCopiesBase<LowerTileCopies> {
  void runOnOperation() override {
    if (failed(lowerTileCopies(getOperation())))
      signalPassFailure();
  }
};
} // namespace

LogicalResult symm::lowerTileCopies(Operation *root) {
  SmallVector<Operation *> ops;
  root->walk([&](Operation *op) {
    if (isa<PutOp, GetOp, CopyOp>(op))
      ops.push_back(op);
  });
  IRRewriter rewriter(root->getContext());
  TileCopyLowering lowering(rewriter);
  for (Operation *op : ops) {
    LogicalResult lowered =
        llvm::TypeSwitch<Operation *, LogicalResult>(op)
            .Case([&](PutOp o) {
              return lowering.lowerTile(o, o.getSrc(), Value(), o.getDst(),
                                        o.getPeer());
            })
            .Case([&](GetOp o) {
              return lowering.lowerTile(o, o.getSrc(), o.getPeer(), o.getDst(),
                                        Value());
            })
            .Case([&](CopyOp o) {
              return lowering.lowerTile(o, o.getSrc(), o.getSrcPeer(),
                                        o.getDst(), o.getDstPeer());
            });
    if (failed(lowered))
      return failure();
  }
  return success();
}
