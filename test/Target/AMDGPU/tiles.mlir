// Tile copies on AMD: 16-byte global accesses on the aligned path, the block
// size read from the dispatch packet (no ROCm device library needed), the
// signal after symm.release_barrier, which on AMD is a system-scope release
// fence in every wave (each waits for its own stores) and the barrier.
// RUN: symm-compile --target=gfx942 %s -o %t.hsaco
// RUN: llvm-readelf -s %t.hsaco | FileCheck %s --check-prefix=SYMS
// RUN: symm-compile --target=gfx942 --emit=llvm %s -o - | FileCheck %s --check-prefix=LLVM
// RUN: symm-compile --target=gfx942 --emit=isa %s -o - | FileCheck %s --check-prefix=ISA
// SYMS: FUNC GLOBAL PROTECTED {{.*}} put
// LLVM-NOT: __ockl
// LLVM: call {{.*}}ptr addrspace(4) @llvm.amdgcn.dispatch.ptr()
// ISA-LABEL: put:
// ISA: global_load_dwordx4
// ISA: global_store_dwordx4
// ISA: buffer_wbl2 sc0 sc1
// ISA-NEXT: s_waitcnt vmcnt(0)
// ISA-NEXT: s_barrier
// ISA: global_atomic_add
gpu.module @kernels {
  gpu.func @put(%src: memref<32x32xf32, strided<[?, 1], offset: ?>>, %dst: memref<32x32xf32, #symm.heap>, %flags: memref<?xi32, #symm.heap>, %t: index, %p: i32, %c: i32) kernel {
    symm.put %src to %dst on %p signal(add %c, %flags[%t] : memref<?xi32, #symm.heap>) scope(system) : memref<32x32xf32, strided<[?, 1], offset: ?>> -> memref<32x32xf32, #symm.heap>
    gpu.return
  }
}
