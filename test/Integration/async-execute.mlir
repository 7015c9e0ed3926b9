// GPU work inside async.execute regions, as MLIR's own GPU tests write it:
// gpu.alloc(%n) and gpu.memcpy in one region, two regions that depend on it
// (one copies, one scales on the device), and a join that adds their
// results into registered host memory. Lowered with upstream's async passes
// and run over MLIR's async runtime.
// RUN: %symm_run -n 2 %s | FileCheck %s
// RUN: symm-compile --target=sm_90 --emit=mlir %s -o %t.nvvm.mlir
// RUN: FileCheck %s --check-prefix=GPU < %t.nvvm.mlir
// RUN: symm-compile --target=gfx942 --emit=mlir %s -o %t.rocdl.mlir
// RUN: FileCheck %s --check-prefix=GPU < %t.rocdl.mlir
// h[i] = (i + 1) + 3 * (i + 1):
// CHECK-DAG: [rank 0] [4, 8, 12]
// CHECK-DAG: [rank 1] [4, 8, 12]
// GPU-DAG: llvm.call @mlirAsyncRuntimeAwaitToken
// GPU-DAG: llvm.call @mgpuMemAlloc
func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant 3 : index
  %h = memref.alloc(%n) : memref<?xi32>
  %uh = memref.cast %h : memref<?xi32> to memref<*xi32>
  gpu.host_register %uh : memref<*xi32>
  scf.for %i = %c0 to %n step %c1 {
    %ii = arith.index_cast %i : index to i32
    %one = arith.constant 1 : i32
    %v = arith.addi %ii, %one : i32
    memref.store %v, %h[%i] : memref<?xi32>
  }

  %t0, %f0 = async.execute () -> !async.value<memref<?xi32>> {
    %a = gpu.alloc (%n) : memref<?xi32>
    gpu.memcpy %a, %h : memref<?xi32>, memref<?xi32>
    async.yield %a : memref<?xi32>
  }
  %t1, %f1 = async.execute [%t0] (%f0 as %a : !async.value<memref<?xi32>>) -> !async.value<memref<?xi32>> {
    %b = gpu.alloc (%n) : memref<?xi32>
    gpu.memcpy %b, %a : memref<?xi32>, memref<?xi32>
    async.yield %b : memref<?xi32>
  }
  %t2, %f2 = async.execute [%t0] (%f0 as %a : !async.value<memref<?xi32>>) -> !async.value<memref<?xi32>> {
    %c = gpu.alloc (%n) : memref<?xi32>
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %n, %sy = %c1, %sz = %c1) {
      %x = memref.load %a[%tx] : memref<?xi32>
      %three = arith.constant 3 : i32
      %y = arith.muli %x, %three : i32
      memref.store %y, %c[%tx] : memref<?xi32>
      gpu.terminator
    }
    async.yield %c : memref<?xi32>
  }
  %t3 = async.execute [%t1, %t2] (%f1 as %b : !async.value<memref<?xi32>>, %f2 as %c : !async.value<memref<?xi32>>) {
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %n, %sy = %c1, %sz = %c1) {
      %x = memref.load %b[%tx] : memref<?xi32>
      %y = memref.load %c[%tx] : memref<?xi32>
      %s = arith.addi %x, %y : i32
      memref.store %s, %h[%tx] : memref<?xi32>
      gpu.terminator
    }
    gpu.dealloc %b : memref<?xi32>
    gpu.dealloc %c : memref<?xi32>
    async.yield
  }
  async.await %t3 : !async.token
  %a = async.await %f0 : !async.value<memref<?xi32>>
  gpu.dealloc %a : memref<?xi32>
  call @printMemrefI32(%uh) : (memref<*xi32>) -> ()
  return
}

func.func private @printMemrefI32(memref<*xi32>)
