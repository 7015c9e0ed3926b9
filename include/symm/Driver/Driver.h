//===- Driver.h - The Symm compiler as a library ----------------*- C++ -*-===//
//
// One call from a parsed module to a binary in memory and its manifest: a
// device object (kernels only) or, for a whole program with func.func @main,
// an executable linked against the Symm runtime. symm-compile and the C API
// (symm-c/Driver.h) are option parsing around it.
//
//===----------------------------------------------------------------------===//

#ifndef SYMM_DRIVER_DRIVER_H
#define SYMM_DRIVER_DRIVER_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/SourceMgr.h"

#include <functional>
#include <string>

namespace mlir::symm {

struct CompileOptions {
  /// host, sm_<N> (NVIDIA) or gfx<N> (AMD).
  std::string target = "host";
  /// llvm, ptx, cubin, isa, hsaco, so, exe or mlir; empty picks the default:
  /// exe for a whole program, else the target's object (ptx for NVIDIA when
  /// no ptxas is found).
  std::string emit;
  int optLevel = 2;
  /// Where kernels find the kernel context: global or argument.
  std::string kernelContext = "global";
  bool checkRanks = false;
  /// Device libraries (.mlir files or folders of them) searched, in order,
  /// after the one installed with Symm.
  std::vector<std::string> libraries;
  /// How kernels reach peers on NVIDIA GPUs: direct, nvshmem or auto.
  std::string remote = "direct";
  /// Reject host code that reads or writes device memory on the CPU target
  /// too, as GPU targets always do.
  bool checkHostAccess = false;
  /// CPU target: kernels report their accesses to the runtime's race
  /// detector (SYMM_HOST_CHECK_RACES=1).
  bool checkRaces = false;
  /// Called on the lowering pass manager before it runs (command-line
  /// instrumentation, IR printing); may fail.
  std::function<LogicalResult(PassManager &)> configurePassManager;
};

struct CompileResult {
  /// The object's bytes, the executable's for emit=exe, the lowered IR's text
  /// for emit=mlir.
  std::string binary;
  /// The manifest's JSON (symm/manifest.h); empty for exe and mlir.
  std::string manifest;
  /// What `binary` is: the resolved emit kind.
  std::string emit;
};

/// Reports a driver error that has no location in the input (an option, a
/// missing tool); errors in the input go to the context's diagnostic handler.
using DriverErrorFn = llvm::function_ref<void(const Twine &)>;

/// The deepest nesting of regions, brackets and types ({, (, [ and <) in the
/// text that Symm's tools accept: parsing and compiling recurse once per
/// level.
constexpr unsigned kMaxNestingDepth = 1024;

/// Fails, with an error at the bracket that opens level kMaxNestingDepth + 1,
/// when the main buffer of `sourceMgr` nests deeper; call it before parsing.
LogicalResult checkNestingDepth(const llvm::SourceMgr &sourceMgr,
                                MLIRContext *context);

/// Whether `module` is a whole program (has a func.func @main).
bool isProgram(ModuleOp module);

/// The resolved emit kind for `options` and `module` (the default when
/// options.emit is empty), or failure after reporting an unknown or
/// inapplicable one.
FailureOr<std::string> resolveEmit(ModuleOp module,
                                   const CompileOptions &options,
                                   DriverErrorFn emitError);

/// The textual pass pipeline `compile` runs for `options` on `module`.
FailureOr<std::string> getPipeline(ModuleOp module,
                                   const CompileOptions &options,
                                   DriverErrorFn emitError);

/// Compiles `module` in place (it is lowered) for `options`. Its context
/// needs what mlir::symm::registerAllSymm (symm/InitAllSymm.h) registers.
FailureOr<CompileResult> compile(ModuleOp module, const CompileOptions &options,
                                 DriverErrorFn emitError);

} // namespace mlir::symm

#endif // SYMM_DRIVER_DRIVER_H
