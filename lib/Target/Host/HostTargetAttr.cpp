//===- HostTargetAttr.cpp - gpu.module to a host shared object --*- C++ -*-===//
//
// Serialises a gpu.module, already lowered to LLVM for the CPU, into a
// position-independent object for this machine and links it with ld.lld into
// a shared object that the host backend loads from memory.
//
//===----------------------------------------------------------------------===//

#include "symm/Dialect/Symm/IR/SymmDialect.h"
#include "symm/Target/Host/HostTarget.h"

#include "mlir/Dialect/GPU/IR/CompilationInterfaces.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Target/LLVM/ModuleToObject.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Host.h"

using namespace mlir;
using namespace mlir::symm;

namespace {

class HostSerializer : public LLVM::ModuleToObject {
public:
  HostSerializer(Operation &module, int optLevel, gpu::CompilationTarget format)
      : ModuleToObject(module, hostTriple(), "generic", "", optLevel),
        format(format) {}

  static StringRef hostTriple() {
    static std::string triple = llvm::sys::getDefaultTargetTriple();
    return triple;
  }

protected:
  void setDataLayoutAndTriple(llvm::Module &module) override {
    if (llvm::TargetMachine *tm = machine()) {
      module.setDataLayout(tm->createDataLayout());
      module.setTargetTriple(tm->getTargetTriple());
    }
  }

  FailureOr<SmallVector<char, 0>>
  moduleToObject(llvm::Module &llvmModule) override {
    // A GPU thread's stack is a fiber's, with one guard page below it: a
    // frame larger than a page (a big private array) must touch its pages in
    // order, so that it faults in the guard page, which the runtime reports,
    // instead of jumping over it into another thread's stack.
    for (llvm::Function &function : llvmModule)
      if (!function.isDeclaration())
        function.addFnAttr("probe-stack", "inline-asm");
    SmallVector<char, 0> bytes;
    if (format == gpu::CompilationTarget::Offload) {
      llvm::raw_svector_ostream os(bytes);
      llvm::WriteBitcodeToFile(llvmModule, os);
      return bytes;
    }
    llvm::TargetMachine *tm = machine();
    if (!tm)
      return getOperation().emitError("no LLVM backend for ") << hostTriple();
    SmallString<0> object;
    {
      llvm::raw_svector_ostream os(object);
      llvm::legacy::PassManager pm;
      auto kind = format == gpu::CompilationTarget::Assembly
                      ? llvm::CodeGenFileType::AssemblyFile
                      : llvm::CodeGenFileType::ObjectFile;
      if (tm->addPassesToEmitFile(pm, os, nullptr, kind))
        return getOperation().emitError("the host backend cannot emit code");
      pm.run(llvmModule);
    }
    if (format == gpu::CompilationTarget::Assembly)
      return SmallVector<char, 0>(object.begin(), object.end());
    return link(object);
  }

private:
  llvm::TargetMachine *machine() {
    if (tm)
      return tm.get();
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    llvm::Triple triple(hostTriple());
    std::string error;
    const llvm::Target *target =
        llvm::TargetRegistry::lookupTarget(triple, error);
    if (!target)
      return nullptr;
    // Position-independent: the result is a shared object.
    tm.reset(target->createTargetMachine(
        triple, "generic", "", llvm::TargetOptions(), llvm::Reloc::PIC_));
    return tm.get();
  }

  FailureOr<SmallVector<char, 0>> link(StringRef object) {
    std::string linker = findLinker();
    if (linker.empty())
      return getOperation().emitError(
          "the CPU target links kernels with ld.lld: install lld-22 or set "
          "SYMM_LLD");
    SmallString<128> objectPath, libraryPath;
    if (llvm::sys::fs::createTemporaryFile("symm-host-kernels", "o",
                                           objectPath) ||
        llvm::sys::fs::createTemporaryFile("symm-host-kernels", "so",
                                           libraryPath))
      return getOperation().emitError("cannot create temporary files");
    auto cleanup = llvm::make_scope_exit([&] {
      llvm::sys::fs::remove(objectPath);
      llvm::sys::fs::remove(libraryPath);
    });
    {
      std::error_code ec;
      llvm::raw_fd_ostream os(objectPath, ec);
      if (ec)
        return getOperation().emitError("cannot write ") << objectPath;
      os << object;
    }
    StringRef args[] = {linker,     "-shared", "--no-undefined-version",
                        objectPath, "-o",      libraryPath};
    std::string message;
    if (llvm::sys::ExecuteAndWait(linker, args, std::nullopt, {}, 0, 0,
                                  &message) != 0)
      return getOperation().emitError("linking the host kernels with ")
             << linker << " failed" << (message.empty() ? "" : ": ") << message;
    auto buffer = llvm::MemoryBuffer::getFile(libraryPath);
    if (!buffer)
      return getOperation().emitError("cannot read ") << libraryPath;
    StringRef data = (*buffer)->getBuffer();
    return SmallVector<char, 0>(data.begin(), data.end());
  }

  gpu::CompilationTarget format;
  std::unique_ptr<llvm::TargetMachine> tm;
};

struct HostTargetModel
    : public gpu::TargetAttrInterface::ExternalModel<HostTargetModel,
                                                     HostTargetAttr> {
  std::optional<SmallVector<char, 0>>
  serializeToObject(Attribute attribute, Operation *module,
                    const gpu::TargetOptions &options) const {
    if (!isa<gpu::GPUModuleOp>(module)) {
      module->emitError("the CPU target serialises gpu.module operations");
      return std::nullopt;
    }
    HostSerializer serializer(*module, cast<HostTargetAttr>(attribute).getO(),
                              options.getCompilationTarget());
    return serializer.run();
  }

  Attribute createObject(Attribute attribute, Operation *,
                         const SmallVector<char, 0> &object,
                         const gpu::TargetOptions &options) const {
    gpu::CompilationTarget format = options.getCompilationTarget();
    if (format == gpu::CompilationTarget::Fatbin)
      format = gpu::CompilationTarget::Binary;
    return gpu::ObjectAttr::get(
        attribute.getContext(), attribute, format,
        StringAttr::get(attribute.getContext(),
                        StringRef(object.data(), object.size())),
        nullptr, nullptr);
  }
};

} // namespace

void mlir::symm::registerHostTargetInterfaceExternalModels(
    DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, SymmDialect *) {
    HostTargetAttr::attachInterface<HostTargetModel>(*ctx);
  });
}
