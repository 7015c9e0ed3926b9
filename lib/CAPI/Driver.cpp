//===- Driver.cpp - C API of the Symm compiler driver -----------*- C++ -*-===//
//
// symm-c/Driver.h over the driver library: flags from C, diagnostics with
// their locations into one string, the binary and manifest into malloc'd
// buffers the caller frees with symmCompileResultDestroy.
//
//===----------------------------------------------------------------------===//

#include "symm-c/Driver.h"

#include "symm/Driver/Driver.h"
#include "symm/InitAllSymm.h"

#include "mlir/CAPI/IR.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

#include <cstdlib>
#include <cstring>

using namespace mlir;
using namespace mlir::symm;

void symmCompileResultDestroy(SymmCompileResult *result) {
  if (!result)
    return;
  free(result->binary);
  free(result->manifest);
  free(result->error);
  *result = SymmCompileResult{nullptr, 0, nullptr, nullptr};
}

namespace {

char *copyString(StringRef text) {
  char *copy = static_cast<char *>(malloc(text.size() + 1));
  if (!copy)
    return nullptr;
  memcpy(copy, text.data(), text.size());
  copy[text.size()] = '\0';
  return copy;
}

/// Fails `result` with `diagnostics` (or a generic line when there are none).
int fail(SymmCompileResult *result, StringRef diagnostics) {
  result->error = copyString(
      diagnostics.empty() ? StringRef("symm: error: compilation failed\n")
                          : diagnostics);
  return 1;
}

/// Appends a driver error to `diagnostics`.
auto errorsInto(std::string &diagnostics) {
  return [&diagnostics](const Twine &message) {
    diagnostics += ("symm: error: " + message + "\n").str();
  };
}

/// Reads the C caller's flags into `options`.
LogicalResult parseFlags(const char *const *flags, size_t numFlags,
                         CompileOptions &options, std::string &diagnostics) {
  std::vector<std::string> strings;
  for (size_t i = 0; i < numFlags; ++i) {
    if (!flags[i]) {
      errorsInto(diagnostics)("compile flag " + Twine(i) + " is NULL");
      return failure();
    }
    strings.emplace_back(flags[i]);
  }
  return parseCompileFlags(strings, options, errorsInto(diagnostics));
}

/// Compiles `module` into `result`, appending diagnostics to `diagnostics`.
int compileInto(ModuleOp module, const CompileOptions &options,
                SymmCompileResult *result, std::string &diagnostics) {
  auto reportError = errorsInto(diagnostics);
  FailureOr<std::unique_ptr<CompilePlan>> plan =
      planCompile(module, options, reportError);
  if (failed(plan))
    return fail(result, diagnostics);
  // Executables are files the linker writes and symm-run starts, not bytes an
  // embedder loads.
  if ((*plan)->getEmit() == "exe" || isProgram(module)) {
    reportError("the input is a whole program (func.func @main); compile it "
                "to an executable with symm-compile --emit=exe, and give this "
                "entry point only kernels (gpu.module)");
    return fail(result, diagnostics);
  }
  FailureOr<CompileResult> compiled = compile(module, **plan, reportError);
  if (failed(compiled))
    return fail(result, diagnostics);
  result->binary = static_cast<char *>(malloc(compiled->binary.size() + 1));
  result->manifest = copyString(compiled->manifest);
  if (!result->binary || !result->manifest) {
    symmCompileResultDestroy(result);
    reportError("out of memory for the compiled object");
    return fail(result, diagnostics);
  }
  memcpy(result->binary, compiled->binary.data(), compiled->binary.size());
  result->binary_size = compiled->binary.size();
  return 0;
}

DialectRegistry &getDriverRegistry() {
  static DialectRegistry *registry = [] {
    auto *registry = new DialectRegistry;
    registerAllSymm(*registry);
    return registry;
  }();
  return *registry;
}

} // namespace

int symmCompileSource(const char *source, size_t length,
                      const char *source_name, const char *const *flags,
                      size_t num_flags, SymmCompileResult *result) {
  *result = SymmCompileResult{nullptr, 0, nullptr, nullptr};
  std::string diagnostics;
  CompileOptions options;
  if (failed(parseFlags(flags, num_flags, options, diagnostics)))
    return fail(result, diagnostics);
  MLIRContext context(getDriverRegistry());
  context.printOpOnDiagnostic(false);
  context.loadAllAvailableDialects();

  llvm::raw_string_ostream os(diagnostics);
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(
          StringRef(source, length), source_name ? source_name : "<source>"),
      llvm::SMLoc());
  SourceMgrDiagnosticHandler handler(sourceMgr, &context, os);
  if (failed(checkNestingDepth(sourceMgr, &context)))
    return fail(result, diagnostics);
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, &context);
  if (!module)
    return fail(result, diagnostics);
  return compileInto(*module, options, result, diagnostics);
}

int symmCompileModule(MlirModule module, const char *const *flags,
                      size_t num_flags, SymmCompileResult *result) {
  *result = SymmCompileResult{nullptr, 0, nullptr, nullptr};
  std::string diagnostics;
  CompileOptions options;
  if (failed(parseFlags(flags, num_flags, options, diagnostics)))
    return fail(result, diagnostics);
  ModuleOp op = unwrap(module);
  MLIRContext *context = op.getContext();
  context->appendDialectRegistry(getDriverRegistry());

  llvm::raw_string_ostream os(diagnostics);
  // The module has no source buffer here: each diagnostic is its location
  // and message, with its notes.
  ScopedDiagnosticHandler handler(context, [&](Diagnostic &diag) {
    auto print = [&](Diagnostic &d) {
      static constexpr const char *kSeverities[] = {"note", "warning", "error",
                                                    "remark"};
      os << d.getLocation() << ": "
         << kSeverities[static_cast<int>(d.getSeverity())] << ": " << d.str()
         << "\n";
    };
    print(diag);
    for (Diagnostic &note : diag.getNotes())
      print(note);
    return success();
  });
  return compileInto(op, options, result, diagnostics);
}
