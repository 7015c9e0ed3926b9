//===- PipelinesTest.cpp - The pipelines' textual form ----------*- C++ -*-===//
//
// The pipelines are built in C++; their textual form (symm-compile
// --print-pipeline) is what the pass manager prints. These tests check that
// it parses back into the same pipeline for every target, and that the
// driver's two phases are the whole pipeline.
//
//===----------------------------------------------------------------------===//

#include "symm/Pipelines/Pipelines.h"
#include "symm/InitAllSymm.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace mlir::symm;

namespace {

std::string print(const OpPassManager &pm) {
  std::string text;
  llvm::raw_string_ostream os(text);
  pm.printAsTextualPipeline(os);
  return text;
}

struct Case {
  /// A --target of the target.
  const char *target;
  const char *chip;
  const char *format;
  bool checkRanks;
  const char *kernelContext;
};

class PipelinesTest : public ::testing::TestWithParam<Case> {};

TEST_P(PipelinesTest, TextualFormParsesBackToTheSamePipeline) {
  DialectRegistry registry;
  registerAllSymm(registry);
  const Case &c = GetParam();
  FailureOr<const SymmTarget *> target =
      lookupTarget(c.target, [](const Twine &) {});
  ASSERT_TRUE(succeeded(target)) << c.target;
  SymmPipelineOptions options;
  options.chip = c.chip;
  options.format = c.format;
  options.checkRanks = c.checkRanks;
  options.kernelContext = c.kernelContext;
  std::string text = getPipelineString(**target, options);

  OpPassManager parsed(ModuleOp::getOperationName());
  std::string errors;
  llvm::raw_string_ostream os(errors);
  StringRef inner =
      StringRef(text).drop_front(strlen("builtin.module(")).drop_back();
  ASSERT_TRUE(succeeded(parsePassPipeline(inner, parsed, os))) << errors << "\n"
                                                               << text;
  EXPECT_EQ(print(parsed), text);

  OpPassManager phases(ModuleOp::getOperationName());
  buildSymmLoweringPipeline(phases, **target, options);
  buildSymmSerializationPipeline(phases, options);
  EXPECT_EQ(print(phases), text);
}

INSTANTIATE_TEST_SUITE_P(
    Targets, PipelinesTest,
    ::testing::Values(Case{"host", "", "bin", false, "global"},
                      Case{"host", "", "isa", false, "argument"},
                      Case{"sm_90", "sm_90", "isa", true, "global"},
                      Case{"sm_100", "sm_100", "bin", false, "global"},
                      Case{"gfx942", "gfx942", "isa", true, "argument"}));

} // namespace
