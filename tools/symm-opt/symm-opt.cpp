//===- symm-opt.cpp - mlir-opt with the symm dialect and passes -*- C++ -*-===//

#include "symm/Driver/Driver.h"
#include "symm/InitAllSymm.h"
#include "symm/version.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/ToolOutputFile.h"

using namespace mlir;

/// What MlirOptMain(argc, argv, ...) does, with the input's nesting checked
/// before it is parsed (deep input overflowed the parser's stack).
static LogicalResult run(int argc, char **argv, DialectRegistry &registry) {
  auto [inputFilename, outputFilename] = registerAndParseCLIOptions(
      argc, argv, "Symm optimizer driver\n", registry);
  MlirOptMainConfig config = MlirOptMainConfig::createFromCLOptions();
  // These print and return without reading the input.
  if (config.shouldShowDialects() || config.shouldListPasses())
    return MlirOptMain(llvm::outs(), llvm::MemoryBuffer::getMemBuffer(""),
                       registry, config);
  std::string errorMessage;
  std::unique_ptr<llvm::MemoryBuffer> file =
      openInputFile(inputFilename, &errorMessage);
  if (!file) {
    llvm::errs() << errorMessage << "\n";
    return failure();
  }
  {
    llvm::SourceMgr sourceMgr;
    sourceMgr.AddNewSourceBuffer(
        llvm::MemoryBuffer::getMemBuffer(file->getMemBufferRef(),
                                         /*RequiresNullTerminator=*/false),
        llvm::SMLoc());
    MLIRContext context(MLIRContext::Threading::DISABLED);
    SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);
    if (failed(symm::checkNestingDepth(sourceMgr, &context)))
      return failure();
  }
  std::unique_ptr<llvm::ToolOutputFile> output =
      openOutputFile(outputFilename, &errorMessage);
  if (!output) {
    llvm::errs() << errorMessage << "\n";
    return failure();
  }
  if (failed(MlirOptMain(output->os(), std::move(file), registry, config)))
    return failure();
  output->keep();
  return success();
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  llvm::cl::SetVersionPrinter([](llvm::raw_ostream &os) {
    os << "symm-opt (Symm) " SYMM_VERSION "\n"
       << "LLVM version " LLVM_VERSION_STRING "\n";
  });

  DialectRegistry registry;
  symm::registerAllSymm(registry);
  return asMainReturnCode(run(argc, argv, registry));
}
