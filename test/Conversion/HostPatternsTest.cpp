//===- HostPatternsTest.cpp - The host patterns for an embedder -*- C++ -*-===//
//
// populateSymmHostToLLVMConversionPatterns lowers host-side symm operations
// in a conversion an embedding compiler runs itself.
//
//===----------------------------------------------------------------------===//

#include "symm/Conversion/SymmToLLVM.h"
#include "symm/InitAllSymm.h"
#include "symm/abi.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace mlir::symm;

namespace {

TEST(HostPatterns, CallTheProgramEntryPoints) {
  DialectRegistry registry;
  registerAllDialects(registry);
  registerAllSymmDialects(registry);
  MLIRContext context(registry);
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(R"mlir(
func.func @host() -> i32 {
  symm.barrier
  %n = symm.world_size : i32
  return %n : i32
}
)mlir",
                                                             &context);
  ASSERT_TRUE(module);
  LLVMTypeConverter converter(&context);
  RewritePatternSet patterns(&context);
  populateSymmHostToLLVMConversionPatterns(converter, patterns);
  ConversionTarget target(context);
  target.addIllegalDialect<SymmDialect>();
  target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
  ASSERT_TRUE(
      succeeded(applyPartialConversion(*module, target, std::move(patterns))));
  std::string text;
  llvm::raw_string_ostream os(text);
  module->print(os);
  EXPECT_NE(text.find(std::string("llvm.call @") + SYMM_PROGRAM_BARRIER_FN),
            std::string::npos)
      << text;
  EXPECT_NE(text.find(std::string("llvm.call @") + SYMM_PROGRAM_WORLD_SIZE_FN),
            std::string::npos)
      << text;
}

} // namespace
