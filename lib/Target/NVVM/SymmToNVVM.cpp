//===- SymmToNVVM.cpp - Lower symm device ops for NVIDIA GPUs ---*- C++ -*-===//
//
// NVIDIA decisions: scopes, the context in constant memory, inline PTX for
// read-modify-writes (LLVM 22's NVPTX backend drops their ordering and scope),
// nanosleep for back-off.
//
//===----------------------------------------------------------------------===//

#include "symm/Conversion/SymmToLLVM.h"
#include "symm/Target/NVVM/NVVMTarget.h"
#include "symm/Target/NVVM/Passes.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

namespace mlir::symm {
#define GEN_PASS_DEF_CONVERTSYMMTONVVM
#include "symm/Target/NVVM/Passes.h.inc"
} // namespace mlir::symm

using namespace mlir;
using namespace mlir::symm;

namespace {

/// LLVM syncscope the NVPTX backend prints as each symm scope.
constexpr std::array<StringRef, 3> kSyncScopes = {"block", "device", ""};

/// PTX scope qualifier of each symm scope.
StringRef ptxScope(MemoryScope scope) {
  switch (scope) {
  case MemoryScope::workgroup:
    return ".cta";
  case MemoryScope::device:
    return ".gpu";
  case MemoryScope::system:
    return ".sys";
  }
  llvm_unreachable("unknown scope");
}

/// PTX state space of a pointer in LLVM address space `space`.
StringRef ptxSpace(unsigned space) {
  switch (space) {
  case 1:
    return ".global";
  case 3:
    return ".shared";
  default:
    return "";
  }
}

/// The `.op.type` suffix of `atom`/`red` for `kind` on `type`, or failure when
/// PTX has no such instruction.
FailureOr<std::string> ptxOperation(AtomicKind kind, Type type) {
  unsigned bits = type.getIntOrFloatBitWidth();
  bool isFloat = isa<FloatType>(type);
  if (!isFloat && bits != 32 && bits != 64)
    return failure();
  std::string b = "b" + std::to_string(bits);
  std::string u = "u" + std::to_string(bits);
  std::string s = "s" + std::to_string(bits);
  switch (kind) {
  case AtomicKind::add:
  case AtomicKind::sub:
    return ".add." + u;
  case AtomicKind::fadd:
    if (type.isF32() || type.isF64())
      return ".add.f" + std::to_string(bits);
    if (type.isF16())
      return std::string(".add.noftz.f16");
    if (type.isBF16())
      return std::string(".add.noftz.bf16");
    return failure();
  case AtomicKind::and_:
    return ".and." + b;
  case AtomicKind::or_:
    return ".or." + b;
  case AtomicKind::xor_:
    return ".xor." + b;
  case AtomicKind::max:
    return ".max." + s;
  case AtomicKind::min:
    return ".min." + s;
  case AtomicKind::umax:
    return ".max." + u;
  case AtomicKind::umin:
    return ".min." + u;
  case AtomicKind::xchg:
    if (bits != 32 && bits != 64)
      return failure();
    return ".exch." + b;
  case AtomicKind::fmax:
  case AtomicKind::fmin:
    return failure();
  }
  llvm_unreachable("unknown atomic kind");
}

/// Inline-asm register constraint of `type`.
StringRef ptxConstraint(Type type) {
  if (type.isF32())
    return "f";
  if (type.isF64())
    return "d";
  if (type.isF16() || type.isBF16())
    return "h";
  return type.getIntOrFloatBitWidth() == 64 ? "l" : "r";
}

/// Inline PTX with side effects (ordered accesses and warp instructions the
/// NVVM dialect does not spell with their ordering).
LLVM::InlineAsmOp inlinePtx(OpBuilder &b, Location loc, Type result,
                            ValueRange operands, StringRef text,
                            StringRef constraints) {
  return LLVM::InlineAsmOp::create(
      b, loc, result, operands, text, constraints, /*has_side_effects=*/true,
      /*is_align_stack=*/false, LLVM::TailCallKind::None,
      LLVM::AsmDialectAttr::get(b.getContext(), LLVM::AsmDialect::AD_ATT),
      ArrayAttr());
}

/// A compare-and-swap loop for what PTX has no `atom` for (fmax, fmin, 8- and
/// 16-bit integers): cmpxchg keeps the ordering and scope in PTX.
Value casLoop(ConversionPatternRewriter &rewriter, AtomicRMWOp op, Value ptr,
              Value value) {
  Location loc = op.getLoc();
  Type type = value.getType();
  unsigned bits = type.getIntOrFloatBitWidth();
  Type intType = rewriter.getIntegerType(bits);
  StringRef scope = kSyncScopes[static_cast<unsigned>(op.getScope())];
  unsigned align = std::max(1u, bits / 8);
  auto asInt = [&](OpBuilder &b, Value v) -> Value {
    return type == intType ? v : LLVM::BitcastOp::create(b, loc, intType, v);
  };
  auto asType = [&](OpBuilder &b, Value v) -> Value {
    return type == intType ? v : LLVM::BitcastOp::create(b, loc, type, v);
  };
  Value old = createCASLoop(
      rewriter, loc, ptr, intType, align, toLLVMOrdering(op.getOrdering()),
      failureOrdering(op.getOrdering()), scope,
      [&](OpBuilder &b, Value current) {
        return asInt(
            b, combineAtomic(b, loc, op.getKind(), asType(b, current), value));
      });
  return asType(rewriter, old);
}

/// `atom.<sem>.<scope>.<space>.<op>.<type>`, or `red` when the result is unused
/// and the ordering allows it; `seq_cst` is `fence.sc` then an acquire atom.
FailureOr<Value> lowerRMW(ConversionPatternRewriter &rewriter, AtomicRMWOp op,
                          Value ptr, Value value) {
  Location loc = op.getLoc();
  Type type = value.getType();
  FailureOr<std::string> operation = ptxOperation(op.getKind(), type);
  if (failed(operation))
    return casLoop(rewriter, op, ptr, value);
  if (op.getKind() == AtomicKind::sub)
    value = LLVM::SubOp::create(
        rewriter, loc, LLVM::ConstantOp::create(rewriter, loc, type, 0), value);

  StringRef scope = ptxScope(op.getScope());
  auto ptrType = cast<LLVM::LLVMPointerType>(ptr.getType());
  StringRef space = ptxSpace(ptrType.getAddressSpace());
  MemoryOrdering ordering = op.getOrdering();
  bool reduce = op.getResult().use_empty() &&
                op.getKind() != AtomicKind::xchg &&
                (ordering == MemoryOrdering::relaxed ||
                 ordering == MemoryOrdering::release);
  std::string prefix;
  StringRef sem;
  switch (ordering) {
  case MemoryOrdering::relaxed:
    sem = ".relaxed";
    break;
  case MemoryOrdering::acquire:
    sem = ".acquire";
    break;
  case MemoryOrdering::release:
    sem = ".release";
    break;
  case MemoryOrdering::acq_rel:
    sem = ".acq_rel";
    break;
  case MemoryOrdering::seq_cst:
    prefix = ("fence.sc" + scope + ";\n\t").str();
    sem = ".acquire";
    break;
  }
  std::string asmString, constraints;
  StringRef reg = ptxConstraint(type);
  if (reduce) {
    asmString =
        (prefix + "red" + sem + scope + space + *operation + " [$0], $1;")
            .str();
    constraints = ("l," + reg + ",~{memory}").str();
  } else {
    asmString =
        (prefix + "atom" + sem + scope + space + *operation + " $0, [$1], $2;")
            .str();
    constraints = ("=" + reg + ",l," + reg + ",~{memory}").str();
  }
  auto inlineAsm = inlinePtx(rewriter, loc, reduce ? Type() : type,
                             ValueRange{ptr, value}, asmString, constraints);
  if (reduce)
    // The result is unused; any value of the right type stands in for it.
    return Value(LLVM::PoisonOp::create(rewriter, loc, type));
  return inlineAsm.getResult(0);
}

/// `text` as literal text in a printf format.
std::string escapePercent(StringRef text) {
  std::string escaped;
  for (char c : text) {
    if (c == '%')
      escaped += '%';
    escaped += c;
  }
  return escaped;
}

Value i32Constant(OpBuilder &b, Location loc, int32_t value) {
  return LLVM::ConstantOp::create(b, loc, b.getI32Type(), value);
}

/// The lanes of this lane's line (8 lanes: 8g .. 8g + 7), made to run the
/// next instruction together: a line's pieces are then one warp instruction.
Value syncLineLanes(OpBuilder &b, Location loc) {
  Value lane = NVVM::LaneIdOp::create(b, loc, b.getI32Type());
  Value first = LLVM::AndOp::create(b, loc, lane, i32Constant(b, loc, 24));
  Value mask = LLVM::ShlOp::create(b, loc, i32Constant(b, loc, 0xff), first);
  NVVM::SyncWarpOp::create(b, loc, mask);
  return mask;
}

/// Whether every lane of `mask` runs this instruction with this lane
/// (activemask): lanes that run together stay together up to the next
/// branch, so an access next to it is one instruction for all of them.
Value lanesTogether(OpBuilder &b, Location loc, Value mask) {
  Value active = inlinePtx(b, loc, b.getI32Type(), ValueRange{},
                           "activemask.b32 $0;", "=r")
                     .getResult(0);
  return LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::eq,
                              LLVM::AndOp::create(b, loc, active, mask), mask);
}

