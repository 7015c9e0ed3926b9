// A traced ring: each of 2 blocks of every rank puts a tile to the next rank
// with a signal, waits for the previous rank's tile, and marks its work with
// a named range; the trace has every rank, each block's subgroups, ranges
// that close, and a flow from each put's signal to the wait it satisfied.
// RUN: rm -f %t.json
// RUN: %symm_run -n 3 --trace=%t.json %s | FileCheck %s
// RUN: python3 %symm_src_root/scripts/check-trace.py %t.json --ranks 3 --min-flows 6 --kernel ring --range tile | FileCheck %s --check-prefix=TRACE
// CHECK-DAG: [rank 0] ring ok
// CHECK-DAG: [rank 1] ring ok
// CHECK-DAG: [rank 2] ring ok
// TRACE: trace ok: 3 ranks
// Where the kernel's time goes: its subgroups' runs, grouped by their events
// (one shape per block with the tile's number kept, one with --merge), and
// the median time between consecutive events; errors name what is wrong.
// RUN: python3 %symm_src_root/scripts/trace-phases.py %t.json --kernel ring | FileCheck %s --check-prefix=PHASES
// PHASES: ring: 12 subgroup runs, median
// PHASES: {{[0-9]+}} runs:
// PHASES-NEXT: us  begin -> +tile {{[01]}}
// PHASES: us  +wait -> -wait
// RUN: python3 %symm_src_root/scripts/trace-phases.py %t.json --merge --top 1 | FileCheck %s --check-prefix=MERGED
// MERGED: ring: 12 subgroup runs
// MERGED-NEXT: {{^}}  12 runs:
// MERGED-NEXT: us  begin -> +tile{{$}}
// RUN: not python3 %symm_src_root/scripts/trace-phases.py %t.json --kernel nope 2>&1 | FileCheck %s --check-prefix=NOKERNEL
// NOKERNEL: trace-phases.py: no kernel named nope in
// RUN: not python3 %symm_src_root/scripts/trace-phases.py %t.missing.json 2>&1 | FileCheck %s --check-prefix=NOFILE
// NOFILE: trace-phases.py: {{.*}}missing.json: [Errno 2] No such file or directory
// Each launch of the kernel on one rank: its span, and each range's from
// its first subgroup's entry to its last one's exit (one launch of 2
// blocks, each with its tile's range and its wait).
// RUN: python3 %symm_src_root/scripts/trace-phases.py %t.json --kernel ring --launches --rank 1 --merge | FileCheck %s --check-prefix=LAUNCHES
// LAUNCHES: ring on rank 1: 1 launches
// LAUNCHES-NEXT: {{^}}  launch 0: ring from 0.00 to {{[0-9.]+}} us (span {{[0-9.]+}}), median {{[0-9.]+}} us in it, 4 subgroup runs
// LAUNCHES-DAG: {{^}}    tile from {{[0-9.]+}} to {{[0-9.]+}} us (span {{[0-9.]+}}), median {{[0-9.]+}} us in it, 4 subgroup runs
// LAUNCHES-DAG: {{^}}    wait from
// RUN: not python3 %symm_src_root/scripts/trace-phases.py %t.json --launches 2>&1 | FileCheck %s --check-prefix=NOKERNELARG
// NOKERNELARG: trace-phases.py: --launches needs --kernel
// RUN: not python3 %symm_src_root/scripts/trace-phases.py %t.json --kernel ring --launches --rank 7 2>&1 | FileCheck %s --check-prefix=NORANK
// NORANK: trace-phases.py: no launch of ring on rank 7
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @ring(%data: memref<2x64xi32, #symm.heap>, %flags: memref<2xi32, #symm.heap>, %errors: memref<2xi32>)
        workgroup(%tile : memref<64xi32, #gpu.address_space<workgroup>>) kernel
        attributes {known_block_size = array<i32: 64, 1, 1>} {
      %c0 = arith.constant 0 : index
      %one = arith.constant 1 : i32
      %t = gpu.thread_id x
      %b = gpu.block_id x
      %me = symm.rank : i32
      %n = symm.world_size : i32
      %next0 = arith.addi %me, %one : i32
      %next = arith.remsi %next0, %n : i32
      %prev0 = arith.addi %me, %n : i32
      %prev1 = arith.subi %prev0, %one : i32
      %prev = arith.remsi %prev1, %n : i32
      symm.trace.begin "tile" (%b)
      %bi = arith.index_cast %b : index to i32
      %ti = arith.index_cast %t : index to i32
      %v0 = arith.muli %me, %bi : i32
      %v = arith.addi %v0, %ti : i32
      memref.store %v, %tile[%t] : memref<64xi32, #gpu.address_space<workgroup>>
      gpu.barrier
      %dst = memref.subview %data[%b, 0] [1, 64] [1, 1] : memref<2x64xi32, #symm.heap> to memref<64xi32, strided<[1], offset: ?>, #symm.heap>
      symm.put %tile to %dst on %next signal(set %one, %flags[%b] : memref<2xi32, #symm.heap>) scope(system) : memref<64xi32, #gpu.address_space<workgroup>> -> memref<64xi32, strided<[1], offset: ?>, #symm.heap>
      %seen = symm.wait %flags[%b] ge %one scope(system) : memref<2xi32, #symm.heap> -> i32
      %got = symm.load %data[%b, %t] : memref<2x64xi32, #symm.heap> -> i32
      %w0 = arith.muli %prev, %bi : i32
      %want = arith.addi %w0, %ti : i32
      %bad = arith.cmpi ne, %got, %want : i32
      scf.if %bad {
        %bad32 = arith.constant 1 : i32
        memref.store %bad32, %errors[%b] : memref<2xi32>
      }
      symm.trace.end "tile"
      gpu.return
    }
  }
  func.func @main() -> i32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c64 = arith.constant 64 : index
    %zero = arith.constant 0 : i32
    %data = symm.alloc() : memref<2x64xi32, #symm.heap>
    %flags = symm.alloc() : memref<2xi32, #symm.heap>
    %init = gpu.alloc host_shared () : memref<2xi32>
    linalg.fill ins(%zero : i32) outs(%init : memref<2xi32>)
    gpu.memcpy %flags, %init : memref<2xi32, #symm.heap>, memref<2xi32>
    %errors = gpu.alloc host_shared () : memref<2xi32>
    linalg.fill ins(%zero : i32) outs(%errors : memref<2xi32>)
    symm.barrier
    gpu.launch_func @kernels::@ring blocks in (%c2, %c1, %c1) threads in (%c64, %c1, %c1) args(%data : memref<2x64xi32, #symm.heap>, %flags : memref<2xi32, #symm.heap>, %errors : memref<2xi32>)
    symm.barrier
    %e0 = memref.load %errors[%c0] : memref<2xi32>
    %e1 = memref.load %errors[%c1] : memref<2xi32>
    %e = arith.ori %e0, %e1 : i32
    %ok = arith.cmpi eq, %e, %zero : i32
    scf.if %ok {
      vector.print str "ring ok\n"
    }
    return %e : i32
  }
}
