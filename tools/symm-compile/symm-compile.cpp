//===- symm-compile.cpp - Symm compiler driver ------------------*- C++ -*-===//
//
// Compiles a .mlir file of symm kernels (and optionally a host program) for one
// target: device objects (PTX, cubin, AMDGPU assembly, HSACO, host shared
// objects, LLVM IR) with a JSON manifest of their kernels, or a whole program
// to an executable linked against the Symm runtime.
//
//===----------------------------------------------------------------------===//

#include "symm/Driver/Driver.h"
#include "symm/InitAllSymm.h"
#include "symm/version.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Support/Timing.h"

#include "llvm/Config/llvm-config.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"

using namespace mlir;
using namespace mlir::symm;
namespace cl = llvm::cl;

static cl::OptionCategory symmCategory("Symm options");
static cl::OptionCategory debugCategory("Debugging options");

static cl::opt<std::string>
    inputFile(cl::Positional,
              cl::desc("<input.mlir> (- reads the standard input)"),
              cl::cat(symmCategory));
static cl::opt<std::string>
    outputFile("o",
               cl::desc("Output file; - writes it to the standard output. "
                        "Default: a.out for executables, <input "
                        "stem>.<emit> otherwise, the standard output when "
                        "the input is -"),
               cl::value_desc("path"), cl::init(""), cl::cat(symmCategory));
static cl::opt<std::string> manifestFile(
    "manifest",
    cl::desc("Kernel manifest (JSON) of a device object; - writes it to the "
             "standard output. Default: <output>.json, none when the output "
             "is the standard output or an executable"),
    cl::value_desc("path"), cl::init(""), cl::cat(symmCategory));
static cl::opt<bool> printPipeline("print-pipeline",
                                   cl::desc("Print the pass pipeline and exit"),
                                   cl::init(false), cl::cat(symmCategory));

namespace {

/// The driver's compile flags (getCompileFlags) as command-line options, in
/// the Symm category; after parsing, the flags given, in command-line order,
/// as parseCompileFlags reads them.
class CompileFlagOptions {
public:
  CompileFlagOptions() {
    for (const CompileFlag &flag : getCompileFlags()) {
      if (flag.kind == CompileFlag::Switch) {
        switches.emplace_back(&flag, std::make_unique<cl::opt<bool>>(
                                         flag.name, cl::desc(flag.description),
                                         cl::cat(symmCategory)));
        continue;
      }
      auto option = std::make_unique<cl::list<std::string>>(
          flag.name, cl::desc(flag.description), cl::cat(symmCategory));
      if (flag.kind == CompileFlag::Prefix)
        option->setFormattingFlag(cl::Prefix);
      values.emplace_back(&flag, std::move(option));
    }
  }

