//===- Driver.cpp - The Symm compiler as a library --------------*- C++ -*-===//
//
// Lowers a module with the target's pipeline, checks that no device operation
// was left behind, describes the kernels (the manifest) and serialises them;
// a whole program is then translated to an object and linked with the Symm
// runtime into an executable.
//
//===----------------------------------------------------------------------===//

#include "symm/Driver/Driver.h"
#include "symm/Driver/Manifest.h"
#include "symm/Pipelines/Pipelines.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/Target/LLVMIR/Export.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Host.h"

using namespace mlir;
using namespace mlir::symm;

bool mlir::symm::isProgram(ModuleOp module) {
  return static_cast<bool>(module.lookupSymbol<func::FuncOp>("main"));
}

namespace {

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

/// Every operation left in a gpu.module must be LLVM (or its NVVM/ROCDL
/// intrinsics) by the time device code is serialised.
LogicalResult checkDeviceCodeLowered(ModuleOp module, StringRef target) {
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
         << "' has no lowering for --target=" << target
         << "; lower it to arith/memref/vector/scf before symm-compile";
}

/// main becomes the executable's C main: the runtime starts it with no
/// arguments a func.func could read, and its i32 result is the process's exit
/// status (another type would leave whatever is in the register).
LogicalResult checkMain(ModuleOp module) {
  auto main = module.lookupSymbol<func::FuncOp>("main");
  if (main.isExternal())
    return main.emitError() << "func.func @main is only declared; a program "
                               "needs its body";
  ArrayRef<Type> results = main.getResultTypes();
  if (main.getNumArguments() == 0 &&
      (results.empty() || (results.size() == 1 && results[0].isInteger(32))))
    return success();
  return main.emitError() << "func.func @main has type "
                          << main.getFunctionType()
                          << "; a program's main takes no arguments and "
                             "returns i32 (the rank's exit status) or nothing";
}

/// The process's exit status comes from main: a main that returns nothing
/// succeeds with 0 rather than with whatever is left in a register.
void makeMainReturnStatus(ModuleOp module) {
  auto main = module.lookupSymbol<func::FuncOp>("main");
  if (!main || main.getNumResults() != 0 || main.isExternal())
    return;
  OpBuilder b(main.getContext());
  main.setFunctionType(
      b.getFunctionType(main.getArgumentTypes(), b.getI32Type()));
  main.walk([&](func::ReturnOp ret) {
    b.setInsertionPoint(ret);
    Value zero = arith::ConstantIntOp::create(b, ret.getLoc(), 0, 32);
    ret.getOperandsMutable().assign(zero);
  });
}

/// The bytes of the one device object of `module`.
FailureOr<std::string> takeObject(ModuleOp module, DriverErrorFn emitError) {
  SmallVector<gpu::BinaryOp> binaries(module.getOps<gpu::BinaryOp>());
  if (binaries.size() != 1) {
    emitError("device output needs exactly one gpu.module in the input, "
              "found " +
              Twine(binaries.size()));
    return failure();
  }
  auto object = cast<gpu::ObjectAttr>(binaries.front().getObjects()[0]);
  return object.getObject().getValue().str();
}

/// LLVM IR text from LLVM bitcode.
FailureOr<std::string> bitcodeToText(StringRef bitcode,
                                     DriverErrorFn emitError) {
  llvm::LLVMContext ctx;
  auto module =
      llvm::parseBitcodeFile(llvm::MemoryBufferRef(bitcode, "device.bc"), ctx);
  if (!module) {
    emitError("cannot read the device bitcode: " +
              llvm::toString(module.takeError()));
    return failure();
  }
  std::string text;
  llvm::raw_string_ostream os(text);
  (*module)->print(os, nullptr);
  return text;
}

/// Translates the host part of a whole program to an object file and links it
/// with the Symm runtime into an executable at `output`.
LogicalResult linkExecutable(ModuleOp module, StringRef output,
                             DriverErrorFn emitError) {
  auto fail = [&](const Twine &message) {
    emitError(message);
    return failure();
  };
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(module, llvmContext, "symm-program");
  if (!llvmModule)
    return fail("cannot translate the host program to LLVM IR");
  llvm::Triple triple(llvm::sys::getDefaultTargetTriple());
  std::string message;
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(triple, message);
  if (!target)
    return fail(message);
  llvm::TargetOptions options;
  std::unique_ptr<llvm::TargetMachine> machine(target->createTargetMachine(
      triple, "generic", "", options, llvm::Reloc::PIC_));
  llvmModule->setTargetTriple(triple);
  llvmModule->setDataLayout(machine->createDataLayout());
  // LLVM's O0 pipeline: it lowers the coroutines that async.execute becomes.
  if (llvm::Error err =
          makeOptimizingTransformer(0, 0, machine.get())(llvmModule.get()))
    return fail("optimising the host program failed: " +
                llvm::toString(std::move(err)));

  SmallString<128> object;
  int fd;
  if (llvm::sys::fs::createTemporaryFile("symm-program", "o", fd, object))
    return fail("cannot create a temporary object file");
  llvm::FileRemover removeObject(object);
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    llvm::legacy::PassManager pm;
    if (machine->addPassesToEmitFile(pm, os, nullptr,
                                     llvm::CodeGenFileType::ObjectFile))
      return fail("the host target cannot emit object files");
    pm.run(*llvmModule);
  }

