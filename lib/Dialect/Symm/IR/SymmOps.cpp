//===- SymmOps.cpp - Symm operations ----------------------------*- C++ -*-===//
//
// Verifiers, folders, memory effects and custom syntax of the symm operations.
//
//===----------------------------------------------------------------------===//

#include "symm/Dialect/Symm/IR/SymmOps.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::symm;

//===----------------------------------------------------------------------===//
// Shared checks
//===----------------------------------------------------------------------===//

/// One index per dimension, and a peer operand only on symmetric memory.
static LogicalResult verifyElementAccess(Operation *op, MemRefType type,
                                         size_t numIndices, Value peer) {
  if (static_cast<int64_t>(numIndices) != type.getRank())
    return op->emitOpError() << "expects " << type.getRank() << " indices for "
                             << type << ", got " << numIndices;
  if (peer && !isHeapMemRef(type))
    return op->emitOpError()
           << "peer access requires a memref in #symm.heap, got " << type;
  return success();
}

/// `what` must be the element type of `type`, or, for plain accesses, a vector
/// of it.
static LogicalResult verifyAccessedType(Operation *op, StringRef what,
                                        Type valueType, MemRefType type,
                                        bool ordered) {
  Type element = type.getElementType();
  if (auto vector = dyn_cast<VectorType>(valueType)) {
    if (ordered)
      return op->emitOpError()
             << "an ordered access is a scalar atomic; " << what << " type "
             << valueType << " must be the element type " << element
             << " (drop ordering/scope for a plain vector access)";
    if (vector.isScalable())
      return op->emitOpError()
             << "scalable vectors are not supported, got " << valueType;
    if (vector.getElementType() != element)
      return op->emitOpError()
             << what << " vector element type " << vector.getElementType()
             << " does not match the memref element type " << element;
    return success();
  }
  if (valueType != element)
    return op->emitOpError()
           << what << " type " << valueType
           << " does not match the memref element type " << element;
  if (ordered && !element.isIntOrFloat())
    return op->emitOpError()
           << "an ordered access requires an integer or float element type, "
              "got "
           << element;
  return success();
}

/// Ordering and scope come together on plain value accesses.
static LogicalResult
verifyOptionalOrdering(Operation *op, std::optional<MemoryOrdering> ordering,
                       std::optional<MemoryScope> scope, bool isLoad) {
  if (ordering.has_value() != scope.has_value())
    return op->emitOpError("ordering and scope must be given together");
  if (!ordering)
    return success();
  bool wrong = isLoad ? (*ordering == MemoryOrdering::release ||
                         *ordering == MemoryOrdering::acq_rel)
                      : (*ordering == MemoryOrdering::acquire ||
                         *ordering == MemoryOrdering::acq_rel);
  if (wrong)
    return op->emitOpError()
           << "a " << (isLoad ? "load" : "store") << " cannot have "
           << stringifyMemoryOrdering(*ordering) << " ordering; use relaxed, "
           << (isLoad ? "acquire" : "release") << " or seq_cst";
  return success();
}

/// Flags are integers: waits compare them and signals add to them.
static LogicalResult verifyFlagType(Operation *op, Type valueType,
                                    MemRefType type) {
  if (!isa<IntegerType>(type.getElementType()))
    return op->emitOpError() << "flags must have an integer element type, got "
                             << type.getElementType();
  if (valueType != type.getElementType())
    return op->emitOpError()
           << "value type " << valueType
           << " does not match the flag element type " << type.getElementType();
  return success();
}

/// Tiles on both sides of a copy have the same shape and element type.
static LogicalResult verifyTiles(Operation *op, MemRefType src,
                                 MemRefType dst) {
  if (src.getElementType() != dst.getElementType())
    return op->emitOpError() << "source element type " << src.getElementType()
                             << " does not match destination element type "
                             << dst.getElementType();
  if (src.getRank() != dst.getRank())
    return op->emitOpError()
           << "source rank " << src.getRank()
           << " does not match destination rank " << dst.getRank();
  for (auto [s, d] : llvm::zip(src.getShape(), dst.getShape()))
    if (!ShapedType::isDynamic(s) && !ShapedType::isDynamic(d) && s != d)
      return op->emitOpError()
             << "source shape of " << src
             << " does not match destination shape of " << dst;
  return success();
}

