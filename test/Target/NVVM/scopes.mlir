// Every ordered access x ordering x scope on sm_90: LLVM atomics carry their
// ordering and scope into PTX; read-modify-writes are inline PTX because
// LLVM 22 prints atomicrmw as a relaxed .gpu atom; seq_cst is fence.sc first.
// RUN: symm-compile --target=sm_90 --emit=ptx %s -o - | FileCheck %s --check-prefix=PTX
// RUN: symm-compile --target=sm_80 --emit=ptx %s -o - | FileCheck %s --check-prefix=PTX

// PTX-LABEL: .entry load_relaxed_workgroup(
// PTX: ld.relaxed.cta.global.b32
// PTX-LABEL: .entry load_acquire_workgroup(
// PTX: ld.acquire.cta.global.b32
// PTX-LABEL: .entry load_seq_cst_workgroup(
// PTX: fence.sc.cta;
// PTX: ld.acquire.cta.global.b32
// PTX-LABEL: .entry store_relaxed_workgroup(
// PTX: st.relaxed.cta.global.b32
// PTX-LABEL: .entry store_release_workgroup(
// PTX: st.release.cta.global.b32
// PTX-LABEL: .entry store_seq_cst_workgroup(
// PTX: fence.sc.cta;
// PTX: st.release.cta.global.b32
// PTX-LABEL: .entry rmw_relaxed_workgroup(
// PTX: atom.relaxed.cta.global.add.u32
// PTX-LABEL: .entry cas_relaxed_workgroup(
// PTX: atom.relaxed.cta.global.cas.b32
// PTX-LABEL: .entry rmw_acquire_workgroup(
// PTX: atom.acquire.cta.global.add.u32
// PTX-LABEL: .entry cas_acquire_workgroup(
// PTX: atom.acquire.cta.global.cas.b32
// PTX-LABEL: .entry rmw_release_workgroup(
// PTX: atom.release.cta.global.add.u32
// PTX-LABEL: .entry cas_release_workgroup(
// PTX: atom.release.cta.global.cas.b32
// PTX-LABEL: .entry rmw_acq_rel_workgroup(
// PTX: atom.acq_rel.cta.global.add.u32
// PTX-LABEL: .entry cas_acq_rel_workgroup(
// PTX: atom.acq_rel.cta.global.cas.b32
// PTX-LABEL: .entry rmw_seq_cst_workgroup(
// PTX: fence.sc.cta;
// PTX: atom.acquire.cta.global.add.u32
// PTX-LABEL: .entry cas_seq_cst_workgroup(
// PTX: fence.sc.cta;
// PTX: atom.acquire.cta.global.cas.b32
// PTX-LABEL: .entry red_relaxed_workgroup(
// PTX-NOT: atom.
// PTX: red.relaxed.cta.global.add.u32
// PTX-LABEL: .entry red_release_workgroup(
// PTX-NOT: atom.
// PTX: red.release.cta.global.add.u32
// PTX-LABEL: .entry fence_acquire_workgroup(
// PTX: fence.acq_rel.cta;
// PTX-LABEL: .entry fence_release_workgroup(
// PTX: fence.acq_rel.cta;
// PTX-LABEL: .entry fence_acq_rel_workgroup(
// PTX: fence.acq_rel.cta;
// PTX-LABEL: .entry fence_seq_cst_workgroup(
// PTX: fence.sc.cta;
// PTX-LABEL: .entry load_relaxed_device(
// PTX: ld.relaxed.gpu.global.b32
// PTX-LABEL: .entry load_acquire_device(
// PTX: ld.acquire.gpu.global.b32
// PTX-LABEL: .entry load_seq_cst_device(
// PTX: fence.sc.gpu;
// PTX: ld.acquire.gpu.global.b32
// PTX-LABEL: .entry store_relaxed_device(
// PTX: st.relaxed.gpu.global.b32
// PTX-LABEL: .entry store_release_device(
// PTX: st.release.gpu.global.b32
// PTX-LABEL: .entry store_seq_cst_device(
// PTX: fence.sc.gpu;
// PTX: st.release.gpu.global.b32
// PTX-LABEL: .entry rmw_relaxed_device(
// PTX: atom.relaxed.gpu.global.add.u32
// PTX-LABEL: .entry cas_relaxed_device(
// PTX: atom.relaxed.gpu.global.cas.b32
// PTX-LABEL: .entry rmw_acquire_device(
// PTX: atom.acquire.gpu.global.add.u32
// PTX-LABEL: .entry cas_acquire_device(
// PTX: atom.acquire.gpu.global.cas.b32
// PTX-LABEL: .entry rmw_release_device(
// PTX: atom.release.gpu.global.add.u32
// PTX-LABEL: .entry cas_release_device(
// PTX: atom.release.gpu.global.cas.b32
// PTX-LABEL: .entry rmw_acq_rel_device(
// PTX: atom.acq_rel.gpu.global.add.u32
// PTX-LABEL: .entry cas_acq_rel_device(
// PTX: atom.acq_rel.gpu.global.cas.b32
// PTX-LABEL: .entry rmw_seq_cst_device(
// PTX: fence.sc.gpu;
// PTX: atom.acquire.gpu.global.add.u32
// PTX-LABEL: .entry cas_seq_cst_device(
// PTX: fence.sc.gpu;
// PTX: atom.acquire.gpu.global.cas.b32
// PTX-LABEL: .entry red_relaxed_device(
// PTX-NOT: atom.
// PTX: red.relaxed.gpu.global.add.u32
// PTX-LABEL: .entry red_release_device(
// PTX-NOT: atom.
// PTX: red.release.gpu.global.add.u32
// PTX-LABEL: .entry fence_acquire_device(
// PTX: fence.acq_rel.gpu;
// PTX-LABEL: .entry fence_release_device(
// PTX: fence.acq_rel.gpu;
// PTX-LABEL: .entry fence_acq_rel_device(
// PTX: fence.acq_rel.gpu;
// PTX-LABEL: .entry fence_seq_cst_device(
// PTX: fence.sc.gpu;
// PTX-LABEL: .entry load_relaxed_system(
// PTX: ld.relaxed.sys.global.b32
// PTX-LABEL: .entry load_acquire_system(
// PTX: ld.acquire.sys.global.b32
// PTX-LABEL: .entry load_seq_cst_system(
// PTX: fence.sc.sys;
// PTX: ld.acquire.sys.global.b32
// PTX-LABEL: .entry store_relaxed_system(
// PTX: st.relaxed.sys.global.b32
// PTX-LABEL: .entry store_release_system(
// PTX: st.release.sys.global.b32
// PTX-LABEL: .entry store_seq_cst_system(
// PTX: fence.sc.sys;
// PTX: st.release.sys.global.b32
// PTX-LABEL: .entry rmw_relaxed_system(
// PTX: atom.relaxed.sys.global.add.u32
// PTX-LABEL: .entry cas_relaxed_system(
// PTX: atom.relaxed.sys.global.cas.b32
// PTX-LABEL: .entry rmw_acquire_system(
// PTX: atom.acquire.sys.global.add.u32
// PTX-LABEL: .entry cas_acquire_system(
// PTX: atom.acquire.sys.global.cas.b32
// PTX-LABEL: .entry rmw_release_system(
// PTX: atom.release.sys.global.add.u32
// PTX-LABEL: .entry cas_release_system(
// PTX: atom.release.sys.global.cas.b32
// PTX-LABEL: .entry rmw_acq_rel_system(
// PTX: atom.acq_rel.sys.global.add.u32
// PTX-LABEL: .entry cas_acq_rel_system(
// PTX: atom.acq_rel.sys.global.cas.b32
// PTX-LABEL: .entry rmw_seq_cst_system(
// PTX: fence.sc.sys;
// PTX: atom.acquire.sys.global.add.u32
// PTX-LABEL: .entry cas_seq_cst_system(
// PTX: fence.sc.sys;
// PTX: atom.acquire.sys.global.cas.b32
// PTX-LABEL: .entry red_relaxed_system(
// PTX-NOT: atom.
// PTX: red.relaxed.sys.global.add.u32
// PTX-LABEL: .entry red_release_system(
// PTX-NOT: atom.
// PTX: red.release.sys.global.add.u32
// PTX-LABEL: .entry fence_acquire_system(
// PTX: fence.acq_rel.sys;
// PTX-LABEL: .entry fence_release_system(
// PTX: fence.acq_rel.sys;
// PTX-LABEL: .entry fence_acq_rel_system(
// PTX: fence.acq_rel.sys;
// PTX-LABEL: .entry fence_seq_cst_system(
// PTX: fence.sc.sys;
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