/// symm.line_store: one 16-byte volatile store per lane, piece 7 with the
/// flag in its second word (NCCL's LL128 relies on the same delivery): the
/// line is one warp instruction where its eight lanes run together. A lane
/// that branched apart from the others may still run it apart after
/// bar.warp.sync (on 2 H200s, lines were read with their flag and stale
/// data when lanes of a line had branched apart), so each lane first asks
/// which lanes run with it (activemask): where the line's lanes are not all
/// there, the data goes first, a system-scope fence in each lane and a
/// bar.warp.sync, then piece 7 stores the flag alone.
void storeLinePiece(ConversionPatternRewriter &b, Location loc, Value ptr,
                    Value value, Value flag) {
  LinePiece at = locateLinePiece(b, loc, ptr);
  Value last = at.last;
  auto [x0, x1] = splitLinePiece(b, loc, value);
  Value second = LLVM::SelectOp::create(b, loc, last, flag, x1);
  Value mask = syncLineLanes(b, loc);
  Value together = lanesTogether(b, loc, mask);
  auto branch = scf::IfOp::create(b, loc, together, /*withElse=*/true);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(branch.thenBlock());
    inlinePtx(b, loc, Type(), ValueRange{ptr, x0, second},
              "st.volatile.global.v2.u64 [$0], {$1, $2};", "l,l,l,~{memory}");
    b.setInsertionPointToStart(branch.elseBlock());
    inlinePtx(b, loc, Type(), ValueRange{ptr, x0},
              "st.volatile.global.u64 [$0], $1;", "l,l,~{memory}");
    auto data = scf::IfOp::create(b, loc, last, /*withElse=*/true);
    b.setInsertionPointToStart(data.elseBlock());
    inlinePtx(b, loc, Type(), ValueRange{at.word1, x1},
              "st.volatile.global.u64 [$0], $1;", "l,l,~{memory}");
    b.setInsertionPointAfter(data);
    inlinePtx(b, loc, Type(), ValueRange{}, "fence.sc.sys;", "~{memory}");
    NVVM::SyncWarpOp::create(b, loc, mask);
    auto flagged = scf::IfOp::create(b, loc, last, /*withElse=*/false);
    b.setInsertionPointToStart(flagged.thenBlock());
    inlinePtx(b, loc, Type(), ValueRange{at.word1, flag},
              "st.volatile.global.u64 [$0], $1;", "l,l,~{memory}");
  }
}