static LogicalResult requireHeap(Operation *op, StringRef role, Type type) {
  if (isHeapMemRef(type))
    return success();
  return op->emitOpError() << role << " must be a memref in #symm.heap, got "
                           << type;
}

/// Collective host operations cannot run inside device code.
static LogicalResult verifyOnHost(Operation *op) {
  if (op->getParentOfType<gpu::GPUModuleOp>() ||
      op->getParentOfType<gpu::LaunchOp>())
    return op->emitOpError()
           << "is a collective host operation and cannot appear in device "
              "code; move it to a host function outside the gpu.module";
  return success();
}

/// Peer and atomic accesses, waits, fences and tiles run in kernels: host code
/// has no kernel context to translate with, and the host lowering has none of
/// them. Checked last, so that a malformed op reports what is wrong with it.
static LogicalResult verifyInDeviceCode(Operation *op, StringRef what) {
  if (op->getParentOfType<gpu::GPUModuleOp>() ||
      op->getParentOfType<gpu::LaunchOp>())
    return success();
  return op->emitOpError()
         << "is " << what
         << ", which only device code can do; move it into a kernel (a "
            "gpu.func in a gpu.module, or a gpu.launch body); host code "
            "copies symmetric memory with gpu.memcpy";
}

//===----------------------------------------------------------------------===//
// TranslateOp
//===----------------------------------------------------------------------===//

LogicalResult TranslateOp::verify() {
  if (failed(requireHeap(*this, "translated memref", getMemref().getType())))
    return failure();
  return verifyInDeviceCode(*this, "a translation to a peer's view");
}

OpFoldResult TranslateOp::fold(FoldAdaptor) {
  // A translate's result addresses the same symmetric object as its operand,
  // so a translate of it can start from the original view. This must come
  // first: translating a peer's view to this rank gives back the local view,
  // not the peer's.
  if (auto inner = getMemref().getDefiningOp<TranslateOp>()) {
    getMemrefMutable().assign(inner.getMemref());
    return getResult();
  }
  if (getPeer().getDefiningOp<RankOp>())
    return getMemref();
  return {};
}

//===----------------------------------------------------------------------===//
// Value operations
//===----------------------------------------------------------------------===//

/// symm.load and symm.store: the same rules, seen from either side.
template <typename OpT>
static LogicalResult verifyValueAccess(OpT op, Type accessed, bool isLoad) {
  if (failed(verifyElementAccess(op, op.getMemRefType(), op.getIndices().size(),
                                 op.getPeer())) ||
      failed(
          verifyOptionalOrdering(op, op.getOrdering(), op.getScope(), isLoad)))
    return failure();
  if (op.getAlignment() && op.getOrdering())
    return op.emitOpError("an ordered access is naturally aligned; alignment "
                          "applies to plain accesses only");
  if (failed(verifyAccessedType(op, isLoad ? "result" : "value", accessed,
                                op.getMemRefType(),
                                op.getOrdering().has_value())))
    return failure();
  // A plain local access is an ordinary load or store, in host code too.
  if (op.getPeer())
    return verifyInDeviceCode(op, "a peer access");
  if (op.getOrdering())
    return verifyInDeviceCode(op, "an atomic access");
  return success();
}

/// A plain access reads or writes; an atomic one also synchronises with other
/// threads, so it gets the other effect too: it must not be merged with
/// another access or hoisted out of a polling loop.
template <typename OpT>
static void addValueAccessEffects(
    OpT op, MemoryEffects::Effect *effect,
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  effects.emplace_back(effect, &op.getMemrefMutable(),
                       SideEffects::DefaultResource::get());
  if (op.getOrdering())
    effects.emplace_back(
        isa<MemoryEffects::Read>(effect)
            ? static_cast<MemoryEffects::Effect *>(MemoryEffects::Write::get())
            : MemoryEffects::Read::get(),
        &op.getMemrefMutable(), SideEffects::DefaultResource::get());
}

LogicalResult LoadOp::verify() {
  return verifyValueAccess(*this, getResult().getType(), /*isLoad=*/true);
}

void LoadOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  addValueAccessEffects(*this, MemoryEffects::Read::get(), effects);
}

LogicalResult StoreOp::verify() {
  return verifyValueAccess(*this, getValue().getType(), /*isLoad=*/false);
}

void StoreOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  addValueAccessEffects(*this, MemoryEffects::Write::get(), effects);
}

static bool isFloatKind(AtomicKind kind) {
  return kind == AtomicKind::fadd || kind == AtomicKind::fmax ||
         kind == AtomicKind::fmin;
}

