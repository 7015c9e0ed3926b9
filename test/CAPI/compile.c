/*===- compile.c - Compile and launch a kernel through the C API --*- C -*-===*/
// symmCompileSource and symmCompileModule compile a kernel for the host
// target in this process; the runtime loads the object from memory and
// launches it on every rank. Bad input fails with a located diagnostic.
//
// RUN: symm-run -n 2 symm-capi-compile-test run | FileCheck %s --check-prefix=LAUNCH
// RUN: symm-capi-compile-test errors 2>&1 | FileCheck %s --check-prefix=ERR
//
// LAUNCH-DAG: [rank 0] source: manifest names fill: 1
// LAUNCH-DAG: [rank 0] source: rank 0 saw rank 1's values: ok
// LAUNCH-DAG: [rank 1] source: rank 1 saw rank 0's values: ok
// LAUNCH-DAG: [rank 0] module: rank 0 saw rank 1's values: ok
// LAUNCH-DAG: [rank 1] module: rank 1 saw rank 0's values: ok

#include "mlir-c/IR.h"
#include "symm-c/Dialect/Symm.h"
#include "symm-c/Driver.h"
#include "symm/runtime.h"

#include <stdio.h>
#include <string.h>

/* Each thread stores 1000 * (its rank + 1) + its index into the next rank's
   buffer. */
static const char *kKernel =
    "gpu.module @kernels {\n"
    "  gpu.func @fill(%buf: memref<8xi32, #symm.heap>) kernel {\n"
    "    %tid = gpu.thread_id x\n"
    "    %one = arith.constant 1 : i32\n"
    "    %thousand = arith.constant 1000 : i32\n"
    "    %me = symm.rank : i32\n"
    "    %n = symm.world_size : i32\n"
    "    %up = arith.addi %me, %one : i32\n"
    "    %next = arith.remsi %up, %n : i32\n"
    "    %base = arith.muli %up, %thousand : i32\n"
    "    %i = arith.index_cast %tid : index to i32\n"
    "    %v = arith.addi %base, %i : i32\n"
    "    symm.store %v, %buf[%tid] to %next : i32 -> memref<8xi32, "
    "#symm.heap>\n"
    "    gpu.return\n"
    "  }\n"
    "}\n";

