// RUN: symm-opt %s -split-input-file -verify-diagnostics -symm-translate-to-heap-base -symm-remote-to-nvshmem
// RUN: echo "module {}" | not symm-opt -symm-remote-to-nvshmem=mode=sometimes 2>&1 | FileCheck %s --check-prefix=MODE

// MODE: symm-remote-to-nvshmem: mode must be 'nvshmem' or 'auto', got 'sometimes'

gpu.module @m {
  gpu.func @narrow_atomic(%buf: memref<?xi16, #symm.heap>, %p: i32, %x: i16) kernel {
    %c0 = arith.constant 0 : index
    // expected-error @+1 {{has no NVSHMEM path for 'i16': NVSHMEM's atomics are 32 or 64 bits wide}}
    symm.store %x, %buf[%c0] to %p ordering(release) scope(system) : i16 -> memref<?xi16, #symm.heap>
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @bits(%buf: memref<?xi1, #symm.heap>, %p: i32, %x: i1) kernel {
    %c0 = arith.constant 0 : index
    // expected-error @+1 {{has no NVSHMEM path for 'i1': NVSHMEM moves whole bytes}}
    symm.store %x, %buf[%c0] to %p : i1 -> memref<?xi1, #symm.heap>
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @copy(%buf: memref<16xf32, #symm.heap>, %local: memref<16xf32>, %p: i32) kernel {
    %t = symm.translate %buf to %p : memref<16xf32, #symm.heap>
    // expected-error @+1 {{uses a peer's memory (through symm.translate) in a way NVSHMEM cannot}}
    memref.copy %t, %local : memref<16xf32, #symm.heap> to memref<16xf32>
    gpu.return
  }
}