LogicalResult AtomicRMWOp::verify() {
  if (failed(verifyElementAccess(*this, getMemRefType(), getIndices().size(),
                                 getPeer())))
    return failure();
  Type type = getValue().getType();
  if (isa<VectorType>(type))
    return emitOpError() << "atomics are scalar, got " << type;
  if (failed(verifyAccessedType(*this, "value", type, getMemRefType(),
                                /*ordered=*/true)))
    return failure();
  AtomicKind kind = getKind();
  if (kind == AtomicKind::xchg)
    return verifyInDeviceCode(*this, "an atomic access");
  if (isFloatKind(kind) && !isa<FloatType>(type))
    return emitOpError() << "'" << stringifyAtomicKind(kind)
                         << "' requires a float type, got " << type;
  if (!isFloatKind(kind) && !isa<IntegerType>(type))
    return emitOpError() << "'" << stringifyAtomicKind(kind)
                         << "' requires an integer type, got " << type
                         << " (use fadd, fmax, fmin or xchg on floats)";
  return verifyInDeviceCode(*this, "an atomic access");
}

/// A line of symm.line_store / symm.line_load: i64 words of a heap memref.
template <typename OpT> static LogicalResult verifyLineAccess(OpT op) {
  MemRefType type = op.getMemRefType();
  if (failed(requireHeap(op, "a line's memref", type)) ||
      failed(
          verifyElementAccess(op, type, op.getIndices().size(), op.getPeer())))
    return failure();
  if (!type.getElementType().isInteger(64))
    return op.emitOpError() << "a line is 16 i64 words; the memref's element "
                               "type must be i64, got "
                            << type.getElementType();
  return verifyInDeviceCode(op, "a line access");
}

LogicalResult LineStoreOp::verify() { return verifyLineAccess(*this); }

LogicalResult LineLoadOp::verify() { return verifyLineAccess(*this); }

LogicalResult AtomicCASOp::verify() {
  if (failed(verifyElementAccess(*this, getMemRefType(), getIndices().size(),
                                 getPeer())))
    return failure();
  Type type = getExpected().getType();
  if (!isa<IntegerType>(type))
    return emitOpError() << "compare-and-swap requires a scalar integer, got "
                         << type;
  if (failed(verifyAccessedType(*this, "value", type, getMemRefType(),
                                /*ordered=*/true)))
    return failure();
  return verifyInDeviceCode(*this, "an atomic access");
}

LogicalResult FenceOp::verify() {
  if (getOrdering() == MemoryOrdering::relaxed)
    return emitOpError("a relaxed fence orders nothing; use acquire, release, "
                       "acq_rel or seq_cst");
  return verifyInDeviceCode(*this, "a memory fence");
}

LogicalResult ReleaseBarrierOp::verify() {
  return verifyInDeviceCode(*this, "a workgroup barrier");
}

LogicalResult WaitOp::verify() {
  if (failed(verifyElementAccess(*this, getMemRefType(), getIndices().size(),
                                 getPeer())) ||
      failed(verifyFlagType(*this, getValue().getType(), getMemRefType())))
    return failure();
  if (getResult().getType() != getValue().getType())
    return emitOpError() << "result type " << getResult().getType()
                         << " does not match the flag element type "
                         << getValue().getType();
  return verifyInDeviceCode(*this, "a spin-wait on a flag");
}

LogicalResult SignalOp::verify() {
  if (failed(verifyElementAccess(*this, getMemRefType(), getIndices().size(),
                                 getPeer())))
    return failure();
  if (failed(verifyFlagType(*this, getValue().getType(), getMemRefType())))
    return failure();
  return verifyInDeviceCode(*this, "an atomic signal");
}

//===----------------------------------------------------------------------===//
// Tile operations
//===----------------------------------------------------------------------===//

