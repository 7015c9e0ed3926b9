//===- SymmToLLVM.h - Shared lowering of symm device ops --------*- C++ -*-===//
//
// The target-independent part of lowering symm device operations to the LLVM
// dialect, parameterised by a target's SymmTargetInfo (TargetInfo.h).
//
//===----------------------------------------------------------------------===//

#ifndef SYMM_CONVERSION_SYMMTOLLVM_H
#define SYMM_CONVERSION_SYMMTOLLVM_H

#include "symm/Conversion/TargetInfo.h"
#include "symm/Dialect/Symm/IR/SymmOps.h"

#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir::symm {

/// Lowers the symm operations translate-to-heap-base leaves in device code
/// (translate, rank, world_size, ordered load/store, atomic_rmw, atomic_cas,
/// fence, backoff) to the LLVM dialect.
void populateSymmToLLVMConversionPatterns(LLVMTypeConverter &converter,
                                          RewritePatternSet &patterns,
                                          const SymmTargetInfo &target);

/// Lowers symm.trace.record: the event goes into the module's trace buffer
/// (SYMM_TRACE_SYMBOL) with `target.readClock`'s time.
void populateSymmTraceToLLVMConversionPatterns(LLVMTypeConverter &converter,
                                               RewritePatternSet &patterns,
                                               const SymmTargetInfo &target);

/// Defines the table of the kernel and range names that `module`'s
/// symm.trace.record operations take (SYMM_TRACE_NAMES_SYMBOL), if any.
void createTraceNames(gpu::GPUModuleOp module, const SymmTargetInfo &target);

/// Lowers every symm operation in `gpuModule` for `target`, then gives every
/// remaining `#symm.heap` memref the target's heap address space, so that the
/// upstream GPU lowering that follows sees only builtin memory spaces.
LogicalResult lowerSymmDeviceCode(gpu::GPUModuleOp gpuModule,
                                  const SymmTargetInfo &target);

/// Lowers the host operations (alloc, dealloc, barrier, rank, world_size) to
/// calls of the runtime's program entry points (symm/abi.h).
void populateSymmHostToLLVMConversionPatterns(LLVMTypeConverter &converter,
                                              RewritePatternSet &patterns);

/// Lowers the host operations outside gpu.modules (alloc, dealloc, barrier,
/// rank, world_size) to calls of the runtime's program entry points and gives
/// host memrefs in `#symm.heap` the default memory space.
LogicalResult lowerSymmHostCode(ModuleOp module);

/// Device code of every gpu.module for `target`, then host code: after it,
/// kernel signatures and launch operands agree on memref types.
LogicalResult lowerSymmProgram(ModuleOp module, const SymmTargetInfo &target);

/// Rewrites `#symm.heap` into the integer memory space `addressSpace` (none for
/// 0) in every type and attribute under `root`.
void replaceHeapMemorySpace(Operation *root, unsigned addressSpace);

/// Gives every `gpu.dynamic_shared_memory` in `module` its real size in
/// bytes, which `bytes` computes at the start of the kernel (upstream lowers
/// the `?` size to 0): a `memref.reinterpret_cast` of the op's result.
void sizeDynamicSharedMemory(
    ModuleOp module, llvm::function_ref<Value(OpBuilder &, Location)> bytes);

/// The LLVM type of symm_kernel_context (symm/kernel_context.h), fields in
/// symm_kernel_context_field order.
LLVM::LLVMStructType getKernelContextType(MLIRContext *ctx);

/// A pointer to the kernel context as `op` sees it: its kernel's trailing
/// argument under kernel-context=argument, else the module's context global
/// (SYMM_CONTEXT_SYMBOL, created in `target.contextAddressSpace` on first use).
Value getKernelContextPtr(OpBuilder &b, Operation *op,
                          const SymmTargetInfo &target);

/// Loads field `path` (symm_kernel_context_field, then array indices) of the
/// kernel context, as a `type`.
Value loadKernelContextField(OpBuilder &b, Operation *op,
                             const SymmTargetInfo &target,
                             ArrayRef<LLVM::GEPArg> path, Type type);

/// Converts a symm ordering to LLVM's.
LLVM::AtomicOrdering toLLVMOrdering(MemoryOrdering ordering);

/// The strongest ordering a failed compare-and-swap (a load) can have.
LLVM::AtomicOrdering failureOrdering(MemoryOrdering ordering);

/// Where a lane's piece of a line is (symm.line_store / symm.line_load):
/// lines are 128-byte aligned, so the address of the piece at `ptr` says its
/// number `piece` (0-7, an i64), whether it is the last (`last`, i1: the
/// piece that carries the flag), its second word (`word1`) and the line's
/// flag word (`flagWord`, 16 (7 - piece) + 8 bytes past `ptr`).
struct LinePiece {
  Value piece, last, word1, flagWord;
};
LinePiece locateLinePiece(OpBuilder &b, Location loc, Value ptr);
/// A piece's two i64 words (a vector<2xi64>), and the piece they make.
std::pair<Value, Value> splitLinePiece(OpBuilder &b, Location loc, Value piece);
Value joinLinePiece(OpBuilder &b, Location loc, Value x0, Value x1);

/// A compare-and-swap loop on the `intType` integer at `ptr`, for atomics a
/// target has no instruction for: from a monotonic load, each try computes
/// the new value with `update(current)` and swaps it in with cmpxchg
/// (`success`/`failure` orderings at `syncScope`) until that succeeds.
/// Returns the value it replaced. It is an scf.while because the code around
/// it is still structured.
Value createCASLoop(OpBuilder &b, Location loc, Value ptr, Type intType,
                    unsigned alignment, LLVM::AtomicOrdering success,
                    LLVM::AtomicOrdering failure, StringRef syncScope,
                    function_ref<Value(OpBuilder &, Value)> update);

/// What a read-modify-write of `kind` stores: its combination of the old
/// value `old` and the operand `value` (`value` itself for xchg), for the
/// compare-and-swap loops of atomics a target has no instruction for.
Value combineAtomic(OpBuilder &b, Location loc, AtomicKind kind, Value old,
                    Value value);

/// The address of a NUL-terminated copy of `text`: one constant global per
/// distinct text in `symbols`.
Value getStringConstant(OpBuilder &b, Location loc, Operation *symbols,
                        StringRef text);

/// "<name> at <file>:<line>:<column>" for messages about the operation at
/// `loc`: the name from a NameLoc in it (`fallback` without one), the place
/// from its first file location (none without one).
std::string describeLocation(Location loc, StringRef fallback);

/// The declaration of runtime (or libc) function `name` in `symbolTable`,
/// created on first use.
LLVM::LLVMFuncOp getRuntimeFunction(OpBuilder &b, Operation *symbolTable,
                                    StringRef name, ArrayRef<Type> args,
                                    Type result, bool isVarArg = false);

/// Makes `converter` keep every type (conversions added later take
/// precedence) and join converted and unconverted values through unrealized
/// casts, which fold away once both sides are lowered: for converting a few
/// operations ahead of, or beside, a dialect's full lowering.
void addCastBridgedConversions(TypeConverter &converter);

} // namespace mlir::symm

#endif // SYMM_CONVERSION_SYMMTOLLVM_H
