//===- Trace.cpp - Trace events in lowered code -----------------*- C++ -*-===//
//
// symm.trace.record on every target: the first lane of the subgroup reads
// the device's clock and appends the event to its slot of the trace buffer
// the runtime gave the module (symm/abi.h). The module's names (kernels and
// ranges) go into a string table the runtime reads back.
//
//===----------------------------------------------------------------------===//

#include "symm/Conversion/SymmToLLVM.h"
#include "symm/abi.h"

#include "mlir/Conversion/LLVMCommon/Pattern.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

#include <cstddef>
#include <set>

using namespace mlir;
using namespace mlir::symm;

#define SAME_KIND(name, abi)                                                   \
  static_assert(static_cast<int>(TraceEventKind::name) == abi,                 \
                "TraceEventKind::" #name " differs from symm/abi.h");
SAME_KIND(kernel_begin, SYMM_TRACE_KERNEL_BEGIN)
SAME_KIND(kernel_end, SYMM_TRACE_KERNEL_END)
SAME_KIND(range_begin, SYMM_TRACE_RANGE_BEGIN)
SAME_KIND(range_end, SYMM_TRACE_RANGE_END)
SAME_KIND(wait_begin, SYMM_TRACE_WAIT_BEGIN)
SAME_KIND(wait_end, SYMM_TRACE_WAIT_END)
SAME_KIND(signal, SYMM_TRACE_SIGNAL)
SAME_KIND(put_begin, SYMM_TRACE_PUT_BEGIN)
SAME_KIND(put_end, SYMM_TRACE_PUT_END)
SAME_KIND(get_begin, SYMM_TRACE_GET_BEGIN)
SAME_KIND(get_end, SYMM_TRACE_GET_END)
#undef SAME_KIND
// The recording stores an event as two 16-byte halves (below).
static_assert(sizeof(symm_trace_event) == 32 &&
                  offsetof(symm_trace_event, kind) == 8 &&
                  offsetof(symm_trace_event, subgroup) == 10 &&
                  offsetof(symm_trace_event, block) == 12 &&
                  offsetof(symm_trace_event, a) == 16 &&
                  offsetof(symm_trace_event, b) == 24,
              "symm_trace_event's layout differs from what Trace.cpp stores");

namespace {

/// symm_trace_buffer, fields in symm_trace_buffer_field order.
LLVM::LLVMStructType getTraceBufferType(MLIRContext *ctx) {
  Type i64 = IntegerType::get(ctx, 64), i32 = IntegerType::get(ctx, 32);
  Type fields[SYMM_TRACE_FIELD_COUNT];
  fields[SYMM_TRACE_FIELD_COUNTS] = i64;
  fields[SYMM_TRACE_FIELD_EVENTS] = i64;
  fields[SYMM_TRACE_FIELD_SLOTS] = i32;
  fields[SYMM_TRACE_FIELD_CAPACITY] = i32;
  fields[SYMM_TRACE_FIELD_MODULE] = i32;
  fields[SYMM_TRACE_FIELD_RESERVED] = i32;
  return LLVM::LLVMStructType::getLiteral(ctx, fields);
}

/// symm_trace_event, fields in symm_trace_event_field order.
LLVM::LLVMStructType getTraceEventType(MLIRContext *ctx) {
  Type i64 = IntegerType::get(ctx, 64), i32 = IntegerType::get(ctx, 32),
       i16 = IntegerType::get(ctx, 16);
  return LLVM::LLVMStructType::getLiteral(ctx, {i64, i16, i16, i32, i64, i64});
}

/// A global the runtime finds by name: defined here, not preemptible.
LLVM::GlobalOp createRuntimeGlobal(OpBuilder &b, Location loc, Type type,
                                   bool constant, StringRef name,
                                   Attribute value, unsigned addressSpace) {
  auto global = LLVM::GlobalOp::create(b, loc, type, constant,
                                       LLVM::Linkage::External, name, value,
                                       /*alignment=*/8, addressSpace);
  global.setDsoLocal(true);
  global.setVisibility_(LLVM::Visibility::Protected);
  return global;
}

/// The module's trace buffer global, zero until the runtime writes it.
Value getTraceBufferPtr(OpBuilder &b, Operation *op,
                        const SymmTargetInfo &target) {
  auto module = op->getParentOfType<gpu::GPUModuleOp>();
  auto global = dyn_cast_or_null<LLVM::GlobalOp>(
      SymbolTable::lookupSymbolIn(module, SYMM_TRACE_SYMBOL));
  if (!global) {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(module.getBody());
    Type type = getTraceBufferType(b.getContext());
    // Not constant, so that loads are not folded to the zero initialiser.
    global = createRuntimeGlobal(b, module.getLoc(), type, /*constant=*/false,
                                 SYMM_TRACE_SYMBOL, Attribute(),
                                 target.contextAddressSpace);
    b.setInsertionPointToStart(b.createBlock(&global.getInitializerRegion()));
    LLVM::ReturnOp::create(b, module.getLoc(),
                           LLVM::ZeroOp::create(b, module.getLoc(), type));
  }
  return LLVM::AddressOfOp::create(b, op->getLoc(), global);
}

/// Where the subgroup's first lane keeps whether its slot of the trace
/// buffer is full, and how many events it dropped since: 0 while there is
/// room, then 1 + the drops not yet added to the slot's count. A private
/// i64 set to 0 at the entry of the kernel `op` is in, which LLVM keeps in a
/// register.
Value getDropState(OpBuilder &b, Operation *op, const SymmTargetInfo &target) {
  constexpr StringLiteral kMarker = "symm_trace_drops";
  auto func = op->getParentOfType<FunctionOpInterface>();
  Block &entry = func.getFunctionBody().front();
  for (auto alloca : entry.getOps<LLVM::AllocaOp>())
    if (alloca->hasAttr(kMarker))
      return alloca;
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&entry);
  Location loc = func.getLoc();
  Type i64 = b.getI64Type();
  auto type =
      LLVM::LLVMPointerType::get(b.getContext(), target.gpuAddressSpaces[2]);
  Value one = LLVM::ConstantOp::create(b, loc, i64, 1);
  auto alloca = LLVM::AllocaOp::create(b, loc, type, i64, one,
                                       /*alignment=*/8);
  alloca->setAttr(kMarker, b.getUnitAttr());
  LLVM::StoreOp::create(b, loc, LLVM::ConstantOp::create(b, loc, i64, 0),
                        alloca);
  return alloca;
}

/// Where `name` starts in the name table (after its leading NUL).
int64_t nameOffset(gpu::GPUModuleOp module, StringRef name) {
  auto table = cast<LLVM::GlobalOp>(
      SymbolTable::lookupSymbolIn(module, SYMM_TRACE_NAMES_SYMBOL));
  StringRef text = cast<StringAttr>(*table.getValue()).getValue();
  std::string entry(1, '\0');
  entry += name.str() + '\0';
  size_t at = text.find(entry);
  assert(at != StringRef::npos && "name missing from the trace's table");
  return at + 1;
}

Value index(OpBuilder &b, Location loc, Value id) {
  return arith::IndexCastUIOp::create(b, loc, b.getI64Type(), id);
}

/// Linear id over x, y, z of `Id` within sizes `Dim`.
template <typename Id, typename Dim>
Value linearId(OpBuilder &b, Location loc) {
  auto id = [&](gpu::Dimension d) { return Id::create(b, loc, d); };
  auto dim = [&](gpu::Dimension d) { return Dim::create(b, loc, d); };
  Value yz = arith::AddIOp::create(
      b, loc, id(gpu::Dimension::y),
      arith::MulIOp::create(b, loc, dim(gpu::Dimension::y),
                            id(gpu::Dimension::z)));
  return arith::AddIOp::create(
      b, loc, id(gpu::Dimension::x),
      arith::MulIOp::create(b, loc, dim(gpu::Dimension::x), yz));
}

struct TraceRecordLowering : public ConvertOpToLLVMPattern<TraceRecordOp> {
  TraceRecordLowering(const LLVMTypeConverter &converter,
                      const SymmTargetInfo &target)
      : ConvertOpToLLVMPattern(converter), target(target) {}

  LogicalResult matchAndRewrite(TraceRecordOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &b) const override {
    if (!target.readClock)
      return op.emitOpError("has no clock to read on this target");
    Location loc = op.getLoc();
    MLIRContext *ctx = op.getContext();
    Type i64 = b.getI64Type(), i32 = b.getI32Type(), i16 = b.getI16Type();
    // The buffer is device memory.
    auto ptrType = LLVM::LLVMPointerType::get(ctx, target.gpuAddressSpaces[0]);
    auto bufferType = getTraceBufferType(ctx);
    Value buffer = getTraceBufferPtr(b, op, target);
    auto field = [&](int which, Type type) -> Value {
      Value at = LLVM::GEPOp::create(b, loc, buffer.getType(), bufferType,
                                     buffer, ArrayRef<LLVM::GEPArg>{0, which});
      // Written when the module is loaded, before any kernel runs.
      return LLVM::LoadOp::create(b, loc, type, at, /*alignment=*/0,
                                  /*isVolatile=*/false,
                                  /*isNonTemporal=*/false,
                                  /*isInvariant=*/true);
    };
    auto constant = [&](Type type, int64_t value) -> Value {
      return LLVM::ConstantOp::create(b, loc, type, value);
    };

    // The first lane records, when the runtime gave the module a buffer.
    Value counts = field(SYMM_TRACE_FIELD_COUNTS, i64);
    Value lane = index(b, loc, gpu::LaneIdOp::create(b, loc, IntegerAttr()));
    Value first = LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::eq, lane,
                                       constant(i64, 0));
    Value given = LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::ne, counts,
                                       constant(i64, 0));
    auto records = scf::IfOp::create(
        b, loc, LLVM::AndOp::create(b, loc, first, given), false);
    b.setInsertionPointToStart(records.thenBlock());

    Value subgroupSize =
        arith::ConstantIndexOp::create(b, loc, target.subgroupSize);
    Value thread = linearId<gpu::ThreadIdOp, gpu::BlockDimOp>(b, loc);
    Value subgroup = arith::DivUIOp::create(b, loc, thread, subgroupSize);
    Value threads = arith::MulIOp::create(
        b, loc, gpu::BlockDimOp::create(b, loc, gpu::Dimension::x),
        arith::MulIOp::create(
            b, loc, gpu::BlockDimOp::create(b, loc, gpu::Dimension::y),
            gpu::BlockDimOp::create(b, loc, gpu::Dimension::z)));
    Value perBlock = arith::CeilDivUIOp::create(b, loc, threads, subgroupSize);
    Value block = linearId<gpu::BlockIdOp, gpu::GridDimOp>(b, loc);
    Value slot = index(
        b, loc,
        arith::AddIOp::create(
            b, loc, arith::MulIOp::create(b, loc, block, perBlock), subgroup));
    Value slots =
        LLVM::ZExtOp::create(b, loc, i64, field(SYMM_TRACE_FIELD_SLOTS, i32));
    Value inSlots =
        LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::ult, slot, slots);
    // A slot past the last counts its events in counts[slots].
    Value counted = LLVM::SelectOp::create(b, loc, inSlots, slot, slots);
    Value countPtr = LLVM::GEPOp::create(
        b, loc, ptrType, i64, LLVM::IntToPtrOp::create(b, loc, ptrType, counts),
        ArrayRef<LLVM::GEPArg>{counted});
    auto count = [&](Value amount) {
      // Kernels on several streams may share slots; 64 bits never wrap.
      return LLVM::AtomicRMWOp::create(b, loc, LLVM::AtomicBinOp::add, countPtr,
                                       amount, LLVM::AtomicOrdering::monotonic,
                                       target.syncScope(MemoryScope::device),
                                       /*alignment=*/8);
    };
    // Once an event found no room, the subgroup counts the events it drops
    // in a register (no clock read, no memory access) and adds them to its
    // slot's count at the kernel's end.
    Value drops = getDropState(b, op, target);
    Value state = LLVM::LoadOp::create(b, loc, i64, drops);
    Value isFull = LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::ne, state,
                                        constant(i64, 0));
    auto full = scf::IfOp::create(b, loc, isFull, /*withElseRegion=*/true);
    b.setInsertionPointToStart(full.thenBlock());
    LLVM::StoreOp::create(
        b, loc, LLVM::AddOp::create(b, loc, state, constant(i64, 1)), drops);
    b.setInsertionPointToStart(full.elseBlock());
    Value time = target.readClock(b, loc);
    Value seq = count(constant(i64, 1));
    Value capacity = LLVM::ZExtOp::create(
        b, loc, i64, field(SYMM_TRACE_FIELD_CAPACITY, i32));
    Value fits =
        LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::ult, seq, capacity);
    auto writes =
        scf::IfOp::create(b, loc, LLVM::AndOp::create(b, loc, inSlots, fits),
                          /*withElseRegion=*/true);
    b.setInsertionPointToStart(writes.elseBlock());
    LLVM::StoreOp::create(b, loc, constant(i64, 1), drops); // counted
    if (op.getKind() == TraceEventKind::kernel_end) {
      b.setInsertionPointAfter(full);
      Value last = LLVM::LoadOp::create(b, loc, i64, drops);
      auto flush = scf::IfOp::create(
          b, loc,
          LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::ugt, last,
                               constant(i64, 1)),
          false);
      b.setInsertionPointToStart(flush.thenBlock());
      count(LLVM::SubOp::create(b, loc, last, constant(i64, 1)));
      LLVM::StoreOp::create(b, loc, constant(i64, 1), drops);
    }
    b.setInsertionPointToStart(writes.thenBlock());

    Value a, bArg;
    if (auto name = op.getName()) {
      // (module << 32) | offset in the module's name table.
      Value module = LLVM::ZExtOp::create(b, loc, i64,
                                          field(SYMM_TRACE_FIELD_MODULE, i32));
      a = LLVM::OrOp::create(
          b, loc, LLVM::ShlOp::create(b, loc, module, constant(i64, 32)),
          constant(i64,
                   nameOffset(op->getParentOfType<gpu::GPUModuleOp>(), *name)));
      bArg = adaptor.getArgs()[0];
    } else {
      a = adaptor.getArgs()[0];
      bArg = adaptor.getArgs()[1];
    }
    auto eventType = getTraceEventType(ctx);
    Value at = LLVM::AddOp::create(
        b, loc, LLVM::MulOp::create(b, loc, slot, capacity), seq);
    Value event = LLVM::GEPOp::create(
        b, loc, ptrType, eventType,
        LLVM::IntToPtrOp::create(b, loc, ptrType,
                                 field(SYMM_TRACE_FIELD_EVENTS, i64)),
        ArrayRef<LLVM::GEPArg>{at});
    // The event's 32 bytes as two 16-byte stores (the buffer and the
    // events are 16-byte aligned): the time and the kind, subgroup and
    // block packed as symm_trace_event lays them out (little-endian), then
    // the two arguments.
    auto shifted = [&](Value v, int64_t by) -> Value {
      Value wide = LLVM::ZExtOp::create(b, loc, i64, v);
      return by ? LLVM::ShlOp::create(b, loc, wide, constant(i64, by)) : wide;
    };
    Value ids = LLVM::OrOp::create(
        b, loc, constant(i64, static_cast<int64_t>(op.getKind())),
        LLVM::OrOp::create(
            b, loc,
            shifted(LLVM::TruncOp::create(b, loc, i16, index(b, loc, subgroup)),
                    16),
            shifted(LLVM::TruncOp::create(b, loc, i32, index(b, loc, block)),
                    32)));
    auto pairType = VectorType::get({2}, i64);
    auto storePair = [&](int first, Value lo, Value hi) {
      Value pair = LLVM::PoisonOp::create(b, loc, pairType);
      pair = LLVM::InsertElementOp::create(b, loc, pair, lo, constant(i32, 0));
      pair = LLVM::InsertElementOp::create(b, loc, pair, hi, constant(i32, 1));
      Value ptr = LLVM::GEPOp::create(b, loc, ptrType, eventType, event,
                                      ArrayRef<LLVM::GEPArg>{0, first});
      LLVM::StoreOp::create(b, loc, pair, ptr, /*alignment=*/16);
    };
    storePair(SYMM_TRACE_EVENT_TIME, time, ids);
    storePair(SYMM_TRACE_EVENT_A, a, bArg);
    b.eraseOp(op);
    return success();
  }

  const SymmTargetInfo &target;
};

} // namespace

void mlir::symm::createTraceNames(gpu::GPUModuleOp module,
                                  const SymmTargetInfo &target) {
  std::set<std::string> names;
  module.walk([&](TraceRecordOp op) {
    if (auto name = op.getName())
      names.insert(name->str());
  });
  if (names.empty())
    return;
  std::string table(1, '\0');
  for (const std::string &name : names)
    table += name + '\0';
  OpBuilder b = OpBuilder::atBlockBegin(module.getBody());
  createRuntimeGlobal(b, module.getLoc(),
                      LLVM::LLVMArrayType::get(b.getI8Type(), table.size()),
                      /*constant=*/true, SYMM_TRACE_NAMES_SYMBOL,
                      b.getStringAttr(table), target.contextAddressSpace);
}

void mlir::symm::populateSymmTraceToLLVMConversionPatterns(
    LLVMTypeConverter &converter, RewritePatternSet &patterns,
    const SymmTargetInfo &target) {
  patterns.add<TraceRecordLowering>(converter, target);
}