/// `on %peer [signal(<kind> %value, %flags[%i...] : <type>) scope(<scope>)]`.
/// The signal's value type is the flag's element type, so it is not spelled.
static ParseResult
parsePeerAndSignal(OpAsmParser &parser, OpAsmParser::UnresolvedOperand &peer,
                   SignalKindAttr &kind,
                   std::optional<OpAsmParser::UnresolvedOperand> &value,
                   std::optional<OpAsmParser::UnresolvedOperand> &flags,
                   SmallVectorImpl<OpAsmParser::UnresolvedOperand> &indices,
                   Type &valueType, Type &flagsType, MemoryScopeAttr &scope) {
  if (parser.parseKeyword("on") || parser.parseOperand(peer))
    return failure();
  if (failed(parser.parseOptionalKeyword("signal")))
    return success();
  StringRef kindName, scopeName;
  OpAsmParser::UnresolvedOperand valueOperand, flagsOperand;
  if (parser.parseLParen())
    return failure();
  SMLoc kindLoc = parser.getCurrentLocation();
  if (parser.parseKeyword(&kindName))
    return failure();
  std::optional<SignalKind> kindValue = symbolizeSignalKind(kindName);
  if (!kindValue)
    return parser.emitError(kindLoc, "expected signal kind 'set' or 'add'");
  if (parser.parseOperand(valueOperand) || parser.parseComma() ||
      parser.parseOperand(flagsOperand) ||
      parser.parseOperandList(indices, OpAsmParser::Delimiter::Square) ||
      parser.parseColon())
    return failure();
  SMLoc typeLoc = parser.getCurrentLocation();
  if (parser.parseType(flagsType) || parser.parseRParen())
    return failure();
  auto flagsMemRef = dyn_cast<MemRefType>(flagsType);
  if (!flagsMemRef)
    return parser.emitError(typeLoc,
                            "expected a memref type for the flags, got ")
           << flagsType;
  if (parser.parseKeyword("scope") || parser.parseLParen())
    return failure();
  SMLoc scopeLoc = parser.getCurrentLocation();
  if (parser.parseKeyword(&scopeName) || parser.parseRParen())
    return failure();
  std::optional<MemoryScope> scopeValue = symbolizeMemoryScope(scopeName);
  if (!scopeValue)
    return parser.emitError(scopeLoc,
                            "expected scope 'workgroup', 'device' or 'system'");
  MLIRContext *ctx = parser.getContext();
  kind = SignalKindAttr::get(ctx, *kindValue);
  scope = MemoryScopeAttr::get(ctx, *scopeValue);
  value = valueOperand;
  flags = flagsOperand;
  valueType = flagsMemRef.getElementType();
  return success();
}

static void printPeerAndSignal(OpAsmPrinter &p, Operation *, Value peer,
                               SignalKindAttr kind, Value value, Value flags,
                               OperandRange indices, Type, Type flagsType,
                               MemoryScopeAttr scope) {
  p << "on " << peer;
  if (!kind)
    return;
  p << " signal(" << stringifySignalKind(kind.getValue()) << " " << value
    << ", " << flags << "[" << indices << "] : " << flagsType << ")";
  if (scope)
    p << " scope(" << stringifyMemoryScope(scope.getValue()) << ")";
}

LogicalResult PutOp::verify() {
  auto src = getSrc().getType(), dst = getDst().getType();
  if (src.getRank() == 0)
    return emitOpError("tiles must have rank 1 or more");
  if (failed(requireHeap(*this, "destination", dst)) ||
      failed(verifyTiles(*this, src, dst)))
    return failure();
  bool hasSignal = getSignalKind().has_value();
  if (hasSignal != static_cast<bool>(getSignalFlags()) ||
      hasSignal != static_cast<bool>(getSignalValue()))
    return emitOpError("a signal needs a kind, a value and a flag");
  if (getScope().has_value() != hasSignal)
    return emitOpError("scope belongs to the signal and must be given with it");
  if (!hasSignal)
    return verifyInDeviceCode(*this, "a workgroup-cooperative tile copy");
  auto flagsType = cast<MemRefType>(getSignalFlags().getType());
  if (failed(requireHeap(*this, "signal flag", flagsType)))
    return failure();
  if (static_cast<int64_t>(getSignalIndices().size()) != flagsType.getRank())
    return emitOpError() << "expects " << flagsType.getRank()
                         << " signal indices for " << flagsType << ", got "
                         << getSignalIndices().size();
  if (failed(verifyFlagType(*this, getSignalValue().getType(), flagsType)))
    return failure();
  return verifyInDeviceCode(*this, "a workgroup-cooperative tile copy");
}

LogicalResult GetOp::verify() {
  auto src = getSrc().getType(), dst = getDst().getType();
  if (src.getRank() == 0)
    return emitOpError("tiles must have rank 1 or more");
  if (failed(requireHeap(*this, "source", src)) ||
      failed(verifyTiles(*this, src, dst)))
    return failure();
  return verifyInDeviceCode(*this, "a workgroup-cooperative tile copy");
}

