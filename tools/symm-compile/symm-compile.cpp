//===- symm-compile.cpp - Symm compiler driver ------------------*- C++ -*-===//
//
// Compiles a .mlir file of symm kernels (and optionally a host program) for one
// target: device objects (PTX, cubin, AMDGPU assembly, HSACO, host shared
// objects, LLVM IR) with a JSON manifest of their kernels, or a whole program
// to an executable linked against the Symm runtime.
//
//===----------------------------------------------------------------------===//

#include "symm/Dialect/Symm/IR/SymmDialect.h"
#include "symm/Driver/Manifest.h"
#include "symm/InitAllSymm.h"
#include "symm/Pipelines/Pipelines.h"
#include "symm/Target/Host/HostTarget.h"
#include "symm/abi.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Target/LLVMIR/Export.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Host.h"

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

std::string findProgram(ArrayRef<StringRef> names, StringRef envVar) {
  if (const char *fromEnv = getenv(envVar.str().c_str()); fromEnv && *fromEnv)
    return fromEnv;
  for (StringRef name : names) {
    if (llvm::sys::fs::can_execute(name))
      return name.str();
    if (auto found = llvm::sys::findProgramByName(name))
      return *found;
  }
  return "";
}

/// The CUDA toolkit folder holding bin/ptxas, or "".
std::string findCudaToolkit() {
  for (const char *var : {"SYMM_CUDA_PATH", "CUDA_HOME", "CUDA_PATH"})
    if (const char *path = getenv(var);
        path && llvm::sys::fs::can_execute(Twine(path) + "/bin/ptxas"))
      return path;
  if (llvm::sys::fs::can_execute("/usr/local/cuda/bin/ptxas"))
    return "/usr/local/cuda";
  if (auto ptxas = llvm::sys::findProgramByName("ptxas"))
    return llvm::sys::path::parent_path(llvm::sys::path::parent_path(*ptxas))
        .str();
  return "";
}

/// The ROCDL serialiser runs <toolkit>/llvm/bin/ld.lld; without ROCm, point a
/// private toolkit folder at the system's ld.lld.
FailureOr<std::string> makeRocdlToolkit() {
  std::string lld = findLinker();
  if (lld.empty())
    return error("HSACO needs ld.lld: install lld-22 or set SYMM_LLD");
  if (!llvm::sys::fs::can_execute(lld))
    return error("HSACO needs ld.lld, and '" + lld +
                 "' (SYMM_LLD) is not an executable");
  SmallString<128> dir;
  if (llvm::sys::fs::createUniqueDirectory("symm-rocdl", dir))
    return error("cannot create a temporary folder");
  SmallString<128> bin(dir);
  llvm::sys::path::append(bin, "llvm", "bin");
  llvm::sys::fs::create_directories(bin);
  llvm::sys::path::append(bin, "ld.lld");
  if (llvm::sys::fs::create_link(lld, bin))
    return error("cannot link " + lld + " into " + dir);
  return dir.str().str();
}

LogicalResult writeFile(StringRef path, StringRef bytes) {
  std::string message;
  auto out = openOutputFile(path, &message);
  if (!out)
    return error(message);
  out->os() << bytes;
  out->keep();
  return success();
}

/// The bytes of the one device object of `module`.
FailureOr<std::string> takeObject(ModuleOp module) {
  SmallVector<gpu::BinaryOp> binaries(module.getOps<gpu::BinaryOp>());
  if (binaries.size() != 1)
    return error("device output needs exactly one gpu.module in the input, "
                 "found " +
                 Twine(binaries.size()));
  auto object = cast<gpu::ObjectAttr>(binaries.front().getObjects()[0]);
  return object.getObject().getValue().str();
}

/// LLVM IR text from LLVM bitcode.
FailureOr<std::string> bitcodeToText(StringRef bitcode) {
  llvm::LLVMContext ctx;
  auto module =
      llvm::parseBitcodeFile(llvm::MemoryBufferRef(bitcode, "device.bc"), ctx);
  if (!module)
    return error("cannot read the device bitcode: " +
                 llvm::toString(module.takeError()));
  std::string text;
  llvm::raw_string_ostream os(text);
  (*module)->print(os, nullptr);
  return text;
}

