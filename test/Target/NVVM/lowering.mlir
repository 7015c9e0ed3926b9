// What the NVIDIA path makes of the other lowering decisions.
// RUN: symm-compile --target=sm_90 --emit=ptx %s -o %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: FileCheck %s --check-prefix=MANIFEST < %t.ptx.json
// RUN: symm-compile --target=sm_90 --emit=llvm %s -o - | FileCheck %s --check-prefix=LLVM

// The context is a 520-byte global in constant memory.
// CHECK: .visible .const .align 8 .b8 __symm_context[520];

// A relaxed vector<4xf32> remote store is one 16-byte store; the peer's
// address is the local one rebased by heap_bases[peer] - heap_bases[rank].
// CHECK-LABEL: .entry vector_store(
// CHECK: ld.const.b32 {{.*}}[__symm_context];
// CHECK: sub.s64
// CHECK: st.global.v4.b32
// CHECK-NOT: st.global
// CHECK: ret;
// LLVM-LABEL: define {{.*}}void @vector_store(
// LLVM: load i32, ptr addrspace(4) @__symm_context, align {{.*}}!invariant.load
// LLVM: store <4 x float> {{.*}}, ptr addrspace(1) {{.*}}, align 16
gpu.module @kernels {
  gpu.func @vector_store(%buf: memref<?xf32, #symm.heap>, %i: index, %p: i32, %v: vector<4xf32>) kernel {
    symm.store %v, %buf[%i] to %p : vector<4xf32> -> memref<?xf32, #symm.heap>
    gpu.return
  }

  // A signal whose result nobody reads is a red, never an unscoped atom.
  // CHECK-LABEL: .entry signal(
  // CHECK-NOT: atom.global.add
  // CHECK: red.release.sys.global.add.u32
  // CHECK: st.release.gpu.global.b32
  gpu.func @signal(%flags: memref<?xi32, #symm.heap>, %i: index, %p: i32, %c: i32) kernel {
    symm.signal add %c, %flags[%i] on %p scope(system) : i32 -> memref<?xi32, #symm.heap>
    symm.signal set %c, %flags[%i] on %p scope(device) : i32 -> memref<?xi32, #symm.heap>
    gpu.return
  }

  // wait polls with acquire loads and sleeps between polls.
  // CHECK-LABEL: .entry wait(
  // CHECK: ld.acquire.sys.global.b32
  // CHECK: nanosleep.u32 500;
  // CHECK: ld.acquire.sys.global.b32
  gpu.func @wait(%flags: memref<?xi32, #symm.heap>, %i: index, %c: i32, %out: memref<?xi32>) kernel {
    %v = symm.wait %flags[%i] ge %c scope(system) backoff(500) : memref<?xi32, #symm.heap> -> i32
    memref.store %v, %out[%i] : memref<?xi32>
    gpu.return
  }

  // A tile put uses 16-byte accesses on its aligned path, then synchronises
  // the block and signals from one thread with a release at the signal's
  // scope, which releases what the barrier ordered (no fence in every
  // thread).
  // CHECK-LABEL: .entry put(
  // CHECK: ld.global.v4.b32
  // CHECK: st.global.v4.b32
  // CHECK-NOT: fence
  // CHECK: bar.sync 0;
  // CHECK-NOT: fence
  // CHECK: red.release.sys.global.add.u32
  gpu.func @put(%src: memref<32x32xf32, strided<[?, 1], offset: ?>>, %dst: memref<32x32xf32, #symm.heap>, %flags: memref<?xi32, #symm.heap>, %t: index, %p: i32, %c: i32) kernel {
    symm.put %src to %dst on %p signal(add %c, %flags[%t] : memref<?xi32, #symm.heap>) scope(system) : memref<32x32xf32, strided<[?, 1], offset: ?>> -> memref<32x32xf32, #symm.heap>
    gpu.return
  }

  // Every RMW kind PTX has, with its type suffix; sub adds the negation.
  // CHECK-LABEL: .entry kinds(
  // CHECK: atom.relaxed.gpu.global.add.u64
  // CHECK: neg.s32
  // CHECK: atom.relaxed.gpu.global.add.u32
  // CHECK: atom.relaxed.gpu.global.and.b32
  // CHECK: atom.relaxed.gpu.global.or.b32
  // CHECK: atom.relaxed.gpu.global.xor.b32
  // CHECK: atom.relaxed.gpu.global.max.s32
  // CHECK: atom.relaxed.gpu.global.min.s32
  // CHECK: atom.relaxed.gpu.global.max.u32
  // CHECK: atom.relaxed.gpu.global.min.u32
  // CHECK: atom.relaxed.gpu.global.exch.b32
  // CHECK: atom.relaxed.gpu.global.add.f32
  // CHECK: atom.relaxed.gpu.global.add.f64
  // CHECK: atom.relaxed.gpu.global.exch.b32
  gpu.func @kinds(%m: memref<4xi32, #symm.heap>, %m64: memref<4xi64, #symm.heap>, %f: memref<4xf32, #symm.heap>, %d: memref<4xf64, #symm.heap>, %x: i32, %x64: i64, %y: f32, %z: f64, %out: memref<16xi32>) kernel {
    %c0 = arith.constant 0 : index
    %a0 = symm.atomic_rmw add %x64, %m64[%c0] ordering(relaxed) scope(device) : i64 -> memref<4xi64, #symm.heap>
    %t0 = arith.trunci %a0 : i64 to i32
    %a1 = symm.atomic_rmw sub %x, %m[%c0] ordering(relaxed) scope(device) : i32 -> memref<4xi32, #symm.heap>
    %a2 = symm.atomic_rmw and %x, %m[%c0] ordering(relaxed) scope(device) : i32 -> memref<4xi32, #symm.heap>
    %a3 = symm.atomic_rmw or %x, %m[%c0] ordering(relaxed) scope(device) : i32 -> memref<4xi32, #symm.heap>
    %a4 = symm.atomic_rmw xor %x, %m[%c0] ordering(relaxed) scope(device) : i32 -> memref<4xi32, #symm.heap>
    %a5 = symm.atomic_rmw max %x, %m[%c0] ordering(relaxed) scope(device) : i32 -> memref<4xi32, #symm.heap>
    %a6 = symm.atomic_rmw min %x, %m[%c0] ordering(relaxed) scope(device) : i32 -> memref<4xi32, #symm.heap>
    %a7 = symm.atomic_rmw umax %x, %m[%c0] ordering(relaxed) scope(device) : i32 -> memref<4xi32, #symm.heap>
    %a8 = symm.atomic_rmw umin %x, %m[%c0] ordering(relaxed) scope(device) : i32 -> memref<4xi32, #symm.heap>
    %a9 = symm.atomic_rmw xchg %x, %m[%c0] ordering(relaxed) scope(device) : i32 -> memref<4xi32, #symm.heap>
    %b0 = symm.atomic_rmw fadd %y, %f[%c0] ordering(relaxed) scope(device) : f32 -> memref<4xf32, #symm.heap>
    %b1 = symm.atomic_rmw fadd %z, %d[%c0] ordering(relaxed) scope(device) : f64 -> memref<4xf64, #symm.heap>
    %b2 = symm.atomic_rmw xchg %y, %f[%c0] ordering(relaxed) scope(device) : f32 -> memref<4xf32, #symm.heap>
    %i0 = arith.fptosi %b0 : f32 to i32
    %i1 = arith.fptosi %b1 : f64 to i32
    %i2 = arith.fptosi %b2 : f32 to i32
    %all = vector.from_elements %t0, %a1, %a2, %a3, %a4, %a5, %a6, %a7, %a8, %a9, %i0, %i1, %i2, %x, %x, %x : vector<16xi32>
    vector.store %all, %out[%c0] : memref<16xi32>, vector<16xi32>
    gpu.return
  }

  // fmax, fmin and 16-bit integers have no PTX atom: a CAS loop whose
  // atom.cas keeps the ordering and scope.
  // CHECK-LABEL: .entry cas_loops(
  // CHECK: ld.relaxed.sys.global.b32
  // CHECK: max.f32
  // CHECK: atom.acq_rel.sys.global.cas.b32
  // CHECK: min.f32
  // CHECK: atom.relaxed.cta.global.cas.b32
  // A 16-bit CAS is a 32-bit one; its release is a fence before it.
  // CHECK: fence.acq_rel.gpu;
  // CHECK: atom.relaxed.gpu.global.cas.b32
  gpu.func @cas_loops(%f: memref<4xf32, #symm.heap>, %h: memref<4xi16, #symm.heap>, %y: f32, %z: i16, %out: memref<4xf32>, %out16: memref<4xi16>) kernel {
    %c0 = arith.constant 0 : index
    %a = symm.atomic_rmw fmax %y, %f[%c0] ordering(acq_rel) scope(system) : f32 -> memref<4xf32, #symm.heap>
    %b = symm.atomic_rmw fmin %y, %f[%c0] ordering(relaxed) scope(workgroup) : f32 -> memref<4xf32, #symm.heap>
    %c = symm.atomic_rmw add %z, %h[%c0] ordering(release) scope(device) : i16 -> memref<4xi16, #symm.heap>
    %s = arith.addf %a, %b : f32
    memref.store %s, %out[%c0] : memref<4xf32>
    memref.store %c, %out16[%c0] : memref<4xi16>
    gpu.return
  }
}

// MANIFEST: "context": {
// MANIFEST: "kind": "global",
// MANIFEST: "size": 520,
// MANIFEST: "symbol": "__symm_context"
// MANIFEST: "format": "ptx",
// MANIFEST: "name": "vector_store",
// MANIFEST: "params": 8
// MANIFEST: "target": "sm_90"
