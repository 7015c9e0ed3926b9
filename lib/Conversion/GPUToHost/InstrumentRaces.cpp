//===- InstrumentRaces.cpp - Race-detector calls in CPU kernels -*- C++ -*-===//
//
// Makes a gpu.module lowered for the CPU target report its memory accesses,
// atomics and fences to the runtime's race detector (runtime/lib/host/
// Races.h), through the entry points of symm/abi.h. It works on the LLVM
// dialect, where every access of every operation (symm, memref, vector, the
// device library's) has become a load, a store, an atomic or an intrinsic;
// the symm scope of an atomic survives in its syncscope
// (kHostRaceSyncScopes), which is set back to system here.
//
//===----------------------------------------------------------------------===//

#include "symm/Conversion/Passes.h"
#include "symm/Conversion/SymmToLLVM.h"
#include "symm/abi.h"

#include "mlir/Interfaces/DataLayoutInterfaces.h"
#include "llvm/ADT/TypeSwitch.h"

namespace mlir::symm {
#define GEN_PASS_DEF_SYMMINSTRUMENTRACES
#include "symm/Conversion/Passes.h.inc"
} // namespace mlir::symm

using namespace mlir;
using namespace mlir::symm;

namespace {

/// Whether `ptr` points into the thread's stack (an alloca: private memory)
/// or a global of the module (the kernel context, constants), which no
/// other thread writes.
bool isPrivate(Value ptr) {
  while (Operation *def = ptr.getDefiningOp()) {
    if (isa<LLVM::AllocaOp, LLVM::AddressOfOp>(def))
      return true;
    if (auto gep = dyn_cast<LLVM::GEPOp>(def)) {
      ptr = gep.getBase();
      continue;
    }
    if (!isa<LLVM::BitcastOp, LLVM::AddrSpaceCastOp>(def))
      return false;
    ptr = def->getOperand(0);
  }
  return false;
}

int32_t orderingFlags(LLVM::AtomicOrdering ordering) {
  switch (ordering) {
  case LLVM::AtomicOrdering::acquire:
    return SYMM_RACE_ACQUIRE;
  case LLVM::AtomicOrdering::release:
    return SYMM_RACE_RELEASE;
  case LLVM::AtomicOrdering::acq_rel:
  case LLVM::AtomicOrdering::seq_cst:
    return SYMM_RACE_ACQUIRE | SYMM_RACE_RELEASE;
  default:
    return 0;
  }
}

/// The symm scope an atomic's syncscope stands for (system for any other).
int32_t scopeOf(std::optional<StringRef> syncScope) {
  for (unsigned s = 0; s < kHostRaceSyncScopes.size(); ++s)
    if (syncScope.value_or("") == kHostRaceSyncScopes[s])
      return int32_t(s);
  return int32_t(MemoryScope::system);
}

class Instrumenter {
public:
  Instrumenter(gpu::GPUModuleOp module)
      : module(module), layout(module), b(module.getContext()) {}

  void run() {
    SmallVector<Operation *> ops;
    module.walk([&](Operation *op) {
      if (isa<LLVM::LoadOp, LLVM::StoreOp, LLVM::AtomicRMWOp,
              LLVM::AtomicCmpXchgOp, LLVM::FenceOp, LLVM::MemcpyOp,
              LLVM::MemmoveOp, LLVM::MemsetOp, LLVM::MaskedLoadOp,
              LLVM::MaskedStoreOp>(op))
        ops.push_back(op);
    });
    for (Operation *op : ops)
      instrument(op);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(module.getBody());
    LLVM::GlobalOp::create(b, module.getLoc(), b.getI32Type(),
                           /*isConstant=*/true, LLVM::Linkage::External,
                           SYMM_RACE_MARKER_SYMBOL, b.getI32IntegerAttr(1));
  }

private:
  void instrument(Operation *op) {
    b.setInsertionPoint(op);
    Location loc = op->getLoc();
    TypeSwitch<Operation *>(op)
        .Case([&](LLVM::LoadOp load) {
          if (isPrivate(load.getAddr()))
            return;
          int64_t bytes = size(load.getType());
          if (load.getOrdering() == LLVM::AtomicOrdering::not_atomic)
            return access(load, load.getAddr(), constant(bytes), false);
          int32_t flags = atomicFlags(load);
          b.setInsertionPointAfter(load);
          call(SYMM_RACE_ATOMIC_AFTER_FN, loc,
               {load.getAddr(), constant(bytes), i32(flags), i32(0),
                site(load)});
        })
        .Case([&](LLVM::StoreOp store) {
          if (isPrivate(store.getAddr()))
            return;
          int64_t bytes = size(store.getValue().getType());
          if (store.getOrdering() == LLVM::AtomicOrdering::not_atomic)
            return access(store, store.getAddr(), constant(bytes), true);
          atomic(store, store.getAddr(), bytes, atomicFlags(store), i32(1));
        })
        .Case([&](LLVM::AtomicRMWOp rmw) {
          if (!isPrivate(rmw.getPtr()))
            atomic(rmw, rmw.getPtr(), size(rmw.getVal().getType()),
                   atomicFlags(rmw), i32(1));
        })
        .Case([&](LLVM::AtomicCmpXchgOp cas) {
          if (isPrivate(cas.getPtr()))
            return;
          int64_t bytes = size(cas.getVal().getType());
          int32_t flags = atomicFlags(cas);
          call(SYMM_RACE_ATOMIC_BEFORE_FN, loc, {cas.getPtr(), i32(flags)});
          b.setInsertionPointAfter(cas);
          Value swapped = LLVM::ExtractValueOp::create(b, loc, cas, 1);
          Value wrote = LLVM::ZExtOp::create(b, loc, b.getI32Type(), swapped);
          call(SYMM_RACE_ATOMIC_AFTER_FN, loc,
               {cas.getPtr(), constant(bytes), i32(flags), wrote, site(cas)});
        })
        .Case([&](LLVM::FenceOp fence) {
          int32_t flags =
              orderingFlags(fence.getOrdering()) | scopeOf(fence.getSyncscope())
                                                       << SYMM_RACE_SCOPE_SHIFT;
          fence.removeSyncscopeAttr();
          call(SYMM_RACE_FENCE_FN, loc, {i32(flags)});
        })
        .Case([&](LLVM::MemcpyOp copy) {
          copyAccesses(copy, copy.getSrc(), copy.getDst(), copy.getLen());
        })
        .Case([&](LLVM::MemmoveOp move) {
          copyAccesses(move, move.getSrc(), move.getDst(), move.getLen());
        })
        .Case([&](LLVM::MemsetOp set) {
          if (!isPrivate(set.getDst()))
            access(set, set.getDst(), length(set.getLen()), true);
        })
        .Case([&](LLVM::MaskedLoadOp load) {
          masked(load, load.getData(), load.getMask(), load.getType(), false);
        })
        .Case([&](LLVM::MaskedStoreOp store) {
          masked(store, store.getData(), store.getMask(),
                 store.getValue().getType(), true);
        });
  }

