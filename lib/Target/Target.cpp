//===- Target.cpp - What every target shares --------------------*- C++ -*-===//

#include "symm/Target/Target.h"

#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/TargetSelect.h"

using namespace mlir;
using namespace mlir::symm;

SymmTarget::~SymmTarget() = default;

Toolkit Toolkit::existing(std::string path) {
  return Toolkit(std::move(path), /*remove=*/false);
}

Toolkit Toolkit::scratch(std::string path) {
  return Toolkit(std::move(path), /*remove=*/true);
}

Toolkit::Toolkit(Toolkit &&other)
    : path(std::move(other.path)), remove(other.remove) {
  other.remove = false;
}

Toolkit &Toolkit::operator=(Toolkit &&other) {
  if (this != &other) {
    if (remove)
      llvm::sys::fs::remove_directories(path);
    path = std::move(other.path);
    remove = other.remove;
    other.remove = false;
  }
  return *this;
}

Toolkit::~Toolkit() {
  if (remove)
    llvm::sys::fs::remove_directories(path);
}

void mlir::symm::addBf16OnCPUPasses(OpPassManager &pm) {
  math::MathExtendToSupportedTypesOptions extend;
  extend.targetTypeStr = "f32";
  pm.addPass(math::createMathExtendToSupportedTypes(extend));
  arith::ArithEmulateUnsupportedFloatsOptions emulate;
  emulate.sourceTypeStrs = {"bf16"};
  emulate.targetTypeStr = "f32";
  pm.addPass(arith::createArithEmulateUnsupportedFloats(emulate));
  arith::ArithExpandOpsPassOptions expand;
  expand.includeBf16 = true;
  pm.addPass(arith::createArithExpandOpsPass(expand));
}

LogicalResult mlir::symm::checkBackendChip(StringRef tripleName, StringRef chip,
                                           TargetErrorFn emitError) {
  llvm::InitializeAllTargetInfos();
  llvm::InitializeAllTargets();
  llvm::InitializeAllTargetMCs();
  llvm::Triple triple(tripleName);
  std::string message;
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(triple, message);
  if (!target) {
    emitError("this LLVM has no " + triple.str() + " backend: " + message);
    return failure();
  }
  std::unique_ptr<llvm::MCSubtargetInfo> info(
      target->createMCSubtargetInfo(triple, "", ""));
  if (!info->isCPUStringValid(chip)) {
    emitError("unknown chip '" + chip + "' for " + triple.str());
    return failure();
  }
  return success();
}

std::string mlir::symm::findLinker() {
  if (const char *lld = getenv("SYMM_LLD"); lld && *lld)
    return lld;
  for (const char *name :
       {"/usr/lib/llvm-22/bin/ld.lld", "ld.lld-22", "ld.lld"}) {
    if (llvm::sys::fs::can_execute(name))
      return name;
    if (auto found = llvm::sys::findProgramByName(name))
      return *found;
  }
  return "";
}
