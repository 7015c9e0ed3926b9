//===- SymmToLLVM.cpp - Shared lowering of symm device ops ------*- C++ -*-===//

#include "symm/Conversion/SymmToLLVM.h"
#include "symm/Dialect/Symm/Transforms/Passes.h"
#include "symm/abi.h"

#include "mlir/Conversion/GPUCommon/GPUCommonPass.h"
#include "mlir/Conversion/LLVMCommon/MemRefBuilder.h"
#include "mlir/Conversion/LLVMCommon/Pattern.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/FunctionCallUtils.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/AttrTypeSubElements.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/xxhash.h"

using namespace mlir;
using namespace mlir::symm;

LLVM::AtomicOrdering mlir::symm::toLLVMOrdering(MemoryOrdering ordering) {
  switch (ordering) {
  case MemoryOrdering::relaxed:
    return LLVM::AtomicOrdering::monotonic;
  case MemoryOrdering::acquire:
    return LLVM::AtomicOrdering::acquire;
  case MemoryOrdering::release:
    return LLVM::AtomicOrdering::release;
  case MemoryOrdering::acq_rel:
    return LLVM::AtomicOrdering::acq_rel;
  case MemoryOrdering::seq_cst:
    return LLVM::AtomicOrdering::seq_cst;
  }
  llvm::report_fatal_error("unknown symm memory ordering");
}

LLVM::AtomicOrdering mlir::symm::failureOrdering(MemoryOrdering ordering) {
  switch (ordering) {
  case MemoryOrdering::release:
  case MemoryOrdering::relaxed:
    return LLVM::AtomicOrdering::monotonic;
  case MemoryOrdering::acquire:
  case MemoryOrdering::acq_rel:
    return LLVM::AtomicOrdering::acquire;
  case MemoryOrdering::seq_cst:
    return LLVM::AtomicOrdering::seq_cst;
  }
  llvm::report_fatal_error("unknown symm memory ordering");
}

Value mlir::symm::createCASLoop(
    OpBuilder &b, Location loc, Value ptr, Type intType, unsigned alignment,
    LLVM::AtomicOrdering success, LLVM::AtomicOrdering failure,
    StringRef syncScope, function_ref<Value(OpBuilder &, Value)> update) {
  Value initial = LLVM::LoadOp::create(
      b, loc, intType, ptr, alignment, /*isVolatile=*/false,
      /*isNonTemporal=*/false, /*isInvariant=*/false,
      /*isInvariantGroup=*/false, LLVM::AtomicOrdering::monotonic, syncScope);
  auto loop = scf::WhileOp::create(
      b, loc, TypeRange{intType}, ValueRange{initial},
      [&](OpBuilder &b, Location, ValueRange args) {
        Value current = args[0];
        auto cas = LLVM::AtomicCmpXchgOp::create(b, loc, ptr, current,
                                                 update(b, current), success,
                                                 failure, syncScope, alignment);
        Value seen = LLVM::ExtractValueOp::create(b, loc, cas, 0);
        Value swapped = LLVM::ExtractValueOp::create(b, loc, cas, 1);
        Value retry = LLVM::XOrOp::create(
            b, loc, swapped,
            LLVM::ConstantOp::create(b, loc, b.getI1Type(), 1));
        scf::ConditionOp::create(b, loc, retry, ValueRange{seen});
      },
      [&](OpBuilder &b, Location, ValueRange args) {
        scf::YieldOp::create(b, loc, args);
      });
  return loop.getResult(0);
}

