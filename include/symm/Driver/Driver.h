//===- Driver.h - The Symm compiler as a library ----------------*- C++ -*-===//
//
// One call from a parsed module to a binary in memory and its manifest: a
// device object (kernels only) or, for a whole program with func.func @main,
// an executable linked against the Symm runtime. The compile options have one
// definition here, with a parser for the flags symm-compile takes; symm-compile
// and the C API (symm-c/Driver.h), and through it Python, pass those flags.
//
//===----------------------------------------------------------------------===//

#ifndef SYMM_DRIVER_DRIVER_H
#define SYMM_DRIVER_DRIVER_H

#include "symm/Pipelines/PipelineOptions.h"
#include "symm/Target/Target.h"
#include "symm/abi.h"
#include "symm/manifest.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/SourceMgr.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace mlir::symm {

/// Reports a driver error that has no location in the input (an option, a
/// missing tool); errors in the input go to the context's diagnostic handler.
using DriverErrorFn = llvm::function_ref<void(const Twine &)>;

/// What a compilation is asked for. parseCompileFlags sets it from the flags
/// of symm-compile (getCompileFlags), which is how symm-compile, the C API and
/// Python set it.
struct CompileOptions {
  /// --target: host, sm_<N> (NVIDIA) or gfx<N> (AMD).
  std::string target = SYMM_TARGET_HOST;
  /// --emit: llvm, exe, mlir or one of the target's objects (ptx, cubin,
  /// isa, hsaco, so); empty picks the default: exe for a whole program, else
  /// the target's object.
  std::string emit;
  /// -O: the device optimisation level.
  int optLevel = 2;
  /// --kernel-context: where kernels find the kernel context.
  std::string kernelContext = SYMM_MANIFEST_CONTEXT_GLOBAL;
  /// --check-ranks: on GPUs, check every peer rank against the world size.
  bool checkRanks = false;
  /// --library (repeated): device libraries (.mlir files or folders of them)
  /// searched, in order, after the one installed with Symm.
  std::vector<std::string> libraries;
  /// --remote: how kernels reach peers on NVIDIA GPUs: direct, nvshmem or
  /// auto.
  std::string remote = "direct";
  /// --check-host-access: reject host code that reads or writes device
  /// memory on the CPU target too, as GPU targets always do.
  bool checkHostAccess = false;
  /// --check-races: CPU target: kernels report their accesses to the
  /// runtime's race detector (SYMM_HOST_CHECK_RACES=1).
  bool checkRaces = false;
  /// --trace: kernels record their events for the runtime's trace
  /// (SYMM_TRACE).
  bool trace = false;
  /// Called on the lowering pass manager before it runs (command-line
  /// instrumentation, IR printing); may fail.
  std::function<LogicalResult(PassManager &)> configurePassManager;
};

/// One flag of the compile options.
struct CompileFlag {
  enum Kind {
    /// --name=value
    Value,
    /// --name=value, repeated: every value counts.
    List,
    /// --name, or --name=true|false.
    Switch,
    /// -<name><value> or -<name>=<value> (-O3).
    Prefix,
  };
  StringRef name;
  Kind kind;
  /// What the value is, in help ("path").
  StringRef valueName;
  /// Help text.
  std::string description;
  /// Sets the option from the flag's value; fails with one line naming the
  /// flag.
  LogicalResult (*apply)(CompileOptions &options, StringRef value,
                         DriverErrorFn emitError);
};

/// Every compile flag, in the order symm-compile lists them.
ArrayRef<CompileFlag> getCompileFlags();

/// Sets `options` from `flags`, spelled as symm-compile takes them
/// ("--target=sm_90", "--emit=ptx", "-O3", "--kernel-context=argument",
/// "--check-ranks", "--library=PATH" once per library). An unknown flag, a
/// missing or malformed value or an unknown target fails with one line
/// naming the flag; what depends on the target (the chip, the emit kind) is
/// checked by planCompile.
LogicalResult parseCompileFlags(ArrayRef<std::string> flags,
                                CompileOptions &options,
                                DriverErrorFn emitError);

struct CompileResult {
  /// The object's bytes, the executable's for emit=exe, the lowered IR's text
  /// for emit=mlir.
  std::string binary;
  /// The manifest's JSON (symm/manifest.h); empty for exe and mlir.
  std::string manifest;
  /// What `binary` is: the resolved emit kind.
  std::string emit;
};

/// A compilation's decisions, made once before anything runs: the target,
/// the emit kind, the pipeline's options, and the toolkit the target found
/// for its binaries (a scratch folder made for it is removed with the plan).
class CompilePlan {
public:
  const SymmTarget &getTarget() const { return *target; }
  /// The resolved emit kind (the default when the options gave none).
  StringRef getEmit() const { return emit; }
  const SymmPipelineOptions &getPipelineOptions() const { return pipeline; }
  /// The textual pass pipeline compile runs.
  std::string getPipeline() const;

private:
  friend FailureOr<std::unique_ptr<CompilePlan>>
  planCompile(ModuleOp module, const CompileOptions &options,
              DriverErrorFn emitError);
  friend FailureOr<CompileResult>
  compile(ModuleOp module, const CompilePlan &plan, DriverErrorFn emitError);

  const SymmTarget *target = nullptr;
  std::string targetName;
  std::string emit;
  SymmPipelineOptions pipeline;
  Toolkit toolkit;
  std::function<LogicalResult(PassManager &)> configurePassManager;
};

/// Plans compiling `module` for `options`: looks the target up, checks that
/// the module has nothing the target cannot lower, resolves the emit kind,
/// finds the target's toolkit (once) and validates the pipeline options.
/// Fails after reporting the first problem in one line.
FailureOr<std::unique_ptr<CompilePlan>>
planCompile(ModuleOp module, const CompileOptions &options,
            DriverErrorFn emitError);

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

/// Compiles `module` in place (it is lowered) as `plan` says. Its context
/// needs what mlir::symm::registerAllSymm (symm/InitAllSymm.h) registers.
FailureOr<CompileResult> compile(ModuleOp module, const CompilePlan &plan,
                                 DriverErrorFn emitError);

/// planCompile, then compile.
FailureOr<CompileResult> compile(ModuleOp module, const CompileOptions &options,
                                 DriverErrorFn emitError);

} // namespace mlir::symm

#endif // SYMM_DRIVER_DRIVER_H