/// symm.line_load: one 16-byte volatile load per lane, and piece 7's flag
/// shuffled to the line's lanes. Where activemask, right after the load,
/// shows the line's lanes apart, they may have loaded in separate
/// instructions, some before the line arrived (see storeLinePiece): once
/// the flag is there they load their pieces again; the line arrives whole,
/// so a load after its flag was seen sees all of it.
std::pair<Value, Value> loadLinePiece(ConversionPatternRewriter &b,
                                      Location loc, Value ptr, Value flag) {
  Type i64 = b.getI64Type(), i32 = b.getI32Type();
  Value mask = syncLineLanes(b, loc);
  auto pair = LLVM::LLVMStructType::getLiteral(b.getContext(), {i64, i64});
  auto load = [&]() -> std::pair<Value, Value> {
    Value loaded = inlinePtx(b, loc, pair, ValueRange{ptr},
                             "ld.volatile.global.v2.u64 {$0, $1}, [$2];",
                             "=l,=l,l,~{memory}")
                       .getResult(0);
    return {LLVM::ExtractValueOp::create(b, loc, loaded, 0),
            LLVM::ExtractValueOp::create(b, loc, loaded, 1)};
  };
  auto [x0, x1] = load();
  Value together = lanesTogether(b, loc, mask);
  Value lane = NVVM::LaneIdOp::create(b, loc, i32);
  Value source = LLVM::OrOp::create(b, loc, lane, i32Constant(b, loc, 7));
  auto shuffle = [&](Value half) -> Value {
    return NVVM::ShflOp::create(b, loc, i32, mask, half, source,
                                i32Constant(b, loc, 0x1f), NVVM::ShflKind::idx,
                                UnitAttr());
  };
  Value lo = shuffle(LLVM::TruncOp::create(b, loc, i32, x1));
  Value hi = shuffle(LLVM::TruncOp::create(
      b, loc, i32,
      LLVM::LShrOp::create(b, loc, x1,
                           LLVM::ConstantOp::create(b, loc, i64, 32))));
  Value seen = LLVM::OrOp::create(
      b, loc, LLVM::ZExtOp::create(b, loc, i64, lo),
      LLVM::ShlOp::create(b, loc, LLVM::ZExtOp::create(b, loc, i64, hi),
                          LLVM::ConstantOp::create(b, loc, i64, 32)));
  Value ready =
      LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::eq, seen, flag);
  Value apart = LLVM::XOrOp::create(
      b, loc, together, LLVM::ConstantOp::create(b, loc, b.getI1Type(), 1));
  Value reload = LLVM::AndOp::create(b, loc, ready, apart);
  auto again = scf::IfOp::create(b, loc, TypeRange{i64, i64}, reload,
                                 /*withElse=*/true);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(again.thenBlock());
    auto [y0, y1] = load();
    scf::YieldOp::create(b, loc, ValueRange{y0, y1});
    b.setInsertionPointToStart(again.elseBlock());
    scf::YieldOp::create(b, loc, ValueRange{x0, x1});
  }
  return {joinLinePiece(b, loc, again.getResult(0), again.getResult(1)), ready};
}

} // namespace