LinePiece mlir::symm::locateLinePiece(OpBuilder &b, Location loc, Value ptr) {
  Type i64 = b.getI64Type();
  auto constant = [&](int64_t v) -> Value {
    return LLVM::ConstantOp::create(b, loc, i64, v);
  };
  Value addr = LLVM::PtrToIntOp::create(b, loc, i64, ptr);
  Value piece = LLVM::AndOp::create(
      b, loc, LLVM::LShrOp::create(b, loc, addr, constant(4)), constant(7));
  Value last =
      LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::eq, piece, constant(7));
  Value word1 = LLVM::GEPOp::create(b, loc, ptr.getType(), i64, ptr,
                                    ArrayRef<LLVM::GEPArg>{1});
  Value rest = LLVM::SubOp::create(b, loc, constant(7), piece);
  Value offset = LLVM::AddOp::create(
      b, loc, LLVM::ShlOp::create(b, loc, rest, constant(4)), constant(8));
  Value flagWord = LLVM::GEPOp::create(b, loc, ptr.getType(), b.getI8Type(),
                                       ptr, ArrayRef<LLVM::GEPArg>{offset});
  return {piece, last, word1, flagWord};
}

std::pair<Value, Value> mlir::symm::splitLinePiece(OpBuilder &b, Location loc,
                                                   Value piece) {
  Type i64 = b.getI64Type();
  auto word = [&](int64_t i) -> Value {
    return LLVM::ExtractElementOp::create(
        b, loc, piece, LLVM::ConstantOp::create(b, loc, i64, i));
  };
  return {word(0), word(1)};
}

Value mlir::symm::joinLinePiece(OpBuilder &b, Location loc, Value x0,
                                Value x1) {
  Type i64 = b.getI64Type();
  Value v = LLVM::PoisonOp::create(b, loc, VectorType::get({2}, i64));
  v = LLVM::InsertElementOp::create(b, loc, v, x0,
                                    LLVM::ConstantOp::create(b, loc, i64, 0));
  return LLVM::InsertElementOp::create(
      b, loc, v, x1, LLVM::ConstantOp::create(b, loc, i64, 1));
}

Value mlir::symm::combineAtomic(OpBuilder &b, Location loc, AtomicKind kind,
                                Value old, Value value) {
  switch (kind) {
  case AtomicKind::add:
    return LLVM::AddOp::create(b, loc, old, value);
  case AtomicKind::fadd:
    return LLVM::FAddOp::create(b, loc, old, value);
  case AtomicKind::sub:
    return LLVM::SubOp::create(b, loc, old, value);
  case AtomicKind::and_:
    return LLVM::AndOp::create(b, loc, old, value);
  case AtomicKind::or_:
    return LLVM::OrOp::create(b, loc, old, value);
  case AtomicKind::xor_:
    return LLVM::XOrOp::create(b, loc, old, value);
  case AtomicKind::max:
    return LLVM::SMaxOp::create(b, loc, old, value);
  case AtomicKind::min:
    return LLVM::SMinOp::create(b, loc, old, value);
  case AtomicKind::umax:
    return LLVM::UMaxOp::create(b, loc, old, value);
  case AtomicKind::umin:
    return LLVM::UMinOp::create(b, loc, old, value);
  case AtomicKind::fmax:
    return LLVM::MaxNumOp::create(b, loc, old, value);
  case AtomicKind::fmin:
    return LLVM::MinNumOp::create(b, loc, old, value);
  case AtomicKind::xchg:
    return value;
  }
  llvm_unreachable("unknown atomic kind");
}

