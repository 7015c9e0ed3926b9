//===- SymmToNVSHMEM.cpp - Remote accesses through NVSHMEM -----*- C++ -*-===//
//
// After translate-to-heap-base every remote access, whatever op it came from
// (put, get, copy, peer load or store, signal, wait, atomic), is an access to
// a view of a `symm.translate` result. This pass gives such accesses a path
// through NVSHMEM's device API, for peers whose heap this GPU cannot map
// (another node): the call takes this rank's address of the same element,
// which the view rebuilt on the translation's source gives, and the peer.
// The calls stay unresolved until the nvshmem backend links the module.
//
//===----------------------------------------------------------------------===//

#include "symm/Conversion/Passes.h"
#include "symm/Conversion/SymmToLLVM.h"
#include "symm/Dialect/Symm/IR/SymmUtils.h"
#include "symm/nvshmem.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/TypeSwitch.h"

namespace mlir::symm {
#define GEN_PASS_DEF_SYMMREMOTETONVSHMEM
#include "symm/Conversion/Passes.h.inc"
} // namespace mlir::symm

using namespace mlir;
using namespace mlir::symm;

namespace {

bool releases(MemoryOrdering ordering) {
  return ordering == MemoryOrdering::release ||
         ordering == MemoryOrdering::acq_rel ||
         ordering == MemoryOrdering::seq_cst;
}

bool acquires(MemoryOrdering ordering) {
  return ordering == MemoryOrdering::acquire ||
         ordering == MemoryOrdering::acq_rel ||
         ordering == MemoryOrdering::seq_cst;
}

/// The translation `memref` is a view of, with the views between them
/// (outermost first), or null.
TranslateOp findTranslation(Value memref, SmallVectorImpl<Operation *> &views) {
  while (Operation *def = memref.getDefiningOp()) {
    if (auto translate = dyn_cast<TranslateOp>(def))
      return translate;
    auto view = dyn_cast<ViewLikeOpInterface>(def);
    if (!view || view.getViewSource() == memref)
      return {};
    views.push_back(def);
    memref = view.getViewSource();
  }
  return {};
}

/// Builds the NVSHMEM form of one remote access at the builder's insertion
/// point.
class Lowering {
public:
  Lowering(OpBuilder &b, Location loc, Operation *symbolTable, Value peer)
      : b(b), loc(loc), symbolTable(symbolTable), peer(peer) {}

  /// The generic address of element `indices` of `memref`.
  Value address(Value memref, ValueRange indices);

  /// Reads (writes) `type` at `ptr` on the peer in pieces of `pieceBits`.
  Value get(Type type, Value ptr, unsigned pieceBits);
  void put(Value value, Value ptr, unsigned pieceBits);

  /// Ordered accesses and read-modify-writes (32 or 64 bits).
  Value fetch(Type type, Value ptr);
  void set(Value value, Value ptr);
  FailureOr<Value> readModifyWrite(AtomicRMWOp op, Value ptr, Value value);
  Value compareSwap(Value ptr, Value expected, Value desired);

  /// What release ordering at `scope` needs on this path: the fence, then
  /// every NVSHMEM operation of this thread complete.
  void release(MemoryScope scope);
  void acquire(MemoryScope scope);

  Value call(StringRef name, ArrayRef<Value> args, Type result = {});

  /// A line's piece (symm.line_store / symm.line_load) through NVSHMEM, in
  /// the encoding the NVIDIA lowering reads (the flag word holds the flag):
  /// each lane puts its data, completes it (release), the line's lanes
  /// meet, then piece 7 puts the flag; a load fetches the flag word, then
  /// (acquire) the piece.
  void storeLinePiece(Value ptr, Value value, Value flag);
  std::pair<Value, Value> loadLinePiece(Value ptr, Value flag);

  /// Whether the peer's heap is mapped into this rank's (--remote=auto).
  Value isMapped(Value memref);

private:
  Type ptrType() { return LLVM::LLVMPointerType::get(b.getContext()); }
  Value asBits(Value value, Type intType) {
    return value.getType() == intType
               ? value
               : LLVM::BitcastOp::create(b, loc, intType, value);
  }
  Value fromBits(Value bits, Type type) {
    return bits.getType() == type ? bits
                                  : LLVM::BitcastOp::create(b, loc, type, bits);
  }

