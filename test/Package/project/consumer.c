/*===- consumer.c - The symm dialect of an installed Symm ---------*- C -*-===*/

#include "symm-c/Dialect/Symm.h"

#include <stdio.h>

int main(void) {
  MlirContext ctx = mlirContextCreate();
  mlirDialectHandleRegisterDialect(mlirGetDialectHandle__symm__(), ctx);
  MlirModule module = mlirModuleCreateParse(
      ctx, mlirStringRefCreateFromCString("%n = symm.world_size : i32\n"));
  int ok = !mlirModuleIsNull(module);
  printf("consumer-c: %s\n", ok ? "parsed" : "failed");
  if (ok)
    mlirModuleDestroy(module);
  mlirContextDestroy(ctx);
  return ok ? 0 : 1;
}