#define CHECK(call)                                                            \
  do {                                                                         \
    if ((call) != SYMM_SUCCESS) {                                              \
      printf("%s: %s\n", #call, symm_last_error());                            \
      return 1;                                                                \
    }                                                                          \
  } while (0)

/* Loads `result`'s object, launches `fill` and checks what the previous rank
   wrote into this rank's buffer. */
static int launch(const char *what, const SymmCompileResult *result) {
  int32_t *buf;
  CHECK(symm_malloc(8 * sizeof(int32_t), (void **)&buf));
  symm_module *module;
  CHECK(symm_module_load_data(result->binary, result->binary_size, &module));
  CHECK(symm_barrier());
  void *allocated = buf, *aligned = buf;
  int64_t offset = 0, size = 8, stride = 1;
  void *params[] = {&allocated, &aligned, &offset, &size, &stride};
  unsigned grid[3] = {1, 1, 1}, block[3] = {8, 1, 1};
  CHECK(symm_launch(module, "fill", grid, block, 0, NULL, params, 5));
  CHECK(symm_barrier());
  int32_t seen[8];
  CHECK(symm_memcpy(seen, buf, sizeof(seen)));
  int rank = symm_rank(), n = symm_world_size();
  int prev = (rank + n - 1) % n, ok = 1;
  for (int i = 0; i < 8; ++i)
    ok &= seen[i] == 1000 * (prev + 1) + i;
  printf("%s: rank %d saw rank %d's values: %s\n", what, rank, prev,
         ok ? "ok" : "FAILED");
  CHECK(symm_module_unload(module));
  CHECK(symm_free(buf));
  return ok ? 0 : 1;
}

static int run(void) {
  CHECK(symm_init());
  SymmCompileResult result;
  /* No flags: the host target and its default object. */
  if (symmCompileSource(kKernel, strlen(kKernel), "kernel.mlir", NULL, 0,
                        &result)) {
    printf("compile failed:\n%s", result.error);
    return 1;
  }
  if (symm_rank() == 0)
    printf("source: manifest names fill: %d\n",
           strstr(result.manifest, "\"fill\"") != NULL);
  int failed = launch("source", &result);
  symmCompileResultDestroy(&result);

  /* The same kernel as a module parsed by the caller, in its own context:
     one call registers what the kernel and the pipelines need. */
  MlirDialectRegistry registry = mlirDialectRegistryCreate();
  mlirSymmRegisterAll(registry);
  MlirContext ctx = mlirContextCreateWithRegistry(registry, false);
  mlirDialectRegistryDestroy(registry);
  MlirModule module =
      mlirModuleCreateParse(ctx, mlirStringRefCreateFromCString(kKernel));
  if (mlirModuleIsNull(module)) {
    printf("parse failed\n");
    return 1;
  }
  const char *flags[] = {"--target=host", "-O2"};
  if (symmCompileModule(module, flags, 2, &result)) {
    printf("compile failed:\n%s", result.error);
    return 1;
  }
  failed |= launch("module", &result);
  symmCompileResultDestroy(&result);
  mlirModuleDestroy(module);
  mlirContextDestroy(ctx);
  CHECK(symm_finalize());
  return failed;
}

/* Compiles `source` with `flag` (NULL: none) and prints the error it must
   fail with. */
static void expectError(const char *what, const char *source,
                        const char *flag) {
  SymmCompileResult result;
  int rc = symmCompileSource(source, strlen(source), "bad.mlir", &flag,
                             flag ? 1 : 0, &result);
  fprintf(stderr, "%s: rc=%d binary=%p\n%s", what, rc != 0,
          (void *)result.binary, result.error ? result.error : "(none)\n");
  symmCompileResultDestroy(&result);
}

static int errors(void) {
  // ERR-LABEL: bad mlir: rc=1 binary=(nil)
  // ERR-NEXT: bad.mlir:2:3: error: custom op 'gpu.bogus' is unknown
  expectError("bad mlir", "gpu.module @k {\n  gpu.bogus\n}\n", NULL);
  // ERR-LABEL: unknown target: rc=1 binary=(nil)
  // ERR-NEXT: symm: error: unknown target 'tpu'; expected host, sm_<N> (NVIDIA) or gfx<N> (AMD)
  expectError("unknown target", kKernel, "--target=tpu");
  // ERR-LABEL: whole program: rc=1 binary=(nil)
  // ERR-NEXT: symm: error: the input is a whole program (func.func @main); compile it to an executable with symm-compile --emit=exe, and give this entry point only kernels (gpu.module)
  expectError("whole program", "func.func @main() { return }\n", NULL);
  // ERR-LABEL: deep nesting: rc=1 binary=(nil)
  // ERR-NEXT: bad.mlir:1:1054: error: '[' opens nesting level 1025; Symm accepts at most 1024 levels of nested regions, brackets and types
  enum { kLevels = 20000 };
  static char deep[2 * kLevels + 64];
  char *end = deep + sprintf(deep, "gpu.module @k attributes {a = ");
  memset(end, '[', kLevels);
  memset(end + kLevels, ']', kLevels);
  strcpy(end + 2 * kLevels, "} {\n}\n");
  expectError("deep nesting", deep, NULL);
  // ERR-LABEL: bad option: rc=1 binary=(nil)
  // ERR-NEXT: symm: error: --emit=cubin does not apply to --target=host
  const char *cubin = "--emit=cubin";
  SymmCompileResult result;
  int rc =
      symmCompileSource(kKernel, strlen(kKernel), NULL, &cubin, 1, &result);
  fprintf(stderr, "bad option: rc=%d binary=%p\n%s", rc != 0,
          (void *)result.binary, result.error);
  symmCompileResultDestroy(&result);
  // Flags are symm-compile's; each misuse is one line naming the flag.
  // ERR-LABEL: unknown flag: rc=1 binary=(nil)
  // ERR-NEXT: symm: error: unknown compile flag '--chip=sm_90'; the flags are --target, --emit, -O, --kernel-context, --check-ranks, --library, --remote, --check-host-access, --check-races
  expectError("unknown flag", kKernel, "--chip=sm_90");
  // ERR-LABEL: not a flag: rc=1 binary=(nil)
  // ERR-NEXT: symm: error: 'sm_90' is not a compile flag; flags start with - or --
  expectError("not a flag", kKernel, "sm_90");
  // ERR-LABEL: no value: rc=1 binary=(nil)
  // ERR-NEXT: symm: error: --target needs a value: --target=<name>
  expectError("no value", kKernel, "--target");
  // ERR-LABEL: no level: rc=1 binary=(nil)
  // ERR-NEXT: symm: error: -O needs a value: -O<level>
  expectError("no level", kKernel, "-O");
  // ERR-LABEL: bad level: rc=1 binary=(nil)
  // ERR-NEXT: symm: error: -O takes a number, got 'fast'; use -O0 to -O3
  expectError("bad level", kKernel, "-Ofast");
  // ERR-LABEL: bad switch: rc=1 binary=(nil)
  // ERR-NEXT: symm: error: --check-ranks takes true or false, got 'maybe'
  expectError("bad switch", kKernel, "--check-ranks=maybe");
  // ERR-LABEL: empty library: rc=1 binary=(nil)
  // ERR-NEXT: symm: error: --library needs a path: --library=<path>
  expectError("empty library", kKernel, "--library=");
  // ERR-LABEL: null flag: rc=1 binary=(nil)
  // ERR-NEXT: symm: error: compile flag 0 is NULL
  const char *none = NULL;
  rc = symmCompileSource(kKernel, strlen(kKernel), NULL, &none, 1, &result);
  fprintf(stderr, "null flag: rc=%d binary=%p\n%s", rc != 0,
          (void *)result.binary, result.error);
  symmCompileResultDestroy(&result);
  return 0;
}

int main(int argc, char **argv) {
  if (argc == 2 && !strcmp(argv[1], "run"))
    return run();
  if (argc == 2 && !strcmp(argv[1], "errors"))
    return errors();
  fprintf(stderr, "usage: symm-capi-compile-test run|errors\n");
  return 2;
}