  OpBuilder &b;
  Location loc;
  Operation *symbolTable;
  Value peer;
};

Value Lowering::call(StringRef name, ArrayRef<Value> args, Type result) {
  // Only what the nvshmem backend links may be called.
  if (!symm_nvshmem_is_device_function(name.str().c_str()))
    llvm::report_fatal_error(Twine("'") + name +
                             "' is not in SYMM_NVSHMEM_DEVICE_FUNCTIONS");
  SmallVector<Type> types;
  for (Value arg : args)
    types.push_back(arg.getType());
  Type resultType = result ? result : LLVM::LLVMVoidType::get(b.getContext());
  LLVM::LLVMFuncOp fn =
      getRuntimeFunction(b, symbolTable, name, types, resultType);
  auto callOp = LLVM::CallOp::create(b, loc, fn, args);
  return result ? callOp.getResult() : Value();
}

Value Lowering::isMapped(Value memref) {
  // A peer's heap is mapped or not as a whole, and NVSHMEM's state does not
  // change while a kernel runs: asked of the memref's base address (where
  // its allocation starts, the same for every view of it) through a
  // declaration that reads no memory and may be called speculatively, so
  // that LLVM asks once per peer and memref instead of once per access. On 2
  // H100s, per access, it made a gemv_all_reduce 16% slower than the direct
  // path (55.5 against 47.7 us).
  Value at = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, memref);
  Value bits = arith::IndexCastUIOp::create(b, loc, b.getI64Type(), at);
  Value base = LLVM::IntToPtrOp::create(b, loc, ptrType(), bits);
  Value mapped = call("nvshmem_ptr", {base, peer}, ptrType());
  auto fn = SymbolTable::lookupNearestSymbolFrom<LLVM::LLVMFuncOp>(
      symbolTable, b.getStringAttr("nvshmem_ptr"));
  MLIRContext *context = b.getContext();
  fn.setMemoryEffectsAttr(LLVM::MemoryEffectsAttr::get(
      context, {LLVM::ModRefInfo::NoModRef, LLVM::ModRefInfo::NoModRef,
                LLVM::ModRefInfo::NoModRef, LLVM::ModRefInfo::NoModRef,
                LLVM::ModRefInfo::NoModRef, LLVM::ModRefInfo::NoModRef}));
  fn.setNoUnwind(true);
  fn.setWillReturn(true);
  // And may run where the access may not (out of a loop's branch).
  fn.setPassthroughAttr(b.getArrayAttr({b.getStringAttr("speculatable")}));
  return LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::ne, mapped,
                              LLVM::ZeroOp::create(b, loc, ptrType()));
}

Value Lowering::address(Value memref, ValueRange indices) {
  Value at = buildElementAddress(b, loc, memref, indices);
  Value bits = arith::IndexCastUIOp::create(b, loc, b.getI64Type(), at);
  return LLVM::IntToPtrOp::create(b, loc, ptrType(), bits);
}

/// `type`'s bits, for a scalar or a vector of scalars.
unsigned totalBits(Type type) {
  if (auto vector = dyn_cast<VectorType>(type))
    return vector.getNumElements() *
           vector.getElementType().getIntOrFloatBitWidth();
  return type.getIntOrFloatBitWidth();
}

Value Lowering::get(Type type, Value ptr, unsigned pieceBits) {
  unsigned pieces = totalBits(type) / pieceBits;
  Type pieceType = b.getIntegerType(pieceBits);
  std::string name = "nvshmem_uint" + std::to_string(pieceBits) + "_g";
  if (pieces == 1)
    return fromBits(call(name, {ptr, peer}, pieceType), type);
  auto vectorType = VectorType::get({pieces}, pieceType);
  Value all = LLVM::PoisonOp::create(b, loc, vectorType);
  for (unsigned i = 0; i < pieces; ++i) {
    Value at = LLVM::GEPOp::create(b, loc, ptrType(), pieceType, ptr,
                                   ArrayRef<LLVM::GEPArg>{int32_t(i)});
    Value piece = call(name, {at, peer}, pieceType);
    all = LLVM::InsertElementOp::create(
        b, loc, all, piece,
        LLVM::ConstantOp::create(b, loc, b.getI32Type(), i));
  }
  return fromBits(all, type);
}