Value mlir::symm::getStringConstant(OpBuilder &b, Location loc,
                                    Operation *symbols, StringRef text) {
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

std::string mlir::symm::describeLocation(Location loc, StringRef fallback) {
  std::string text = fallback.str();
  if (auto name = loc->findInstanceOf<NameLoc>())
    text = name.getName().str();
  if (auto file = loc->findInstanceOf<FileLineColLoc>())
    text += llvm::formatv(" at {0}:{1}:{2}", file.getFilename().getValue(),
                          file.getLine(), file.getColumn())
                .str();
  return text;
}

LLVM::LLVMFuncOp mlir::symm::getRuntimeFunction(OpBuilder &b,
                                                Operation *symbolTable,
                                                StringRef name,
                                                ArrayRef<Type> args,
                                                Type result, bool isVarArg) {
  FailureOr<LLVM::LLVMFuncOp> fn =
      LLVM::lookupOrCreateFn(b, symbolTable, name, args, result, isVarArg);
  if (failed(fn))
    llvm::report_fatal_error(Twine("runtime function '") + name +
                             "' is already declared with another type");
  return *fn;
}

static LLVM::AtomicBinOp toLLVMBinOp(AtomicKind kind) {
  switch (kind) {
  case AtomicKind::add:
    return LLVM::AtomicBinOp::add;
  case AtomicKind::fadd:
    return LLVM::AtomicBinOp::fadd;
  case AtomicKind::sub:
    return LLVM::AtomicBinOp::sub;
  case AtomicKind::and_:
    return LLVM::AtomicBinOp::_and;
  case AtomicKind::or_:
    return LLVM::AtomicBinOp::_or;
  case AtomicKind::xor_:
    return LLVM::AtomicBinOp::_xor;
  case AtomicKind::max:
    return LLVM::AtomicBinOp::max;
  case AtomicKind::min:
    return LLVM::AtomicBinOp::min;
  case AtomicKind::umax:
    return LLVM::AtomicBinOp::umax;
  case AtomicKind::umin:
    return LLVM::AtomicBinOp::umin;
  case AtomicKind::fmax:
    return LLVM::AtomicBinOp::fmax;
  case AtomicKind::fmin:
    return LLVM::AtomicBinOp::fmin;
  case AtomicKind::xchg:
    return LLVM::AtomicBinOp::xchg;
  }
  llvm::report_fatal_error("unknown symm atomic kind");
}

void mlir::symm::sizeDynamicSharedMemory(
    ModuleOp module, llvm::function_ref<Value(OpBuilder &, Location)> bytes) {
  SmallVector<gpu::DynamicSharedMemoryOp> ops;
  module.walk([&](gpu::DynamicSharedMemoryOp op) { ops.push_back(op); });
  for (gpu::DynamicSharedMemoryOp op : ops) {
    OpBuilder b(op);
    b.setInsertionPointAfter(op);
    Location loc = op.getLoc();
    Value size =
        arith::IndexCastUIOp::create(b, loc, b.getIndexType(), bytes(b, loc));
    auto sized = memref::ReinterpretCastOp::create(
        b, loc, op.getType(), op.getResult(),
        /*offset=*/OpFoldResult(b.getIndexAttr(0)),
        /*sizes=*/ArrayRef<OpFoldResult>{size},
        /*strides=*/ArrayRef<OpFoldResult>{b.getIndexAttr(1)});
    op.getResult().replaceAllUsesExcept(sized.getResult(), sized);
  }
}

namespace {

/// Base of the symm patterns: access to the target decisions and the kernel
/// context.
template <typename OpT>
struct SymmPattern : public ConvertOpToLLVMPattern<OpT> {
  SymmPattern(const LLVMTypeConverter &converter, const SymmTargetInfo &target)
      : ConvertOpToLLVMPattern<OpT>(converter), target(target) {}

  /// Loads field `path` of the kernel context.
  Value loadContext(ConversionPatternRewriter &rewriter, Operation *op,
                    ArrayRef<LLVM::GEPArg> path, Type type) const {
    return loadKernelContextField(rewriter, op, target, path, type);
  }

  /// Address of element `indices` of the memref descriptor `memref`.
  Value elementPtr(ConversionPatternRewriter &rewriter, Location loc,
                   MemRefType type, Value memref, ValueRange indices) const {
    return this->getStridedElementPtr(rewriter, loc, type, memref, indices);
  }

  const SymmTargetInfo &target;
};

template <typename OpT, int Field>
struct ContextFieldLowering : public SymmPattern<OpT> {
  using SymmPattern<OpT>::SymmPattern;
  LogicalResult
  matchAndRewrite(OpT op, typename OpT::Adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(
        op, this->loadContext(rewriter, op, {Field}, rewriter.getI32Type()));
    return success();
  }
};

/// remote(p, peer) = heap_bases[peer] + (p - heap_bases[rank]), applied to the
/// allocated and aligned pointers of the descriptor; sizes, strides and offset
/// are untouched.
struct TranslateLowering : public SymmPattern<TranslateOp> {
  using SymmPattern::SymmPattern;
  LogicalResult
  matchAndRewrite(TranslateOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type i64 = rewriter.getI64Type();
    Value rank = loadContext(rewriter, op, {SYMM_CONTEXT_FIELD_RANK},
                             rewriter.getI32Type());
    if (target.reportPeerOutOfRange) {
      Value size = loadContext(rewriter, op, {SYMM_CONTEXT_FIELD_WORLD_SIZE},
                               rewriter.getI32Type());
      // Unsigned, so that a negative peer is out of range too.
      Value outside = LLVM::ICmpOp::create(
          rewriter, loc, LLVM::ICmpPredicate::uge, adaptor.getPeer(), size);
      auto branch = scf::IfOp::create(rewriter, loc, outside,
                                      /*withElseRegion=*/false);
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointToStart(branch.thenBlock());
      // translate-to-heap-base names the operation a translation is for.
      target.reportPeerOutOfRange(
          rewriter, loc, describeLocation(loc, TranslateOp::getOperationName()),
          rank, adaptor.getPeer(), size);
    }
    Value mine =
        loadContext(rewriter, op, {SYMM_CONTEXT_FIELD_HEAP_BASES, rank}, i64);
    Value theirs = loadContext(
        rewriter, op, {SYMM_CONTEXT_FIELD_HEAP_BASES, adaptor.getPeer()}, i64);
    Value delta = LLVM::SubOp::create(rewriter, loc, theirs, mine);
    MemRefDescriptor desc(adaptor.getMemref());
    auto rebase = [&](Value ptr) -> Value {
      return LLVM::GEPOp::create(rewriter, loc, ptr.getType(),
                                 rewriter.getI8Type(), ptr,
                                 ArrayRef<LLVM::GEPArg>{delta});
    };
    desc.setAllocatedPtr(rewriter, loc,
                         rebase(desc.allocatedPtr(rewriter, loc)));
    desc.setAlignedPtr(rewriter, loc, rebase(desc.alignedPtr(rewriter, loc)));
    rewriter.replaceOp(op, {desc});
    return success();
  }
};

/// Natural alignment of an atomic access of `type`.
static unsigned atomicAlignment(Type type) {
  return std::max<unsigned>(1, type.getIntOrFloatBitWidth() / 8);
}

struct LoadLowering : public SymmPattern<LoadOp> {
  using SymmPattern::SymmPattern;
  LogicalResult
  matchAndRewrite(LoadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!op.getOrdering() || op.getPeer())
      return rewriter.notifyMatchFailure(
          op, "plain and peer loads are lowered by translate-to-heap-base");
    Type type = typeConverter->convertType(op.getType());
    Value ptr = elementPtr(rewriter, op.getLoc(), op.getMemRefType(),
                           adaptor.getMemref(), adaptor.getIndices());
    rewriter.replaceOpWithNewOp<LLVM::LoadOp>(
        op, type, ptr, atomicAlignment(type), /*isVolatile=*/false,
        /*isNonTemporal=*/false, /*isInvariant=*/false,
        /*isInvariantGroup=*/false, toLLVMOrdering(*op.getOrdering()),
        target.syncScope(*op.getScope()));
    return success();
  }
};

struct StoreLowering : public SymmPattern<StoreOp> {
  using SymmPattern::SymmPattern;
  LogicalResult
  matchAndRewrite(StoreOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!op.getOrdering() || op.getPeer())
      return rewriter.notifyMatchFailure(
          op, "plain and peer stores are lowered by translate-to-heap-base");
    Value ptr = elementPtr(rewriter, op.getLoc(), op.getMemRefType(),
                           adaptor.getMemref(), adaptor.getIndices());
    rewriter.replaceOpWithNewOp<LLVM::StoreOp>(
        op, adaptor.getValue(), ptr,
        atomicAlignment(adaptor.getValue().getType()), /*isVolatile=*/false,
        /*isNonTemporal=*/false, /*isInvariantGroup=*/false,
        toLLVMOrdering(*op.getOrdering()), target.syncScope(*op.getScope()));
    return success();
  }
};

