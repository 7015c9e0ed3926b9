// Traced kernels stamp events with each target's clock: %globaltimer on
// NVIDIA, s_memrealtime on AMD (100 MHz ticks, times 10), the runtime's
// CLOCK_MONOTONIC on the CPU. Untraced, the ranges leave no trace in the
// code: it is byte for byte the code of the same kernel without them.
// RUN: symm-compile --target=sm_90 --emit=ptx --trace %s -o - | FileCheck %s --check-prefix=PTX
// RUN: symm-compile --target=gfx942 --emit=isa --trace %s -o - | FileCheck %s --check-prefix=ISA
// RUN: symm-compile --target=host --emit=llvm --trace %s -o - | FileCheck %s --check-prefix=HOST
// RUN: symm-compile --target=sm_90 --emit=ptx %s -o %t.off.ptx
// RUN: sed -e 's/symm\.trace\.[a-z]* .*$//' %s > %t.plain.mlir
// RUN: symm-compile --target=sm_90 --emit=ptx %t.plain.mlir -o %t.plain.ptx
// RUN: diff %t.off.ptx %t.plain.ptx
// RUN: symm-compile --target=host --emit=llvm %s -o - | FileCheck %s --check-prefix=HOST-OFF
// RUN: symm-compile --target=gfx942 --emit=isa %s -o %t.off.s
// RUN: symm-compile --target=gfx942 --emit=isa %t.plain.mlir -o %t.plain.s
// RUN: diff %t.off.s %t.plain.s

// The buffer global the runtime writes, the name table it reads back.
// PTX-DAG: .visible .const .align 8 .b8 __symm_trace[32];
// PTX-DAG: .visible .const .align 8 .b8 __symm_trace_names[
// PTX-LABEL: .entry traced(
// PTX: mov.u64 {{.*}}, %globaltimer;
// PTX: atom.global.add.u64
// An event is two 16-byte stores: the time with the kind, subgroup and
// block, then the two arguments.
// PTX: st.global.v2.b64 [%rd{{[0-9]+}}], {%rd{{[0-9]+}}, %rd{{[0-9]+}}};
// PTX-NEXT: st.global.v2.b64 [%rd{{[0-9]+}}+16], {%rd{{[0-9]+}}, {{-?[0-9%rd]+}}};
// PTX: mov.u64 {{.*}}, %globaltimer;
// PTX: atom.global.add.u64 {{.*}}, %rd{{[0-9]+}};
// PTX: ret;

// ISA-LABEL: {{^}}traced:
// ISA: s_memrealtime
// ISA: s_endpgm

// HOST: @__symm_trace_names = protected {{.*}}constant [13 x i8] c"\00tile\00traced\00"
// The kernel is internal, inlined into its entry.
// HOST-LABEL: define {{.*}}void @_symm_kernel_traced(
// HOST: call i64 @_symm_host_clock_ns()
// HOST: atomicrmw add ptr {{.*}}, i64 1 monotonic
// Once a subgroup's slot is full, an event site only counts the drop in a
// register (no clock read, no memory access); the kernel's end adds the
// count to the slot's.
// HOST: atomicrmw add ptr %{{[0-9]+}}, i64 1 monotonic
// HOST: atomicrmw add ptr %{{[0-9]+}}, i64 %{{[.a-z0-9]+}} monotonic
// HOST-NOT: atomicrmw
// HOST: ret void
// HOST-OFF-NOT: _symm_host_clock_ns
// HOST-OFF-NOT: __symm_trace

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @traced(%data: memref<64xf32, #symm.heap>, %flags: memref<2xi32, #symm.heap>, %peer: i32) kernel {
      %c0 = arith.constant 0 : index
      %one = arith.constant 1 : i32
      %t = gpu.thread_id x
      symm.trace.begin "tile" (%t)
      %v = memref.load %data[%t] : memref<64xf32, #symm.heap>
      %w = arith.addf %v, %v : f32
      symm.store %w, %data[%t] to %peer : f32 -> memref<64xf32, #symm.heap>
      symm.signal add %one, %flags[%c0] on %peer scope(system) : i32 -> memref<2xi32, #symm.heap>
      %seen = symm.wait %flags[%c0] ge %one scope(system) : memref<2xi32, #symm.heap> -> i32
      symm.trace.end "tile"
      gpu.return
    }
  }
}