/// Translates the host part of a whole program to an object file and links it
/// with the Symm runtime into an executable.
LogicalResult linkExecutable(ModuleOp module, StringRef output) {
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(module, llvmContext, "symm-program");
  if (!llvmModule)
    return error("cannot translate the host program to LLVM IR");
  llvm::Triple triple(llvm::sys::getDefaultTargetTriple());
  std::string message;
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(triple, message);
  if (!target)
    return error(message);
  llvm::TargetOptions options;
  std::unique_ptr<llvm::TargetMachine> machine(target->createTargetMachine(
      triple, "generic", "", options, llvm::Reloc::PIC_));
  llvmModule->setTargetTriple(triple);
  llvmModule->setDataLayout(machine->createDataLayout());
  // LLVM's O0 pipeline: it lowers the coroutines that async.execute becomes.
  if (llvm::Error err =
          makeOptimizingTransformer(0, 0, machine.get())(llvmModule.get()))
    return error("optimising the host program failed: " +
                 llvm::toString(std::move(err)));

  SmallString<128> object;
  int fd;
  if (llvm::sys::fs::createTemporaryFile("symm-program", "o", fd, object))
    return error("cannot create a temporary object file");
  llvm::FileRemover removeObject(object);
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    llvm::legacy::PassManager pm;
    if (machine->addPassesToEmitFile(pm, os, nullptr,
                                     llvm::CodeGenFileType::ObjectFile))
      return error("the host target cannot emit object files");
    pm.run(*llvmModule);
  }

  std::string linker =
      findProgram({"clang++-22", "clang++", "c++", "g++"}, "SYMM_CXX");
  if (linker.empty())
    return error("no C++ linker found (clang++, c++ or g++); set SYMM_CXX");
  SmallString<256> libDir(llvm::sys::fs::getMainExecutable(
      "symm-compile", reinterpret_cast<void *>(&linkExecutable)));
  llvm::sys::path::remove_filename(libDir);
  llvm::sys::path::append(libDir, "..", "lib");
  llvm::sys::fs::make_absolute(libDir);
  llvm::sys::path::remove_dots(libDir, /*remove_dot_dot=*/true);
  std::string rpath = ("-Wl,-rpath," + libDir).str();
  std::string libFlag = ("-L" + libDir).str();
  // MLIR's runner utilities (printMemrefF32, ...) and async runtime, which
  // programs written like MLIR's GPU tests call; as-needed, so a program
  // that calls neither does not need LLVM where it runs.
  std::string mlirLibFlag = "-L" SYMM_MLIR_LIBRARY_DIR;
  std::string mlirRpath = "-Wl,-rpath," SYMM_MLIR_LIBRARY_DIR;
  SmallVector<StringRef> args = {linker,
                                 object.str(),
                                 "-o",
                                 output,
                                 libFlag,
                                 "-lsymm_runtime",
                                 rpath,
                                 mlirLibFlag,
                                 "-Wl,--as-needed",
                                 "-lmlir_runner_utils",
                                 "-lmlir_c_runner_utils",
                                 "-lmlir_async_runtime",
                                 mlirRpath,
                                 "-Wl,--no-as-needed"};
  std::string errorMessage;
  int rc = llvm::sys::ExecuteAndWait(linker, args, std::nullopt, {}, 0, 0,
                                     &errorMessage);
  if (rc != 0)
    return error("linking " + output + " with " + linker + " failed" +
                 (errorMessage.empty() ? "" : ": " + errorMessage));
  return success();
}

/// Every operation left in a gpu.module must be LLVM (or its NVVM/ROCDL
/// intrinsics) by the time device code is serialised.
LogicalResult checkDeviceCodeLowered(ModuleOp module) {
  // Casts between types are what is left around an unlowered operation, so
  // they are reported only when nothing else is.
  Operation *leftover = nullptr, *cast = nullptr;
  module.walk([&](gpu::GPUModuleOp gpuModule) {
    gpuModule.walk([&](Operation *op) {
      StringRef dialect =
          op->getDialect() ? op->getDialect()->getNamespace() : StringRef();
      if (op == gpuModule.getOperation() || dialect == "llvm" ||
          dialect == "nvvm" || dialect == "rocdl")
        return;
      Operation *&slot = isa<UnrealizedConversionCastOp>(op) ? cast : leftover;
      if (!slot)
        slot = op;
    });
  });
  if (!leftover)
    leftover = cast;
  if (!leftover)
    return success();
  return leftover->emitError()
         << "'" << leftover->getName()
         << "' has no lowering for --target=" << targetName
         << "; lower it to arith/memref/vector/scf before symm-compile";
}