struct AtomicRMWLowering : public SymmPattern<AtomicRMWOp> {
  using SymmPattern::SymmPattern;
  LogicalResult
  matchAndRewrite(AtomicRMWOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (op.getPeer())
      return rewriter.notifyMatchFailure(
          op, "peer atomics are lowered by translate-to-heap-base");
    Value ptr = elementPtr(rewriter, op.getLoc(), op.getMemRefType(),
                           adaptor.getMemref(), adaptor.getIndices());
    if (target.lowerAtomicRMW) {
      FailureOr<Value> custom =
          target.lowerAtomicRMW(rewriter, op, ptr, adaptor.getValue());
      if (failed(custom))
        return failure();
      if (*custom) {
        rewriter.replaceOp(op, *custom);
        return success();
      }
    }
    rewriter.replaceOpWithNewOp<LLVM::AtomicRMWOp>(
        op, toLLVMBinOp(op.getKind()), ptr, adaptor.getValue(),
        toLLVMOrdering(op.getOrdering()), target.syncScope(op.getScope()),
        atomicAlignment(adaptor.getValue().getType()));
    return success();
  }
};

struct AtomicCASLowering : public SymmPattern<AtomicCASOp> {
  using SymmPattern::SymmPattern;
  LogicalResult
  matchAndRewrite(AtomicCASOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (op.getPeer())
      return rewriter.notifyMatchFailure(
          op, "peer atomics are lowered by translate-to-heap-base");
    Location loc = op.getLoc();
    Value ptr = elementPtr(rewriter, loc, op.getMemRefType(),
                           adaptor.getMemref(), adaptor.getIndices());
    auto cas = LLVM::AtomicCmpXchgOp::create(
        rewriter, loc, ptr, adaptor.getExpected(), adaptor.getDesired(),
        toLLVMOrdering(op.getOrdering()), failureOrdering(op.getOrdering()),
        target.syncScope(op.getScope()),
        atomicAlignment(adaptor.getExpected().getType()));
    rewriter.replaceOpWithNewOp<LLVM::ExtractValueOp>(op, cas, 0);
    return success();
  }
};