SymmTargetInfo mlir::symm::getNVVMTargetInfo(const GPUTargetOptions &options) {
  SymmTargetInfo target;
  target.heapAddressSpace = 1;
  target.contextAddressSpace = 4;
  target.gpuAddressSpaces = {1, 3, 0};
  target.syncScopes = kSyncScopes;
  target.lowerAtomicRMW = lowerRMW;
  target.storeLinePiece = storeLinePiece;
  target.loadLinePiece = loadLinePiece;
  target.emitBackoff = [](OpBuilder &b, Location loc,
                          std::optional<int64_t> ns) {
    if (!ns)
      return;
    // nanosleep sleeps at most 1 ms.
    int64_t clamped = std::min<int64_t>(*ns, 1000000);
    NVVM::NanosleepOp::create(
        b, loc, LLVM::ConstantOp::create(b, loc, b.getI32Type(), clamped));
  };
  target.readClock = [](OpBuilder &b, Location loc) -> Value {
    return NVVM::GlobalTimerOp::create(b, loc, b.getI64Type());
  };
  if (options.earlyLaunch)
    target.emitEarlyLaunchEntry = [](OpBuilder &b, Location loc) {
      // The wait first: nothing of the kernel runs before the previous grid
      // has ended and its memory is visible. Every workgroup has started by
      // the time the last one signals, so the next grid's workgroups only
      // take what room is left.
      NVVM::GriddepcontrolOp::create(b, loc, NVVM::GridDepActionKind::wait);
      NVVM::GriddepcontrolOp::create(
          b, loc, NVVM::GridDepActionKind::launch_dependents);
    };
  if (options.checkRanks)
    target.reportPeerOutOfRange = [](OpBuilder &b, Location loc, StringRef what,
                                     Value rank, Value peer, Value worldSize) {
      // gpu.printf becomes vprintf in convert-gpu-to-nvvm.
      std::string format =
          ("symm: rank %d: " + escapePercent(what) +
           ": peer %d is out of range; valid peers are 0 to %d (world size "
           "%d)\n");
      Value last = LLVM::SubOp::create(
          b, loc, worldSize,
          LLVM::ConstantOp::create(b, loc, b.getI32Type(), 1));
      gpu::PrintfOp::create(b, loc, b.getStringAttr(format),
                            ValueRange{rank, peer, last, worldSize});
      LLVM::Trap::create(b, loc);
    };
  return target;
}

namespace {

struct ConvertSymmToNVVM
    : public symm::impl::ConvertSymmToNVVMBase<ConvertSymmToNVVM> {
  using Base::Base;
  void runOnOperation() override {
    // convert-gpu-to-nvvm leaves gpu.subgroup_size alone; a warp has 32
    // threads on every NVIDIA GPU.
    getOperation().walk([](gpu::SubgroupSizeOp op) {
      OpBuilder b(op);
      op.replaceAllUsesWith(
          arith::ConstantIndexOp::create(b, op.getLoc(), 32).getResult());
      op.erase();
    });
    sizeDynamicSharedMemory(getOperation(), [](OpBuilder &b, Location loc) {
      return LLVM::InlineAsmOp::create(
                 b, loc, b.getI32Type(), ValueRange{},
                 "mov.u32 $0, %dynamic_smem_size;", "=r",
                 /*has_side_effects=*/false, /*is_align_stack=*/false,
                 LLVM::TailCallKind::None,
                 LLVM::AsmDialectAttr::get(b.getContext(),
                                           LLVM::AsmDialect::AD_ATT),
                 ArrayAttr())
          .getResult(0);
    });
    if (failed(lowerSymmProgram(getOperation(),
                                getNVVMTargetInfo({checkRanks, earlyLaunch}))))
      signalPassFailure();
  }
};

} // namespace
