// A program whose runtime cannot start or whose module cannot load prints
// why and exits with status 1 (the rank that fails first: symm-run then ends
// the other): the exit handlers do not crash unloading a module that never
// loaded.
// RUN: rm -rf %t.cache
// RUN: symm-compile --target=host %s -o %t.exe

// A module compiled for another target than the backend's (symm-run refuses
// to compile a .mlir for it: test/Runtime/symm-run.test).
// RUN: symm-compile --target=sm_90 %s -o %t.sm90.exe
// RUN: symm-run -n 2 %t.sm90.exe > %t.sm90 2>&1; echo "status $?" >> %t.sm90
// RUN: FileCheck %s --check-prefix=SM90 --implicit-check-not=signal < %t.sm90
// SM90: [rank [[R:[01]]]] symm: loading a GPU module failed: rank [[R]]: cannot load the module as a host shared object (was it compiled with --target=host?)
// SM90: symm-run: rank {{[01]}} exited with status 1
// SM90-NEXT: status 1

// A backend that cannot start (no AMD driver or GPU here).
// RUN: env SYMM_CACHE_DIR=%t.cache symm-run -n 2 --backend hip %t.exe > %t.hip 2>&1; echo "status $?" >> %t.hip
// RUN: FileCheck %s --check-prefix=HIP --implicit-check-not=signal < %t.hip
// HIP: [rank [[R:[01]]]] symm: initialising the runtime failed: rank [[R]]: {{.*}}hip
// HIP: symm-run: rank {{[01]}} exited with status 1
// HIP-NEXT: status 1

// A heap size that does not fit in 64 bits, given to the program directly.
// RUN: env SYMM_HEAP_SIZE=99999999999999999999 %t.exe > %t.heap 2>&1; echo "status $?" >> %t.heap
// RUN: FileCheck %s --check-prefix=HEAP < %t.heap
// HEAP: symm: initialising the runtime failed: rank 0: SYMM_HEAP_SIZE='99999999999999999999' is not a size
// HEAP-NEXT: status 1

// A module with a symbol nothing defines.
// RUN: symm-compile --target=host %S/Inputs/missing-symbol.mlir -o %t.missing.exe
// RUN: symm-run -n 2 %t.missing.exe > %t.missing 2>&1; echo "status $?" >> %t.missing
// RUN: FileCheck %s --check-prefix=MISSING --implicit-check-not=signal < %t.missing
// MISSING: [rank [[R:[01]]]] symm: loading a GPU module failed: rank [[R]]: {{.*}}undefined symbol: test_undefined_function
// MISSING: symm-run: rank {{[01]}} exited with status 1
// MISSING-NEXT: status 1
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @k() kernel {
      gpu.return
    }
  }
  func.func @main() {
    %c1 = arith.constant 1 : index
    gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
    return
  }
}