struct FenceLowering : public SymmPattern<FenceOp> {
  using SymmPattern::SymmPattern;
  LogicalResult
  matchAndRewrite(FenceOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<LLVM::FenceOp>(
        op, toLLVMOrdering(op.getOrdering()), target.syncScope(op.getScope()));
    return success();
  }
};

struct ReleaseBarrierLowering : public SymmPattern<ReleaseBarrierOp> {
  using SymmPattern::SymmPattern;
  LogicalResult
  matchAndRewrite(ReleaseBarrierOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (target.fenceBeforeReleaseBarrier)
      LLVM::FenceOp::create(rewriter, op.getLoc(),
                            LLVM::AtomicOrdering::release,
                            target.syncScope(op.getScope()));
    rewriter.replaceOpWithNewOp<gpu::BarrierOp>(op);
    return success();
  }
};

/// The portable lowering of the line operations (see symm.line_store):
/// pieces move in relaxed atomics, and the line's flag word counts its pieces
/// (16 * flag + pieces) with release read-modify-writes, so that an acquire
/// load that finds all eight under the flag sees every piece.
namespace line {

constexpr unsigned kWordBytes = 8;

Value constant(OpBuilder &b, Location loc, Type type, int64_t value) {
  return LLVM::ConstantOp::create(b, loc, type, b.getIntegerAttr(type, value));
}

void storeRelaxed(OpBuilder &b, Location loc, Value value, Value ptr,
                  StringRef scope) {
  LLVM::StoreOp::create(b, loc, value, ptr, kWordBytes, /*isVolatile=*/false,
                        /*isNonTemporal=*/false, /*isInvariantGroup=*/false,
                        LLVM::AtomicOrdering::monotonic, scope);
}

Value load(OpBuilder &b, Location loc, Value ptr, LLVM::AtomicOrdering order,
           StringRef scope) {
  return LLVM::LoadOp::create(b, loc, b.getI64Type(), ptr, kWordBytes,
                              /*isVolatile=*/false, /*isNonTemporal=*/false,
                              /*isInvariant=*/false,
                              /*isInvariantGroup=*/false, order, scope);
}

} // namespace line

