//===- GPUToHost.cpp - Lower a gpu.module for the CPU target ----*- C++ -*-===//
//
// GPU operations become calls into the runtime's host backend, which runs
// every GPU thread as an OS thread; the rest lowers as for any CPU.
//
//===----------------------------------------------------------------------===//

#include "symm/Conversion/Passes.h"
#include "symm/Conversion/SymmToLLVM.h"
#include "symm/abi.h"

#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVM.h"
#include "mlir/Conversion/GPUCommon/GPUCommonPass.h"
#include "mlir/Conversion/IndexToLLVM/IndexToLLVM.h"
#include "mlir/Conversion/LLVMCommon/ConversionTarget.h"
#include "mlir/Conversion/LLVMCommon/MemRefBuilder.h"
#include "mlir/Conversion/LLVMCommon/Pattern.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Conversion/UBToLLVM/UBToLLVM.h"
#include "mlir/Conversion/VectorToLLVM/ConvertVectorToLLVM.h"
#include "mlir/Dialect/LLVMIR/FunctionCallUtils.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/DataLayoutInterfaces.h"

namespace mlir::symm {
#define GEN_PASS_DEF_SYMMCONVERTGPUTOHOST
#include "symm/Conversion/Passes.h.inc"
} // namespace mlir::symm

using namespace mlir;
using namespace mlir::symm;

namespace {

LLVM::LLVMFuncOp runtimeFunction(OpBuilder &b, Operation *op, StringRef name,
                                 ArrayRef<Type> args, Type result,
                                 bool isVarArg = false) {
  return getRuntimeFunction(b, op->getParentOfType<gpu::GPUModuleOp>(), name,
                            args, result, isVarArg);
}

Value callHostId(OpBuilder &b, Operation *op, symm_host_id which,
                 unsigned dim) {
  Location loc = op->getLoc();
  Type i32 = b.getI32Type(), i64 = b.getI64Type();
  auto fn = runtimeFunction(b, op, SYMM_HOST_ID_FN, {i32, i32}, i64);
  Value args[] = {
      LLVM::ConstantOp::create(b, loc, i32, static_cast<int32_t>(which)),
      LLVM::ConstantOp::create(b, loc, i32, dim)};
  return LLVM::CallOp::create(b, loc, fn, args).getResult();
}

template <typename OpT, symm_host_id Which>
struct IdLowering : public ConvertOpToLLVMPattern<OpT> {
  using ConvertOpToLLVMPattern<OpT>::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(OpT op, typename OpT::Adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    unsigned dim = 0;
    if constexpr (Which != SYMM_HOST_ID_LANE)
      dim = static_cast<unsigned>(op.getDimension());
    rewriter.replaceOp(op, callHostId(rewriter, op, Which, dim));
    return success();
  }
};

struct GlobalIdLowering : public ConvertOpToLLVMPattern<gpu::GlobalIdOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(gpu::GlobalIdOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    unsigned dim = static_cast<unsigned>(op.getDimension());
    Location loc = op.getLoc();
    Value block = callHostId(rewriter, op, SYMM_HOST_ID_BLOCK, dim);
    Value size = callHostId(rewriter, op, SYMM_HOST_ID_BLOCK_DIM, dim);
    Value thread = callHostId(rewriter, op, SYMM_HOST_ID_THREAD, dim);
    rewriter.replaceOpWithNewOp<LLVM::AddOp>(
        op, LLVM::MulOp::create(rewriter, loc, block, size), thread);
    return success();
  }
};

struct SubgroupSizeLowering
    : public ConvertOpToLLVMPattern<gpu::SubgroupSizeOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(gpu::SubgroupSizeOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<LLVM::ConstantOp>(op, rewriter.getI64Type(),
                                                  SYMM_HOST_SUBGROUP_SIZE);
    return success();
  }
};

