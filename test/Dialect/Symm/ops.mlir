// RUN: symm-opt %s | symm-opt | FileCheck %s
// RUN: symm-opt %s --mlir-print-op-generic | symm-opt | FileCheck %s

// Every form of shared/DESIGN.md's dialect section, verbatim where it is
// complete, must parse and print back to the same spelling.

// CHECK-LABEL: func.func @queries
func.func @queries() -> (i32, i32) {
  // CHECK: %{{.*}} = symm.rank : i32
  %me = symm.rank : i32
  // CHECK: %{{.*}} = symm.world_size : i32
  %n  = symm.world_size : i32
  return %me, %n : i32, i32
}

// Device operations live in device code (a gpu.module or gpu.launch).
gpu.module @device {
// CHECK-LABEL: func.func @translate
// CHECK-SAME: (%[[BUF:.*]]: memref<?xf32, #symm.heap>, %[[PEER:.*]]: i32)
func.func @translate(%buf: memref<?xf32, #symm.heap>, %peer: i32) -> memref<?xf32, #symm.heap> {
  // CHECK: symm.translate %[[BUF]] to %[[PEER]] : memref<?xf32, #symm.heap>
  %peer_buf = symm.translate %buf to %peer : memref<?xf32, #symm.heap>
  return %peer_buf : memref<?xf32, #symm.heap>
}

// CHECK-LABEL: func.func @values
func.func @values(%buf: memref<?xf32, #symm.heap>, %flags: memref<?xi32, #symm.heap>,
                  %i: index, %peer: i32, %c1: i32, %expected: i32, %desired: i32) {
  // CHECK: symm.load %{{.*}}[%{{.*}}] from %{{.*}} : memref<?xf32, #symm.heap> -> vector<4xf32>
  %v = symm.load %buf[%i] from %peer : memref<?xf32, #symm.heap> -> vector<4xf32>
  // CHECK: symm.store %{{.*}}, %{{.*}}[%{{.*}}] to %{{.*}} : vector<4xf32> -> memref<?xf32, #symm.heap>
  symm.store %v, %buf[%i] to %peer : vector<4xf32> -> memref<?xf32, #symm.heap>
  // CHECK: symm.load %{{.*}}[%{{.*}}] from %{{.*}} ordering(acquire) scope(system) : memref<?xi32, #symm.heap> -> i32
  %f = symm.load %flags[%i] from %peer ordering(acquire) scope(system) : memref<?xi32, #symm.heap> -> i32
  // CHECK: symm.store %{{.*}}, %{{.*}}[%{{.*}}] to %{{.*}} ordering(release) scope(system) : i32 -> memref<?xi32, #symm.heap>
  symm.store %c1, %flags[%i] to %peer ordering(release) scope(system) : i32 -> memref<?xi32, #symm.heap>
  // CHECK: symm.atomic_rmw add %{{.*}}, %{{.*}}[%{{.*}}] on %{{.*}} ordering(acq_rel) scope(system) : i32 -> memref<?xi32, #symm.heap>
  %old = symm.atomic_rmw add %c1, %flags[%i] on %peer ordering(acq_rel) scope(system) : i32 -> memref<?xi32, #symm.heap>
  // CHECK: symm.atomic_cas %{{.*}}, %{{.*}}, %{{.*}}[%{{.*}}] on %{{.*}} ordering(acq_rel) scope(device) : i32 -> memref<?xi32, #symm.heap>
  %prev = symm.atomic_cas %expected, %desired, %flags[%i] on %peer ordering(acq_rel) scope(device) : i32 -> memref<?xi32, #symm.heap>
  // CHECK: symm.fence ordering(release) scope(system)
  symm.fence ordering(release) scope(system)
  // CHECK: symm.release_barrier scope(device)
  symm.release_barrier scope(device)
  // CHECK: symm.wait %{{.*}}[%{{.*}}] ge %{{.*}} scope(system) : memref<?xi32, #symm.heap> -> i32
  %seen = symm.wait %flags[%i] ge %c1 scope(system) : memref<?xi32, #symm.heap> -> i32
  // CHECK: symm.signal add %{{.*}}, %{{.*}}[%{{.*}}] on %{{.*}} scope(system) : i32 -> memref<?xi32, #symm.heap>
  symm.signal add %c1, %flags[%i] on %peer scope(system) : i32 -> memref<?xi32, #symm.heap>
  return
}

// Local forms: no peer, any memref, every ordering each op admits.
// CHECK-LABEL: func.func @local_forms
func.func @local_forms(%m: memref<8x8xi64>, %h: memref<16xf16, #symm.heap>, %i: index, %x: i64, %y: f16) {
  // CHECK: symm.load %{{.*}}[%{{.*}}, %{{.*}}] ordering(relaxed) scope(workgroup) : memref<8x8xi64> -> i64
  %a = symm.load %m[%i, %i] ordering(relaxed) scope(workgroup) : memref<8x8xi64> -> i64
  // CHECK: symm.load %{{.*}}[%{{.*}}, %{{.*}}] ordering(seq_cst) scope(device) : memref<8x8xi64> -> i64
  %b = symm.load %m[%i, %i] ordering(seq_cst) scope(device) : memref<8x8xi64> -> i64
  // CHECK: symm.store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] ordering(seq_cst) scope(workgroup) : i64 -> memref<8x8xi64>
  symm.store %x, %m[%i, %i] ordering(seq_cst) scope(workgroup) : i64 -> memref<8x8xi64>
  // CHECK: symm.load %{{.*}}[%{{.*}}] : memref<16xf16, #symm.heap> -> f16
  %c = symm.load %h[%i] : memref<16xf16, #symm.heap> -> f16
  // CHECK: symm.atomic_rmw fadd %{{.*}} ordering(relaxed) scope(device) : f16 -> memref<16xf16, #symm.heap>
  %d = symm.atomic_rmw fadd %y, %h[%i] ordering(relaxed) scope(device) : f16 -> memref<16xf16, #symm.heap>
  // CHECK: symm.atomic_rmw xchg %{{.*}} ordering(seq_cst) scope(system) : f16 -> memref<16xf16, #symm.heap>
  %e = symm.atomic_rmw xchg %y, %h[%i] ordering(seq_cst) scope(system) : f16 -> memref<16xf16, #symm.heap>
  // CHECK: symm.atomic_rmw umax %{{.*}} ordering(acquire) scope(workgroup) : i64 -> memref<8x8xi64>
  %f = symm.atomic_rmw umax %x, %m[%i, %i] ordering(acquire) scope(workgroup) : i64 -> memref<8x8xi64>
  // CHECK: symm.atomic_rmw and %{{.*}} ordering(release) scope(device) : i64 -> memref<8x8xi64>
  %g = symm.atomic_rmw and %x, %m[%i, %i] ordering(release) scope(device) : i64 -> memref<8x8xi64>
  // CHECK: symm.wait %{{.*}}[%{{.*}}, %{{.*}}] ne %{{.*}} scope(workgroup) backoff(64) : memref<8x8xi64> -> i64
  %w = symm.wait %m[%i, %i] ne %x scope(workgroup) backoff(64) : memref<8x8xi64> -> i64
  // CHECK: symm.signal set %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] scope(device) : i64 -> memref<8x8xi64>
  symm.signal set %x, %m[%i, %i] scope(device) : i64 -> memref<8x8xi64>
  // CHECK: symm.fence ordering(acquire) scope(workgroup)
  symm.fence ordering(acquire) scope(workgroup)
  // CHECK: symm.fence ordering(seq_cst) scope(device)
  symm.fence ordering(seq_cst) scope(device)
  return
}

// CHECK-LABEL: func.func @atomic_kinds
func.func @atomic_kinds(%m: memref<4xi32, #symm.heap>, %fm: memref<4xf32, #symm.heap>, %i: index, %x: i32, %y: f32, %p: i32) {
  // CHECK-COUNT-10: symm.atomic_rmw {{add|sub|and|or|xor|max|min|umax|umin|xchg}} %{{.*}} on
  %0 = symm.atomic_rmw add %x, %m[%i] on %p ordering(relaxed) scope(system) : i32 -> memref<4xi32, #symm.heap>
  %1 = symm.atomic_rmw sub %x, %m[%i] on %p ordering(relaxed) scope(system) : i32 -> memref<4xi32, #symm.heap>
  %2 = symm.atomic_rmw and %x, %m[%i] on %p ordering(relaxed) scope(system) : i32 -> memref<4xi32, #symm.heap>
  %3 = symm.atomic_rmw or %x, %m[%i] on %p ordering(relaxed) scope(system) : i32 -> memref<4xi32, #symm.heap>
  %4 = symm.atomic_rmw xor %x, %m[%i] on %p ordering(relaxed) scope(system) : i32 -> memref<4xi32, #symm.heap>
  %5 = symm.atomic_rmw max %x, %m[%i] on %p ordering(relaxed) scope(system) : i32 -> memref<4xi32, #symm.heap>
  %6 = symm.atomic_rmw min %x, %m[%i] on %p ordering(relaxed) scope(system) : i32 -> memref<4xi32, #symm.heap>
  %7 = symm.atomic_rmw umax %x, %m[%i] on %p ordering(relaxed) scope(system) : i32 -> memref<4xi32, #symm.heap>
  %8 = symm.atomic_rmw umin %x, %m[%i] on %p ordering(relaxed) scope(system) : i32 -> memref<4xi32, #symm.heap>
  %9 = symm.atomic_rmw xchg %x, %m[%i] on %p ordering(relaxed) scope(system) : i32 -> memref<4xi32, #symm.heap>
  // CHECK-COUNT-3: symm.atomic_rmw {{fadd|fmax|fmin}} %{{.*}} on
  %10 = symm.atomic_rmw fadd %y, %fm[%i] on %p ordering(relaxed) scope(system) : f32 -> memref<4xf32, #symm.heap>
  %11 = symm.atomic_rmw fmax %y, %fm[%i] on %p ordering(relaxed) scope(system) : f32 -> memref<4xf32, #symm.heap>
  %12 = symm.atomic_rmw fmin %y, %fm[%i] on %p ordering(relaxed) scope(system) : f32 -> memref<4xf32, #symm.heap>
  return
}

// CHECK-LABEL: func.func @wait_predicates
func.func @wait_predicates(%f: memref<4xi32, #symm.heap>, %i: index, %x: i32, %p: i32) {
  // CHECK: symm.wait {{.*}} eq
  // CHECK: symm.wait {{.*}} ne
  // CHECK: symm.wait {{.*}} lt
  // CHECK: symm.wait {{.*}} le
  // CHECK: symm.wait {{.*}} gt
  // CHECK: symm.wait {{.*}} from %{{.*}} ge
  %0 = symm.wait %f[%i] eq %x scope(system) : memref<4xi32, #symm.heap> -> i32
  %1 = symm.wait %f[%i] ne %x scope(system) : memref<4xi32, #symm.heap> -> i32
  %2 = symm.wait %f[%i] lt %x scope(system) : memref<4xi32, #symm.heap> -> i32
  %3 = symm.wait %f[%i] le %x scope(device) : memref<4xi32, #symm.heap> -> i32
  %4 = symm.wait %f[%i] gt %x scope(workgroup) : memref<4xi32, #symm.heap> -> i32
  %5 = symm.wait %f[%i] from %p ge %x scope(system) : memref<4xi32, #symm.heap> -> i32
  return
}

// CHECK-LABEL: func.func @tiles
func.func @tiles(%src: memref<64x64xf16, strided<[?, 1], offset: ?>>,
                 %dst: memref<64x64xf16, strided<[?, 1], offset: ?>, #symm.heap>,
                 %flags: memref<?xi32, #symm.heap>, %t: index, %peer: i32, %c1: i32,
                 %local: memref<64xf32>, %remote: memref<64xf32, #symm.heap>, %other: i32) {
  // CHECK: symm.put %{{.*}} to %{{.*}} on %{{.*}} : memref<64x64xf16, strided<[?, 1], offset: ?>> -> memref<64x64xf16, strided<[?, 1], offset: ?>, #symm.heap>
  symm.put %src to %dst on %peer : memref<64x64xf16, strided<[?, 1], offset: ?>> -> memref<64x64xf16, strided<[?, 1], offset: ?>, #symm.heap>
  // CHECK: symm.put %{{.*}} to %{{.*}} on %{{.*}} signal(add %{{.*}}, %{{.*}}[%{{.*}}] : memref<?xi32, #symm.heap>) scope(system) : memref<64x64xf16
  symm.put %src to %dst on %peer signal(add %c1, %flags[%t] : memref<?xi32, #symm.heap>) scope(system) : memref<64x64xf16, strided<[?, 1], offset: ?>> -> memref<64x64xf16, strided<[?, 1], offset: ?>, #symm.heap>
  // CHECK: symm.put {{.*}} signal(set {{.*}}) scope(workgroup) : memref<64xf32> -> memref<64xf32, #symm.heap>
  symm.put %local to %remote on %peer signal(set %c1, %flags[%t] : memref<?xi32, #symm.heap>) scope(workgroup) : memref<64xf32> -> memref<64xf32, #symm.heap>
  // CHECK: symm.get %{{.*}} from %{{.*}} to %{{.*}} : memref<64x64xf16, strided<[?, 1], offset: ?>, #symm.heap> -> memref<64x64xf16, strided<[?, 1], offset: ?>>
  symm.get %dst from %peer to %src : memref<64x64xf16, strided<[?, 1], offset: ?>, #symm.heap> -> memref<64x64xf16, strided<[?, 1], offset: ?>>
  // CHECK: symm.copy %{{.*}} from %{{.*}} to %{{.*}} on %{{.*}} : memref<64xf32, #symm.heap> -> memref<64xf32, #symm.heap>
  symm.copy %remote from %peer to %remote on %other : memref<64xf32, #symm.heap> -> memref<64xf32, #symm.heap>
  return
}
}


// CHECK-LABEL: func.func @host
func.func @host(%n: index) {
  // CHECK: %[[BUF:.*]] = symm.alloc(%{{.*}}) : memref<?xf32, #symm.heap>
  %buf = symm.alloc(%n) : memref<?xf32, #symm.heap>
  // CHECK: symm.alloc() : memref<4x4xi32, #symm.heap>
  %s = symm.alloc() : memref<4x4xi32, #symm.heap>
  // CHECK: symm.barrier
  symm.barrier
  // CHECK: symm.dealloc %[[BUF]] : memref<?xf32, #symm.heap>
  symm.dealloc %buf : memref<?xf32, #symm.heap>
  symm.dealloc %s : memref<4x4xi32, #symm.heap>
  return
}

gpu.module @more_device {
// CHECK-LABEL: func.func @misc
func.func @misc(%m: memref<8xf32, #symm.heap>, %i: index, %v: vector<4xf32>) {
  // CHECK: symm.store %{{.*}} {alignment = 4 : i64} : vector<4xf32>
  symm.store %v, %m[%i] {alignment = 4 : i64} : vector<4xf32> -> memref<8xf32, #symm.heap>
  // CHECK: symm.backoff 100
  symm.backoff 100
  // CHECK: symm.backoff{{$}}
  symm.backoff
  return
}
}

gpu.module @traced {
// CHECK-LABEL: gpu.func @trace_ranges
gpu.func @trace_ranges(%i: index, %x: i64) kernel {
  // CHECK: symm.trace.begin "tile"(%{{.*}})
  symm.trace.begin "tile" (%i)
  // CHECK: symm.trace.begin "epilogue"{{$}}
  symm.trace.begin "epilogue"
  // CHECK: symm.trace.end "epilogue"{{$}}
  symm.trace.end "epilogue"
  // CHECK: symm.trace.end "tile"(%{{.*}})
  symm.trace.end "tile" (%i)
  // CHECK: symm.trace.record range_begin "r"(%{{.*}}) : i64
  symm.trace.record range_begin "r" (%x) : i64
  // CHECK: symm.trace.record signal(%{{.*}}, %{{.*}}) : i64, i64
  symm.trace.record signal (%x, %x) : i64, i64
  gpu.return
}
}

// Lines (LL128): eight lanes store a 128-byte line with its flag, and load it
// once the flag is there.
gpu.module @lines {
// CHECK-LABEL: func.func @lines
func.func @lines(%ll: memref<?xi64, #symm.heap>, %i: index, %x: vector<2xi64>, %f: i64, %p: i32) -> (vector<2xi64>, i1) {
  // CHECK: symm.line_store %{{.*}}, %{{.*}}[%{{.*}}] flag %{{.*}} to %{{.*}} : vector<2xi64>, i64 -> memref<?xi64, #symm.heap>
  symm.line_store %x, %ll[%i] flag %f to %p : vector<2xi64>, i64 -> memref<?xi64, #symm.heap>
  // CHECK: %{{.*}}, %{{.*}} = symm.line_load %{{.*}}[%{{.*}}] flag %{{.*}} : memref<?xi64, #symm.heap> -> vector<2xi64>, i1
  %v, %r = symm.line_load %ll[%i] flag %f : memref<?xi64, #symm.heap> -> vector<2xi64>, i1
  return %v, %r : vector<2xi64>, i1
}
}