struct LineStoreLowering : public SymmPattern<LineStoreOp> {
  using SymmPattern::SymmPattern;
  LogicalResult
  matchAndRewrite(LineStoreOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (op.getPeer())
      return rewriter.notifyMatchFailure(
          op, "peer lines are lowered by translate-to-heap-base");
    Location loc = op.getLoc();
    Value ptr = elementPtr(rewriter, loc, op.getMemRefType(),
                           adaptor.getMemref(), adaptor.getIndices());
    if (target.storeLinePiece) {
      target.storeLinePiece(rewriter, loc, ptr, adaptor.getValue(),
                            adaptor.getFlag());
      rewriter.eraseOp(op);
      return success();
    }
    Type i64 = rewriter.getI64Type();
    StringRef scope =
        target.lineSyncScope.value_or(target.syncScope(MemoryScope::system));
    LinePiece at = locateLinePiece(rewriter, loc, ptr);
    auto [x0, x1] = splitLinePiece(rewriter, loc, adaptor.getValue());
    line::storeRelaxed(rewriter, loc, x0, ptr, scope);
    // Piece 7's second word is the flag word.
    auto branch = scf::IfOp::create(rewriter, loc, at.last, /*withElse=*/true);
    {
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointToStart(branch.elseBlock());
      line::storeRelaxed(rewriter, loc, x1, at.word1, scope);
    }
    Value sixteen = line::constant(rewriter, loc, i64, 16);
    Value tagged =
        LLVM::MulOp::create(rewriter, loc, adaptor.getFlag(), sixteen);
    Value one = line::constant(rewriter, loc, i64, 1);
    Value first = LLVM::AddOp::create(rewriter, loc, tagged, one);
    createCASLoop(
        rewriter, loc, at.flagWord, i64, line::kWordBytes,
        LLVM::AtomicOrdering::release, LLVM::AtomicOrdering::monotonic, scope,
        [&](OpBuilder &b, Value current) -> Value {
          Value under = LLVM::LShrOp::create(b, loc, current,
                                             line::constant(b, loc, i64, 4));
          Value same = LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::eq,
                                            under, adaptor.getFlag());
          Value next = LLVM::AddOp::create(b, loc, current, one);
          return LLVM::SelectOp::create(b, loc, same, next, first);
        });
    rewriter.eraseOp(op);
    return success();
  }
};

