//===- RegistrationTest.cpp - One call for all a pipeline needs -*- C++ -*-===//
//
// An embedder that calls only registerAllSymm parses a kernel in a gpu.module
// and compiles it for every target: Symm's dialects alone do not parse
// gpu.module, and without upstream's extensions and LLVM IR translations the
// lowering or the serialisation fails.
//
//===----------------------------------------------------------------------===//

#include "symm/Driver/Driver.h"
#include "symm/InitAllSymm.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

using namespace mlir;

namespace {

constexpr const char *kKernel = R"mlir(
gpu.module @kernels {
  gpu.func @next(%buf: memref<8xi32, #symm.heap>) kernel {
    %tid = gpu.thread_id x
    %one = arith.constant 1 : i32
    %me = symm.rank : i32
    %n = symm.world_size : i32
    %up = arith.addi %me, %one : i32
    %next = arith.remsi %up, %n : i32
    %i = arith.index_cast %tid : index to i32
    symm.store %i, %buf[%tid] to %next : i32 -> memref<8xi32, #symm.heap>
    gpu.return
  }
}
)mlir";

struct Case {
  const char *target;
  const char *emit;
  /// What the object holds when the kernel was compiled for the target.
  const char *expected;
};

class RegistrationTest : public ::testing::TestWithParam<Case> {};

TEST_P(RegistrationTest, OneCallCompilesAKernel) {
  DialectRegistry registry;
  symm::registerAllSymm(registry);
  MLIRContext context(registry);
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(kKernel, &context);
  ASSERT_TRUE(module);
  symm::CompileOptions options;
  options.target = GetParam().target;
  options.emit = GetParam().emit;
  std::string errors;
  FailureOr<symm::CompileResult> result =
      symm::compile(*module, options, [&](const Twine &message) {
        errors += message.str() + "\n";
      });
  ASSERT_TRUE(succeeded(result)) << errors;
  EXPECT_NE(result->binary.find(GetParam().expected), std::string::npos)
      << result->binary;
  EXPECT_NE(result->manifest.find("\"next\""), std::string::npos)
      << result->manifest;
}

INSTANTIATE_TEST_SUITE_P(
    Targets, RegistrationTest,
    ::testing::Values(Case{"host", "llvm", "define void @_symm_kernel_next("},
                      Case{"sm_90", "ptx", ".visible .entry next("},
                      Case{"gfx942", "isa", "next:"}),
    [](const ::testing::TestParamInfo<Case> &info) {
      return std::string(info.param.target);
    });

} // namespace
