//===- NVGPUToHost.cpp - Hopper nvgpu operations for the CPU target -------===//
//
// mbarriers, TMA and the warpgroup MMA of upstream's nvgpu dialect, for
// kernels whose threads are fibers of the CPU target. mbarriers and TMA
// become calls of the runtime (abi.h): a TMA load copies its box at once and
// completes its bytes on the mbarrier, so waits see the same phases as on a
// GPU. A warpgroup MMA is computed by its 128 threads, each its own share of
// the accumulator, from the shared-memory tiles addressed as the wgmma
// descriptors that upstream's lowering builds address them, without the
// swizzle, which the CPU's TMA does not apply either.
//
//===----------------------------------------------------------------------===//

#include "symm/Conversion/Passes.h"
#include "symm/Conversion/SymmToLLVM.h"
#include "symm/abi.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Patterns.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Transforms/DialectConversion.h"
#include "llvm/ADT/TypeSwitch.h"

namespace mlir::symm {
#define GEN_PASS_DEF_SYMMCONVERTNVGPUTOHOST
#include "symm/Conversion/Passes.h.inc"
} // namespace mlir::symm

using namespace mlir;
using namespace mlir::symm;

namespace {

constexpr int64_t kWarpgroup = SYMM_HOST_WARPGROUP_SIZE;
/// The swizzle span of swizzle_128b: the row of the canonical layouts.
constexpr int64_t kSwizzleBytes = 128;
/// Rows of a wgmma: the accumulator and A tiles come in multiples of it.
constexpr int64_t kWgmmaM = 64;

Value index(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

Value i32(OpBuilder &b, Location loc, Value v) {
  if (v.getType().isIndex())
    return arith::IndexCastOp::create(b, loc, b.getI32Type(), v);
  return v;
}

Value i64(OpBuilder &b, Location loc, Value v) {
  return arith::IndexCastOp::create(b, loc, b.getI64Type(), v);
}

Value call(OpBuilder &b, Operation *op, StringRef name, ValueRange args,
           Type result = Type()) {
  SmallVector<Type> types(args.getTypes());
  Type ret = result ? result : LLVM::LLVMVoidType::get(op->getContext());
  auto fn = getRuntimeFunction(b, op->getParentOfType<gpu::GPUModuleOp>(), name,
                               types, ret);
  auto c = LLVM::CallOp::create(b, op->getLoc(), fn, args);
  return result ? c.getResult() : Value();
}

/// The address of `memref`'s first element (aligned pointer plus offset), as
/// an i64.
Value address(OpBuilder &b, Location loc, Value memref) {
  auto type = cast<MemRefType>(memref.getType());
  auto meta = memref::ExtractStridedMetadataOp::create(b, loc, memref);
  Value base = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, memref);
  int64_t bytes = type.getElementTypeBitWidth() / 8;
  Value offset =
      arith::MulIOp::create(b, loc, meta.getOffset(), index(b, loc, bytes));
  return i64(b, loc, arith::AddIOp::create(b, loc, base, offset));
}

Value pointer(OpBuilder &b, Location loc, Value address) {
  return LLVM::IntToPtrOp::create(
      b, loc, LLVM::LLVMPointerType::get(b.getContext()), address);
}

/// The linear id of the thread in its block, as the runtime numbers them.
Value linearThread(OpBuilder &b, Location loc) {
  Value tx = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  Value ty = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::y);
  Value tz = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::z);
  Value bx = gpu::BlockDimOp::create(b, loc, gpu::Dimension::x);
  Value by = gpu::BlockDimOp::create(b, loc, gpu::Dimension::y);
  return arith::AddIOp::create(
      b, loc, tx,
      arith::MulIOp::create(
          b, loc, bx,
          arith::AddIOp::create(b, loc, ty,
                                arith::MulIOp::create(b, loc, by, tz))));
}

//===----------------------------------------------------------------------===//
// What the CPU target takes
//===----------------------------------------------------------------------===//

bool is16BitFloat(Type t) { return t.isF16() || t.isBF16(); }