struct LineLoadLowering : public SymmPattern<LineLoadOp> {
  using SymmPattern::SymmPattern;
  LogicalResult
  matchAndRewrite(LineLoadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (op.getPeer())
      return rewriter.notifyMatchFailure(
          op, "peer lines are lowered by translate-to-heap-base");
    Location loc = op.getLoc();
    Value ptr = elementPtr(rewriter, loc, op.getMemRefType(),
                           adaptor.getMemref(), adaptor.getIndices());
    if (target.loadLinePiece) {
      auto [value, ready] =
          target.loadLinePiece(rewriter, loc, ptr, adaptor.getFlag());
      rewriter.replaceOp(op, {value, ready});
      return success();
    }
    Type i64 = rewriter.getI64Type();
    StringRef scope =
        target.lineSyncScope.value_or(target.syncScope(MemoryScope::system));
    LinePiece at = locateLinePiece(rewriter, loc, ptr);
    Value seen = line::load(rewriter, loc, at.flagWord,
                            LLVM::AtomicOrdering::acquire, scope);
    Value full = LLVM::AddOp::create(
        rewriter, loc,
        LLVM::MulOp::create(rewriter, loc, adaptor.getFlag(),
                            line::constant(rewriter, loc, i64, 16)),
        line::constant(rewriter, loc, i64, 8));
    Value ready = LLVM::ICmpOp::create(rewriter, loc, LLVM::ICmpPredicate::eq,
                                       seen, full);
    Value x0 =
        line::load(rewriter, loc, ptr, LLVM::AtomicOrdering::monotonic, scope);
    Value x1 = line::load(rewriter, loc, at.word1,
                          LLVM::AtomicOrdering::monotonic, scope);
    rewriter.replaceOp(op, {joinLinePiece(rewriter, loc, x0, x1), ready});
    return success();
  }
};