  std::string linker =
      findProgram({"clang++-22", "clang++", "c++", "g++"}, "SYMM_CXX");
  if (linker.empty())
    return fail("no C++ linker found (clang++, c++ or g++); set SYMM_CXX");
  // The runtime is in the lib/ folder beside the bin/ folder of the tool.
  SmallString<256> libDir(llvm::sys::fs::getMainExecutable(
      "symm-compile", reinterpret_cast<void *>(&isProgram)));
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
    return fail("linking " + output + " with " + linker + " failed" +
                (errorMessage.empty() ? "" : ": " + errorMessage));
  return success();
}

/// The executable's bytes: it is linked into a temporary file, as linkers
/// need a file they can seek in.
FailureOr<std::string> linkExecutableBytes(ModuleOp module,
                                           DriverErrorFn emitError) {
  SmallString<128> path;
  int fd;
  if (llvm::sys::fs::createTemporaryFile("symm-program", "", fd, path)) {
    emitError("cannot create a temporary executable");
    return failure();
  }
  llvm::sys::Process::SafelyCloseFileDescriptor(fd);
  llvm::FileRemover remove(path);
  if (failed(linkExecutable(module, path, emitError)))
    return failure();
  auto bytes = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                           /*RequiresNullTerminator=*/false);
  if (!bytes) {
    emitError("cannot read the linked executable " + path);
    return failure();
  }
  return (*bytes)->getBuffer().str();
}

/// The format device code is serialised in for `emit`, or failure after
/// reporting an unknown or inapplicable emit kind.
FailureOr<std::string> formatOf(StringRef emit, const SymmTarget &target,
                                StringRef targetName, StringRef foundToolkit,
                                DriverErrorFn emitError) {
  if (emit == "llvm")
    return std::string("llvm");
  if (emit == "exe" || emit == "mlir")
    return target.getProgramFormat(foundToolkit).str();
  for (const EmitKind &kind : target.getEmitKinds())
    if (kind.name == emit)
      return kind.format.str();
  for (const SymmTarget *other : getTargets())
    for (const EmitKind &kind : other->getEmitKinds())
      if (kind.name == emit) {
        emitError("--emit=" + emit +
                  " does not apply to --target=" + targetName);
        return failure();
      }
  emitError("unknown --emit=" + emit);
  return failure();
}

} // namespace

std::string CompilePlan::getPipeline() const {
  return getPipelineString(*target, pipeline);
}

