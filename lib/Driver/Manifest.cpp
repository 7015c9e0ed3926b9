//===- Manifest.cpp - The kernel manifest of a compiled module --*- C++ -*-===//
//
// Writes the manifest of symm/manifest.h from a lowered module.
//
//===----------------------------------------------------------------------===//

#include "symm/Driver/Manifest.h"
#include "symm/Dialect/Symm/IR/SymmDialect.h"
#include "symm/Dialect/Symm/Transforms/Passes.h"
#include "symm/abi.h"
#include "symm/manifest.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

using namespace mlir;
using namespace mlir::symm;

static std::string kernelKey(StringRef module, StringRef kernel) {
  return (module + "::" + kernel).str();
}

static std::string typeName(Type type) {
  std::string s;
  llvm::raw_string_ostream os(s);
  type.print(os);
  return s;
}

void ManifestWriter::recordKernels(Operation *root) {
  root->walk([&](gpu::GPUFuncOp func) {
    auto module = func->getParentOfType<gpu::GPUModuleOp>();
    if (!func.isKernel() || !module)
      return;
    std::string key = kernelKey(module.getName(), func.getName());
    if (!signatures.count(key))
      signatures[key] = llvm::to_vector(func.getArgumentTypes());
  });
}

namespace {
class KernelRecorder : public PassInstrumentation {
public:
  explicit KernelRecorder(ManifestWriter &writer) : writer(writer) {}
  void runAfterPass(Pass *, Operation *op) override {
    // Nested passes run in parallel on gpu.modules; the module-level passes
    // around them see every kernel, one at a time.
    if (isa<ModuleOp>(op))
      writer.recordKernels(op);
  }

private:
  ManifestWriter &writer;
};
} // namespace

std::unique_ptr<PassInstrumentation> ManifestWriter::createInstrumentation() {
  return std::make_unique<KernelRecorder>(*this);
}

/// What a launcher passes for one argument: memrefs expand into their
/// descriptor fields, scalars are one parameter.
static llvm::json::Object describeArgument(Type type, int64_t &params) {
  llvm::json::Object arg;
  arg[SYMM_MANIFEST_ARG_TYPE] = typeName(type);
  if (auto memref = dyn_cast<MemRefType>(type)) {
    int64_t fields = SYMM_MEMREF_PARAMS(memref.getRank());
    arg[SYMM_MANIFEST_ARG_KIND] = SYMM_MANIFEST_ARG_MEMREF;
    arg[SYMM_MANIFEST_ARG_ELEMENT] = typeName(memref.getElementType());
    arg[SYMM_MANIFEST_ARG_RANK] = memref.getRank();
    arg[SYMM_MANIFEST_ARG_HEAP] = isHeapMemRef(memref);
    arg[SYMM_MANIFEST_ARG_PARAMS] = fields;
    params += fields;
  } else {
    arg[SYMM_MANIFEST_ARG_KIND] = SYMM_MANIFEST_ARG_SCALAR;
    arg[SYMM_MANIFEST_ARG_PARAMS] = 1;
    ++params;
  }
  return arg;
}

FailureOr<std::string> ManifestWriter::write(ModuleOp lowered, StringRef target,
                                             StringRef format,
                                             StringRef kernelContext) const {
  llvm::json::Array kernels;
  WalkResult walk = lowered.walk([&](LLVM::LLVMFuncOp func) {
    auto module = func->getParentOfType<gpu::GPUModuleOp>();
    if (!module || !func->hasAttr(gpu::GPUDialect::getKernelFuncAttrName()))
      return WalkResult::advance();
    auto it = signatures.find(kernelKey(module.getName(), func.getName()));
    if (it == signatures.end()) {
      func.emitError() << "kernel '" << func.getName()
                       << "' has no recorded signature for the manifest";
      return WalkResult::interrupt();
    }
    llvm::json::Array args;
    int64_t expected = 0;
    for (Type type : it->second)
      args.push_back(describeArgument(type, expected));
    bool contextArgument = func->hasAttr(kContextArgAttrName);
    expected += contextArgument ? 1 : 0;
    int64_t params = func.getNumArguments();
    if (params != expected) {
      func.emitError() << "kernel '" << func.getName() << "' was lowered to "
                       << params << " parameters but its arguments make "
                       << expected;
      return WalkResult::interrupt();
    }
    llvm::json::Object kernel;
    kernel[SYMM_MANIFEST_KERNEL_NAME] = func.getName();
    kernel[SYMM_MANIFEST_KERNEL_MODULE] = module.getName();
    kernel[SYMM_MANIFEST_KERNEL_ARGUMENTS] = std::move(args);
    kernel[SYMM_MANIFEST_KERNEL_CONTEXT_ARGUMENT] = contextArgument;
    kernel[SYMM_MANIFEST_KERNEL_PARAMS] = params;
    kernel[SYMM_MANIFEST_KERNEL_EARLY_LAUNCH] =
        func->hasAttr(kEarlyLaunchAttrName);
    kernel[SYMM_MANIFEST_KERNEL_CO_RESIDENT] =
        func->hasAttr(kCoResidentAttrName);
    kernels.push_back(std::move(kernel));
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();

  llvm::json::Object context;
  context[SYMM_MANIFEST_CONTEXT_KIND] = kernelContext;
  context[SYMM_MANIFEST_CONTEXT_SYMBOL] = SYMM_CONTEXT_SYMBOL;
  context[SYMM_MANIFEST_CONTEXT_SIZE] =
      static_cast<int64_t>(sizeof(symm_kernel_context));
  context[SYMM_MANIFEST_CONTEXT_MAX_RANKS] = SYMM_MAX_RANKS;
  context[SYMM_MANIFEST_CONTEXT_LAYOUT] =
      "{i32 rank, i32 world_size, [max_ranks x i64] heap_bases}";
  llvm::json::Object manifest;
  manifest[SYMM_MANIFEST_SCHEMA] = SYMM_MANIFEST_SCHEMA_VERSION;
  manifest[SYMM_MANIFEST_TARGET] = target;
  manifest[SYMM_MANIFEST_FORMAT] = format;
  manifest[SYMM_MANIFEST_CONTEXT] = std::move(context);
  manifest[SYMM_MANIFEST_KERNELS] = std::move(kernels);
  return llvm::formatv("{0:2}\n", llvm::json::Value(std::move(manifest))).str();
}