struct BackoffLowering : public SymmPattern<BackoffOp> {
  using SymmPattern::SymmPattern;
  LogicalResult
  matchAndRewrite(BackoffOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (target.emitBackoff)
      target.emitBackoff(rewriter, op.getLoc(), op.getNs());
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void mlir::symm::populateSymmToLLVMConversionPatterns(
    LLVMTypeConverter &converter, RewritePatternSet &patterns,
    const SymmTargetInfo &target) {
  patterns
      .add<ContextFieldLowering<RankOp, SYMM_CONTEXT_FIELD_RANK>,
           ContextFieldLowering<WorldSizeOp, SYMM_CONTEXT_FIELD_WORLD_SIZE>,
           TranslateLowering, LoadLowering, StoreLowering, AtomicRMWLowering,
           AtomicCASLowering, FenceLowering, ReleaseBarrierLowering,
           BackoffLowering, LineStoreLowering, LineLoadLowering>(converter,
                                                                 target);
}

void mlir::symm::replaceHeapMemorySpace(Operation *root,
                                        unsigned addressSpace) {
  AttrTypeReplacer replacer;
  MLIRContext *ctx = root->getContext();
  Attribute space =
      addressSpace == 0
          ? Attribute()
          : IntegerAttr::get(IntegerType::get(ctx, 64), addressSpace);
  replacer.addReplacement([&](MemRefType type) -> std::optional<Type> {
    if (!isa_and_nonnull<HeapAttr>(type.getMemorySpace()))
      return std::nullopt;
    return MemRefType::get(type.getShape(), type.getElementType(),
                           type.getLayout(), space);
  });
  replacer.addReplacement([&](UnrankedMemRefType type) -> std::optional<Type> {
    if (!isa_and_nonnull<HeapAttr>(type.getMemorySpace()))
      return std::nullopt;
    return UnrankedMemRefType::get(type.getElementType(), space);
  });
  replacer.recursivelyReplaceElementsIn(root, /*replaceAttrs=*/true,
                                        /*replaceLocs=*/false,
                                        /*replaceTypes=*/true);
}

/// The entry of every kernel marked `symm.early_launch`, or the attribute
/// dropped where the target has no early launch.
static void lowerEarlyLaunch(gpu::GPUModuleOp gpuModule,
                             const SymmTargetInfo &target) {
  gpuModule.walk([&](gpu::GPUFuncOp func) {
    if (!func->hasAttr(kEarlyLaunchAttrName))
      return;
    if (!target.emitEarlyLaunchEntry) {
      func->removeAttr(kEarlyLaunchAttrName);
      return;
    }
    OpBuilder b = OpBuilder::atBlockBegin(&func.getBody().front());
    target.emitEarlyLaunchEntry(b, func.getLoc());
  });
}

LogicalResult mlir::symm::lowerSymmDeviceCode(gpu::GPUModuleOp gpuModule,
                                              const SymmTargetInfo &target) {
  MLIRContext *ctx = gpuModule.getContext();
  LowerToLLVMOptions options(ctx);
  LLVMTypeConverter converter(ctx, options);
  unsigned heap = target.heapAddressSpace;
  converter.addTypeAttributeConversion(
      [heap](BaseMemRefType, HeapAttr attr) -> Attribute {
        return IntegerAttr::get(IntegerType::get(attr.getContext(), 64), heap);
      });
  std::array<unsigned, 3> spaces = target.gpuAddressSpaces;
  populateGpuMemorySpaceAttributeConversions(
      converter, [spaces](gpu::AddressSpace space) -> unsigned {
        switch (space) {
        case gpu::AddressSpace::Global:
          return spaces[0];
        case gpu::AddressSpace::Workgroup:
          return spaces[1];
        case gpu::AddressSpace::Private:
          return spaces[2];
        }
        llvm_unreachable("unknown GPU address space");
      });

  lowerEarlyLaunch(gpuModule, target);
  createTraceNames(gpuModule, target);
  RewritePatternSet patterns(ctx);
  populateSymmToLLVMConversionPatterns(converter, patterns, target);
  populateSymmTraceToLLVMConversionPatterns(converter, patterns, target);
  ConversionTarget legality(*ctx);
  legality.addIllegalDialect<SymmDialect>();
  legality.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
  if (failed(applyPartialConversion(gpuModule, legality, std::move(patterns))))
    return failure();
  // Kernel signatures keep heap memrefs in the default memory space, which is
  // how host code holds them and what gpu.launch_func checks against; the
  // body casts them into the heap's address space.
  if (heap != 0) {
    gpuModule.walk([&](gpu::GPUFuncOp func) {
      Block &entry = func.getBody().front();
      OpBuilder b = OpBuilder::atBlockBegin(&entry);
      SmallVector<Type> inputs;
      // Workgroup and private attributions follow the inputs.
      unsigned numInputs = func.getFunctionType().getNumInputs();
      for (BlockArgument arg : entry.getArguments().take_front(numInputs)) {
        auto type = dyn_cast<MemRefType>(arg.getType());
        if (!type || !isa_and_nonnull<HeapAttr>(type.getMemorySpace())) {
          inputs.push_back(arg.getType());
          continue;
        }
        auto generic = MemRefType::get(type.getShape(), type.getElementType(),
                                       type.getLayout(), Attribute());
        arg.setType(generic);
        auto cast =
            memref::MemorySpaceCastOp::create(b, arg.getLoc(), type, arg);
        arg.replaceAllUsesExcept(cast, cast);
        inputs.push_back(generic);
      }
      func.setFunctionType(FunctionType::get(
          func.getContext(), inputs, func.getFunctionType().getResults()));
    });
  }
  replaceHeapMemorySpace(gpuModule, heap);
  return success();
}

LogicalResult mlir::symm::lowerSymmProgram(ModuleOp module,
                                           const SymmTargetInfo &target) {
  for (auto gpuModule : module.getOps<gpu::GPUModuleOp>())
    if (failed(lowerSymmDeviceCode(gpuModule, target)))
      return failure();
  return lowerSymmHostCode(module);
}

void mlir::symm::addCastBridgedConversions(TypeConverter &converter) {
  converter.addConversion([](Type type) { return type; });
  auto materialize = [](OpBuilder &b, Type type, ValueRange inputs,
                        Location loc) -> Value {
    return UnrealizedConversionCastOp::create(b, loc, type, inputs)
        .getResult(0);
  };
  converter.addSourceMaterialization(materialize);
  converter.addTargetMaterialization(materialize);
}
