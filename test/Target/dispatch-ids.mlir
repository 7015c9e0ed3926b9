// Every id and size a kernel may ask for compiles for NVIDIA and for AMD
// without the ROCm device libraries: on gfx942 block and grid sizes come from
// the dispatch packet (gpu.global_id is expanded over them), and on sm_90
// gpu.subgroup_size is the warp size.
// RUN: symm-compile --target=gfx942 --emit=isa %s -o - | FileCheck %s --check-prefix=AMD
// RUN: symm-compile --target=gfx942 --emit=hsaco %s -o %t.hsaco
// RUN: symm-compile --target=sm_90 --emit=ptx %s -o - | FileCheck %s --check-prefix=NV
// AMD: .amdhsa_user_sgpr_dispatch_ptr 1
// AMD-NOT: __ockl
// NV: .entry ids
// NV-NOT: subgroup
// NV: st.global.b32 [%rd{{[0-9]+}}+24], 32;
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @ids(%out: memref<8xindex>) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c3 = arith.constant 3 : index
      %c4 = arith.constant 4 : index
      %g = gpu.global_id x
      %gd = gpu.grid_dim y
      %bd = gpu.block_dim z
      %s = gpu.subgroup_size : index
      %l = gpu.lane_id
      memref.store %g, %out[%c0] : memref<8xindex>
      memref.store %gd, %out[%c1] : memref<8xindex>
      memref.store %bd, %out[%c2] : memref<8xindex>
      memref.store %s, %out[%c3] : memref<8xindex>
      memref.store %l, %out[%c4] : memref<8xindex>
      gpu.return
    }
  }
}