/// Links the executable into a temporary file and copies it to the standard
/// output: linkers need a file they can seek in.
LogicalResult linkExecutableToStdout(ModuleOp module) {
  SmallString<128> path;
  int fd;
  if (llvm::sys::fs::createTemporaryFile("symm-program", "", fd, path))
    return error("cannot create a temporary executable");
  llvm::sys::Process::SafelyCloseFileDescriptor(fd);
  llvm::FileRemover remove(path);
  if (failed(linkExecutable(module, path)))
    return failure();
  auto bytes = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                           /*RequiresNullTerminator=*/false);
  if (!bytes)
    return error("cannot read the linked executable " + path);
  return writeFile("-", (*bytes)->getBuffer());
}

/// Operations upstream lowers for a target only with libraries Symm does not
/// link are reported before lowering, where the conversion would only say it
/// failed to legalize them.
LogicalResult checkTargetSupport(ModuleOp module, TargetKind kind) {
  if (kind != TargetKind::ROCDL)
    return success();
  WalkResult walk = module.walk([](gpu::PrintfOp op) {
    op.emitError() << "'gpu.printf' has no lowering for --target=" << targetName
                   << ": printf on AMD GPUs needs the ROCm device libraries' "
                      "hostcall support, which Symm does not link; print from "
                      "host code, or run the kernel on the host or NVIDIA "
                      "targets";
    return WalkResult::interrupt();
  });
  return failure(walk.wasInterrupted());
}