LogicalResult CopyOp::verify() {
  auto src = getSrc().getType(), dst = getDst().getType();
  if (src.getRank() == 0)
    return emitOpError("tiles must have rank 1 or more");
  if (failed(requireHeap(*this, "source", src)) ||
      failed(requireHeap(*this, "destination", dst)) ||
      failed(verifyTiles(*this, src, dst)))
    return failure();
  return verifyInDeviceCode(*this, "a workgroup-cooperative tile copy");
}

//===----------------------------------------------------------------------===//
// Host operations
//===----------------------------------------------------------------------===//

LogicalResult AllocOp::verify() {
  if (failed(verifyOnHost(*this)))
    return failure();
  MemRefType type = getMemref().getType();
  if (failed(requireHeap(*this, "result", type)))
    return failure();
  if (getDynamicSizes().size() != type.getNumDynamicDims())
    return emitOpError() << "expects one size operand per dynamic dimension of "
                         << type << " (" << type.getNumDynamicDims()
                         << "), got " << getDynamicSizes().size();
  if (!type.getLayout().isIdentity())
    return emitOpError() << "allocates contiguous buffers; the result layout "
                            "must be the identity, got "
                         << type;
  // The runtime takes the size in bytes as a signed 64-bit integer; a static
  // shape beyond it would wrap around to a small allocation.
  Type element = type.getElementType();
  if (!element.isIntOrIndexOrFloat())
    return success();
  unsigned bits = element.isIndex() ? 64 : element.getIntOrFloatBitWidth();
  int64_t bytes = (bits + 7) / 8;
  for (int64_t size : type.getShape())
    if (!ShapedType::isDynamic(size) && llvm::MulOverflow(bytes, size, bytes))
      return emitOpError() << "allocates more than 2^63 - 1 bytes (" << type
                           << "); the symmetric heap is at most 2^62 bytes";
  return success();
}

LogicalResult DeallocOp::verify() {
  if (failed(verifyOnHost(*this)))
    return failure();
  return requireHeap(*this, "operand", getMemref().getType());
}

LogicalResult BarrierOp::verify() { return verifyOnHost(*this); }

//===----------------------------------------------------------------------===//
// Traces
//===----------------------------------------------------------------------===//

/// A range's name is what the trace shows, and its begin and end find each
/// other by it: one without the other in a function is a mistake.
template <typename OpT, typename OtherT>
static LogicalResult verifyTraceRange(OpT op, StringRef other) {
  if (op.getName().empty())
    return op.emitOpError() << "needs a name for the trace to show";
  Operation *function = op->template getParentOfType<FunctionOpInterface>();
  if (!function)
    function = op->getParentOp();
  bool paired = false;
  function->walk(
      [&](OtherT candidate) { paired |= candidate.getName() == op.getName(); });
  if (!paired)
    return op.emitOpError() << "has no " << other << " \"" << op.getName()
                            << "\" in its function; every range needs both";
  return verifyInDeviceCode(op, "a trace range");
}

LogicalResult TraceBeginOp::verify() {
  return verifyTraceRange<TraceBeginOp, TraceEndOp>(*this, "symm.trace.end");
}

LogicalResult TraceEndOp::verify() {
  return verifyTraceRange<TraceEndOp, TraceBeginOp>(*this, "symm.trace.begin");
}

bool TraceRecordOp::isNamed(TraceEventKind kind) {
  return kind == TraceEventKind::kernel_begin ||
         kind == TraceEventKind::kernel_end ||
         kind == TraceEventKind::range_begin ||
         kind == TraceEventKind::range_end;
}

LogicalResult TraceRecordOp::verify() {
  bool named = isNamed(getKind());
  if (named != getName().has_value())
    return emitOpError() << stringifyTraceEventKind(getKind())
                         << (named ? " events need a name"
                                   : " events take no name");
  size_t expected = named ? 1 : 2;
  if (getArgs().size() != expected)
    return emitOpError() << stringifyTraceEventKind(getKind())
                         << " events take " << expected << " argument"
                         << (named ? "" : "s") << ", got " << getArgs().size();
  return verifyInDeviceCode(*this, "a trace event");
}

#define GET_OP_CLASSES
#include "symm/Dialect/Symm/IR/SymmOps.cpp.inc"
