// RUN: symm-opt %s -split-input-file -verify-diagnostics --symm-link-library="builtin=false paths=%S/Inputs/library-a.mlir,%S/Inputs/library-b.mlir"
// RUN: not symm-opt %S/Inputs/calls-one.mlir --symm-link-library="builtin=false paths=%S/Inputs/library-b.mlir,%S/Inputs/library-dup.mlir" 2>&1 | FileCheck %s --check-prefix=DUP
// RUN: not symm-opt %S/Inputs/calls-one.mlir --symm-link-library="builtin=false paths=%S/Inputs/library-bad.mlir" 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not symm-opt %S/Inputs/calls-one.mlir --symm-link-library="builtin=false paths=%S/Inputs/no-such-file.mlir" 2>&1 | FileCheck %s --check-prefix=MISSING
// DUP: error: device library function @symm_t_one is defined in both '{{.*}}library-b.mlir' and '{{.*}}library-dup.mlir'
// BAD: library-bad.mlir:3:28: error: expected non-function type
// BAD: error: device library file '{{.*}}library-bad.mlir' does not parse (diagnostics above)
// MISSING: error: device library '{{.*}}no-such-file.mlir' does not exist

// A declaration whose type differs from the definition: the error is at the
// call, with both types and the file.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    func.func private @symm_t_scale(f32, f32) -> f32
    gpu.func @k(%x: f32) kernel {
      // expected-error @+1 {{@symm_t_scale is declared as '(f32, f32) -> f32' but the device library '}}
      %y = func.call @symm_t_scale(%x, %x) : (f32, f32) -> f32
      gpu.return
    }
  }
}

// -----

// A library name that no library defines.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    func.func private @symm_t_scal(f32) -> f32
    gpu.func @k(%x: f32) kernel {
      // expected-error @+1 {{no device library defines @symm_t_scal (searched }}
      %y = func.call @symm_t_scal(%x) : (f32) -> f32
      gpu.return
    }
  }
}

// -----

// The module's own definition of a name a copied library function uses
// must agree with the library's.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    func.func private @symm_t_scale(f32) -> f32
    // expected-error @+1 {{@symm_t_one is defined as '() -> i32' but the device library '}}
    func.func private @symm_t_one() -> i32 {
      %c = arith.constant 1 : i32
      return %c : i32
    }
    gpu.func @k(%x: f32) kernel {
      %y = func.call @symm_t_scale(%x) : (f32) -> f32
      gpu.return
    }
  }
}

// -----

// Host code cannot call the device library.
module attributes {gpu.container_module} {
  // expected-error @+1 {{@symm_t_scale is declared in host code; device library functions are declared and called in a gpu.module}}
  func.func private @symm_t_scale(f32) -> f32
  func.func @main() -> f32 {
    %x = arith.constant 1.0 : f32
    %y = func.call @symm_t_scale(%x) : (f32) -> f32
    return %y : f32
  }
}
