//===- AbiTest.cpp - The compiler and the runtime agree on the ABI -*- C++
//-*-===//
//
// symm/abi.h is the one place the compiler's lowering and the runtime take
// their shared facts from; this test checks what a header cannot: that the
// LLVM type the compiler builds for the kernel context has the C structure's
// layout on every target, and that the runtime defines every entry point the
// CPU target's code calls by name.
//
//===----------------------------------------------------------------------===//

#include "symm/abi.h"
#include "symm/Conversion/SymmToLLVM.h"

#include "mlir/Target/LLVMIR/TypeToLLVM.h"

#include "llvm/IR/DataLayout.h"
#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/LLVMContext.h"

#include <cstddef>
#include <cstdio>
#include <dlfcn.h>

namespace {

int failures = 0;

void check(bool ok, const char *what) {
  if (!ok) {
    fprintf(stderr, "ABI mismatch: %s\n", what);
    ++failures;
  }
}

void checkContextLayout(const char *dataLayout) {
  mlir::MLIRContext ctx;
  ctx.loadDialect<mlir::LLVM::LLVMDialect>();
  llvm::LLVMContext llvmCtx;
  mlir::LLVM::TypeToLLVMIRTranslator translator(llvmCtx);
  auto *type = llvm::cast<llvm::StructType>(
      translator.translateType(mlir::symm::getKernelContextType(&ctx)));
  llvm::DataLayout layout(dataLayout);
  const llvm::StructLayout *fields = layout.getStructLayout(type);
  printf("context layout for '%s': %llu bytes\n", dataLayout,
         static_cast<unsigned long long>(fields->getSizeInBytes()));
  check(type->getNumElements() == SYMM_CONTEXT_FIELD_COUNT, "field count");
  check(fields->getSizeInBytes() == sizeof(symm_kernel_context), "size");
  check(fields->getElementOffset(SYMM_CONTEXT_FIELD_RANK) ==
            offsetof(symm_kernel_context, rank),
        "rank offset");
  check(fields->getElementOffset(SYMM_CONTEXT_FIELD_WORLD_SIZE) ==
            offsetof(symm_kernel_context, world_size),
        "world_size offset");
  check(fields->getElementOffset(SYMM_CONTEXT_FIELD_HEAP_BASES) ==
            offsetof(symm_kernel_context, heap_bases),
        "heap_bases offset");
  auto *bases = llvm::cast<llvm::ArrayType>(
      type->getElementType(SYMM_CONTEXT_FIELD_HEAP_BASES));
  check(bases->getNumElements() == SYMM_MAX_RANKS, "heap_bases length");
  check(layout.getTypeAllocSize(bases->getElementType()) ==
            sizeof(symm_kernel_context{}.heap_bases[0]),
        "heap_bases element size");
}

} // namespace

int main() {
  // The host (x86-64 / AArch64), NVPTX and AMDGPU data layouts.
  checkContextLayout("e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-"
                     "f80:128-n8:16:32:64-S128");
  checkContextLayout("e-m:e-i8:8:32-i16:16:32-i64:64-i128:128-n32:64-S128");
  checkContextLayout("e-i64:64-i128:128-v16:16-v32:32-n16:32:64");
  checkContextLayout(
      "e-p:64:64-p1:64:64-p2:32:32-p3:32:32-p4:64:64-p5:32:32-p6:32:32-"
      "p7:160:256:256:32-p8:128:128:128:48-p9:192:256:256:32-i64:64-v16:16-"
      "v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-"
      "v2048:2048-n32:64-S32-A5-G1-ni:7:8:9");

  // Every function CPU-target and whole-program code calls by name.
  void *runtime = dlopen("libsymm_runtime.so", RTLD_NOW | RTLD_GLOBAL);
  check(runtime != nullptr, dlerror());
  for (const char *name :
       {SYMM_HOST_ID_FN, SYMM_HOST_BARRIER_FN, SYMM_HOST_SHARED_MEMORY_FN,
        SYMM_HOST_SHUFFLE_FN, SYMM_HOST_YIELD_FN,
        SYMM_HOST_PEER_OUT_OF_RANGE_FN, SYMM_HOST_MBARRIER_INIT_FN,
        SYMM_HOST_MBARRIER_ARRIVE_FN, SYMM_HOST_MBARRIER_TEST_WAIT_FN,
        SYMM_HOST_MBARRIER_WAIT_FN, SYMM_HOST_TMA_LOAD_FN,
        SYMM_HOST_TMA_STORE_FN, SYMM_HOST_WARPGROUP_SYNC_FN,
        SYMM_PROGRAM_ALLOC_FN, SYMM_PROGRAM_FREE_FN, SYMM_PROGRAM_BARRIER_FN,
        SYMM_PROGRAM_RANK_FN, SYMM_PROGRAM_WORLD_SIZE_FN}) {
    bool found = runtime && dlsym(runtime, name);
    printf("runtime defines %s: %s\n", name, found ? "yes" : "no");
    check(found, name);
  }
  if (failures)
    return 1;
  printf("ABI: compiler and runtime agree\n");
  return 0;
}