LogicalResult run(MLIRContext &context) {
  std::optional<TargetKind> kind = getTargetKind(targetName);
  if (!kind)
    return error("unknown target '" + targetName +
                 "'; expected host, sm_<N> (NVIDIA) or gfx<N> (AMD)");

  std::string errorMessage;
  auto file = openInputFile(inputFile, &errorMessage);
  if (!file)
    return error(errorMessage);
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(file), SMLoc());
  SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, &context);
  if (!module || failed(checkTargetSupport(*module, *kind)))
    return failure();

  bool hasMain = false;
  module->walk([&](func::FuncOp f) {
    if (f.getName() != "main")
      return;
    hasMain = true;
    // The process's exit status comes from main: a main that returns nothing
    // succeeds with 0 rather than with whatever is left in a register.
    if (f.getNumResults() != 0 || f.isExternal())
      return;
    OpBuilder b(f.getContext());
    f.setFunctionType(b.getFunctionType(f.getArgumentTypes(), b.getI32Type()));
    f.walk([&](func::ReturnOp ret) {
      b.setInsertionPoint(ret);
      Value zero = arith::ConstantIntOp::create(b, ret.getLoc(), 0, 32);
      ret.getOperandsMutable().assign(zero);
    });
  });
  std::string cudaToolkit = findCudaToolkit();
  SymmPipelineOptions options;
  options.chip =
      *kind == TargetKind::Host ? std::string() : targetName.getValue();
  options.kernelContext = kernelContext.getValue();
  options.optLevel = optLevel.getValue();
  options.checkRanks = checkRanks.getValue();
  std::string emit = emitKind;
  if (emit.empty()) {
    if (hasMain)
      emit = "exe";
    else if (*kind == TargetKind::NVVM)
      emit = cudaToolkit.empty() ? "ptx" : "cubin";
    else if (*kind == TargetKind::ROCDL)
      emit = "hsaco";
    else
      emit = "so";
  }
  static const llvm::StringMap<std::pair<TargetKind, StringRef>> deviceEmits = {
      {"ptx", {TargetKind::NVVM, "isa"}},
      {"cubin", {TargetKind::NVVM, "bin"}},
      {"isa", {TargetKind::ROCDL, "isa"}},
      {"hsaco", {TargetKind::ROCDL, "bin"}},
      {"so", {TargetKind::Host, "bin"}}};
  if (emit == "llvm") {
    options.format = "llvm";
  } else if (emit == "exe" || emit == "mlir") {
    // Executables embed cubin when ptxas is here, PTX (JIT-compiled by the
    // driver) otherwise.
    options.format =
        (*kind == TargetKind::NVVM && cudaToolkit.empty()) ? "isa" : "bin";
  } else if (auto it = deviceEmits.find(emit); it != deviceEmits.end()) {
    if (it->second.first != *kind)
      return error("--emit=" + emit +
                   " does not apply to --target=" + targetName);
    options.format = it->second.second.str();
  } else {
    return error("unknown --emit=" + emit);
  }
  if (emit == "exe" && !hasMain)
    return error("--emit=exe needs a func.func @main in the input");

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

  if (*kind == TargetKind::NVVM && options.format == "bin") {
    if (cudaToolkit.empty())
      return error("cubin needs ptxas from the CUDA toolkit; set "
                   "SYMM_CUDA_PATH or use --emit=ptx");
    options.toolkit = cudaToolkit;
  }
  std::string rocdlToolkit;
  if (*kind == TargetKind::ROCDL && options.format == "bin") {
    FailureOr<std::string> dir = makeRocdlToolkit();
    if (failed(dir))
      return failure();
    rocdlToolkit = *dir;
    options.toolkit = rocdlToolkit;
  }
  llvm::scope_exit removeToolkit([&] {
    if (!rocdlToolkit.empty())
      llvm::sys::fs::remove_directories(rocdlToolkit);
  });
  if (failed(validateSymmPipelineOptions(
          *kind, options, [](const Twine &message) { (void)error(message); })))
    return failure();

  if (printPipeline) {
    llvm::outs() << getPipelineString(*kind, options) << "\n";
    return success();
  }

  // Lower, check that nothing in device code was left behind (so the error
  // names the operation rather than a cast around it), describe the kernels
  // as lowered, then serialise.
  ManifestWriter manifest;
  manifest.recordKernels(*module);
  PassManager lower(&context), serialize(&context);
  lower.addInstrumentation(manifest.createInstrumentation());
  if (failed(applyPassManagerCLOptions(lower)) ||
      failed(
          buildSymmPipeline(lower, *kind, options, PipelinePart::Lowering)) ||
      failed(buildSymmPipeline(serialize, *kind, options,
                               PipelinePart::Serialization)))
    return failure();
  if (failed(lower.run(*module)) || failed(checkDeviceCodeLowered(*module)))
    return failure();
  FailureOr<std::string> manifestText;
  if (!manifestPath.empty()) {
    manifestText =
        manifest.write(*module, targetName, emit, options.kernelContext);
    if (failed(manifestText))
      return failure();
  }
  if (failed(serialize.run(*module)))
    return failure();

  if (emit == "mlir") {
    std::string text;
    llvm::raw_string_ostream os(text);
    module->print(os);
    return writeFile(output, text);
  }
  if (emit == "exe")
    return output == "-" ? linkExecutableToStdout(*module)
                         : linkExecutable(*module, output);
  FailureOr<std::string> object = takeObject(*module);
  if (failed(object))
    return failure();
  if (emit == "llvm") {
    object = bitcodeToText(*object);
    if (failed(object))
      return failure();
  }
  if (failed(writeFile(output, *object)))
    return failure();
  if (manifestPath.empty())
    return success();
  return writeFile(manifestPath, *manifestText);
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
  mlir::registerAllPasses();
  registerAllSymmPasses();
  showDebugOptions();
  cl::HideUnrelatedOptions({&symmCategory, &debugCategory});
  cl::SetVersionPrinter([](llvm::raw_ostream &os) {
    os << "symm-compile (Symm) " SYMM_VERSION_STRING "\n"
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
  registerAllDialects(registry);
  registerAllExtensions(registry);
  registerAllToLLVMIRTranslations(registry);
  registerAllSymmDialects(registry);
  MLIRContext context(registry);
  // Diagnostics name the operation and its location; the IR around it is
  // for whoever asks with --mlir-print-op-on-diagnostic.
  if (!cl::getRegisteredOptions()["mlir-print-op-on-diagnostic"]
           ->getNumOccurrences())
    context.printOpOnDiagnostic(false);
  context.loadAllAvailableDialects();
  return failed(run(context)) ? 1 : 0;
}