void Lowering::put(Value value, Value ptr, unsigned pieceBits) {
  unsigned pieces = totalBits(value.getType()) / pieceBits;
  Type pieceType = b.getIntegerType(pieceBits);
  std::string name = "nvshmem_uint" + std::to_string(pieceBits) + "_p";
  if (pieces == 1) {
    call(name, {ptr, asBits(value, pieceType), peer});
    return;
  }
  Value all = asBits(value, VectorType::get({pieces}, pieceType));
  for (unsigned i = 0; i < pieces; ++i) {
    Value at = LLVM::GEPOp::create(b, loc, ptrType(), pieceType, ptr,
                                   ArrayRef<LLVM::GEPArg>{int32_t(i)});
    Value piece = LLVM::ExtractElementOp::create(
        b, loc, all, LLVM::ConstantOp::create(b, loc, b.getI32Type(), i));
    call(name, {at, piece, peer});
  }
}

std::string atomicName(Type type, StringRef what) {
  return ("nvshmem_uint" + Twine(type.getIntOrFloatBitWidth()) + "_atomic_" +
          what)
      .str();
}

Value Lowering::fetch(Type type, Value ptr) {
  Type bits = b.getIntegerType(type.getIntOrFloatBitWidth());
  return fromBits(call(atomicName(type, "fetch"), {ptr, peer}, bits), type);
}

void Lowering::set(Value value, Value ptr) {
  Type bits = b.getIntegerType(value.getType().getIntOrFloatBitWidth());
  call(atomicName(bits, "set"), {ptr, asBits(value, bits), peer});
}

Value Lowering::compareSwap(Value ptr, Value expected, Value desired) {
  Type type = expected.getType();
  Type bits = b.getIntegerType(type.getIntOrFloatBitWidth());
  Value old =
      call(atomicName(bits, "compare_swap"),
           {ptr, asBits(expected, bits), asBits(desired, bits), peer}, bits);
  return fromBits(old, type);
}

FailureOr<Value> Lowering::readModifyWrite(AtomicRMWOp op, Value ptr,
                                           Value value) {
  Type type = value.getType();
  Type bits = b.getIntegerType(type.getIntOrFloatBitWidth());
  auto direct = [&](StringRef what, Value operand) {
    return fromBits(
        call(atomicName(bits, what), {ptr, asBits(operand, bits), peer}, bits),
        type);
  };
  switch (op.getKind()) {
  case AtomicKind::add:
    return direct("fetch_add", value);
  case AtomicKind::sub:
    return direct(
        "fetch_add",
        arith::SubIOp::create(
            b, loc, arith::ConstantIntOp::create(b, loc, type, 0), value));
  case AtomicKind::and_:
    return direct("fetch_and", value);
  case AtomicKind::or_:
    return direct("fetch_or", value);
  case AtomicKind::xor_:
    return direct("fetch_xor", value);
  case AtomicKind::xchg:
    return direct("swap", value);
  default:
    break;
  }
  // No NVSHMEM atomic: swap in the combination until no other write came
  // between the read and the swap (compared as bits, so NaNs end the loop).
  Value initial = fetch(type, ptr);
  auto loop =
      scf::WhileOp::create(b, loc, TypeRange{type}, ValueRange{initial});
  OpBuilder::InsertionGuard guard(b);
  Block *before = b.createBlock(&loop.getBefore(), {}, {type}, {loc});
  Value current = before->getArgument(0);
  Value next = combineAtomic(b, loc, op.getKind(), current, value);
  Value seen = compareSwap(ptr, current, next);
  Value retry =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne,
                            asBits(seen, bits), asBits(current, bits));
  scf::ConditionOp::create(b, loc, retry, ValueRange{seen});
  Block *after = b.createBlock(&loop.getAfter(), {}, {type}, {loc});
  scf::YieldOp::create(b, loc, after->getArguments());
  return loop.getResult(0);
}

