//===- Passes.h - Symm dialect transformations ------------------*- C++ -*-===//

#ifndef SYMM_DIALECT_SYMM_TRANSFORMS_PASSES_H
#define SYMM_DIALECT_SYMM_TRANSFORMS_PASSES_H

#include "symm/Dialect/Symm/IR/SymmDialect.h"
#include "symm/manifest.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::symm {

/// Name of the unit attribute that marks a kernel whose last argument is the
/// kernel context (`kernel-context=argument`).
constexpr llvm::StringLiteral kContextArgAttrName = "symm.context_argument";

//===----------------------------------------------------------------------===//
// The heap-base lowerings, in the order `symm-translate-to-heap-base` runs
// them. Each rewrites every matching op under `root`.
//===----------------------------------------------------------------------===//

/// Lowers `symm.put`, `symm.get` and `symm.copy` into workgroup-cooperative
/// copy loops (and a `put ... signal`'s flag into a release access). Fails,
/// with an error on the op, on a tile op outside a GPU kernel.
LogicalResult lowerTileCopies(Operation *root);

/// Lowers `symm.signal` into a release store or add, and `symm.wait` into an
/// acquire spin loop with a `symm.backoff`.
void lowerSynchronisation(Operation *root);

/// Rewrites loads, stores and atomics on a peer into `symm.translate` plus
/// their local form; plain loads and stores become `memref`/`vector` accesses.
void lowerPeerAccesses(Operation *root);

/// Hoists translations out of loops and de-duplicates them.
void hoistTranslations(Operation *root);

/// Appends the kernel-context argument to every kernel that reads the
/// context. Fails, with an error on the op, when a non-kernel device function
/// reads it.
LogicalResult addKernelContextArguments(ModuleOp module);

/// Checks that `kernelContext` is where kernels may find the kernel context:
/// SYMM_MANIFEST_CONTEXT_GLOBAL or SYMM_MANIFEST_CONTEXT_ARGUMENT
/// (symm/manifest.h); reports one line otherwise.
LogicalResult
checkKernelContext(StringRef kernelContext,
                   llvm::function_ref<void(const Twine &)> emitError);

/// The device library installed with Symm: share/symm/library beside the
/// folder of the program or shared library that holds this code (<prefix>/bin
/// or <prefix>/lib, or a folder below), in the build tree as in an install.
/// Empty when it cannot be found.
std::string getBuiltinLibraryDir();

#define GEN_PASS_DECL
#include "symm/Dialect/Symm/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "symm/Dialect/Symm/Transforms/Passes.h.inc"

} // namespace mlir::symm

#endif // SYMM_DIALECT_SYMM_TRANSFORMS_PASSES_H
