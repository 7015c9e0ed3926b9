// Every id and size a kernel may ask for compiles for NVIDIA and for AMD
// without the ROCm device libraries: on gfx942 block and grid sizes come from
// the dispatch packet (gpu.global_id is expanded over them), and on sm_90
// gpu.subgroup_size is the warp size; the size of gpu.dynamic_shared_memory
// is the launch's (upstream's lowering makes it 0): %dynamic_smem_size on
// NVIDIA, the dispatch's group segment less the static LDS on AMD.
// RUN: symm-compile --target=gfx942 --emit=isa %s -o - | FileCheck %s --check-prefix=AMD
// RUN: symm-compile --target=gfx942 --emit=hsaco %s -o %t.hsaco
// RUN: symm-compile --target=sm_90 --emit=ptx %s -o - | FileCheck %s --check-prefix=NV
// AMD-NOT: __ockl
// AMD: s_load_dword {{.*}}, 0x1c
// AMD: .amdhsa_user_sgpr_dispatch_ptr 1
// NV: .entry ids
// NV-NOT: subgroup
// NV: mov.u32 %r{{[0-9]+}}, %dynamic_smem_size;
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
      %shared = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
      %bytes = memref.dim %shared, %c0 : memref<?xi8, #gpu.address_space<workgroup>>
      %c5 = arith.constant 5 : index
      memref.store %bytes, %out[%c5] : memref<8xindex>
      memref.store %g, %out[%c0] : memref<8xindex>
      memref.store %gd, %out[%c1] : memref<8xindex>
      memref.store %bd, %out[%c2] : memref<8xindex>
      memref.store %s, %out[%c3] : memref<8xindex>
      memref.store %l, %out[%c4] : memref<8xindex>
      gpu.return
    }
  }
}