struct BarrierLowering : public ConvertOpToLLVMPattern<gpu::BarrierOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(gpu::BarrierOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto fn = runtimeFunction(rewriter, op, SYMM_HOST_BARRIER_FN, {},
                              LLVM::LLVMVoidType::get(op.getContext()));
    rewriter.replaceOpWithNewOp<LLVM::CallOp>(op, fn, ValueRange{});
    return success();
  }
};

static_assert(
    static_cast<int>(gpu::ShuffleMode::XOR) == SYMM_HOST_SHUFFLE_XOR &&
        static_cast<int>(gpu::ShuffleMode::DOWN) == SYMM_HOST_SHUFFLE_DOWN &&
        static_cast<int>(gpu::ShuffleMode::UP) == SYMM_HOST_SHUFFLE_UP &&
        static_cast<int>(gpu::ShuffleMode::IDX) == SYMM_HOST_SHUFFLE_IDX,
    "gpu.shuffle modes are passed to the runtime as they are");

/// Moves the value through an i64, whatever its 64-bit-or-narrower type. The
/// runtime writes the valid bit into a stack slot made once in the entry
/// block: a slot made where the shuffle is would grow the stack on every
/// iteration of a loop around it.
struct ShuffleLowering : public ConvertOpToLLVMPattern<gpu::ShuffleOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(gpu::ShuffleOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type type = adaptor.getValue().getType();
    unsigned bits = type.getIntOrFloatBitWidth();
    Type i64 = rewriter.getI64Type(), i32 = rewriter.getI32Type();
    Type i8 = rewriter.getI8Type(), ptr = getPtrType();
    Type intType = rewriter.getIntegerType(bits);
    Value asInt = adaptor.getValue();
    if (type != intType)
      asInt = LLVM::BitcastOp::create(rewriter, loc, intType, asInt);
    if (bits < 64)
      asInt = LLVM::ZExtOp::create(rewriter, loc, i64, asInt);
    Value validSlot;
    {
      OpBuilder::InsertionGuard guard(rewriter);
      Block &entry =
          op->getParentOfType<FunctionOpInterface>().getFunctionBody().front();
      rewriter.setInsertionPointToStart(&entry);
      Value one = LLVM::ConstantOp::create(rewriter, loc, i64, 1);
      validSlot = LLVM::AllocaOp::create(rewriter, loc, ptr, i8, one);
    }
    auto fn = runtimeFunction(rewriter, op, SYMM_HOST_SHUFFLE_FN,
                              {i64, i32, i32, i32, ptr}, i64);
    Value mode = LLVM::ConstantOp::create(rewriter, loc, i32,
                                          static_cast<int>(op.getMode()));
    Value args[] = {asInt, adaptor.getOffset(), adaptor.getWidth(), mode,
                    validSlot};
    Value result = LLVM::CallOp::create(rewriter, loc, fn, args).getResult();
    if (bits < 64)
      result = LLVM::TruncOp::create(rewriter, loc, intType, result);
    if (type != intType)
      result = LLVM::BitcastOp::create(rewriter, loc, type, result);
    Value valid = LLVM::LoadOp::create(rewriter, loc, i8, validSlot);
    valid = LLVM::TruncOp::create(rewriter, loc, rewriter.getI1Type(), valid);
    rewriter.replaceOp(op, {result, valid});
    return success();
  }
};

