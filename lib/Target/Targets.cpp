//===- Targets.cpp - The table of targets -----------------------*- C++ -*-===//
//
// Every target Symm compiles for, one row each: the pipeline builder, the
// driver and the registration read this table and nothing else about which
// targets there are. A new target is a folder under lib/Target/ and a row.
//
//===----------------------------------------------------------------------===//

#include "symm/Target/Host/HostTarget.h"
#include "symm/Target/NVVM/NVVMTarget.h"
#include "symm/Target/ROCDL/ROCDLTarget.h"

using namespace mlir;
using namespace mlir::symm;

ArrayRef<const SymmTarget *> mlir::symm::getTargets() {
  static const SymmTarget *const targets[] = {
      &getHostTarget(),
      &getNVVMTarget(),
      &getROCDLTarget(),
  };
  return targets;
}

std::string mlir::symm::describeTargets() {
  std::string text;
  ArrayRef<const SymmTarget *> targets = getTargets();
  for (size_t i = 0; i < targets.size(); ++i) {
    if (i)
      text += i + 1 == targets.size() ? " or " : ", ";
    StringRef spelling = targets[i]->getSpelling();
    StringRef name = targets[i]->getDisplayName();
    text += spelling;
    if (name != spelling)
      text += (" (" + name + ")").str();
  }
  return text;
}

FailureOr<const SymmTarget *>
mlir::symm::lookupTarget(StringRef target, TargetErrorFn emitError) {
  for (const SymmTarget *candidate : getTargets())
    if (candidate->matches(target))
      return candidate;
  emitError("unknown target '" + target + "'; expected " + describeTargets());
  return failure();
}