/// The shapes and types upstream's warpgroup-MMA lowering handles
/// consistently with the hardware's canonical layouts: with 16-bit elements
/// and 128-byte swizzling, a K-major A of Mx64 and an MN-major B
/// (`transposeB`) of 64xN. Upstream steps its descriptors for other shapes
/// as if they were these, so what the GPU would read is not what the memref
/// types say; the CPU target rejects them instead of guessing.
LogicalResult checkMma(nvgpu::WarpgroupMmaOp op) {
  MemRefType a = op.getDescriptorA().getType().getTensor();
  MemRefType b = op.getDescriptorB().getType().getTensor();
  VectorType acc = op.getMatrixC().getType().getFragmented();
  auto unsupported = [&](const Twine &what) {
    return op.emitOpError()
           << "with A " << a << ", B " << b << " and accumulator " << acc
           << " has no lowering for the CPU target: " << what;
  };
  if (op.getTransposeA())
    return unsupported("it supports a K-major A only (no transposeA), as "
                       "upstream's descriptor iteration does");
  if (!op.getTransposeB())
    return unsupported("it supports an MN-major B only (transposeB): "
                       "upstream's descriptor iteration steps B along K by "
                       "rows of 128 bytes");
  Type e = a.getElementType();
  if (!is16BitFloat(e) || b.getElementType() != e ||
      !acc.getElementType().isF32())
    return unsupported("it supports f16 or bf16 operands with an f32 "
                       "accumulator");
  int64_t rowElements = kSwizzleBytes / 2;
  if (a.getRank() != 2 || b.getRank() != 2 || acc.getRank() != 2 ||
      a.getDimSize(0) % kWgmmaM || a.getDimSize(1) != rowElements ||
      b.getDimSize(0) != rowElements || b.getDimSize(1) % 8 ||
      b.getDimSize(1) > 256 || acc.getDimSize(0) != a.getDimSize(0) ||
      acc.getDimSize(1) != b.getDimSize(1))
    return unsupported("it takes an A of Mx64, a B of 64xN and an MxN "
                       "accumulator, M a multiple of 64 and N a multiple of 8 "
                       "up to 256");
  return success();
}

LogicalResult checkOp(Operation *op) {
  if (!isa_and_nonnull<nvgpu::NVGPUDialect>(op->getDialect()))
    return success();
  // Workgroup memory (mbarriers, the warpgroup's meeting place) belongs to
  // a gpu.func.
  if (!op->getParentOfType<gpu::GPUFuncOp>())
    return op->emitOpError("has no lowering for the CPU target outside a "
                           "gpu.func; inline the function into the kernel");
  if (auto mma = dyn_cast<nvgpu::WarpgroupMmaOp>(op))
    return checkMma(mma);
  if (auto store = dyn_cast<nvgpu::WarpgroupMmaStoreOp>(op)) {
    Type dst = store.getDstMemref().getType().getElementType();
    if (!dst.isF32() && !is16BitFloat(dst))
      return op->emitOpError()
             << "into a memref of " << dst
             << " has no lowering for the CPU target: it stores f32 "
                "accumulators into f32, bf16 or f16 memrefs";
  }
  if (auto load = dyn_cast<nvgpu::TmaAsyncLoadOp>(op);
      load && load.getMulticastMask())
    return op->emitOpError("with a multicast mask has no lowering for the "
                           "CPU target, which has no thread block clusters");
  if (isa<nvgpu::MBarrierCreateOp, nvgpu::MBarrierGetOp, nvgpu::MBarrierInitOp,
          nvgpu::MBarrierArriveOp, nvgpu::MBarrierArriveNoCompleteOp,
          nvgpu::MBarrierArriveExpectTxOp, nvgpu::MBarrierTestWaitOp,
          nvgpu::MBarrierTryWaitParityOp, nvgpu::TmaPrefetchOp,
          nvgpu::TmaFenceOp, nvgpu::TmaAsyncLoadOp, nvgpu::TmaAsyncStoreOp,
          nvgpu::WarpgroupGenerateDescriptorOp,
          nvgpu::WarpgroupMmaInitAccumulatorOp, nvgpu::WarpgroupMmaStoreOp>(op))
    return success();
  return op->emitOpError("has no lowering for the CPU target; it lowers "
                         "the mbarrier, TMA and warpgroup operations");
}

