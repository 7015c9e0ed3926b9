// RUN: symm-opt %s -allow-unregistered-dialect -convert-symm-to-nvvm | FileCheck %s

// A line's piece is one 16-byte volatile store or load per lane, after the
// line's eight lanes meet (bar.warp.sync on mask 0xff << (lane & 24)); piece
// 7 carries the flag in its second word. Where activemask shows the line's
// lanes apart, the data goes in 8-byte stores, then a system fence, a
// bar.warp.sync and the flag alone. A load shuffles piece 7's flag to the
// line's lanes (two 32-bit halves) and, where activemask right after the
// load shows the line's lanes apart, loads the piece again once the flag is
// there.
// CHECK-LABEL: gpu.func @lines
// CHECK: llvm.select %{{.*}}, %{{.*}}, %{{.*}} : i1, i64
// CHECK: nvvm.read.ptx.sreg.laneid
// CHECK: nvvm.bar.warp.sync
// CHECK: "activemask.b32 $0;"
// CHECK: scf.if
// CHECK: llvm.inline_asm has_side_effects asm_dialect = att "st.volatile.global.v2.u64 [$0], {$1, $2};", "l,l,l,~{memory}"
// CHECK: } else {
// CHECK: "st.volatile.global.u64 [$0], $1;"
// CHECK: "fence.sc.sys;"
// CHECK: nvvm.bar.warp.sync
// CHECK: "st.volatile.global.u64 [$0], $1;"
// CHECK: nvvm.bar.warp.sync
// CHECK: llvm.inline_asm has_side_effects asm_dialect = att "ld.volatile.global.v2.u64 {$0, $1}, [$2];", "=l,=l,l,~{memory}"
// CHECK: "activemask.b32 $0;"
// CHECK: nvvm.shfl.sync idx
// CHECK: nvvm.shfl.sync idx
// CHECK: llvm.icmp "eq" %{{.*}}, %{{.*}} : i64
// CHECK: scf.if
// CHECK: "ld.volatile.global.v2.u64 {$0, $1}, [$2];"
// CHECK-NOT: llvm.cmpxchg
gpu.module @m {
  gpu.func @lines(%ll: memref<?xi64, #symm.heap>, %i: index, %x: vector<2xi64>, %f: i64) kernel {
    symm.line_store %x, %ll[%i] flag %f : vector<2xi64>, i64 -> memref<?xi64, #symm.heap>
    %v, %r = symm.line_load %ll[%i] flag %f : memref<?xi64, #symm.heap> -> vector<2xi64>, i1
    "test.use"(%v, %r) : (vector<2xi64>, i1) -> ()
    gpu.return
  }
}