  std::vector<std::string> getFlags() const {
    std::vector<std::pair<unsigned, std::string>> given;
    for (const auto &[flag, option] : values) {
      std::string prefix = flag->kind == CompileFlag::Prefix
                               ? ("-" + flag->name).str()
                               : ("--" + flag->name + "=").str();
      for (unsigned i = 0; i < option->size(); ++i)
        given.emplace_back(option->getPosition(i), prefix + (*option)[i]);
    }
    for (const auto &[flag, option] : switches)
      if (option->getNumOccurrences())
        given.emplace_back(option->getPosition(),
                           ("--" + flag->name + "=").str() +
                               (*option ? "true" : "false"));
    llvm::sort(given);
    std::vector<std::string> flags;
    for (auto &[position, text] : given)
      flags.push_back(std::move(text));
    return flags;
  }

private:
  std::vector<
      std::pair<const CompileFlag *, std::unique_ptr<cl::list<std::string>>>>
      values;
  std::vector<std::pair<const CompileFlag *, std::unique_ptr<cl::opt<bool>>>>
      switches;
};

/// Fails with a message on stderr; the driver's errors name the input.
LogicalResult error(const Twine &message) {
  llvm::errs() << "symm-compile: error: " << message << "\n";
  return failure();
}

LogicalResult writeFile(StringRef path, StringRef bytes, bool executable) {
  std::string message;
  auto out = openOutputFile(path, &message);
  if (!out)
    return error(message);
  out->os() << bytes;
  out->os().close();
  if (out->os().has_error())
    return error("cannot write " + path);
  out->keep();
  if (!executable || path == "-")
    return success();
  // Execute permission wherever the file is readable, as a linker gives it.
  auto perms = llvm::sys::fs::getPermissions(path);
  if (!perms)
    return error("cannot read the permissions of " + path);
  unsigned readable =
      *perms & (llvm::sys::fs::owner_read | llvm::sys::fs::group_read |
                llvm::sys::fs::others_read);
  if (llvm::sys::fs::setPermissions(
          path, static_cast<llvm::sys::fs::perms>(*perms | (readable >> 2))))
    return error("cannot make " + path + " executable");
  return success();
}

LogicalResult run(MLIRContext &context, ArrayRef<std::string> flags) {
  auto reportError = [](const Twine &message) { (void)error(message); };
  CompileOptions options;
  if (failed(parseCompileFlags(flags, options, reportError)))
    return failure();
  options.configurePassManager = [](PassManager &pm) {
    return applyPassManagerCLOptions(pm);
  };

  std::string errorMessage;
  auto file = openInputFile(inputFile, &errorMessage);
  if (!file)
    return error(errorMessage);
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(file), SMLoc());
  SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);
  if (failed(checkNestingDepth(sourceMgr, &context)))
    return failure();
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, &context);
  if (!module)
    return failure();
  FailureOr<std::unique_ptr<CompilePlan>> plan =
      planCompile(*module, options, reportError);
  if (failed(plan))
    return failure();
  std::string emit = (*plan)->getEmit().str();

  // The standard input compiles to the standard output unless -o says
  // otherwise; the manifest of a device object goes next to it, or where
  // --manifest says (only there when the object goes to the standard output).
  std::string output = outputFile;
  if (output.empty())
    output = inputFile == "-" ? "-"
             : emit == "exe"
                 ? "a.out"
                 : (llvm::sys::path::stem(inputFile) + "." + emit).str();
  bool wantsManifest = emit != "exe" && emit != "mlir";
  std::string manifestPath = manifestFile;
  if (manifestPath.empty() && wantsManifest && output != "-")
    manifestPath = output + ".json";
  if (!manifestPath.empty() && !wantsManifest)
    return error("--manifest applies to device objects, not --emit=" + emit);
  if (manifestPath == "-" && output == "-")
    return error("the output and --manifest cannot both be the standard "
                 "output; give one of them a file");

  if (printPipeline) {
    llvm::outs() << (*plan)->getPipeline() << "\n";
    return success();
  }
  FailureOr<CompileResult> result = compile(*module, **plan, reportError);
  if (failed(result) ||
      failed(writeFile(output, result->binary, emit == "exe")))
    return failure();
  if (manifestPath.empty())
    return success();
  return writeFile(manifestPath, result->manifest, /*executable=*/false);
}

} // namespace

/// The MLIR options worth showing in --help: IR printing, timing, statistics.
void showDebugOptions() {
  for (auto &[name, option] : cl::getRegisteredOptions())
    if (name.starts_with("mlir-print-ir") || name.starts_with("mlir-timing") ||
        name.starts_with("mlir-pass-statistics") ||
        name == "mlir-print-op-on-diagnostic" ||
        name == "mlir-disable-threading")
      option->addCategory(debugCategory);
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  registerMLIRContextCLOptions();
  registerPassManagerCLOptions();
  registerDefaultTimingManagerCLOptions();
  CompileFlagOptions compileFlags;
  showDebugOptions();
  cl::HideUnrelatedOptions({&symmCategory, &debugCategory});
  cl::SetVersionPrinter([](llvm::raw_ostream &os) {
    os << "symm-compile (Symm) " SYMM_VERSION "\n"
       << "LLVM version " LLVM_VERSION_STRING "\n";
  });
  cl::ParseCommandLineOptions(argc, argv, "Symm compiler driver\n");
  if (inputFile.empty()) {
    llvm::errs() << "symm-compile: error: no input file; give <input.mlir>, "
                    "or - to read the standard input\n"
                 << "usage: symm-compile [options] <input.mlir>; see "
                    "symm-compile --help\n";
    return 2;
  }

  DialectRegistry registry;
  registerAllSymm(registry);
  MLIRContext context(registry);
  // Diagnostics name the operation and its location; the IR around it is
  // for whoever asks with --mlir-print-op-on-diagnostic.
  if (!cl::getRegisteredOptions()["mlir-print-op-on-diagnostic"]
           ->getNumOccurrences())
    context.printOpOnDiagnostic(false);
  context.loadAllAvailableDialects();
  return failed(run(context, compileFlags.getFlags())) ? 1 : 0;
}