struct PrintfLowering : public ConvertOpToLLVMPattern<gpu::PrintfOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(gpu::PrintfOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto module = op->getParentOfType<gpu::GPUModuleOp>();
    std::string format = op.getFormat().str();
    format.push_back('\0');
    std::string name;
    for (unsigned i = 0;; ++i) {
      name = "symm_printf_format_" + std::to_string(i);
      if (!SymbolTable::lookupSymbolIn(module, name))
        break;
    }
    auto arrayType =
        LLVM::LLVMArrayType::get(rewriter.getI8Type(), format.size());
    LLVM::GlobalOp global;
    {
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointToStart(module.getBody());
      global =
          LLVM::GlobalOp::create(rewriter, loc, arrayType,
                                 /*isConstant=*/true, LLVM::Linkage::Internal,
                                 name, rewriter.getStringAttr(format));
    }
    SmallVector<Value> args = {
        LLVM::AddressOfOp::create(rewriter, loc, global)};
    // C's default argument promotions for a variadic call.
    for (Value arg : adaptor.getArgs()) {
      Type type = arg.getType();
      if (isa<FloatType>(type) && type.getIntOrFloatBitWidth() < 64)
        arg = LLVM::FPExtOp::create(rewriter, loc, rewriter.getF64Type(), arg);
      else if (isa<IntegerType>(type) && type.getIntOrFloatBitWidth() < 32)
        arg = LLVM::SExtOp::create(rewriter, loc, rewriter.getI32Type(), arg);
      args.push_back(arg);
    }
    auto fn = runtimeFunction(rewriter, op, "printf", {getPtrType()},
                              rewriter.getI32Type(), /*isVarArg=*/true);
    LLVM::CallOp::create(rewriter, loc, fn, args);
    rewriter.eraseOp(op);
    return success();
  }
};

struct FuncLowering : public ConvertOpToLLVMPattern<gpu::GPUFuncOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(gpu::GPUFuncOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (op.getNumWorkgroupAttributions() || op.getNumPrivateAttributions())
      return rewriter.notifyMatchFailure(op, "attributions not lowered");
    FailureOr<LLVM::LLVMFuncOp> fn =
        convertFuncOpToLLVMFuncOp(cast<FunctionOpInterface>(op.getOperation()),
                                  rewriter, *getTypeConverter());
    if (failed(fn))
      return failure();
    // gpu.launch_func checks that its callee is still marked as a kernel.
    (*fn)->removeAttr("workgroup_attributions");
    if (op.isKernel())
      (*fn)->setAttr(gpu::GPUDialect::getKernelFuncAttrName(),
                     rewriter.getUnitAttr());
    rewriter.eraseOp(op);
    return success();
  }
};

struct ReturnLowering : public ConvertOpToLLVMPattern<gpu::ReturnOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(gpu::ReturnOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<LLVM::ReturnOp>(op, adaptor.getOperands());
    return success();
  }
};

/// A memref of `type` over `ptr`, as the descriptor cast back to the memref
/// type for the operations that are converted later.
Value memrefAt(OpBuilder &b, Location loc, const LLVMTypeConverter &converter,
               MemRefType type, Value ptr, Value dynamicSize = Value()) {
  Value desc;
  if (type.hasStaticShape()) {
    desc = MemRefDescriptor::fromStaticShape(b, loc, converter, type, ptr);
  } else {
    // memref<?xi8>: gpu.dynamic_shared_memory.
    auto d = MemRefDescriptor::poison(b, loc, converter.convertType(type));
    d.setAllocatedPtr(b, loc, ptr);
    d.setAlignedPtr(b, loc, ptr);
    d.setConstantOffset(b, loc, 0);
    d.setSize(b, loc, 0, dynamicSize);
    d.setConstantStride(b, loc, 0, 1);
    desc = d;
  }
  return UnrealizedConversionCastOp::create(b, loc, type, desc).getResult(0);
}

int64_t byteSize(MemRefType type) {
  int64_t elementBytes =
      type.getElementType().isIndex()
          ? 8
          : std::max<int64_t>(1, type.getElementTypeBitWidth() / 8);
  return type.getNumElements() * elementBytes;
}

