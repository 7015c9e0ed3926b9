//===- Symm.cpp - C API of the symm dialect ---------------------*- C++ -*-===//

#include "symm-c/Dialect/Symm.h"

#include "symm/Dialect/Symm/IR/SymmDialect.h"
#include "symm/InitAllSymm.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Registration.h"

MLIR_DEFINE_CAPI_DIALECT_REGISTRATION(Symm, symm, mlir::symm::SymmDialect)

void mlirSymmRegisterPasses(void) { mlir::symm::registerAllSymmPasses(); }

void mlirSymmRegisterAll(MlirDialectRegistry registry) {
  mlir::symm::registerAllSymm(*unwrap(registry));
}

MlirAttribute mlirSymmHeapAttrGet(MlirContext ctx) {
  return wrap(mlir::symm::HeapAttr::get(unwrap(ctx)));
}

bool mlirSymmTypeIsHeapMemRef(MlirType type) {
  return mlir::symm::isHeapMemRef(unwrap(type));
}
