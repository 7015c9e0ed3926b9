/*===- symm-capi.c - The symm dialect through the C API -----------*- C -*-===*/
// RUN: symm-capi-test 2>&1 | FileCheck %s

#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/IR.h"
#include "symm-c/Dialect/Symm.h"

#include <stdio.h>

// Only builtin and symm are loaded, so the module uses nothing else.
static const char *kModule = "%me = symm.rank : i32\n"
                             "%n = symm.world_size : i32\n";

int main(void) {
  MlirContext ctx = mlirContextCreate();
  MlirDialectHandle symm = mlirGetDialectHandle__symm__();
  mlirDialectHandleRegisterDialect(symm, ctx);
  MlirStringRef ns = mlirDialectHandleGetNamespace(symm);
  // CHECK: namespace: symm
  fprintf(stderr, "namespace: %.*s\n", (int)ns.length, ns.data);
  mlirContextSetAllowUnregisteredDialects(ctx, false);
  MlirModule module =
      mlirModuleCreateParse(ctx, mlirStringRefCreateFromCString(kModule));
  if (mlirModuleIsNull(module)) {
    fprintf(stderr, "parse failed\n");
    return 1;
  }
  // CHECK: symm.rank : i32
  // CHECK: symm.world_size : i32
  mlirOperationDump(mlirModuleGetOperation(module));

  int64_t shape[] = {4};
  MlirAttribute noSpace = {NULL};
  MlirType heap = mlirMemRefTypeContiguousGet(mlirF32TypeGet(ctx), 1, shape,
                                              mlirSymmHeapAttrGet(ctx));
  MlirType plain =
      mlirMemRefTypeContiguousGet(mlirF32TypeGet(ctx), 1, shape, noSpace);
  // CHECK: heap: 1 plain: 0
  fprintf(stderr, "heap: %d plain: %d\n", mlirSymmTypeIsHeapMemRef(heap),
          mlirSymmTypeIsHeapMemRef(plain));
  mlirSymmRegisterPasses();
  mlirModuleDestroy(module);
  mlirContextDestroy(ctx);
  // CHECK: ok
  fprintf(stderr, "ok\n");
  return 0;
}