/// Replaces workgroup and private attributions and gpu.dynamic_shared_memory
/// with memrefs over the block's workgroup memory and per-thread stack.
LogicalResult lowerMemory(gpu::GPUFuncOp func,
                          const LLVMTypeConverter &converter) {
  SmallVector<gpu::DynamicSharedMemoryOp> dynamic;
  func.walk([&](gpu::DynamicSharedMemoryOp op) { dynamic.push_back(op); });
  unsigned workgroup = func.getNumWorkgroupAttributions();
  unsigned priv = func.getNumPrivateAttributions();
  if (!workgroup && !priv && dynamic.empty())
    return success();
  Block &entry = func.getBody().front();
  OpBuilder b = OpBuilder::atBlockBegin(&entry);
  Location loc = func.getLoc();
  Type ptr = LLVM::LLVMPointerType::get(func.getContext());
  Type i64 = b.getI64Type(), i8 = b.getI8Type();

  SmallVector<int64_t> offsets;
  int64_t staticBytes = 0;
  for (BlockArgument arg : func.getWorkgroupAttributions()) {
    auto type = cast<MemRefType>(arg.getType());
    if (!type.hasStaticShape())
      return func.emitOpError("workgroup attributions need a static shape");
    staticBytes = (staticBytes + 15) & ~int64_t(15);
    offsets.push_back(staticBytes);
    staticBytes += byteSize(type);
  }
  staticBytes = (staticBytes + 15) & ~int64_t(15);
  Value base;
  if (workgroup || !dynamic.empty()) {
    auto fn = runtimeFunction(b, func, SYMM_HOST_SHARED_MEMORY_FN, {i64}, ptr);
    base = LLVM::CallOp::create(
               b, loc, fn,
               ValueRange{LLVM::ConstantOp::create(b, loc, i64, staticBytes)})
               .getResult();
  }
  for (auto [i, offset] : llvm::enumerate(offsets)) {
    BlockArgument arg = func.getWorkgroupAttributions()[i];
    Value at = LLVM::GEPOp::create(b, loc, ptr, i8, base,
                                   ArrayRef<LLVM::GEPArg>{offset});
    arg.replaceAllUsesWith(
        memrefAt(b, loc, converter, cast<MemRefType>(arg.getType()), at));
  }
  for (BlockArgument arg : func.getPrivateAttributions()) {
    auto type = cast<MemRefType>(arg.getType());
    if (!type.hasStaticShape())
      return func.emitOpError("private attributions need a static shape");
    Value bytes = LLVM::ConstantOp::create(b, loc, i64, byteSize(type));
    Value at = LLVM::AllocaOp::create(b, loc, ptr, i8, bytes, 16);
    arg.replaceAllUsesWith(memrefAt(b, loc, converter, type, at));
  }
  for (gpu::DynamicSharedMemoryOp op : dynamic) {
    OpBuilder ob(op);
    Value at = LLVM::GEPOp::create(ob, op.getLoc(), ptr, i8, base,
                                   ArrayRef<LLVM::GEPArg>{staticBytes});
    Value size = callHostId(ob, op, SYMM_HOST_ID_DYNAMIC_SHARED_BYTES, 0);
    op.replaceAllUsesWith(
        memrefAt(ob, op.getLoc(), converter, op.getType(), at, size));
    op.erase();
  }
  unsigned first = func.getFunctionType().getNumInputs();
  entry.eraseArguments(first, workgroup + priv);
  func->setAttr(gpu::GPUFuncOp::getNumWorkgroupAttributionsAttrName(),
                b.getI64IntegerAttr(0));
  return success();
}

/// The combining kind of an all_reduce operation.
vector::CombiningKind combiningKind(gpu::AllReduceOperation op) {
  switch (op) {
  case gpu::AllReduceOperation::ADD:
    return vector::CombiningKind::ADD;
  case gpu::AllReduceOperation::MUL:
    return vector::CombiningKind::MUL;
  case gpu::AllReduceOperation::MINUI:
    return vector::CombiningKind::MINUI;
  case gpu::AllReduceOperation::MINSI:
    return vector::CombiningKind::MINSI;
  case gpu::AllReduceOperation::MINNUMF:
    return vector::CombiningKind::MINNUMF;
  case gpu::AllReduceOperation::MAXUI:
    return vector::CombiningKind::MAXUI;
  case gpu::AllReduceOperation::MAXSI:
    return vector::CombiningKind::MAXSI;
  case gpu::AllReduceOperation::MAXNUMF:
    return vector::CombiningKind::MAXNUMF;
  case gpu::AllReduceOperation::AND:
    return vector::CombiningKind::AND;
  case gpu::AllReduceOperation::OR:
    return vector::CombiningKind::OR;
  case gpu::AllReduceOperation::XOR:
    return vector::CombiningKind::XOR;
  case gpu::AllReduceOperation::MINIMUMF:
    return vector::CombiningKind::MINIMUMF;
  case gpu::AllReduceOperation::MAXIMUMF:
    return vector::CombiningKind::MAXIMUMF;
  }
  llvm_unreachable("unknown all_reduce operation");
}

