// RUN: symm-opt %s -symm-trace='record=true' | FileCheck %s
// RUN: symm-opt %s -symm-trace | FileCheck %s --check-prefix=OFF

// Recording: the kernel's beginning and end, ranges, waits (begin and
// satisfied, with the value seen), signals before they are made, and tile
// transfers with their peer; a put's signal is a signal at its start.

gpu.module @kernels {
  // CHECK-LABEL: gpu.func @events
  gpu.func @events(%flags: memref<4xi32, #symm.heap>, %tile: memref<8xf32>,
                   %dst: memref<8xf32, #symm.heap>, %i: index, %peer: i32) kernel {
    %one = arith.constant 1 : i32
    // CHECK: symm.trace.record kernel_begin "events"(%{{.*}}) : i64
    // CHECK: symm.trace.record range_begin "tile"(%{{.*}}) : i64
    symm.trace.begin "tile" (%i)
    // CHECK: symm.trace.record put_begin(%{{.*}}, %{{.*}}) : i64, i64
    // CHECK: memref.extract_aligned_pointer_as_index
    // CHECK: symm.trace.record signal(%{{.*}}, %{{.*}}) : i64, i64
    // CHECK-NEXT: symm.put
    // CHECK-NEXT: symm.trace.record put_end
    symm.put %tile to %dst on %peer signal(add %one, %flags[%i] : memref<4xi32, #symm.heap>) scope(system) : memref<8xf32> -> memref<8xf32, #symm.heap>
    // CHECK: symm.trace.record wait_begin
    // CHECK-NEXT: %[[SEEN:.*]] = symm.wait
    // CHECK: arith.extui %[[SEEN]] : i32 to i64
    // CHECK: symm.trace.record wait_end
    %seen = symm.wait %flags[%i] from %peer ge %one scope(system) : memref<4xi32, #symm.heap> -> i32
    // CHECK: symm.trace.record signal
    // CHECK-NEXT: symm.signal set
    symm.signal set %one, %flags[%i] on %peer scope(system) : i32 -> memref<4xi32, #symm.heap>
    // A flag stored into the heap with release ordering is a signal too; a
    // relaxed store is not.
    // CHECK: symm.trace.record signal
    // CHECK-NEXT: symm.store %{{.*}} ordering(release)
    symm.store %one, %flags[%i] to %peer ordering(release) scope(system) : i32 -> memref<4xi32, #symm.heap>
    // CHECK-NOT: symm.trace.record
    // CHECK: symm.store %{{.*}} ordering(relaxed)
    symm.store %one, %flags[%i] to %peer ordering(relaxed) scope(system) : i32 -> memref<4xi32, #symm.heap>
    // CHECK: symm.trace.record get_begin
    // CHECK-NEXT: symm.get
    // CHECK-NEXT: symm.trace.record get_end
    symm.get %dst from %peer to %tile : memref<8xf32, #symm.heap> -> memref<8xf32>
    // CHECK: symm.trace.record range_end "tile"
    symm.trace.end "tile"
    // CHECK: symm.trace.record kernel_end "events"
    // CHECK-NEXT: gpu.return
    gpu.return
  }
}

// A signal made in a loop over the ranks (0 to symm.world_size), with the
// flag and the value from outside the loop (symm_announce's): one event
// before the loop, to every peer (-2 in the peer's half: 0xfffffffe << 32 |
// value), so the loop keeps no event. A signal whose value changes in the
// loop, and one in a loop that does not count the ranks, keep their own.
gpu.module @loops {
  // CHECK-LABEL: gpu.func @announce
  gpu.func @announce(%arrivals: memref<4xi32, #symm.heap>, %me: index, %some: index) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %one = arith.constant 1 : i32
    %n32 = symm.world_size : i32
    %n = arith.index_cast %n32 : i32 to index
    // CHECK: arith.constant 4294967294 : i64
    // CHECK: symm.trace.record signal(%{{.*}}, %{{.*}}) : i64, i64
    // CHECK-NEXT: scf.for
    // CHECK-NOT: symm.trace.record
    // CHECK: symm.signal add
    scf.for %p = %c0 to %n step %c1 {
      %p32 = arith.index_cast %p : index to i32
      symm.signal add %one, %arrivals[%me] on %p32 scope(system) : i32 -> memref<4xi32, #symm.heap>
    }
    // CHECK: scf.for
    // CHECK: symm.trace.record signal
    // CHECK-NEXT: symm.signal set
    scf.for %p = %c0 to %n step %c1 {
      %p32 = arith.index_cast %p : index to i32
      symm.signal set %p32, %arrivals[%me] on %p32 scope(system) : i32 -> memref<4xi32, #symm.heap>
    }
    // CHECK: scf.for
    // CHECK: symm.trace.record signal
    // CHECK-NEXT: symm.signal add
    scf.for %p = %c0 to %some step %c1 {
      %p32 = arith.index_cast %p : index to i32
      symm.signal add %one, %arrivals[%me] on %p32 scope(system) : i32 -> memref<4xi32, #symm.heap>
    }
    gpu.return
  }
}

// Not recording: only the ranges go.
// OFF-LABEL: gpu.func @events
// OFF-NOT: symm.trace
// OFF: symm.put
// OFF: symm.wait
// OFF: symm.signal
// OFF: symm.get
// OFF-NOT: symm.trace
// OFF: gpu.return
