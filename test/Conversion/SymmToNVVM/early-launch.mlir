// symm.early_launch: on NVIDIA from sm_90 a kernel marked so begins with
// griddepcontrol.wait (nothing of it runs before the kernel ahead of it on
// its stream has ended) and then lets the next kernel launch; the manifest
// says it may launch early. Where the chip or the target has no dependent
// launch the attribute is dropped, and the manifest says no. Kernels not
// marked are untouched.
// RUN: symm-opt %s -symm-translate-to-heap-base -convert-symm-to-nvvm=early-launch=true | FileCheck %s --check-prefix=NVVM
// RUN: symm-opt %s -symm-translate-to-heap-base -convert-symm-to-nvvm | FileCheck %s --check-prefix=DROP
// RUN: symm-opt %s -symm-translate-to-heap-base -convert-symm-to-amdgpu | FileCheck %s --check-prefix=DROP
// RUN: symm-opt %s -symm-translate-to-heap-base -convert-symm-to-host | FileCheck %s --check-prefix=DROP
// RUN: symm-compile --target=sm_90 --emit=ptx %s -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: FileCheck %s --check-prefix=MANIFEST < %t.ptx.json
// RUN: symm-compile --target=sm_80 --emit=ptx %s -o %t80.ptx
// RUN: FileCheck %s --check-prefix=DROP < %t80.ptx
// RUN: FileCheck %s --check-prefix=NONE < %t80.ptx.json
// RUN: symm-compile --target=host %s -o %t.so
// RUN: FileCheck %s --check-prefix=NONE < %t.so.json

// NVVM-LABEL: gpu.func @early
// NVVM-SAME: symm.early_launch
// NVVM-NOT: memref.store
// NVVM: nvvm.griddepcontrol wait
// NVVM-NEXT: nvvm.griddepcontrol launch_dependents
// NVVM: memref.store
// NVVM-LABEL: gpu.func @ordinary
// NVVM-NOT: griddepcontrol
// NVVM: gpu.return

// DROP-NOT: early_launch
// DROP-NOT: griddepcontrol

// PTX-LABEL: .entry early(
// PTX-NOT: st.global
// PTX: griddepcontrol.wait;
// PTX-NEXT: griddepcontrol.launch_dependents;
// PTX: st.global
// PTX-LABEL: .entry ordinary(
// PTX-NOT: griddepcontrol

// MANIFEST: "early_launch": true,
// MANIFEST-NEXT: "module": "kernels",
// MANIFEST-NEXT: "name": "early",
// MANIFEST: "early_launch": false,
// MANIFEST-NEXT: "module": "kernels",
// MANIFEST-NEXT: "name": "ordinary",

// NONE-NOT: "early_launch": true

gpu.module @kernels {
  gpu.func @early(%buf: memref<4xi32, #symm.heap>) kernel attributes {symm.early_launch} {
    %c0 = arith.constant 0 : index
    %one = arith.constant 1 : i32
    memref.store %one, %buf[%c0] : memref<4xi32, #symm.heap>
    gpu.return
  }
  gpu.func @ordinary(%buf: memref<4xi32, #symm.heap>) kernel {
    %c1 = arith.constant 1 : index
    %two = arith.constant 2 : i32
    memref.store %two, %buf[%c1] : memref<4xi32, #symm.heap>
    gpu.return
  }
}
