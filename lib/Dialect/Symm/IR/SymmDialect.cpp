//===- SymmDialect.cpp - Symm dialect ---------------------------*- C++ -*-===//

#include "symm/Dialect/Symm/IR/SymmDialect.h"
#include "symm/Dialect/Symm/IR/SymmOps.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/Transforms/InliningUtils.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::symm;

#include "symm/Dialect/Symm/IR/SymmEnums.cpp.inc"
#include "symm/Dialect/Symm/IR/SymmOpsDialect.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "symm/Dialect/Symm/IR/SymmAttrs.cpp.inc"

namespace {
/// Every symm op may be inlined: none refers to its enclosing function (the
/// kernel context is a module global or a kernel argument added after the
/// device library's functions are inlined into their callers).
struct SymmInlinerInterface : public DialectInlinerInterface {
  using DialectInlinerInterface::DialectInlinerInterface;
  bool isLegalToInline(Operation *, Region *, bool, IRMapping &) const final {
    return true;
  }
};
} // namespace

void SymmDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "symm/Dialect/Symm/IR/SymmOps.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "symm/Dialect/Symm/IR/SymmAttrs.cpp.inc"
      >();
  addInterfaces<SymmInlinerInterface>();
}

LogicalResult SymmDialect::verifyOperationAttribute(Operation *op,
                                                    NamedAttribute attr) {
  // Both kernel attributes are units on kernels.
  StringAttr name = attr.getName();
  if (name != kEarlyLaunchAttrName && name != kCoResidentAttrName)
    return success();
  if (!isa<UnitAttr>(attr.getValue()))
    return op->emitError() << "'" << name.getValue() << "' is a unit attribute";
  // A gpu.func kernel, and the function it is lowered to, carry gpu.kernel.
  if (!op->hasAttr(gpu::GPUDialect::getKernelFuncAttrName()))
    return op->emitError() << "'" << name.getValue()
                           << "' marks a kernel (a gpu.func with 'kernel'), "
                              "not '"
                           << op->getName() << "'";
  return success();
}

bool mlir::symm::isHeapMemRef(Type type) {
  auto memref = dyn_cast<BaseMemRefType>(type);
  return memref && isa_and_nonnull<HeapAttr>(memref.getMemorySpace());
}

LogicalResult
HostTargetAttr::verify(function_ref<InFlightDiagnostic()> emitError, int O) {
  // The range symm-compile's -O and the pipelines' O= accept.
  if (O < 0 || O > 3)
    return emitError() << "#symm.host_target: optimisation level O = " << O
                       << " is out of range; use 0, 1, 2 or 3";
  return success();
}