/// gpu.all_reduce over the block. Upstream's rewrite (what
/// convert-gpu-to-nvvm uses) lets only some lanes of a subgroup shuffle, which
/// GPUs allow and the CPU target, whose shuffles every lane of the subgroup
/// takes part in, does not. Here every lane shuffles: each subgroup reduces
/// its active lanes with xor shuffles (a lane whose partner is outside the
/// block keeps its value), lane 0 writes the subgroup's value to workgroup
/// memory, and after a barrier every thread combines the subgroups' values
/// itself; a second barrier lets the next all_reduce reuse the memory.
LogicalResult lowerAllReduce(gpu::GPUFuncOp func, gpu::AllReduceOp op) {
  if (!op.getUniform())
    return op.emitOpError("needs `uniform` on the CPU target (and on GPUs): "
                          "every thread of the block must reach it");
  Region &body = op.getBody();
  if (!body.empty() && !body.hasOneBlock())
    return op.emitOpError("with a region of several blocks has no lowering "
                          "for the CPU target; keep the combining region to "
                          "one block");
  Location loc = op.getLoc();
  Type type = op.getType();
  MLIRContext *ctx = op.getContext();
  auto workgroup = gpu::AddressSpaceAttr::get(
      ctx, gpu::GPUDialect::getWorkgroupAddressSpace());
  Value buffer = func.addWorkgroupAttribution(
      MemRefType::get({SYMM_HOST_ALL_REDUCE_MAX_SUBGROUPS}, type,
                      MemRefLayoutAttrInterface(), workgroup),
      loc);

  OpBuilder b(op);
  auto combine = [&](OpBuilder &b, Value lhs, Value rhs) -> Value {
    if (std::optional<gpu::AllReduceOperation> kind = op.getOp())
      return vector::makeArithReduction(b, loc, combiningKind(*kind), lhs, rhs);
    IRMapping map;
    map.map(body.getArgument(0), lhs);
    map.map(body.getArgument(1), rhs);
    for (Operation &inner : body.front().without_terminator())
      b.clone(inner, map);
    return map.lookup(body.front().getTerminator()->getOperand(0));
  };

  auto dim = [&](auto opType, gpu::Dimension d) -> Value {
    return decltype(opType)::create(b, loc, d);
  };
  Value tx = dim(gpu::ThreadIdOp(), gpu::Dimension::x);
  Value ty = dim(gpu::ThreadIdOp(), gpu::Dimension::y);
  Value tz = dim(gpu::ThreadIdOp(), gpu::Dimension::z);
  Value bx = dim(gpu::BlockDimOp(), gpu::Dimension::x);
  Value by = dim(gpu::BlockDimOp(), gpu::Dimension::y);
  Value bz = dim(gpu::BlockDimOp(), gpu::Dimension::z);
  // Linear thread id and block size, as the runtime numbers lanes.
  Value tid = arith::AddIOp::create(
      b, loc, tx,
      arith::MulIOp::create(
          b, loc, bx,
          arith::AddIOp::create(b, loc, ty,
                                arith::MulIOp::create(b, loc, by, tz))));
  Value size =
      arith::MulIOp::create(b, loc, arith::MulIOp::create(b, loc, bx, by), bz);
  Value c0 = arith::ConstantIndexOp::create(b, loc, 0);
  Value c1 = arith::ConstantIndexOp::create(b, loc, 1);
  Value lanes = arith::ConstantIndexOp::create(b, loc, SYMM_HOST_SUBGROUP_SIZE);
  Value lane = arith::RemUIOp::create(b, loc, tid, lanes);
  Value subgroup = arith::DivUIOp::create(b, loc, tid, lanes);
  Value subgroups = arith::CeilDivUIOp::create(b, loc, size, lanes);
  Value first = arith::SubIOp::create(b, loc, tid, lane);
  Value active = arith::MinUIOp::create(
      b, loc, arith::SubIOp::create(b, loc, size, first), lanes);
  Value width = arith::IndexCastOp::create(b, loc, b.getI32Type(), active);

  Value value = op.getValue();
  for (int offset = 1; offset < SYMM_HOST_SUBGROUP_SIZE; offset <<= 1) {
    Value o = arith::ConstantIntOp::create(b, loc, offset, 32);
    auto shuffle =
        gpu::ShuffleOp::create(b, loc, value, o, width, gpu::ShuffleMode::XOR);
    Value combined = combine(b, value, shuffle.getShuffleResult());
    value =
        arith::SelectOp::create(b, loc, shuffle.getValid(), combined, value);
  }
  Value isFirstLane =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, lane, c0);
  scf::IfOp::create(b, loc, isFirstLane, [&](OpBuilder &b, Location loc) {
    memref::StoreOp::create(b, loc, value, buffer, subgroup);
    scf::YieldOp::create(b, loc);
  });
  gpu::BarrierOp::create(b, loc);
  Value initial = memref::LoadOp::create(b, loc, buffer, c0);
  auto loop = scf::ForOp::create(
      b, loc, c1, subgroups, c1, ValueRange{initial},
      [&](OpBuilder &b, Location loc, Value i, ValueRange acc) {
        Value next = memref::LoadOp::create(b, loc, buffer, i);
        scf::YieldOp::create(b, loc, combine(b, acc[0], next));
      });
  gpu::BarrierOp::create(b, loc);
  op.replaceAllUsesWith(loop.getResult(0));
  op.erase();
  return success();
}

