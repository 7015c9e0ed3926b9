// RUN: symm-opt %s --symm-link-library="builtin=false paths=%S/Inputs/library-a.mlir,%S/Inputs/library-b.mlir" | FileCheck %s

// The declaration is replaced by a private copy of the definition, and what
// it uses (a function of the same file, one of another file, a global)
// follows; nothing else of the library comes in.
// CHECK-LABEL: gpu.module @kernels
// CHECK-NOT: symm_t_unused
// CHECK: func.func private @symm_t_scale(%{{.*}}: f32) -> f32 {
// CHECK: gpu.func @k
// Declarations of names outside the library's (libdevice, builtins) stay.
// CHECK: func.func private @__nv_expf(f32) -> f32
// CHECK-DAG: memref.global "private" constant @symm_t_table
// CHECK-DAG: func.func private @symm_t_twice(
// CHECK-DAG: func.func private @symm_t_one()
// CHECK-NOT: symm_t_unused
// CHECK-LABEL: gpu.module @other
// CHECK-NOT: symm_t_
// CHECK: gpu.func @plain
module attributes {gpu.container_module} {
  gpu.module @kernels {
    func.func private @symm_t_scale(f32) -> f32
    gpu.func @k(%out: memref<1xf32>) kernel {
      %c0 = arith.constant 0 : index
      %x = arith.constant 3.0 : f32
      %y = func.call @symm_t_scale(%x) : (f32) -> f32
      memref.store %y, %out[%c0] : memref<1xf32>
      gpu.return
    }
    func.func private @__nv_expf(f32) -> f32
  }
  gpu.module @other {
    gpu.func @plain() kernel {
      gpu.return
    }
  }
}

// A folder is every .mlir file in it, in name order: the duplicate and the
// file that does not parse make that an error here (link-library-errors.mlir).