FailureOr<std::unique_ptr<CompilePlan>>
mlir::symm::planCompile(ModuleOp module, const CompileOptions &options,
                        DriverErrorFn emitError) {
  FailureOr<const SymmTarget *> target =
      lookupTarget(options.target, emitError);
  if (failed(target) || failed((*target)->checkModule(module, options.target)))
    return failure();
  auto plan = std::make_unique<CompilePlan>();
  plan->target = *target;
  plan->targetName = options.target;
  plan->configurePassManager = options.configurePassManager;
  std::string foundToolkit = plan->target->findToolkit();
  bool program = isProgram(module);
  plan->emit = options.emit;
  if (plan->emit.empty())
    plan->emit =
        program ? "exe" : plan->target->getDefaultEmit(foundToolkit).str();
  FailureOr<std::string> format = formatOf(
      plan->emit, *plan->target, options.target, foundToolkit, emitError);
  if (failed(format))
    return failure();
  if (plan->emit == "exe" && !program) {
    emitError("--emit=exe needs a func.func @main in the input");
    return failure();
  }
  SymmPipelineOptions &pipeline = plan->pipeline;
  pipeline.chip = plan->target->getChip(options.target);
  pipeline.kernelContext = options.kernelContext;
  pipeline.optLevel = options.optLevel;
  pipeline.checkRanks = options.checkRanks;
  pipeline.library = options.libraries;
  pipeline.remote = options.remote;
  pipeline.checkHostAccess = options.checkHostAccess;
  pipeline.checkRaces = options.checkRaces;
  pipeline.trace = options.trace;
  pipeline.format = *format;
  FailureOr<Toolkit> toolkit =
      plan->target->prepareToolkit(*format, foundToolkit, emitError);
  if (failed(toolkit))
    return failure();
  plan->toolkit = std::move(*toolkit);
  pipeline.toolkit = plan->toolkit.getPath();
  if (failed(validateSymmPipelineOptions(*plan->target, pipeline, emitError)))
    return failure();
  return plan;
}

FailureOr<CompileResult> mlir::symm::compile(ModuleOp module,
                                             const CompileOptions &options,
                                             DriverErrorFn emitError) {
  FailureOr<std::unique_ptr<CompilePlan>> plan =
      planCompile(module, options, emitError);
  if (failed(plan))
    return failure();
  return compile(module, **plan, emitError);
}

FailureOr<CompileResult> mlir::symm::compile(ModuleOp module,
                                             const CompilePlan &plan,
                                             DriverErrorFn emitError) {
  if (isProgram(module)) {
    if (failed(checkMain(module)))
      return failure();
    makeMainReturnStatus(module);
  }

  // Lower, check that nothing in device code was left behind (so the error
  // names the operation rather than a cast around it), describe the kernels
  // as lowered, then serialise.
  MLIRContext *context = module.getContext();
  ManifestWriter manifest;
  manifest.recordKernels(module);
  PassManager lower(context), serialize(context);
  lower.addInstrumentation(manifest.createInstrumentation());
  if (plan.configurePassManager && failed(plan.configurePassManager(lower)))
    return failure();
  buildSymmLoweringPipeline(lower, *plan.target, plan.pipeline);
  buildSymmSerializationPipeline(serialize, plan.pipeline);
  if (failed(lower.run(module)) ||
      failed(checkDeviceCodeLowered(module, plan.targetName)))
    return failure();
  CompileResult result;
  result.emit = plan.emit;
  if (plan.emit != "exe" && plan.emit != "mlir") {
    FailureOr<std::string> text = manifest.write(
        module, plan.targetName, plan.emit, plan.pipeline.kernelContext);
    if (failed(text))
      return failure();
    result.manifest = std::move(*text);
  }
  if (failed(serialize.run(module)))
    return failure();

  FailureOr<std::string> binary;
  if (plan.emit == "mlir") {
    std::string text;
    llvm::raw_string_ostream os(text);
    module.print(os);
    binary = std::move(text);
  } else if (plan.emit == "exe") {
    binary = linkExecutableBytes(module, emitError);
  } else {
    binary = takeObject(module, emitError);
    if (succeeded(binary) && plan.emit == "llvm")
      binary = bitcodeToText(*binary, emitError);
  }
  if (failed(binary))
    return failure();
  result.binary = std::move(*binary);
  return result;
}