LogicalResult lowerAllReduces(gpu::GPUFuncOp func) {
  SmallVector<gpu::AllReduceOp> ops;
  func.walk([&](gpu::AllReduceOp op) { ops.push_back(op); });
  for (gpu::AllReduceOp op : ops)
    if (failed(lowerAllReduce(func, op)))
      return failure();
  return success();
}

/// `_symm_kernel_<name>(void **params)` calls the kernel with each parameter
/// loaded from params[i]; `_symm_kernel_<name>_params` holds the count and
/// each parameter's size, so the runtime can copy arguments at launch.
void addEntry(gpu::GPUModuleOp module, LLVM::LLVMFuncOp kernel) {
  OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
  Location loc = kernel.getLoc();
  MLIRContext *ctx = module.getContext();
  Type ptr = LLVM::LLVMPointerType::get(ctx);
  Type i64 = IntegerType::get(ctx, 64);
  std::string entryName = (SYMM_HOST_KERNEL_PREFIX + kernel.getName()).str();
  ArrayRef<Type> params = kernel.getFunctionType().getParams();

  DataLayout layout = DataLayout::closest(module);
  SmallVector<int64_t> sizes = {static_cast<int64_t>(params.size())};
  for (Type t : params)
    sizes.push_back(static_cast<int64_t>(layout.getTypeSize(t)));
  auto tableType = LLVM::LLVMArrayType::get(i64, sizes.size());
  LLVM::GlobalOp::create(
      b, loc, tableType, /*isConstant=*/true, LLVM::Linkage::External,
      entryName + SYMM_HOST_KERNEL_PARAMS_SUFFIX,
      DenseElementsAttr::get(
          RankedTensorType::get({static_cast<int64_t>(sizes.size())}, i64),
          ArrayRef<int64_t>(sizes)));

  auto entry = LLVM::LLVMFuncOp::create(
      b, loc, entryName,
      LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(ctx), {ptr}));
  Block *body = entry.addEntryBlock(b);
  b.setInsertionPointToStart(body);
  SmallVector<Value> args;
  for (auto [i, type] : llvm::enumerate(params)) {
    Value slot = LLVM::GEPOp::create(b, loc, ptr, ptr, body->getArgument(0),
                                     ArrayRef<LLVM::GEPArg>{int32_t(i)});
    Value at = LLVM::LoadOp::create(b, loc, ptr, slot);
    args.push_back(LLVM::LoadOp::create(b, loc, type, at));
  }
  LLVM::CallOp::create(b, loc, kernel, args);
  LLVM::ReturnOp::create(b, loc, ValueRange{});
}