//===----------------------------------------------------------------------===//
// mbarriers and TMA: runtime calls
//===----------------------------------------------------------------------===//

/// Runs `body` under `predicate` when there is one.
void predicated(OpBuilder &b, Location loc, Value predicate,
                function_ref<void(OpBuilder &)> body) {
  if (!predicate) {
    body(b);
    return;
  }
  scf::IfOp::create(b, loc, predicate, [&](OpBuilder &b, Location loc) {
    body(b);
    scf::YieldOp::create(b, loc);
  });
}

/// Rewrites the mbarrier and TMA operations of `func`. mbarrier groups are
/// workgroup memory of 8 bytes a barrier; tokens are i64.
LogicalResult lowerBarriersAndTma(gpu::GPUFuncOp func) {
  SmallVector<Operation *> ops;
  func.walk([&](Operation *op) {
    if (isa_and_nonnull<nvgpu::NVGPUDialect>(op->getDialect()) &&
        !isa<nvgpu::WarpgroupGenerateDescriptorOp, nvgpu::WarpgroupMmaOp,
             nvgpu::WarpgroupMmaInitAccumulatorOp, nvgpu::WarpgroupMmaStoreOp>(
            op))
      ops.push_back(op);
    // The CPU's warpgroup MMA and TMA are synchronous and need no proxy.
    if (isa<NVVM::WgmmaFenceAlignedOp, NVVM::WgmmaGroupSyncAlignedOp,
            NVVM::WgmmaWaitGroupSyncOp, NVVM::CpAsyncBulkCommitGroupOp,
            NVVM::CpAsyncBulkWaitGroupOp, NVVM::FenceProxyOp,
            NVVM::FenceProxyAcquireOp, NVVM::FenceProxyReleaseOp>(op))
      ops.push_back(op);
  });
  if (ops.empty())
    return success();

  DenseMap<Value, Value> barriers, tokens;
  MLIRContext *ctx = func.getContext();
  auto workgroup = gpu::AddressSpaceAttr::get(
      ctx, gpu::GPUDialect::getWorkgroupAddressSpace());
  auto barrierPointer = [&](OpBuilder &b, Operation *op, Value group,
                            Value id) -> FailureOr<Value> {
    Value memory = barriers.lookup(group);
    if (!memory)
      return op->emitOpError("needs an mbarrier group made by "
                             "nvgpu.mbarrier.create in the same kernel on the "
                             "CPU target");
    Location loc = op->getLoc();
    Value at = arith::AddIOp::create(
        b, loc, address(b, loc, memory),
        i64(b, loc, arith::MulIOp::create(b, loc, id, index(b, loc, 8))));
    return pointer(b, loc, at);
  };

  Type i64Type = IntegerType::get(ctx, 64), i32Type = IntegerType::get(ctx, 32);
  for (Operation *op : ops) {
    OpBuilder b(op);
    Location loc = op->getLoc();
    auto constI32 = [&](int32_t v) -> Value {
      return arith::ConstantIntOp::create(b, loc, v, 32);
    };
    // The mbarrier the op addresses, for the ops that address one.
    std::optional<std::pair<Value, Value>> addressed =
        TypeSwitch<Operation *, std::optional<std::pair<Value, Value>>>(op)
            .Case<nvgpu::MBarrierGetOp, nvgpu::MBarrierInitOp,
                  nvgpu::MBarrierArriveOp, nvgpu::MBarrierArriveNoCompleteOp,
                  nvgpu::MBarrierArriveExpectTxOp, nvgpu::MBarrierTestWaitOp,
                  nvgpu::MBarrierTryWaitParityOp, nvgpu::TmaAsyncLoadOp>(
                [](auto barrierOp) {
                  return std::make_pair(barrierOp.getBarriers(),
                                        Value(barrierOp.getMbarId()));
                })
            .Default([](Operation *) { return std::nullopt; });
    Value mbarrier;
    if (addressed) {
      FailureOr<Value> ptr =
          barrierPointer(b, op, addressed->first, addressed->second);
      if (failed(ptr))
        return failure();
      mbarrier = *ptr;
    }
    // A TMA call's arguments: the descriptor, the box in workgroup memory,
    // the mbarrier (loads), then the coordinates, padded with zeros to the
    // largest rank.
    auto tmaArgs = [&](OpBuilder &b, Value map, Value box, ValueRange coords) {
      SmallVector<Value> args = {
          UnrealizedConversionCastOp::create(
              b, loc, LLVM::LLVMPointerType::get(ctx), map)
              .getResult(0),
          pointer(b, loc, address(b, loc, box))};
      if (mbarrier)
        args.push_back(mbarrier);
      size_t end = args.size() + SYMM_HOST_TENSOR_MAP_MAX_RANK;
      for (Value c : coords)
        args.push_back(i32(b, loc, c));
      while (args.size() < end)
        args.push_back(arith::ConstantIntOp::create(b, loc, 0, 32));
      return args;
    };
    LogicalResult result =
        TypeSwitch<Operation *, LogicalResult>(op)
            .Case([&](nvgpu::MBarrierCreateOp create) {
              auto type = create.getBarriers().getType();
              Value memory = func.addWorkgroupAttribution(
                  MemRefType::get({type.getNumBarriers()}, i64Type,
                                  MemRefLayoutAttrInterface(), workgroup),
                  loc);
              barriers[create.getBarriers()] = memory;
              return success();
            })
            .Case([&](nvgpu::MBarrierGetOp get) -> LogicalResult {
              get.getMbarrierPointer().replaceAllUsesWith(
                  LLVM::PtrToIntOp::create(
                      b, loc, get.getMbarrierPointer().getType(), mbarrier)
                      .getResult());
              return success();
            })
            .Case([&](nvgpu::MBarrierInitOp init) -> LogicalResult {
              predicated(b, loc, init.getPredicate(), [&](OpBuilder &b) {
                call(b, op, SYMM_HOST_MBARRIER_INIT_FN,
                     {mbarrier, i32(b, loc, init.getCount())});
              });
              return success();
            })
            .Case([&](nvgpu::MBarrierArriveOp arrive) -> LogicalResult {
              tokens[arrive.getToken()] =
                  call(b, op, SYMM_HOST_MBARRIER_ARRIVE_FN,
                       {mbarrier, constI32(1), constI32(0)}, i64Type);
              return success();
            })
            .Case(
                [&](nvgpu::MBarrierArriveNoCompleteOp arrive) -> LogicalResult {
                  tokens[arrive.getToken()] = call(
                      b, op, SYMM_HOST_MBARRIER_ARRIVE_FN,
                      {mbarrier, i32(b, loc, arrive.getCount()), constI32(0)},
                      i64Type);
                  return success();
                })
            .Case([&](nvgpu::MBarrierArriveExpectTxOp arrive) -> LogicalResult {
              predicated(b, loc, arrive.getPredicate(), [&](OpBuilder &b) {
                call(b, op, SYMM_HOST_MBARRIER_ARRIVE_FN,
                     {mbarrier, constI32(1), i32(b, loc, arrive.getTxcount())},
                     i64Type);
              });
              return success();
            })
            .Case([&](nvgpu::MBarrierTestWaitOp test) -> LogicalResult {
              Value token = tokens.lookup(test.getToken());
              if (!token)
                return op->emitOpError(
                    "needs a token from an nvgpu.mbarrier.arrive of the same "
                    "kernel on the CPU target");
              Value done = call(b, op, SYMM_HOST_MBARRIER_TEST_WAIT_FN,
                                {mbarrier, token}, i32Type);
              test.getWaitComplete().replaceAllUsesWith(
                  arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, done,
                                        constI32(0))
                      .getResult());
              return success();
            })
            .Case([&](nvgpu::MBarrierTryWaitParityOp wait) -> LogicalResult {
              Value parity = arith::ExtUIOp::create(b, loc, i32Type,
                                                    wait.getPhaseParity());
              call(b, op, SYMM_HOST_MBARRIER_WAIT_FN, {mbarrier, parity});
              return success();
            })
            .Case([&](nvgpu::TmaAsyncLoadOp load) -> LogicalResult {
              predicated(b, loc, load.getPredicate(), [&](OpBuilder &b) {
                call(b, op, SYMM_HOST_TMA_LOAD_FN,
                     tmaArgs(b, load.getTensorMapDescriptor(), load.getDst(),
                             load.getCoordinates()));
              });
              return success();
            })
            .Case([&](nvgpu::TmaAsyncStoreOp store) {
              predicated(b, loc, store.getPredicate(), [&](OpBuilder &b) {
                call(b, op, SYMM_HOST_TMA_STORE_FN,
                     tmaArgs(b, store.getTensorMapDescriptor(), store.getSrc(),
                             store.getCoordinates()));
              });
              return success();
            })
            .Default([](Operation *) { return success(); });
    if (failed(result))
      return failure();
  }
  for (Operation *op : llvm::reverse(ops)) {
    for (Value v : op->getResults())
      if (!v.use_empty())
        return op->emitOpError("result is used by ")
               << *v.user_begin()
               << ", which the CPU target's lowering cannot follow; keep "
                  "mbarrier groups and tokens within the kernel's "
                  "nvgpu operations";
    op->erase();
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Warpgroup MMA
//===----------------------------------------------------------------------===//

/// Lane `l` of the warpgroup (thread id mod 128) holds the elements l,
/// l + 128, l + 256, ... of the row-major accumulator.
VectorType laneType(nvgpu::WarpgroupAccumulatorType type) {
  VectorType v = type.getFragmented();
  return VectorType::get({v.getNumElements() / kWarpgroup}, v.getElementType());
}

/// Iterates over the accumulator elements the calling lane holds: `body(b,
/// loc, t, row, col, acc)` returns the next value of the loop's vector.
Value forEachElement(
    OpBuilder &b, Location loc, nvgpu::WarpgroupAccumulatorType type,
    Value init,
    function_ref<Value(OpBuilder &, Location, Value, Value, Value, Value)>
        body) {
  Value lane = arith::RemUIOp::create(b, loc, linearThread(b, loc),
                                      index(b, loc, kWarpgroup));
  int64_t cols = type.getFragmented().getDimSize(1);
  auto loop = scf::ForOp::create(
      b, loc, index(b, loc, 0), index(b, loc, laneType(type).getNumElements()),
      index(b, loc, 1), ValueRange{init},
      [&](OpBuilder &b, Location loc, Value t, ValueRange acc) {
        Value e = arith::AddIOp::create(
            b, loc, lane,
            arith::MulIOp::create(b, loc, t, index(b, loc, kWarpgroup)));
        Value row = arith::DivUIOp::create(b, loc, e, index(b, loc, cols));
        Value col = arith::RemUIOp::create(b, loc, e, index(b, loc, cols));
        scf::YieldOp::create(b, loc, body(b, loc, t, row, col, acc[0]));
      });
  return loop.getResult(0);
}

/// A descriptor is {address of the tile, leading byte offset}: the LBO that
/// upstream puts in it, the box's outer extent times the 128-byte row, is
/// where an MN-major B continues after 64 columns.
struct GenerateDescriptorLowering
    : public OpConversionPattern<nvgpu::WarpgroupGenerateDescriptorOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(nvgpu::WarpgroupGenerateDescriptorOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    int64_t rows = op.getTensorMap().getType().getTensor().getDimSize(0);
    Value lbo =
        arith::ConstantIntOp::create(rewriter, loc, rows * kSwizzleBytes, 64);
    Value at = address(rewriter, loc, adaptor.getTensor());
    rewriter.replaceOpWithNewOp<vector::FromElementsOp>(
        op, VectorType::get({2}, rewriter.getI64Type()), ValueRange{at, lbo});
    return success();
  }
};