void Lowering::storeLinePiece(Value ptr, Value value, Value flag) {
  Type i32 = b.getI32Type();
  LinePiece at = locateLinePiece(b, loc, ptr);
  Value last = at.last, word1 = at.word1;
  auto [x0, x1] = splitLinePiece(b, loc, value);
  set(x0, ptr);
  auto data = scf::IfOp::create(b, loc, last, /*withElse=*/true);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(data.elseBlock());
    set(x1, word1);
  }
  release(MemoryScope::system);
  // The line's eight lanes: 0xff << (lane & 24).
  Value lane = NVVM::LaneIdOp::create(b, loc, i32);
  Value first = LLVM::AndOp::create(b, loc, lane,
                                    LLVM::ConstantOp::create(b, loc, i32, 24));
  Value mask = LLVM::ShlOp::create(
      b, loc, LLVM::ConstantOp::create(b, loc, i32, 0xff), first);
  NVVM::SyncWarpOp::create(b, loc, mask);
  auto flagged = scf::IfOp::create(b, loc, last, /*withElse=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(flagged.thenBlock());
  set(flag, word1);
}

std::pair<Value, Value> Lowering::loadLinePiece(Value ptr, Value flag) {
  Type i64 = b.getI64Type();
  LinePiece at = locateLinePiece(b, loc, ptr);
  Value seen = fetch(i64, at.flagWord);
  acquire(MemoryScope::system);
  Value ready =
      LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::eq, seen, flag);
  Value x0 = fetch(i64, ptr);
  Value x1 = fetch(i64, at.word1);
  return {joinLinePiece(b, loc, x0, x1), ready};
}

void Lowering::release(MemoryScope scope) {
  MLIRContext *ctx = b.getContext();
  FenceOp::create(b, loc, MemoryOrderingAttr::get(ctx, MemoryOrdering::release),
                  MemoryScopeAttr::get(ctx, scope));
  call("nvshmem_quiet", {});
}

void Lowering::acquire(MemoryScope scope) {
  MLIRContext *ctx = b.getContext();
  FenceOp::create(b, loc, MemoryOrderingAttr::get(ctx, MemoryOrdering::acquire),
                  MemoryScopeAttr::get(ctx, scope));
}

/// The widest piece, at most 64 bits, that `type` splits into at an address
/// aligned to `alignment` bytes (the element's size when not given).
unsigned pieceBits(Type type, std::optional<uint64_t> alignment) {
  Type element = getElementTypeOrSelf(type);
  unsigned bits = element.getIntOrFloatBitWidth();
  unsigned total = totalBits(type);
  unsigned widest = alignment ? std::max<unsigned>(bits, *alignment * 8) : bits;
  unsigned piece = 64;
  while (piece > 8 && (piece > widest || total % piece != 0))
    piece /= 2;
  return piece;
}

/// Whether NVSHMEM can move `type`: whole bytes of integers or floats.
bool movable(Type type) {
  Type element = getElementTypeOrSelf(type);
  if (!element.isIntOrFloat() || element.getIntOrFloatBitWidth() % 8 != 0)
    return false;
  auto vector = dyn_cast<VectorType>(type);
  return !vector || vector.getRank() == 1;
}

bool atomicWidth(Type type) {
  return type.isIntOrFloat() && (type.getIntOrFloatBitWidth() == 32 ||
                                 type.getIntOrFloatBitWidth() == 64);
}

class RemoteToNVSHMEM {
public:
  RemoteToNVSHMEM(bool autoMode) : autoMode(autoMode) {}
  LogicalResult run(gpu::GPUModuleOp module);

private:
  /// The memref an access reads or writes, and its indices; null for
  /// operations that are not accesses.
  static std::pair<Value, ValueRange> accessed(Operation *op);
  /// Builds the NVSHMEM form of `op`, an access of the element at `ptr` (this
  /// rank's address) on the lowering's peer, returning the values that
  /// replace its results.
  FailureOr<SmallVector<Value>> lower(Operation *op, Lowering &lowering,
                                      Value ptr);
  LogicalResult lowerAccess(Operation *op, TranslateOp translate,
                            ArrayRef<Operation *> views);

  bool autoMode;
  Operation *symbolTable = nullptr;
};

std::pair<Value, ValueRange> RemoteToNVSHMEM::accessed(Operation *op) {
  return llvm::TypeSwitch<Operation *, std::pair<Value, ValueRange>>(op)
      .Case([](memref::LoadOp o) {
        return std::make_pair(o.getMemref(), ValueRange(o.getIndices()));
      })
      .Case([](memref::StoreOp o) {
        return std::make_pair(o.getMemref(), ValueRange(o.getIndices()));
      })
      .Case([](vector::LoadOp o) {
        return std::make_pair(o.getBase(), ValueRange(o.getIndices()));
      })
      .Case([](vector::StoreOp o) {
        return std::make_pair(o.getBase(), ValueRange(o.getIndices()));
      })
      .Case<LoadOp, StoreOp, AtomicRMWOp, AtomicCASOp, LineStoreOp, LineLoadOp>(
          [](auto o) {
            return std::make_pair(o.getMemref(), ValueRange(o.getIndices()));
          })
      .Default(
          [](Operation *) { return std::make_pair(Value(), ValueRange()); });
}

FailureOr<SmallVector<Value>>
RemoteToNVSHMEM::lower(Operation *op, Lowering &lowering, Value ptr) {
  auto unmovable = [&](Type type) -> FailureOr<SmallVector<Value>> {
    return op->emitOpError() << "has no NVSHMEM path for " << type
                             << ": NVSHMEM moves whole bytes of integers and "
                                "floats (and vectors of them)";
  };
  auto notAtomic = [&](Type type) -> FailureOr<SmallVector<Value>> {
    return op->emitOpError()
           << "has no NVSHMEM path for " << type
           << ": NVSHMEM's atomics are 32 or 64 bits wide; use i32, i64, f32 "
              "or f64 for ordered accesses and atomics on peers";
  };
  return llvm::TypeSwitch<Operation *, FailureOr<SmallVector<Value>>>(op)
      .Case([&](memref::LoadOp o) -> FailureOr<SmallVector<Value>> {
        if (!movable(o.getType()))
          return unmovable(o.getType());
        return SmallVector<Value>{lowering.get(
            o.getType(), ptr, pieceBits(o.getType(), std::nullopt))};
      })
      .Case([&](vector::LoadOp o) -> FailureOr<SmallVector<Value>> {
        if (!movable(o.getType()))
          return unmovable(o.getType());
        return SmallVector<Value>{lowering.get(
            o.getType(), ptr, pieceBits(o.getType(), o.getAlignment()))};
      })
      .Case([&](memref::StoreOp o) -> FailureOr<SmallVector<Value>> {
        Type type = o.getValue().getType();
        if (!movable(type))
          return unmovable(type);
        lowering.put(o.getValue(), ptr, pieceBits(type, std::nullopt));
        return SmallVector<Value>{};
      })
      .Case([&](vector::StoreOp o) -> FailureOr<SmallVector<Value>> {
        Type type = o.getValueToStore().getType();
        if (!movable(type))
          return unmovable(type);
        lowering.put(o.getValueToStore(), ptr,
                     pieceBits(type, o.getAlignment()));
        return SmallVector<Value>{};
      })
      .Case([&](LoadOp o) -> FailureOr<SmallVector<Value>> {
        // translate-to-heap-base leaves only ordered accesses as symm.load.
        if (!atomicWidth(o.getType()))
          return notAtomic(o.getType());
        Value v = lowering.fetch(o.getType(), ptr);
        if (acquires(*o.getOrdering()))
          lowering.acquire(*o.getScope());
        return SmallVector<Value>{v};
      })
      .Case([&](StoreOp o) -> FailureOr<SmallVector<Value>> {
        Type type = o.getValue().getType();
        if (!atomicWidth(type))
          return notAtomic(type);
        if (releases(*o.getOrdering()))
          lowering.release(*o.getScope());
        lowering.set(o.getValue(), ptr);
        return SmallVector<Value>{};
      })
      .Case([&](AtomicRMWOp o) -> FailureOr<SmallVector<Value>> {
        Type type = o.getValue().getType();
        if (!atomicWidth(type))
          return notAtomic(type);
        if (releases(o.getOrdering()))
          lowering.release(o.getScope());
        FailureOr<Value> old = lowering.readModifyWrite(o, ptr, o.getValue());
        if (failed(old))
          return failure();
        if (acquires(o.getOrdering()))
          lowering.acquire(o.getScope());
        return SmallVector<Value>{*old};
      })
      .Case([&](LineStoreOp o) -> FailureOr<SmallVector<Value>> {
        lowering.storeLinePiece(ptr, o.getValue(), o.getFlag());
        return SmallVector<Value>{};
      })
      .Case([&](LineLoadOp o) -> FailureOr<SmallVector<Value>> {
        auto [value, ready] = lowering.loadLinePiece(ptr, o.getFlag());
        return SmallVector<Value>{value, ready};
      })
      .Case([&](AtomicCASOp o) -> FailureOr<SmallVector<Value>> {
        Type type = o.getExpected().getType();
        if (!atomicWidth(type))
          return notAtomic(type);
        if (releases(o.getOrdering()))
          lowering.release(o.getScope());
        Value old = lowering.compareSwap(ptr, o.getExpected(), o.getDesired());
        if (acquires(o.getOrdering()))
          lowering.acquire(o.getScope());
        return SmallVector<Value>{old};
      });
}

LogicalResult RemoteToNVSHMEM::lowerAccess(Operation *op, TranslateOp translate,
                                           ArrayRef<Operation *> views) {
  OpBuilder b(op);
  Location loc = op->getLoc();
  // The same view on this rank's memref: the element NVSHMEM addresses.
  IRMapping mapping;
  mapping.map(translate.getResult(), translate.getMemref());
  for (Operation *view : llvm::reverse(views))
    b.clone(*view, mapping);
  auto [memref, indices] = accessed(op);
  Value local = mapping.lookupOrDefault(memref);
  Lowering lowering(b, loc, symbolTable, translate.getPeer());
  Value ptr = lowering.address(local, indices);
  if (!autoMode) {
    FailureOr<SmallVector<Value>> results = lower(op, lowering, ptr);
    if (failed(results))
      return failure();
    op->replaceAllUsesWith(*results);
    op->erase();
    return success();
  }
  // A peer whose heap is mapped keeps the direct access.
  Value isMapped = lowering.isMapped(translate.getMemref());
  auto branch = scf::IfOp::create(b, loc, op->getResultTypes(), isMapped,
                                  /*withElseRegion=*/true);
  // Without results the builder has added empty yields: both branches get
  // their own below.
  for (Block *block : {branch.thenBlock(), branch.elseBlock()})
    if (!block->empty())
      block->back().erase();
  op->replaceAllUsesWith(branch.getResults());
  op->moveBefore(branch.thenBlock(), branch.thenBlock()->end());
  b.setInsertionPointToEnd(branch.thenBlock());
  scf::YieldOp::create(b, loc, op->getResults());
  b.setInsertionPointToEnd(branch.elseBlock());
  FailureOr<SmallVector<Value>> results = lower(op, lowering, ptr);
  if (failed(results))
    return failure();
  scf::YieldOp::create(b, loc, *results);
  return success();
}