struct SymmConvertGpuToHost
    : public symm::impl::SymmConvertGpuToHostBase<SymmConvertGpuToHost> {
  void runOnOperation() override {
    gpu::GPUModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    LLVMTypeConverter converter(ctx);
    populateGpuMemorySpaceAttributeConversions(
        converter, [](gpu::AddressSpace) -> unsigned { return 0; });

    SmallVector<std::string> kernels;
    for (auto func : module.getOps<gpu::GPUFuncOp>()) {
      if (func.isKernel())
        kernels.push_back(func.getName().str());
      if (failed(lowerAllReduces(func)) || failed(lowerMemory(func, converter)))
        return signalPassFailure();
    }

    RewritePatternSet patterns(ctx);
    patterns.add<IdLowering<gpu::ThreadIdOp, SYMM_HOST_ID_THREAD>,
                 IdLowering<gpu::BlockIdOp, SYMM_HOST_ID_BLOCK>,
                 IdLowering<gpu::BlockDimOp, SYMM_HOST_ID_BLOCK_DIM>,
                 IdLowering<gpu::GridDimOp, SYMM_HOST_ID_GRID_DIM>,
                 IdLowering<gpu::LaneIdOp, SYMM_HOST_ID_LANE>, GlobalIdLowering,
                 SubgroupSizeLowering, BarrierLowering, ShuffleLowering,
                 PrintfLowering, FuncLowering, ReturnLowering>(converter);
    arith::populateArithToLLVMConversionPatterns(converter, patterns);
    cf::populateControlFlowToLLVMConversionPatterns(converter, patterns);
    populateFinalizeMemRefToLLVMConversionPatterns(converter, patterns);
    populateVectorToLLVMConversionPatterns(converter, patterns);
    populateMathToLLVMConversionPatterns(converter, patterns);
    index::populateIndexToLLVMConversionPatterns(converter, patterns);
    populateFuncToLLVMConversionPatterns(converter, patterns);
    ub::populateUBToLLVMConversionPatterns(converter, patterns);
    // What lowerAllReduces builds.
    populateSCFToControlFlowConversionPatterns(patterns);

    LLVMConversionTarget target(*ctx);
    target.addLegalOp<UnrealizedConversionCastOp>();
    target.addLegalOp<gpu::GPUModuleOp>();
    target.addIllegalDialect<gpu::GPUDialect>();
    if (failed(applyPartialConversion(module, target, std::move(patterns))))
      return signalPassFailure();

    for (const std::string &name : kernels)
      if (auto fn = module.lookupSymbol<LLVM::LLVMFuncOp>(name))
        addEntry(module, fn);
    // The runtime reaches a module through its entries alone; every other
    // function it defines is internal. Exported, a kernel named like a C
    // library function bound its entry's call to that function: a kernel
    // `send`, not inlined into its entry under race checks, made the entry
    // call libc's send() with the kernel's arguments, which wrote into a
    // bootstrap socket and failed the next symm.barrier on 3 ranks with
    // "mismatched collective calls".
    for (auto fn : module.getOps<LLVM::LLVMFuncOp>())
      if (!fn.isExternal() &&
          !fn.getName().starts_with(SYMM_HOST_KERNEL_PREFIX))
        fn.setLinkage(LLVM::Linkage::Internal);
  }
};

} // namespace