struct InitAccumulatorLowering
    : public OpConversionPattern<nvgpu::WarpgroupMmaInitAccumulatorOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(nvgpu::WarpgroupMmaInitAccumulatorOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    VectorType type = laneType(op.getMatrixC().getType());
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(op, type,
                                                   rewriter.getZeroAttr(type));
    return success();
  }
};

/// Each lane computes its accumulator elements; then the warpgroup meets, so
/// that no thread overwrites the tiles (with the next TMA load) while others
/// still read them, as a GPU's warpgroup reads them together.
struct MmaLowering : public OpConversionPattern<nvgpu::WarpgroupMmaOp> {
  MmaLowering(TypeConverter &converter, MLIRContext *ctx,
              const DenseMap<Operation *, Value> &syncState)
      : OpConversionPattern(converter, ctx), syncState(syncState) {}
  const DenseMap<Operation *, Value> &syncState;

  LogicalResult
  matchAndRewrite(nvgpu::WarpgroupMmaOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MemRefType aType = op.getDescriptorA().getType().getTensor();
    Type element = aType.getElementType();
    Type f32 = rewriter.getF32Type();
    Type ptr = LLVM::LLVMPointerType::get(rewriter.getContext());
    int64_t k = aType.getDimSize(1);
    int64_t bytes = element.getIntOrFloatBitWidth() / 8;
    int64_t rowElements = kSwizzleBytes / bytes;
    auto extract = [&](OpBuilder &b, Value v, int64_t i) -> Value {
      return vector::ExtractOp::create(b, loc, v, ArrayRef<int64_t>{i});
    };
    Value aBase = extract(rewriter, adaptor.getDescriptorA(), 0);
    Value bBase = extract(rewriter, adaptor.getDescriptorB(), 0);
    Value bLbo = extract(rewriter, adaptor.getDescriptorB(), 1);
    auto constI64 = [&](OpBuilder &b, int64_t v) -> Value {
      return arith::ConstantIntOp::create(b, loc, v, 64);
    };
    auto load = [&](OpBuilder &b, Value at) -> Value {
      Value v = LLVM::LoadOp::create(b, loc, element,
                                     LLVM::IntToPtrOp::create(b, loc, ptr, at));
      return arith::ExtFOp::create(b, loc, f32, v);
    };

    Value result = forEachElement(
        rewriter, loc, op.getMatrixC().getType(), adaptor.getMatrixC(),
        [&](OpBuilder &b, Location loc, Value t, Value row, Value col,
            Value acc) {
          // A[row][kk] at row * 128 + kk * bytes: the K-major canonical
          // layout, 8-row core matrices 1024 bytes apart (the descriptor's
          // stride byte offset), rows of 128 bytes.
          Value aRow = arith::AddIOp::create(
              b, loc, aBase,
              arith::MulIOp::create(b, loc, i64(b, loc, row),
                                    constI64(b, kSwizzleBytes)));
          // B[kk][col] at (col / 64) * LBO + kk * 128 + (col % 64) * bytes:
          // the MN-major canonical layout.
          Value col64 = i64(b, loc, col);
          Value bCol = arith::AddIOp::create(
              b, loc, bBase,
              arith::AddIOp::create(
                  b, loc,
                  arith::MulIOp::create(
                      b, loc,
                      arith::DivUIOp::create(b, loc, col64,
                                             constI64(b, rowElements)),
                      bLbo),
                  arith::MulIOp::create(
                      b, loc,
                      arith::RemUIOp::create(b, loc, col64,
                                             constI64(b, rowElements)),
                      constI64(b, bytes))));
          Value c =
              vector::ExtractOp::create(b, loc, acc, ArrayRef<OpFoldResult>{t});
          auto kLoop = scf::ForOp::create(
              b, loc, index(b, loc, 0), index(b, loc, k), index(b, loc, 1),
              ValueRange{c},
              [&](OpBuilder &b, Location loc, Value kk, ValueRange sum) {
                Value kk64 = i64(b, loc, kk);
                Value av = load(b, arith::AddIOp::create(
                                       b, loc, aRow,
                                       arith::MulIOp::create(
                                           b, loc, kk64, constI64(b, bytes))));
                Value bv =
                    load(b, arith::AddIOp::create(
                                b, loc, bCol,
                                arith::MulIOp::create(
                                    b, loc, kk64, constI64(b, kSwizzleBytes))));
                Value next = arith::AddFOp::create(
                    b, loc, sum[0], arith::MulFOp::create(b, loc, av, bv));
                scf::YieldOp::create(b, loc, next);
              });
          return vector::InsertOp::create(b, loc, kLoop.getResult(0), acc,
                                          ArrayRef<OpFoldResult>{t})
              .getResult();
        });
    Value state = syncState.lookup(op->getParentOfType<gpu::GPUFuncOp>());
    call(rewriter, op, SYMM_HOST_WARPGROUP_SYNC_FN,
         {pointer(rewriter, loc, address(rewriter, loc, state))});
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// Each lane stores the elements it holds where upstream's NVVM lowering
/// stores them: that lowering numbers rows by the warp's index in the block
/// (thread id / 32 * 16), not in the warpgroup, and puts the accumulator's
/// m-th 64-row block N/2 rows after the (m-1)-th. So row r of the
/// accumulator lands at row (r mod 64) + 64 (thread id / 128) + (r / 64) N/2
/// of dst: row r itself for warpgroup 0 when M is 64, or M is 128 and N 128.
/// Kernels with several warpgroups rely on it (library/gemm_hopper.mlir),
/// so the CPU target reproduces it.
struct StoreLowering : public OpConversionPattern<nvgpu::WarpgroupMmaStoreOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(nvgpu::WarpgroupMmaStoreOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value dst = adaptor.getDstMemref();
    Type element = op.getDstMemref().getType().getElementType();
    Location loc = op.getLoc();
    int64_t cols = op.getMatrixD().getType().getFragmented().getDimSize(1);
    Value warpgroupRow = arith::MulIOp::create(
        rewriter, loc,
        arith::DivUIOp::create(rewriter, loc, linearThread(rewriter, loc),
                               index(rewriter, loc, kWarpgroup)),
        index(rewriter, loc, 64));
    forEachElement(
        rewriter, loc, op.getMatrixD().getType(), adaptor.getMatrixD(),
        [&](OpBuilder &b, Location loc, Value t, Value row, Value col,
            Value acc) {
          Value v =
              vector::ExtractOp::create(b, loc, acc, ArrayRef<OpFoldResult>{t});
          // bf16 and f16 destinations take each element rounded once, as
          // on NVVM.
          if (v.getType() != element)
            v = arith::TruncFOp::create(b, loc, element, v);
          Value block = arith::DivUIOp::create(b, loc, row, index(b, loc, 64));
          Value inBlock =
              arith::RemUIOp::create(b, loc, row, index(b, loc, 64));
          Value dstRow = arith::AddIOp::create(
              b, loc, arith::AddIOp::create(b, loc, inBlock, warpgroupRow),
              arith::MulIOp::create(b, loc, block, index(b, loc, cols / 2)));
          memref::StoreOp::create(b, loc, v, dst, ValueRange{dstRow, col});
          return acc;
        });
    rewriter.eraseOp(op);
    return success();
  }
};

LogicalResult lowerWarpgroupOps(gpu::GPUModuleOp module) {
  MLIRContext *ctx = module.getContext();
  // The warpgroup rendezvous state of each kernel with a warpgroup MMA.
  DenseMap<Operation *, Value> syncState;
  auto workgroup = gpu::AddressSpaceAttr::get(
      ctx, gpu::GPUDialect::getWorkgroupAddressSpace());
  module.walk([&](nvgpu::WarpgroupMmaOp op) {
    auto func = op->getParentOfType<gpu::GPUFuncOp>();
    if (!syncState.count(func))
      syncState[func] = func.addWorkgroupAttribution(
          MemRefType::get({2 * SYMM_HOST_MAX_WARPGROUPS},
                          IntegerType::get(ctx, 64),
                          MemRefLayoutAttrInterface(), workgroup),
          func.getLoc());
  });

  TypeConverter converter;
  addCastBridgedConversions(converter);
  converter.addConversion([](nvgpu::WarpgroupAccumulatorType type) -> Type {
    return laneType(type);
  });
  converter.addConversion([ctx](nvgpu::WarpgroupMatrixDescriptorType) -> Type {
    return VectorType::get({2}, IntegerType::get(ctx, 64));
  });

  RewritePatternSet patterns(ctx);
  patterns
      .add<GenerateDescriptorLowering, InitAccumulatorLowering, StoreLowering>(
          converter, ctx);
  patterns.add<MmaLowering>(converter, ctx, syncState);
  ConversionTarget target(*ctx);
  scf::populateSCFStructuralTypeConversionsAndLegality(converter, patterns,
                                                       target);
  target.addIllegalOp<nvgpu::WarpgroupGenerateDescriptorOp,
                      nvgpu::WarpgroupMmaInitAccumulatorOp,
                      nvgpu::WarpgroupMmaOp, nvgpu::WarpgroupMmaStoreOp>();
  target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
  return applyPartialConversion(module, target, std::move(patterns));
}

/// Kernels take a tensor map as the pointer the runtime returns (a
/// symm_host_tensor_map); launches pass it so. Inside the kernel and in the
/// host code, casts keep the nvgpu type for the operations that use it, and
/// fold away once both sides are lowered.
void passTensorMapsAsPointers(ModuleOp root) {
  auto ptr = LLVM::LLVMPointerType::get(root.getContext());
  DenseMap<SymbolRefAttr, SmallVector<unsigned>> converted;
  for (auto module : root.getOps<gpu::GPUModuleOp>())
    for (auto func : module.getOps<gpu::GPUFuncOp>()) {
      if (!func.isKernel())
        continue;
      SmallVector<unsigned> args;
      Block &entry = func.getBody().front();
      OpBuilder b = OpBuilder::atBlockBegin(&entry);
      SmallVector<Type> inputs(func.getArgumentTypes());
      for (unsigned i = 0; i < func.getNumArguments(); ++i) {
        BlockArgument arg = func.getArgument(i);
        Type type = arg.getType();
        if (!isa<nvgpu::TensorMapDescriptorType>(type))
          continue;
        arg.setType(ptr);
        auto cast =
            UnrealizedConversionCastOp::create(b, func.getLoc(), type, arg);
        arg.replaceAllUsesExcept(cast.getResult(0), cast);
        inputs[i] = ptr;
        args.push_back(i);
      }
      if (args.empty())
        continue;
      func.setType(FunctionType::get(root.getContext(), inputs,
                                     func.getFunctionType().getResults()));
      converted[SymbolRefAttr::get(module.getNameAttr(),
                                   {SymbolRefAttr::get(func.getNameAttr())})] =
          args;
    }
  root.walk([&](gpu::LaunchFuncOp launch) {
    auto it = converted.find(launch.getKernel());
    if (it == converted.end())
      return;
    OpBuilder b(launch);
    MutableOperandRange operands = launch.getKernelOperandsMutable();
    for (unsigned i : it->second)
      operands[i].set(UnrealizedConversionCastOp::create(b, launch.getLoc(),
                                                         ptr, operands[i].get())
                          .getResult(0));
  });
}

struct SymmConvertNvgpuToHost
    : public symm::impl::SymmConvertNvgpuToHostBase<SymmConvertNvgpuToHost> {
  void runOnOperation() override {
    ModuleOp root = getOperation();
    for (auto module : root.getOps<gpu::GPUModuleOp>()) {
      if (module
              .walk([](Operation *op) {
                if (failed(checkOp(op)))
                  return WalkResult::interrupt();
                return WalkResult::advance();
              })
              .wasInterrupted())
        return signalPassFailure();
      for (auto func : module.getOps<gpu::GPUFuncOp>())
        if (failed(lowerBarriersAndTma(func)))
          return signalPassFailure();
      if (failed(lowerWarpgroupOps(module)))
        return signalPassFailure();
    }
    passTensorMapsAsPointers(root);
  }
};

} // namespace
