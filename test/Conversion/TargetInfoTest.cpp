//===- TargetInfoTest.cpp - Targets' decisions from their factories -------===//
//
// What an embedding compiler gets from getNVVMTargetInfo, getAMDGPUTargetInfo
// and getHostTargetInfo, and that the shared device lowering applies it.
//
//===----------------------------------------------------------------------===//

#include "symm/Conversion/SymmToLLVM.h"
#include "symm/InitAllSymm.h"
#include "symm/Target/Host/HostTarget.h"
#include "symm/Target/NVVM/NVVMTarget.h"
#include "symm/Target/ROCDL/ROCDLTarget.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace mlir::symm;

namespace {

std::array<std::string, 3> scopes(const SymmTargetInfo &target) {
  return {target.syncScope(MemoryScope::workgroup).str(),
          target.syncScope(MemoryScope::device).str(),
          target.syncScope(MemoryScope::system).str()};
}

TEST(TargetInfo, NVVM) {
  SymmTargetInfo target = getNVVMTargetInfo({});
  EXPECT_EQ(scopes(target),
            (std::array<std::string, 3>{"block", "device", ""}));
  EXPECT_EQ(target.heapAddressSpace, 1u);
  EXPECT_EQ(target.contextAddressSpace, 4u);
  EXPECT_TRUE(target.lowerAtomicRMW); // inline PTX
  EXPECT_TRUE(target.emitBackoff);
  EXPECT_FALSE(target.reportPeerOutOfRange);
  EXPECT_TRUE(getNVVMTargetInfo({/*checkRanks=*/true}).reportPeerOutOfRange);
  // A barrier and a release are cumulative in PTX: no fence per thread.
  EXPECT_FALSE(target.fenceBeforeReleaseBarrier);
}

TEST(TargetInfo, AMDGPU) {
  SymmTargetInfo target = getAMDGPUTargetInfo({});
  EXPECT_EQ(scopes(target), (std::array<std::string, 3>{
                                "workgroup", "agent-one-as", "one-as"}));
  EXPECT_EQ(target.gpuAddressSpaces, (std::array<unsigned, 3>{1, 3, 5}));
  EXPECT_FALSE(target.lowerAtomicRMW);
  EXPECT_FALSE(target.reportPeerOutOfRange);
  EXPECT_TRUE(getAMDGPUTargetInfo({/*checkRanks=*/true}).reportPeerOutOfRange);
  // A wave's release waits for its own stores only: every wave fences.
  EXPECT_TRUE(target.fenceBeforeReleaseBarrier);
}

TEST(TargetInfo, Host) {
  SymmTargetInfo target = getHostTargetInfo();
  EXPECT_EQ(scopes(target), (std::array<std::string, 3>{"", "", ""}));
  EXPECT_EQ(target.heapAddressSpace, 0u);
  EXPECT_EQ(target.gpuAddressSpaces, (std::array<unsigned, 3>{0, 0, 0}));
  // The CPU target always checks peers.
  EXPECT_TRUE(target.reportPeerOutOfRange);
  EXPECT_FALSE(target.fenceBeforeReleaseBarrier);
}

// An embedder lowers its own gpu.module with a factory's decisions.
TEST(TargetInfo, DeviceLoweringUsesTheFactorysScopes) {
  DialectRegistry registry;
  registerAllDialects(registry);
  registerAllSymmDialects(registry);
  MLIRContext context(registry);
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(
      R"mlir(
gpu.module @kernels {
  gpu.func @k() kernel {
    symm.fence ordering(release) scope(device)
    gpu.return
  }
}
)mlir",
      &context);
  ASSERT_TRUE(module);
  auto gpuModule = *module->getOps<gpu::GPUModuleOp>().begin();
  ASSERT_TRUE(
      succeeded(lowerSymmDeviceCode(gpuModule, getAMDGPUTargetInfo({}))));
  std::string text;
  llvm::raw_string_ostream os(text);
  module->print(os);
  EXPECT_NE(text.find("llvm.fence syncscope(\"agent-one-as\") release"),
            std::string::npos)
      << text;
}

} // namespace
