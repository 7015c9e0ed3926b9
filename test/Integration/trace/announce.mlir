// A traced announcement, as the device library's symm_announce makes one:
// the first thread signals every peer in a loop over the ranks, then waits
// for every peer's signal. The signal's event is recorded once, before the
// loop, as a signal to every peer (SYMM_TRACE_EVERY_PEER), and the trace
// still draws a flow from it to each peer's wait: 2 per rank on 3 ranks.
// RUN: rm -f %t.json
// RUN: %symm_run -n 3 --trace=%t.json %s | FileCheck %s
// RUN: python3 %symm_src_root/scripts/check-trace.py %t.json --ranks 3 --min-flows 6 --kernel announce | FileCheck %s --check-prefix=TRACE
// RUN: FileCheck %s --check-prefix=JSON < %t.json
// CHECK-DAG: [rank 0] announce ok
// CHECK-DAG: [rank 2] announce ok
// TRACE: trace ok: 3 ranks, {{[0-9]+}} threads, {{[0-9]+}} slices, 6 flows
// JSON-COUNT-3: "name":"signal to every peer","cat":"signal"
// JSON-NOT: "signal to rank
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @announce(%arrivals: memref<8xi32, #symm.heap>) kernel
        attributes {known_block_size = array<i32: 32, 1, 1>} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %one = arith.constant 1 : i32
      %t = gpu.thread_id x
      %first = arith.cmpi eq, %t, %c0 : index
      scf.if %first {
        %me32 = symm.rank : i32
        %n32 = symm.world_size : i32
        %me = arith.index_cast %me32 : i32 to index
        %n = arith.index_cast %n32 : i32 to index
        scf.for %p = %c0 to %n step %c1 {
          %peer = arith.cmpi ne, %p, %me : index
          scf.if %peer {
            %p32 = arith.index_cast %p : index to i32
            symm.signal add %one, %arrivals[%me] on %p32 scope(system) : i32 -> memref<8xi32, #symm.heap>
          }
        }
        scf.for %p = %c0 to %n step %c1 {
          %peer = arith.cmpi ne, %p, %me : index
          scf.if %peer {
            %seen = symm.wait %arrivals[%p] ge %one scope(system) : memref<8xi32, #symm.heap> -> i32
          }
        }
      }
      gpu.return
    }
  }
  func.func @main() -> i32 {
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    %zero = arith.constant 0 : i32
    %arrivals = symm.alloc() : memref<8xi32, #symm.heap>
    %init = gpu.alloc host_shared () : memref<8xi32>
    linalg.fill ins(%zero : i32) outs(%init : memref<8xi32>)
    gpu.memcpy %arrivals, %init : memref<8xi32, #symm.heap>, memref<8xi32>
    symm.barrier
    gpu.launch_func @kernels::@announce blocks in (%c1, %c1, %c1) threads in (%c32, %c1, %c1) args(%arrivals : memref<8xi32, #symm.heap>)
    symm.barrier
    vector.print str "announce ok\n"
    return %zero : i32
  }
}
