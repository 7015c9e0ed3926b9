//===- ConvertSymmToLLVM.cpp - Host-side symm ops to runtime calls -*- C++ -*-//
//
// Host code of whole programs without device code to lower: collective
// allocation, barriers and rank queries call the Symm runtime.
//
//===----------------------------------------------------------------------===//

#include "symm/Conversion/Passes.h"
#include "symm/Conversion/SymmToLLVM.h"

namespace mlir::symm {
#define GEN_PASS_DEF_CONVERTSYMMTOLLVM
#include "symm/Conversion/Passes.h.inc"
} // namespace mlir::symm

using namespace mlir;
using namespace mlir::symm;

namespace {
struct ConvertSymmToLLVM
    : public symm::impl::ConvertSymmToLLVMBase<ConvertSymmToLLVM> {
  void runOnOperation() override {
    if (failed(lowerSymmHostCode(getOperation())))
      signalPassFailure();
  }
};
} // namespace
