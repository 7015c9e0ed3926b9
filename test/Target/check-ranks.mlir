// Peer checks: always on the CPU target (a runtime call that names the rank,
// the operation and the range); on GPUs only with check-ranks, where NVIDIA
// prints the same facts and traps and AMD traps.
// RUN: symm-opt %s -symm-translate-to-heap-base -convert-symm-to-nvvm=check-ranks=true | FileCheck %s --check-prefix=NVVM
// RUN: symm-opt %s -symm-translate-to-heap-base -convert-symm-to-nvvm | FileCheck %s --check-prefix=OFF
// RUN: symm-opt %s -symm-translate-to-heap-base -convert-symm-to-amdgpu=check-ranks=true | FileCheck %s --check-prefix=AMD
// RUN: symm-opt %s -symm-translate-to-heap-base -convert-symm-to-amdgpu | FileCheck %s --check-prefix=OFF
// RUN: symm-opt %s -symm-translate-to-heap-base -convert-symm-to-host | FileCheck %s --check-prefix=HOST
// RUN: symm-compile --target=sm_90 --emit=ptx --check-ranks %s -o - | FileCheck %s --check-prefix=PTX
// RUN: symm-compile --target=sm_90 --emit=ptx %s -o - | FileCheck %s --check-prefix=PTX-OFF
// RUN: symm-compile --target=gfx942 --emit=isa --check-ranks %s -o - | FileCheck %s --check-prefix=ISA
// RUN: symm-compile --target=gfx942 --emit=isa %s -o - | FileCheck %s --check-prefix=ISA-OFF
// RUN: symm-compile --target=sm_90 --check-ranks --print-pipeline %s | FileCheck %s --check-prefix=PIPELINE

// NVVM: %[[OUT:.*]] = llvm.icmp "uge" %[[PEER:.*]], %[[SIZE:.*]] : i32
// NVVM-NEXT: scf.if %[[OUT]] {
// NVVM: gpu.printf "symm: rank %d: symm.store at {{.*}}check-ranks.mlir:[[@LINE+28]]:5: peer %d is out of range; valid peers are 0 to %d (world size %d)\0A", %{{.*}}, %[[PEER]], %{{.*}}, %[[SIZE]]
// NVVM-NEXT: llvm.intr.trap
// NVVM: gpu.printf "symm: rank %d: symm.atomic_rmw at {{.*}}check-ranks.mlir:[[@LINE+27]]:12: peer
// OFF-NOT: scf.if
// OFF-NOT: llvm.intr.trap
// OFF-NOT: gpu.printf
// AMD: %[[OUT:.*]] = llvm.icmp "uge"
// AMD-NEXT: scf.if %[[OUT]] {
// AMD-NEXT: llvm.intr.trap
// AMD-NOT: gpu.printf
// HOST: llvm.mlir.global internal constant @__symm_text_{{.*}}("symm.store at {{.*}}check-ranks.mlir:[[@LINE+18]]:5\00")
// HOST: llvm.func @_symm_peer_out_of_range(!llvm.ptr, i32)
// HOST: %[[OUT:.*]] = llvm.icmp "uge" %[[PEER:.*]], %{{.*}} : i32
// HOST-NEXT: scf.if %[[OUT]] {
// HOST-NEXT: %[[TEXT:.*]] = llvm.mlir.addressof @__symm_text_
// HOST-NEXT: llvm.call @_symm_peer_out_of_range(%[[TEXT]], %[[PEER]])
// PTX: setp.{{.*}}.u32
// PTX: call.uni (retval0), vprintf
// PTX: trap;
// PTX-OFF-NOT: vprintf
// PTX-OFF-NOT: trap;
// ISA: s_trap 2
// ISA-OFF-NOT: s_trap
// PIPELINE: convert-symm-to-nvvm{check-ranks=true early-launch=true}
gpu.module @kernels {
  gpu.func @poke(%buf: memref<4xi32, #symm.heap>, %peer: i32, %other: i32) kernel {
    %c0 = arith.constant 0 : index
    %one = arith.constant 1 : i32
    symm.store %one, %buf[%c0] to %peer : i32 -> memref<4xi32, #symm.heap>
    %old = symm.atomic_rmw add %one, %buf[%c0] on %other ordering(relaxed) scope(system) : i32 -> memref<4xi32, #symm.heap>
    gpu.return
  }
}