  /// The flags of an atomic, whose syncscope goes back to system. A line's
  /// atomics (kHostRaceLineSyncScope) count as relaxed at system scope.
  int32_t flagsOf(LLVM::AtomicOrdering ordering,
                  std::optional<StringRef> syncScope) {
    if (syncScope == kHostRaceLineSyncScope)
      return int32_t(MemoryScope::system) << SYMM_RACE_SCOPE_SHIFT;
    return orderingFlags(ordering) | scopeOf(syncScope)
                                         << SYMM_RACE_SCOPE_SHIFT;
  }
  template <typename OpT> int32_t atomicFlags(OpT op) {
    int32_t flags = flagsOf(op.getOrdering(), op.getSyncscope());
    op.removeSyncscopeAttr();
    return flags;
  }
  int32_t atomicFlags(LLVM::AtomicCmpXchgOp op) {
    int32_t flags = flagsOf(op.getSuccessOrdering(), op.getSyncscope());
    op.removeSyncscopeAttr();
    return flags;
  }

  /// An atomic that may write: its release before, the access after.
  void atomic(Operation *op, Value ptr, int64_t bytes, int32_t flags,
              Value wrote) {
    Location loc = op->getLoc();
    call(SYMM_RACE_ATOMIC_BEFORE_FN, loc, {ptr, i32(flags)});
    b.setInsertionPointAfter(op);
    call(SYMM_RACE_ATOMIC_AFTER_FN, loc,
         {ptr, constant(bytes), i32(flags), wrote, site(op)});
  }

  void access(Operation *op, Value ptr, Value bytes, bool write) {
    call(SYMM_RACE_ACCESS_FN, op->getLoc(), {ptr, bytes, i32(write), site(op)});
  }

  void copyAccesses(Operation *op, Value src, Value dst, Value len) {
    Value bytes = length(len);
    if (!isPrivate(src))
      access(op, src, bytes, false);
    if (!isPrivate(dst))
      access(op, dst, bytes, true);
  }

  /// A masked vector access: the lanes whose mask bit is set (vectors of up
  /// to 64 lanes; longer ones are not checked).
  void masked(Operation *op, Value ptr, Value mask, Type vectorType,
              bool write) {
    auto type = dyn_cast<VectorType>(vectorType);
    if (isPrivate(ptr) || !type || type.getRank() != 1 ||
        type.getNumElements() > 64 || type.isScalable())
      return;
    Location loc = op->getLoc();
    int64_t lanes = type.getNumElements();
    Value bits = LLVM::BitcastOp::create(b, loc, b.getIntegerType(lanes), mask);
    if (lanes < 64)
      bits = LLVM::ZExtOp::create(b, loc, b.getI64Type(), bits);
    call(SYMM_RACE_MASKED_FN, loc,
         {ptr, constant(size(type.getElementType())), bits, i32(write),
          site(op)});
  }

  int64_t size(Type type) { return int64_t(layout.getTypeSize(type)); }
  Value constant(int64_t v) {
    return LLVM::ConstantOp::create(b, module.getLoc(), b.getI64Type(), v);
  }
  Value i32(int32_t v) {
    return LLVM::ConstantOp::create(b, module.getLoc(), b.getI32Type(), v);
  }
  Value length(Value len) {
    if (len.getType() == b.getI64Type())
      return len;
    return LLVM::ZExtOp::create(b, len.getLoc(), b.getI64Type(), len);
  }
  Value site(Operation *op) {
    return getStringConstant(
        b, op->getLoc(), module,
        describeLocation(op->getLoc(), op->getName().getStringRef()));
  }

  void call(StringRef name, Location loc, ArrayRef<Value> args) {
    SmallVector<Type> types;
    for (Value a : args)
      types.push_back(a.getType());
    LLVM::CallOp::create(
        b, loc,
        getRuntimeFunction(b, module, name, types,
                           LLVM::LLVMVoidType::get(b.getContext())),
        args);
  }

  gpu::GPUModuleOp module;
  DataLayout layout;
  OpBuilder b;
};

struct SymmInstrumentRaces
    : public symm::impl::SymmInstrumentRacesBase<SymmInstrumentRaces> {
  void runOnOperation() override { Instrumenter(getOperation()).run(); }
};

} // namespace
