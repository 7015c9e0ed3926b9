// A producer that reuses its buffer before the consumer acknowledged the
// previous round: each round it puts a tile into the consumer's buffer and
// signals; the consumer waits, says it saw the signal, reads the tile and
// acknowledges. When the producer starts the next round once the consumer saw
// the signal (the second launch), instead of once it acknowledged, the put
// races with the consumer's reads of the previous round. Waiting for the
// acknowledgement (the first launch, into allocation #1) is race-free.
// REQUIRES: backend-host
// RUN: not %symm_run --check-races -n 2 %s 2>&1 | FileCheck %s
// CHECK-NOT: allocation #1 (
// CHECK: data race on rank 1's heap at offset {{[0-9]+}}: element {{[0-9]+}} of {{[0-9]+}} bytes of heap allocation #5
module attributes {gpu.container_module} {
  gpu.module @kernels {
    // Rounds 1..4: rank 0 puts `src` into rank 1's `buf` and sets rank 1's
    // ready flag (0) to the round; rank 1 waits for it, sets rank 0's seen
    // flag (2), reads `buf`, and sets rank 0's ack flag (1). Before each put,
    // rank 0 waits for the previous round's flag `waits`.
    gpu.func @rounds(%src: memref<64xi32, #symm.heap>, %buf: memref<64xi32, #symm.heap>, %flags: memref<3xi32, #symm.heap>, %out: memref<64xi32, #symm.heap>, %waits: i32) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %zero = arith.constant 0 : i32
      %one = arith.constant 1 : i32
      %five = arith.constant 5 : i32
      %me = symm.rank : i32
      %t = gpu.thread_id x
      %first = arith.cmpi eq, %t, %c0 : index
      %producer = arith.cmpi eq, %me, %zero : i32
      %done = arith.index_cast %waits : i32 to index
      %c2 = arith.constant 2 : index
      scf.for %k = %one to %five step %one : i32 {
        scf.if %producer {
          %prev = arith.subi %k, %one : i32
          scf.if %first {
            %a = symm.wait %flags[%done] ge %prev scope(system) : memref<3xi32, #symm.heap> -> i32
          }
          gpu.barrier
          // CHECK-DAG: by rank 0, block (0, 0, 0), thread ({{[0-9]+}}, 0, 0) of kernel 'rounds': symm.put at {{.*}}early-reuse.mlir:[[#@LINE+1]]:
          symm.put %src to %buf on %one signal(set %k, %flags[%c0] : memref<3xi32, #symm.heap>) scope(system) : memref<64xi32, #symm.heap> -> memref<64xi32, #symm.heap>
        } else {
          scf.if %first {
            %r = symm.wait %flags[%c0] ge %k scope(system) : memref<3xi32, #symm.heap> -> i32
            symm.signal set %k, %flags[%c2] on %zero scope(system) : i32 -> memref<3xi32, #symm.heap>
          }
          gpu.barrier
          // CHECK-DAG: read of 4 bytes by rank 1, block (0, 0, 0), thread ({{[0-9]+}}, 0, 0) of kernel 'rounds': memref.load at {{.*}}early-reuse.mlir:[[#@LINE+1]]:
          %v = memref.load %buf[%t] : memref<64xi32, #symm.heap>
          memref.store %v, %out[%t] : memref<64xi32, #symm.heap>
          symm.fence ordering(release) scope(system)
          gpu.barrier
          scf.if %first {
            symm.signal set %k, %flags[%c1] on %zero scope(system) : i32 -> memref<3xi32, #symm.heap>
          }
        }
      }
      gpu.return
    }
  }
  func.func @main() {
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %ack = arith.constant 1 : i32
    %seen = arith.constant 2 : i32
    %src = symm.alloc() : memref<64xi32, #symm.heap>
    %buf = symm.alloc() : memref<64xi32, #symm.heap>
    %flags = symm.alloc() : memref<3xi32, #symm.heap>
    %flags2 = symm.alloc() : memref<3xi32, #symm.heap>
    %out = symm.alloc() : memref<64xi32, #symm.heap>
    %buf2 = symm.alloc() : memref<64xi32, #symm.heap>
    symm.barrier
    gpu.launch_func @kernels::@rounds blocks in (%c1, %c1, %c1) threads in (%c64, %c1, %c1) args(%src : memref<64xi32, #symm.heap>, %buf : memref<64xi32, #symm.heap>, %flags : memref<3xi32, #symm.heap>, %out : memref<64xi32, #symm.heap>, %ack : i32)
    symm.barrier
    // CHECK: kernel 'rounds': {{[0-9]+}} racing accesses (reported above)
    gpu.launch_func @kernels::@rounds blocks in (%c1, %c1, %c1) threads in (%c64, %c1, %c1) args(%src : memref<64xi32, #symm.heap>, %buf2 : memref<64xi32, #symm.heap>, %flags2 : memref<3xi32, #symm.heap>, %out : memref<64xi32, #symm.heap>, %seen : i32)
    symm.barrier
    return
  }
}
