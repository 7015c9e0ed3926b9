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
#include "symm/Pipelines/Pipelines.h"
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
static cl::opt<std::string>
    targetName("target",
               cl::desc("host (default), sm_80/sm_90/sm_100..., or "
                        "gfx90a/gfx942/gfx950..."),
               cl::init("host"), cl::cat(symmCategory));
static cl::opt<std::string> emitKind(
    "emit",
    cl::desc("What to write: llvm, ptx, cubin (NVIDIA), isa, hsaco (AMD), so "
             "(host), exe (whole program), mlir (lowered IR). Default: exe "
             "when the input has func.func @main, else cubin / hsaco / so "
             "(ptx when no ptxas is found)"),
    cl::init(""), cl::cat(symmCategory));
static cl::opt<std::string>
    kernelContext("kernel-context",
                  cl::desc("Where kernels find the kernel context: global "
                           "(default) or argument"),
                  cl::init("global"), cl::cat(symmCategory));
static cl::opt<std::string> manifestFile(
    "manifest",
    cl::desc("Kernel manifest (JSON) of a device object; - writes it to the "
             "standard output. Default: <output>.json, none when the output "
             "is the standard output or an executable"),
    cl::value_desc("path"), cl::init(""), cl::cat(symmCategory));
static cl::opt<bool> checkRanks(
    "check-ranks",
    cl::desc("On GPUs, check every peer rank against the world size: an "
             "out-of-range peer prints the rank, operation and peer (NVIDIA) "
             "and traps. The CPU target always checks"),
    cl::init(false), cl::cat(symmCategory));
static cl::list<std::string>
    libraries("library",
              cl::desc("A device library (.mlir file, or a folder of them) "
                       "searched after the one installed with Symm; may be "
                       "repeated"),
              cl::value_desc("path"), cl::cat(symmCategory));
static cl::opt<std::string> remote(
    "remote",
    cl::desc("How kernels reach peers on NVIDIA GPUs: direct (default; "
             "loads and stores through the mapped heaps), nvshmem (NVSHMEM's "
             "device API for every peer: what runs across nodes) or auto "
             "(NVSHMEM only where a peer's heap is not mapped). nvshmem and "
             "auto run on the nvshmem backend (docs/MultiNode.md)"),
    cl::init("direct"), cl::cat(symmCategory));
static cl::opt<bool> checkHostAccess(
    "check-host-access",
    cl::desc("On the CPU target, reject host code that reads or writes "
             "#symm.heap or gpu.alloc memory, as GPU targets always do (there "
             "it is device memory)"),
    cl::init(false), cl::cat(symmCategory));
static cl::opt<bool> checkRaces(
    "check-races",
    cl::desc("CPU target: kernels report every access of heap and workgroup "
             "memory to the runtime's race detector, which runs with "
             "SYMM_HOST_CHECK_RACES=1 (symm-run --check-races); a checked "
             "module runs only with it"),
    cl::init(false), cl::cat(symmCategory));
static cl::opt<int> optLevel("O", cl::desc("Optimisation level (0 to 3)"),
                             cl::Prefix, cl::init(2), cl::cat(symmCategory));
static cl::opt<bool> printPipeline("print-pipeline",
                                   cl::desc("Print the pass pipeline and exit"),
                                   cl::init(false), cl::cat(symmCategory));

namespace {

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

LogicalResult run(MLIRContext &context) {
  CompileOptions options;
  options.target = targetName;
  options.emit = emitKind;
  options.optLevel = optLevel;
  options.kernelContext = kernelContext;
  options.checkRanks = checkRanks;
  options.libraries.assign(libraries.begin(), libraries.end());
  options.remote = remote;
  options.checkHostAccess = checkHostAccess;
  options.checkRaces = checkRaces;
  options.configurePassManager = [](PassManager &pm) {
    return applyPassManagerCLOptions(pm);
  };
  auto reportError = [](const Twine &message) { (void)error(message); };
  if (!getTargetKind(targetName))
    return error("unknown target '" + targetName +
                 "'; expected host, sm_<N> (NVIDIA) or gfx<N> (AMD)");

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
  FailureOr<std::string> emit = resolveEmit(*module, options, reportError);
  if (failed(emit))
    return failure();

  // The standard input compiles to the standard output unless -o says
  // otherwise; the manifest of a device object goes next to it, or where
  // --manifest says (only there when the object goes to the standard output).
  std::string output = outputFile;
  if (output.empty())
    output = inputFile == "-" ? "-"
             : *emit == "exe"
                 ? "a.out"
                 : (llvm::sys::path::stem(inputFile) + "." + *emit).str();
  bool wantsManifest = *emit != "exe" && *emit != "mlir";
  std::string manifestPath = manifestFile;
  if (manifestPath.empty() && wantsManifest && output != "-")
    manifestPath = output + ".json";
  if (!manifestPath.empty() && !wantsManifest)
    return error("--manifest applies to device objects, not --emit=" + *emit);
  if (manifestPath == "-" && output == "-")
    return error("the output and --manifest cannot both be the standard "
                 "output; give one of them a file");

  if (printPipeline) {
    FailureOr<std::string> pipeline =
        getPipeline(*module, options, reportError);
    if (failed(pipeline))
      return failure();
    llvm::outs() << *pipeline << "\n";
    return success();
  }
  FailureOr<CompileResult> result = compile(*module, options, reportError);
  if (failed(result) ||
      failed(writeFile(output, result->binary, *emit == "exe")))
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
  return failed(run(context)) ? 1 : 0;
}
