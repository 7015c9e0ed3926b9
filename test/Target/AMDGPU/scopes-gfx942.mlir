// Ordered accesses on gfx942 follow the AMDGPU memory model: sc0/sc1 pick the
// scope, release writes back L2 (buffer_wbl2) and acquire invalidates
// (buffer_inv); workgroup scope needs neither.
// RUN: symm-compile --target=gfx942 --emit=isa %s -o - | FileCheck %s --check-prefix=GFX942

// GFX942-LABEL: {{^}}load_relaxed_workgroup:
// GFX942: global_load_dword {{.*}} sc0{{$}}
// GFX942-LABEL: {{^}}load_acquire_workgroup:
// GFX942: global_load_dword {{.*}} sc0{{$}}
// GFX942-LABEL: {{^}}load_seq_cst_workgroup:
// GFX942: global_load_dword {{.*}} sc0{{$}}
// GFX942-LABEL: {{^}}store_relaxed_workgroup:
// GFX942: global_store_dword {{.*}} sc0{{$}}
// GFX942-LABEL: {{^}}store_release_workgroup:
// GFX942: global_store_dword {{.*}} sc0{{$}}
// GFX942-LABEL: {{^}}store_seq_cst_workgroup:
// GFX942: global_store_dword {{.*}} sc0{{$}}
// GFX942-LABEL: {{^}}rmw_acq_rel_workgroup:
// GFX942: global_atomic_add {{.*}} sc0{{$}}
// GFX942-LABEL: {{^}}cas_acq_rel_workgroup:
// GFX942: global_atomic_cmpswap {{.*}} sc0{{$}}
// GFX942-LABEL: {{^}}load_relaxed_device:
// GFX942: global_load_dword {{.*}} sc1{{$}}
// GFX942-LABEL: {{^}}load_acquire_device:
// GFX942: global_load_dword {{.*}} sc1{{$}}
// GFX942-NEXT: s_waitcnt vmcnt(0)
// GFX942-NEXT: buffer_inv sc1
// GFX942-LABEL: {{^}}load_seq_cst_device:
// GFX942: global_load_dword {{.*}} sc1{{$}}
// GFX942-NEXT: s_waitcnt vmcnt(0)
// GFX942-NEXT: buffer_inv sc1
// GFX942-LABEL: {{^}}store_relaxed_device:
// GFX942: global_store_dword {{.*}} sc1{{$}}
// GFX942-LABEL: {{^}}store_release_device:
// GFX942: buffer_wbl2 sc1
// GFX942: global_store_dword {{.*}} sc1{{$}}
// GFX942-LABEL: {{^}}store_seq_cst_device:
// GFX942: buffer_wbl2 sc1
// GFX942: global_store_dword {{.*}} sc1{{$}}
// GFX942-LABEL: {{^}}rmw_acq_rel_device:
// GFX942: buffer_wbl2 sc1
// GFX942: global_atomic_add {{.*}} sc0{{$}}
// GFX942-NEXT: s_waitcnt vmcnt(0)
// GFX942-NEXT: buffer_inv sc1
// GFX942-LABEL: {{^}}cas_acq_rel_device:
// GFX942: buffer_wbl2 sc1
// GFX942: global_atomic_cmpswap {{.*}} sc0{{$}}
// GFX942-NEXT: s_waitcnt vmcnt(0)
// GFX942-NEXT: buffer_inv sc1
// GFX942-LABEL: {{^}}fence_acquire_device:
// GFX942-NOT: buffer_wbl2
// GFX942: buffer_inv sc1
// GFX942-LABEL: {{^}}fence_release_device:
// GFX942: buffer_wbl2 sc1
// GFX942-NOT: buffer_inv
// GFX942: s_endpgm
// GFX942-LABEL: {{^}}fence_acq_rel_device:
// GFX942: buffer_wbl2 sc1
// GFX942: buffer_inv sc1
// GFX942-LABEL: {{^}}fence_seq_cst_device:
// GFX942: buffer_wbl2 sc1
// GFX942: buffer_inv sc1
// GFX942-LABEL: {{^}}load_relaxed_system:
// GFX942: global_load_dword {{.*}} sc0 sc1{{$}}
// GFX942-LABEL: {{^}}load_acquire_system:
// GFX942: global_load_dword {{.*}} sc0 sc1{{$}}
// GFX942-NEXT: s_waitcnt vmcnt(0)
// GFX942-NEXT: buffer_inv sc0 sc1
// GFX942-LABEL: {{^}}load_seq_cst_system:
// GFX942: global_load_dword {{.*}} sc0 sc1{{$}}
// GFX942-NEXT: s_waitcnt vmcnt(0)
// GFX942-NEXT: buffer_inv sc0 sc1
// GFX942-LABEL: {{^}}store_relaxed_system:
// GFX942: global_store_dword {{.*}} sc0 sc1{{$}}
// GFX942-LABEL: {{^}}store_release_system:
// GFX942: buffer_wbl2 sc0 sc1
// GFX942: global_store_dword {{.*}} sc0 sc1{{$}}
// GFX942-LABEL: {{^}}store_seq_cst_system:
// GFX942: buffer_wbl2 sc0 sc1
// GFX942: global_store_dword {{.*}} sc0 sc1{{$}}
// GFX942-LABEL: {{^}}rmw_acq_rel_system:
// GFX942: buffer_wbl2 sc0 sc1
// GFX942: global_atomic_add {{.*}} sc0 sc1{{$}}
// GFX942-NEXT: s_waitcnt vmcnt(0)
// GFX942-NEXT: buffer_inv sc0 sc1
// GFX942-LABEL: {{^}}cas_acq_rel_system:
// GFX942: buffer_wbl2 sc0 sc1
// GFX942: global_atomic_cmpswap {{.*}} sc0 sc1{{$}}
// GFX942-NEXT: s_waitcnt vmcnt(0)
// GFX942-NEXT: buffer_inv sc0 sc1
// GFX942-LABEL: {{^}}fence_acquire_system:
// GFX942-NOT: buffer_wbl2
// GFX942: buffer_inv sc0 sc1
// GFX942-LABEL: {{^}}fence_release_system:
// GFX942: buffer_wbl2 sc0 sc1
// GFX942-NOT: buffer_inv
// GFX942: s_endpgm
// GFX942-LABEL: {{^}}fence_acq_rel_system:
// GFX942: buffer_wbl2 sc0 sc1
// GFX942: buffer_inv sc0 sc1
// GFX942-LABEL: {{^}}fence_seq_cst_system:
// GFX942: buffer_wbl2 sc0 sc1
// GFX942: buffer_inv sc0 sc1
gpu.module @kernels {
  gpu.func @load_relaxed_workgroup(%m: memref<4xi32, #symm.heap>, %x: i32, %y: i32, %out: memref<4xi32, #symm.heap>) kernel {
    %c0 = arith.constant 0 : index
    %v = symm.load %m[%c0] ordering(relaxed) scope(workgroup) : memref<4xi32, #symm.heap> -> i32
    memref.store %v, %out[%c0] : memref<4xi32, #symm.heap>
    gpu.return
  }
  gpu.func @load_acquire_workgroup(%m: memref<4xi32, #symm.heap>, %x: i32, %y: i32, %out: memref<4xi32, #symm.heap>) kernel {
    %c0 = arith.constant 0 : index
    %v = symm.load %m[%c0] ordering(acquire) scope(workgroup) : memref<4xi32, #symm.heap> -> i32
    memref.store %v, %out[%c0] : memref<4xi32, #symm.heap>
    gpu.return
  }
  gpu.func @load_seq_cst_workgroup(%m: memref<4xi32, #symm.heap>, %x: i32, %y: i32, %out: memref<4xi32, #symm.heap>) kernel {
    %c0 = arith.constant 0 : index
    %v = symm.load %m[%c0] ordering(seq_cst) scope(workgroup) : memref<4xi32, #symm.heap> -> i32
    memref.store %v, %out[%c0] : memref<4xi32, #symm.heap>
    gpu.return
  }
  gpu.func @store_relaxed_workgroup(%m: memref<4xi32, #symm.heap>, %x: i32, %y: i32, %out: memref<4xi32, #symm.heap>) kernel {
    %c0 = arith.constant 0 : index
    symm.store %x, %m[%c0] ordering(relaxed) scope(workgroup) : i32 -> memref<4xi32, #symm.heap>
    gpu.return
  }
  gpu.func @store_release_workgroup(%m: memref<4xi32, #symm.heap>, %x: i32, %y: i32, %out: memref<4xi32, #symm.heap>) kernel {
    %c0 = arith.constant 0 : index
    symm.store %x, %m[%c0] ordering(release) scope(workgroup) : i32 -> memref<4xi32, #symm.heap>
    gpu.return
  }
  gpu.func @store_seq_cst_workgroup(%m: memref<4xi32, #symm.heap>, %x: i32, %y: i32, %out: memref<4xi32, #symm.heap>) kernel {
    %c0 = arith.constant 0 : index
    symm.store %x, %m[%c0] ordering(seq_cst) scope(workgroup) : i32 -> memref<4xi32, #symm.heap>
    gpu.return
  }
  gpu.func @rmw_relaxed_workgroup(%m: memref<4xi32, #symm.heap>, %x: i32, %y: i32, %out: memref<4xi32, #symm.heap>) kernel {
    %c0 = arith.constant 0 : index
    %v = symm.atomic_rmw add %x, %m[%c0] ordering(relaxed) scope(workgroup) : i32 -> memref<4xi32, #symm.heap>
    memref.store %v, %out[%c0] : memref<4xi32, #symm.heap>
    gpu.return
  }
  gpu.func @cas_relaxed_workgroup(%m: memref<4xi32, #symm.heap>, %x: i32, %y: i32, %out: memref<4xi32, #symm.heap>) kernel {
    %c0 = arith.constant 0 : index
    %v = symm.atomic_cas %x, %y, %m[%c0] ordering(relaxed) scope(workgroup) : i32 -> memref<4xi32, #symm.heap>
    memref.store %v, %out[%c0] : memref<4xi32, #symm.heap>
    gpu.return
  }
  gpu.func @rmw_acquire_workgroup(%m: memref<4xi32, #symm.heap>, %x: i32, %y: i32, %out: memref<4xi32, #symm.heap>) kernel {
    %c0 = arith.constant 0 : index
    %v = symm.atomic_rmw add %x, %m[%c0] ordering(acquire) scope(workgroup) : i32 -> memref<4xi32, #symm.heap>
    memref.store %v, %out[%c0] : memref<4xi32, #symm.heap>
    gpu.return
  }
  gpu.func @cas_acquire_workgroup(%m: memref<4xi32, #symm.heap>, %x: i32, %y: i32, %out: memref<4xi32, #symm.heap>) kernel {
    %c0 = arith.constant 0 : index
    %v = symm.atomic_cas %x, %y, %m[%c0] ordering(acquire) scope(workgroup) : i32 -> memref<4xi32, #symm.heap>
    memref.store %v, %out[%c0] : memref<4xi32, #symm.heap>
    gpu.return
  }
  gpu.func @rmw_release_workgroup(%m: memref<4xi32, #symm.heap>, %x: i32, %y: i32, %out: memref<4xi32, #symm.heap>) kernel {
    %c0 = arith.constant 0 : index
    %v = symm.atomic_rmw add %x, %m[%c0] ordering(release) scope(workgroup) : i32 -> memref<4xi32, #symm.heap>
    memref.store %v, %out[%c0] : memref<4xi32, #symm.heap>
    gpu.return
  }
  gpu.func @cas_release_workgroup(%m: memref<4xi32, #symm.heap>, %x: i32, %y: i32, %out: memref<4xi32, #symm.heap>) kernel {
    %c0 = arith.constant 0 : index
    %v = symm.atomic_cas %x, %y, %m[%c0] ordering(release) scope(workgroup) : i32 -> memref<4xi32, #symm.heap>
    memref.store %v, %out[%c0] : memref<4xi32, #symm.heap>
    gpu.return
  }
  gpu.func @rmw_acq_rel_workgroup(%m: memref<4xi32, #symm.heap>, %x: i32, %y: i32, %out: memref<4xi32, #symm.heap>) kernel {
    %c0 = arith.constant 0 : index
    %v = symm.atomic_rmw add %x, %m[%c0] ordering(acq_rel) scope(workgroup) : i32 -> memref<4xi32, #symm.heap>
    memref.store %v, %out[%c0] : memref<4xi32, #symm.heap>
    gpu.return
  }
  gpu.func @cas_acq_rel_workgroup(%m: memref<4xi32, #symm.heap>, %x: i32, %y: i32, %out: memref<4xi32, #symm.heap>) kernel {
    %c0 = arith.constant 0 : index
    %v = symm.atomic_cas %x, %y, %m[%c0] ordering(acq_rel) scope(workgroup) : i32 -> memref<4xi32, #symm.heap>
    memref.store %v, %out[%c0] : memref<4xi32, #symm.heap>
    gpu.return
  }
  gpu.func @rmw_seq_cst_workgroup(%m: memref<4xi32, #symm.heap>, %x: i32, %y: i32, %out: memref<4xi32, #symm.heap>) kernel {
    %c0 = arith.constant 0 : index
    %v = symm.atomic_rmw add %x, %m[%c0] ordering(seq_cst) scope(workgroup) : i32 -> memref<4xi32, #symm.heap>
    memref.store %v, %out[%c0] : memref<4xi32, #symm.heap>
    gpu.return
  }
  gpu.func @cas_seq_cst_workgroup(%m: memref<4xi32, #symm.heap>, %x: i32, %y: i32, %out: memref<4xi32, #symm.heap>) kernel {
    %c0 = arith.constant 0 : index
    %v = symm.atomic_cas %x, %y, %m[%c0] ordering(seq_cst) scope(workgroup) : i32 -> memref<4xi32, #symm.heap>
    memref.store %v, %out[%c0] : memref<4xi32, #symm.heap>
    gpu.return
  }
  gpu.func @red_relaxed_workgroup(%m: memref<4xi32, #symm.heap>, %x: i32, %y: i32, %out: memref<4xi32, #symm.heap>) kernel {
    %c0 = arith.constant 0 : index
    %v = symm.atomic_rmw add %x, %m[%c0] ordering(relaxed) scope(workgroup) : i32 -> memref<4xi32, #symm.heap>
    gpu.return
  }
  gpu.func @red_release_workgroup(%m: memref<4xi32, #symm.heap>, %x: i32, %y: i32, %out: memref<4xi32, #symm.heap>) kernel {
    %c0 = arith.constant 0 : index
    %v = symm.atomic_rmw add %x, %m[%c0] ordering(release) scope(workgroup) : i32 -> memref<4xi32, #symm.heap>
    gpu.return
  }
  gpu.func @fence_acquire_workgroup(%m: memref<4xi32, #symm.heap>, %x: i32, %y: i32, %out: memref<4xi32, #symm.heap>) kernel {
    %c0 = arith.constant 0 : index
    symm.fence ordering(acquire) scope(workgroup)
    gpu.return
  }
  gpu.func @fence_release_workgroup(%m: memref<4xi32, #symm.heap>, %x: i32, %y: i32, %out: memref<4xi32, #symm.heap>) kernel {
    %c0 = arith.constant 0 : index
    symm.fence ordering(release) scope(workgroup)
    gpu.return
  }
  gpu.func @fence_acq_rel_workgroup(%m: memref<4xi32, #symm.heap>, %x: i32, %y: i32, %out: memref<4xi32, #symm.heap>) kernel {
    %c0 = arith.constant 0 : index
    symm.fence ordering(acq_rel) scope(workgroup)
    gpu.return
  }
  gpu.func @fence_seq_cst_workgroup(%m: memref<4xi32, #symm.heap>, %x: i32, %y: i32, %out: memref<4xi32, #symm.heap>) kernel {
    %c0 = arith.constant 0 : index
    symm.fence ordering(seq_cst) scope(workgroup)
    gpu.return
  }
  gpu.func @load_relaxed_device(%m: memref<4xi32, #symm.heap>, %x: i32, %y: i32, %out: memref<4xi32, #symm.heap>) kernel {
    %c0 = arith.constant 0 : index
    %v = symm.load %m[%c0] ordering(relaxed) scope(device) : memref<4xi32, #symm.heap> -> i32
    memref.store %v, %out[%c0] : memref<4xi32, #symm.heap>
    gpu.return
  }
  gpu.func @load_acquire_device(%m: memref<4xi32, #symm.heap>, %x: i32, %y: i32, %out: memref<4xi32, #symm.heap>) kernel {
    %c0 = arith.constant 0 : index
    %v = symm.load %m[%c0] ordering(acquire) scope(device) : memref<4xi32, #symm.heap> -> i32
    memref.store %v, %out[%c0] : memref<4xi32, #symm.heap>
    gpu.return
  }
  gpu.func @load_seq_cst_device(%m: memref<4xi32, #symm.heap>, %x: i32, %y: i32, %out: memref<4xi32, #symm.heap>) kernel {
    %c0 = arith.constant 0 : index
    %v = symm.load %m[%c0] ordering(seq_cst) scope(device) : memref<4xi32, #symm.heap> -> i32
    memref.store %v, %out[%c0] : memref<4xi32, #symm.heap>
    gpu.return
  }
  gpu.func @store_relaxed_device(%m: memref<4xi32, #symm.heap>, %x: i32, %y: i32, %out: memref<4xi32, #symm.heap>) kernel {
    %c0 = arith.constant 0 : index
    symm.store %x, %m[%c0] ordering(relaxed) scope(device) : i32 -> memref<4xi32, #symm.heap>
    gpu.return
  }
  gpu.func @store_release_device(%m: memref<4xi32, #symm.heap>, %x: i32, %y: i32, %out: memref<4xi32, #symm.heap>) kernel {
    %c0 = arith.constant 0 : index
    symm.store %x, %m[%c0] ordering(release) scope(device) : i32 -> memref<4xi32, #symm.heap>
    gpu.return
  }
  gpu.func @store_seq_cst_device(%m: memref<4xi32, #symm.heap>, %x: i32, %y: i32, %out: memref<4xi32, #symm.heap>) kernel {
    %c0 = arith.constant 0 : index
    symm.store %x, %m[%c0] ordering(seq_cst) scope(device) : i32 -> memref<4xi32, #symm.heap>
    gpu.return
  }
  gpu.func @rmw_relaxed_device(%m: memref<4xi32, #symm.heap>, %x: i32, %y: i32, %out: memref<4xi32, #symm.heap>) kernel {
    %c0 = arith.constant 0 : index
    %v = symm.atomic_rmw add %x, %m[%c0] ordering(relaxed) scope(device) : i32 -> memref<4xi32, #symm.heap>
    memref.store %v, %out[%c0] : memref<4xi32, #symm.heap>
    gpu.return
  }
  gpu.func @cas_relaxed_device(%m: memref<4xi32, #symm.heap>, %x: i32, %y: i32, %out: memref<4xi32, #symm.heap>) kernel {
    %c0 = arith.constant 0 : index
    %v = symm.atomic_cas %x, %y, %m[%c0] ordering(relaxed) scope(device) : i32 -> memref<4xi32, #symm.heap>
    memref.store %v, %out[%c0] : memref<4xi32, #symm.heap>
    gpu.return
  }
  gpu.func @rmw_acquire_device(%m: memref<4xi32, #symm.heap>, %x: i32, %y: i32, %out: memref<4xi32, #symm.heap>) kernel {
    %c0 = arith.constant 0 : index
    %v = symm.atomic_rmw add %x, %m[%c0] ordering(acquire) scope(device) : i32 -> memref<4xi32, #symm.heap>
    memref.store %v, %out[%c0] : memref<4xi32, #symm.heap>
    gpu.return
  }
  gpu.func @cas_acquire_device(%m: memref<4xi32, #symm.heap>, %x: i32, %y: i32, %out: memref<4xi32, #symm.heap>) kernel {
    %c0 = arith.constant 0 : index
    %v = symm.atomic_cas %x, %y, %m[%c0] ordering(acquire) scope(device) : i32 -> memref<4xi32, #symm.heap>
    memref.store %v, %out[%c0] : memref<4xi32, #symm.heap>
    gpu.return
  }
  gpu.func @rmw_release_device(%m: memref<4xi32, #symm.heap>, %x: i32, %y: i32, %out: memref<4xi32, #symm.heap>) kernel {
    %c0 = arith.constant 0 : index
    %v = symm.atomic_rmw add %x, %m[%c0] ordering(release) scope(device) : i32 -> memref<4xi32, #symm.heap>
    memref.store %v, %out[%c0] : memref<4xi32, #symm.heap>
    gpu.return
  }
  gpu.func @cas_release_device(%m: memref<4xi32, #symm.heap>, %x: i32, %y: i32, %out: memref<4xi32, #symm.heap>) kernel {
    %c0 = arith.constant 0 : index
    %v = symm.atomic_cas %x, %y, %m[%c0] ordering(release) scope(device) : i32 -> memref<4xi32, #symm.heap>
    memref.store %v, %out[%c0] : memref<4xi32, #symm.heap>
    gpu.return
  }
  gpu.func @rmw_acq_rel_device(%m: memref<4xi32, #symm.heap>, %x: i32, %y: i32, %out: memref<4xi32, #symm.heap>) kernel {
    %c0 = arith.constant 0 : index
    %v = symm.atomic_rmw add %x, %m[%c0] ordering(acq_rel) scope(device) : i32 -> memref<4xi32, #symm.heap>
    memref.store %v, %out[%c0] : memref<4xi32, #symm.heap>
    gpu.return
  }
  gpu.func @cas_acq_rel_device(%m: memref<4xi32, #symm.heap>, %x: i32, %y: i32, %out: memref<4xi32, #symm.heap>) kernel {
    %c0 = arith.constant 0 : index
    %v = symm.atomic_cas %x, %y, %m[%c0] ordering(acq_rel) scope(device) : i32 -> memref<4xi32, #symm.heap>
    memref.store %v, %out[%c0] : memref<4xi32, #symm.heap>
    gpu.return
  }
  gpu.func @rmw_seq_cst_device(%m: memref<4xi32, #symm.heap>, %x: i32, %y: i32, %out: memref<4xi32, #symm.heap>) kernel {
    %c0 = arith.constant 0 : index
    %v = symm.atomic_rmw add %x, %m[%c0] ordering(seq_cst) scope(device) : i32 -> memref<4xi32, #symm.heap>
    memref.store %v, %out[%c0] : memref<4xi32, #symm.heap>
    gpu.return
  }
  gpu.func @cas_seq_cst_device(%m: memref<4xi32, #symm.heap>, %x: i32, %y: i32, %out: memref<4xi32, #symm.heap>) kernel {
    %c0 = arith.constant 0 : index
    %v = symm.atomic_cas %x, %y, %m[%c0] ordering(seq_cst) scope(device) : i32 -> memref<4xi32, #symm.heap>
    memref.store %v, %out[%c0] : memref<4xi32, #symm.heap>
    gpu.return
  }
  gpu.func @red_relaxed_device(%m: memref<4xi32, #symm.heap>, %x: i32, %y: i32, %out: memref<4xi32, #symm.heap>) kernel {
    %c0 = arith.constant 0 : index
    %v = symm.atomic_rmw add %x, %m[%c0] ordering(relaxed) scope(device) : i32 -> memref<4xi32, #symm.heap>
    gpu.return
  }
  gpu.func @red_release_device(%m: memref<4xi32, #symm.heap>, %x: i32, %y: i32, %out: memref<4xi32, #symm.heap>) kernel {
    %c0 = arith.constant 0 : index
    %v = symm.atomic_rmw add %x, %m[%c0] ordering(release) scope(device) : i32 -> memref<4xi32, #symm.heap>
    gpu.return
  }
  gpu.func @fence_acquire_device(%m: memref<4xi32, #symm.heap>, %x: i32, %y: i32, %out: memref<4xi32, #symm.heap>) kernel {
    %c0 = arith.constant 0 : index
    symm.fence ordering(acquire) scope(device)
    gpu.return
  }
  gpu.func @fence_release_device(%m: memref<4xi32, #symm.heap>, %x: i32, %y: i32, %out: memref<4xi32, #symm.heap>) kernel {
    %c0 = arith.constant 0 : index
    symm.fence ordering(release) scope(device)
    gpu.return
  }
  gpu.func @fence_acq_rel_device(%m: memref<4xi32, #symm.heap>, %x: i32, %y: i32, %out: memref<4xi32, #symm.heap>) kernel {
    %c0 = arith.constant 0 : index
    symm.fence ordering(acq_rel) scope(device)
    gpu.return
  }
  gpu.func @fence_seq_cst_device(%m: memref<4xi32, #symm.heap>, %x: i32, %y: i32, %out: memref<4xi32, #symm.heap>) kernel {
    %c0 = arith.constant 0 : index
    symm.fence ordering(seq_cst) scope(device)
    gpu.return
  }
  gpu.func @load_relaxed_system(%m: memref<4xi32, #symm.heap>, %x: i32, %y: i32, %out: memref<4xi32, #symm.heap>) kernel {
    %c0 = arith.constant 0 : index
    %v = symm.load %m[%c0] ordering(relaxed) scope(system) : memref<4xi32, #symm.heap> -> i32
    memref.store %v, %out[%c0] : memref<4xi32, #symm.heap>
    gpu.return
  }
  gpu.func @load_acquire_system(%m: memref<4xi32, #symm.heap>, %x: i32, %y: i32, %out: memref<4xi32, #symm.heap>) kernel {
    %c0 = arith.constant 0 : index
    %v = symm.load %m[%c0] ordering(acquire) scope(system) : memref<4xi32, #symm.heap> -> i32
    memref.store %v, %out[%c0] : memref<4xi32, #symm.heap>
    gpu.return
  }
  gpu.func @load_seq_cst_system(%m: memref<4xi32, #symm.heap>, %x: i32, %y: i32, %out: memref<4xi32, #symm.heap>) kernel {
    %c0 = arith.constant 0 : index
    %v = symm.load %m[%c0] ordering(seq_cst) scope(system) : memref<4xi32, #symm.heap> -> i32
    memref.store %v, %out[%c0] : memref<4xi32, #symm.heap>
    gpu.return
  }
  gpu.func @store_relaxed_system(%m: memref<4xi32, #symm.heap>, %x: i32, %y: i32, %out: memref<4xi32, #symm.heap>) kernel {
    %c0 = arith.constant 0 : index
    symm.store %x, %m[%c0] ordering(relaxed) scope(system) : i32 -> memref<4xi32, #symm.heap>
    gpu.return
  }
  gpu.func @store_release_system(%m: memref<4xi32, #symm.heap>, %x: i32, %y: i32, %out: memref<4xi32, #symm.heap>) kernel {
    %c0 = arith.constant 0 : index
    symm.store %x, %m[%c0] ordering(release) scope(system) : i32 -> memref<4xi32, #symm.heap>
    gpu.return
  }
  gpu.func @store_seq_cst_system(%m: memref<4xi32, #symm.heap>, %x: i32, %y: i32, %out: memref<4xi32, #symm.heap>) kernel {
    %c0 = arith.constant 0 : index
    symm.store %x, %m[%c0] ordering(seq_cst) scope(system) : i32 -> memref<4xi32, #symm.heap>
    gpu.return
  }
  gpu.func @rmw_relaxed_system(%m: memref<4xi32, #symm.heap>, %x: i32, %y: i32, %out: memref<4xi32, #symm.heap>) kernel {
    %c0 = arith.constant 0 : index
    %v = symm.atomic_rmw add %x, %m[%c0] ordering(relaxed) scope(system) : i32 -> memref<4xi32, #symm.heap>
    memref.store %v, %out[%c0] : memref<4xi32, #symm.heap>
    gpu.return
  }
  gpu.func @cas_relaxed_system(%m: memref<4xi32, #symm.heap>, %x: i32, %y: i32, %out: memref<4xi32, #symm.heap>) kernel {
    %c0 = arith.constant 0 : index
    %v = symm.atomic_cas %x, %y, %m[%c0] ordering(relaxed) scope(system) : i32 -> memref<4xi32, #symm.heap>
    memref.store %v, %out[%c0] : memref<4xi32, #symm.heap>
    gpu.return
  }
  gpu.func @rmw_acquire_system(%m: memref<4xi32, #symm.heap>, %x: i32, %y: i32, %out: memref<4xi32, #symm.heap>) kernel {
    %c0 = arith.constant 0 : index
    %v = symm.atomic_rmw add %x, %m[%c0] ordering(acquire) scope(system) : i32 -> memref<4xi32, #symm.heap>
    memref.store %v, %out[%c0] : memref<4xi32, #symm.heap>
    gpu.return
  }
  gpu.func @cas_acquire_system(%m: memref<4xi32, #symm.heap>, %x: i32, %y: i32, %out: memref<4xi32, #symm.heap>) kernel {
    %c0 = arith.constant 0 : index
    %v = symm.atomic_cas %x, %y, %m[%c0] ordering(acquire) scope(system) : i32 -> memref<4xi32, #symm.heap>
    memref.store %v, %out[%c0] : memref<4xi32, #symm.heap>
    gpu.return
  }
  gpu.func @rmw_release_system(%m: memref<4xi32, #symm.heap>, %x: i32, %y: i32, %out: memref<4xi32, #symm.heap>) kernel {
    %c0 = arith.constant 0 : index
    %v = symm.atomic_rmw add %x, %m[%c0] ordering(release) scope(system) : i32 -> memref<4xi32, #symm.heap>
    memref.store %v, %out[%c0] : memref<4xi32, #symm.heap>
    gpu.return
  }
  gpu.func @cas_release_system(%m: memref<4xi32, #symm.heap>, %x: i32, %y: i32, %out: memref<4xi32, #symm.heap>) kernel {
    %c0 = arith.constant 0 : index
    %v = symm.atomic_cas %x, %y, %m[%c0] ordering(release) scope(system) : i32 -> memref<4xi32, #symm.heap>
    memref.store %v, %out[%c0] : memref<4xi32, #symm.heap>
    gpu.return
  }
  gpu.func @rmw_acq_rel_system(%m: memref<4xi32, #symm.heap>, %x: i32, %y: i32, %out: memref<4xi32, #symm.heap>) kernel {
    %c0 = arith.constant 0 : index
    %v = symm.atomic_rmw add %x, %m[%c0] ordering(acq_rel) scope(system) : i32 -> memref<4xi32, #symm.heap>
    memref.store %v, %out[%c0] : memref<4xi32, #symm.heap>
    gpu.return
  }
  gpu.func @cas_acq_rel_system(%m: memref<4xi32, #symm.heap>, %x: i32, %y: i32, %out: memref<4xi32, #symm.heap>) kernel {
    %c0 = arith.constant 0 : index
    %v = symm.atomic_cas %x, %y, %m[%c0] ordering(acq_rel) scope(system) : i32 -> memref<4xi32, #symm.heap>
    memref.store %v, %out[%c0] : memref<4xi32, #symm.heap>
    gpu.return
  }
  gpu.func @rmw_seq_cst_system(%m: memref<4xi32, #symm.heap>, %x: i32, %y: i32, %out: memref<4xi32, #symm.heap>) kernel {
    %c0 = arith.constant 0 : index
    %v = symm.atomic_rmw add %x, %m[%c0] ordering(seq_cst) scope(system) : i32 -> memref<4xi32, #symm.heap>
    memref.store %v, %out[%c0] : memref<4xi32, #symm.heap>
    gpu.return
  }
  gpu.func @cas_seq_cst_system(%m: memref<4xi32, #symm.heap>, %x: i32, %y: i32, %out: memref<4xi32, #symm.heap>) kernel {
    %c0 = arith.constant 0 : index
    %v = symm.atomic_cas %x, %y, %m[%c0] ordering(seq_cst) scope(system) : i32 -> memref<4xi32, #symm.heap>
    memref.store %v, %out[%c0] : memref<4xi32, #symm.heap>
    gpu.return
  }
  gpu.func @red_relaxed_system(%m: memref<4xi32, #symm.heap>, %x: i32, %y: i32, %out: memref<4xi32, #symm.heap>) kernel {
    %c0 = arith.constant 0 : index
    %v = symm.atomic_rmw add %x, %m[%c0] ordering(relaxed) scope(system) : i32 -> memref<4xi32, #symm.heap>
    gpu.return
  }
  gpu.func @red_release_system(%m: memref<4xi32, #symm.heap>, %x: i32, %y: i32, %out: memref<4xi32, #symm.heap>) kernel {
    %c0 = arith.constant 0 : index
    %v = symm.atomic_rmw add %x, %m[%c0] ordering(release) scope(system) : i32 -> memref<4xi32, #symm.heap>
    gpu.return
  }
  gpu.func @fence_acquire_system(%m: memref<4xi32, #symm.heap>, %x: i32, %y: i32, %out: memref<4xi32, #symm.heap>) kernel {
    %c0 = arith.constant 0 : index
    symm.fence ordering(acquire) scope(system)
    gpu.return
  }
  gpu.func @fence_release_system(%m: memref<4xi32, #symm.heap>, %x: i32, %y: i32, %out: memref<4xi32, #symm.heap>) kernel {
    %c0 = arith.constant 0 : index
    symm.fence ordering(release) scope(system)
    gpu.return
  }
  gpu.func @fence_acq_rel_system(%m: memref<4xi32, #symm.heap>, %x: i32, %y: i32, %out: memref<4xi32, #symm.heap>) kernel {
    %c0 = arith.constant 0 : index
    symm.fence ordering(acq_rel) scope(system)
    gpu.return
  }
  gpu.func @fence_seq_cst_system(%m: memref<4xi32, #symm.heap>, %x: i32, %y: i32, %out: memref<4xi32, #symm.heap>) kernel {
    %c0 = arith.constant 0 : index
    symm.fence ordering(seq_cst) scope(system)
    gpu.return
  }
}