LogicalResult RemoteToNVSHMEM::run(gpu::GPUModuleOp module) {
  symbolTable = module;
  SmallVector<std::pair<Operation *, TranslateOp>> accesses;
  SmallVector<SmallVector<Operation *>> viewChains;
  SmallVector<FenceOp> fences;
  WalkResult walk = module.walk([&](Operation *op) {
    if (auto fence = dyn_cast<FenceOp>(op)) {
      if (releases(fence.getOrdering()) &&
          fence.getScope() != MemoryScope::workgroup)
        fences.push_back(fence);
      return WalkResult::advance();
    }
    for (Value operand : op->getOperands()) {
      if (!isa<BaseMemRefType>(operand.getType()) ||
          isa<ViewLikeOpInterface>(op))
        continue;
      SmallVector<Operation *> views;
      TranslateOp translate = findTranslation(operand, views);
      if (!translate)
        continue;
      if (accessed(op).first == operand) {
        accesses.push_back({op, translate});
        viewChains.push_back(std::move(views));
        return WalkResult::advance();
      }
      // Metadata (alignment checks, sizes) is the same on every rank.
      if (isa<memref::ExtractStridedMetadataOp,
              memref::ExtractAlignedPointerAsIndexOp, memref::DimOp>(op))
        continue;
      if (autoMode)
        continue;
      op->emitOpError()
          << "uses a peer's memory (through symm.translate) in a way NVSHMEM "
             "cannot: --remote=nvshmem reaches peers with loads, stores, "
             "atomics, signals, waits and put/get/copy; use --remote=auto "
             "or direct for this kernel";
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();
  for (auto [access, views] : llvm::zip(accesses, viewChains))
    if (failed(lowerAccess(access.first, access.second, views)))
      return failure();
  for (FenceOp fence : fences) {
    OpBuilder b(fence->getContext());
    b.setInsertionPointAfter(fence);
    Lowering(b, fence.getLoc(), symbolTable, Value()).call("nvshmem_quiet", {});
  }
  return success();
}

struct SymmRemoteToNVSHMEMPass
    : public symm::impl::SymmRemoteToNVSHMEMBase<SymmRemoteToNVSHMEMPass> {
  using Base::Base;
  void runOnOperation() override {
    if (mode != "nvshmem" && mode != "auto") {
      getOperation().emitError()
          << "symm-remote-to-nvshmem: mode must be 'nvshmem' or 'auto', got '"
          << mode << "'";
      return signalPassFailure();
    }
    RemoteToNVSHMEM lowering(mode == "auto");
    for (auto module : getOperation().getOps<gpu::GPUModuleOp>())
      if (failed(lowering.run(module)))
        return signalPassFailure();
  }
};

} // namespace
