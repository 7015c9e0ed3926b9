// RUN: symm-opt %s -allow-unregistered-dialect -symm-translate-to-heap-base -split-input-file -verify-diagnostics | FileCheck %s
// RUN: symm-opt %s -allow-unregistered-dialect -symm-translate-to-heap-base="kernel-context=argument" -split-input-file -verify-diagnostics | FileCheck %s --check-prefix=ARG

// Peer value ops become translate + local op; plain accesses become memref and
// vector accesses (vectors aligned to their size), ordered ones stay symm ops.
// CHECK-LABEL: gpu.func @values
// CHECK-SAME: (%[[BUF:.*]]: memref<?xf32, #symm.heap>, %[[FLAGS:.*]]: memref<?xi32, #symm.heap>, %[[I:.*]]: index, %[[P:.*]]: i32, %[[X:.*]]: i32, %[[F:.*]]: f32)
// CHECK: %[[TB:.*]] = symm.translate %[[BUF]] to %[[P]] : memref<?xf32, #symm.heap>
// CHECK: %[[V:.*]] = vector.load %[[TB]][%[[I]]] {alignment = 16 : i64} : memref<?xf32, #symm.heap>, vector<4xf32>
// CHECK: vector.store %[[V]], %[[TB]][%[[I]]] {alignment = 4 : i64}
// CHECK: memref.load %[[TB]][%[[I]]] : memref<?xf32, #symm.heap>
// CHECK: memref.store %[[F]], %[[TB]][%[[I]]]
// CHECK: %[[TF:.*]] = symm.translate %[[FLAGS]] to %[[P]] : memref<?xi32, #symm.heap>
// CHECK-NOT: symm.translate
// CHECK: symm.load %[[TF]][%[[I]]] ordering(acquire) scope(system) : memref<?xi32, #symm.heap> -> i32
// CHECK: symm.store %[[X]], %[[TF]][%[[I]]] ordering(release) scope(device) : i32 -> memref<?xi32, #symm.heap>
// CHECK: symm.atomic_rmw add %[[X]], %[[TF]][%[[I]]] ordering(acq_rel) scope(system)
// CHECK: symm.atomic_cas %[[X]], %[[X]], %[[TF]][%[[I]]] ordering(seq_cst) scope(workgroup)
// Signals: a release store for set, a release add for add.
// CHECK: symm.store %[[X]], %[[TF]][%[[I]]] ordering(release) scope(system)
// CHECK: symm.atomic_rmw add %[[X]], %[[TF]][%[[I]]] ordering(release) scope(device)
// Local accesses without a peer are not translated.
// CHECK: memref.load %[[BUF]][%[[I]]]
gpu.module @m {
  gpu.func @values(%buf: memref<?xf32, #symm.heap>, %flags: memref<?xi32, #symm.heap>, %i: index, %p: i32, %x: i32, %f: f32) kernel {
    %v = symm.load %buf[%i] from %p : memref<?xf32, #symm.heap> -> vector<4xf32>
    symm.store %v, %buf[%i] to %p {alignment = 4 : i64} : vector<4xf32> -> memref<?xf32, #symm.heap>
    %s = symm.load %buf[%i] from %p : memref<?xf32, #symm.heap> -> f32
    symm.store %f, %buf[%i] to %p : f32 -> memref<?xf32, #symm.heap>
    %a = symm.load %flags[%i] from %p ordering(acquire) scope(system) : memref<?xi32, #symm.heap> -> i32
    symm.store %x, %flags[%i] to %p ordering(release) scope(device) : i32 -> memref<?xi32, #symm.heap>
    %o = symm.atomic_rmw add %x, %flags[%i] on %p ordering(acq_rel) scope(system) : i32 -> memref<?xi32, #symm.heap>
    %c = symm.atomic_cas %x, %x, %flags[%i] on %p ordering(seq_cst) scope(workgroup) : i32 -> memref<?xi32, #symm.heap>
    symm.signal set %x, %flags[%i] on %p scope(system) : i32 -> memref<?xi32, #symm.heap>
    symm.signal add %x, %flags[%i] on %p scope(device) : i32 -> memref<?xi32, #symm.heap>
    %l = symm.load %buf[%i] : memref<?xf32, #symm.heap> -> f32
    "test.use"(%s, %a, %o, %c, %l) : (f32, i32, i32, i32, f32) -> ()
    gpu.return
  }
}

// -----

// A peer that is this rank needs no translation.
// CHECK-LABEL: gpu.func @own_rank
// CHECK-NOT: symm.translate
// CHECK: memref.store
gpu.module @m {
  gpu.func @own_rank(%buf: memref<?xf32, #symm.heap>, %i: index, %f: f32) kernel {
    %me = symm.rank : i32
    symm.store %f, %buf[%i] to %me : f32 -> memref<?xf32, #symm.heap>
    gpu.return
  }
}

// -----

// Translations leave loops (with the rank arithmetic they use) and are
// de-duplicated.
// CHECK-LABEL: gpu.func @hoist
// CHECK: %[[ME:.*]] = symm.rank
// CHECK: %[[T:.*]] = symm.translate %{{.*}} to %{{.*}} : memref<?xf32, #symm.heap>
// CHECK-NOT: symm.translate
// CHECK: scf.for
// CHECK-NOT: symm.translate
// CHECK: memref.load %[[T]]
// CHECK: memref.store %{{.*}}, %[[T]]
gpu.module @m {
  gpu.func @hoist(%buf: memref<?xf32, #symm.heap>, %n: index) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    scf.for %i = %c0 to %n step %c1 {
      %me = symm.rank : i32
      %one = arith.constant 1 : i32
      %p = arith.addi %me, %one : i32
      %v = symm.load %buf[%i] from %p : memref<?xf32, #symm.heap> -> f32
      symm.store %v, %buf[%i] to %p : f32 -> memref<?xf32, #symm.heap>
    }
    gpu.return
  }
}

// -----

// A translation whose peer changes with the loop stays inside.
// CHECK-LABEL: gpu.func @per_iteration_peer
// CHECK: scf.for %[[K:.*]] =
// CHECK: %[[P:.*]] = arith.index_cast %[[K]]
// CHECK: symm.translate %{{.*}} to %[[P]]
gpu.module @m {
  gpu.func @per_iteration_peer(%buf: memref<?xf32, #symm.heap>, %n: index, %f: f32) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    scf.for %k = %c0 to %n step %c1 {
      %p = arith.index_cast %k : index to i32
      symm.store %f, %buf[%c0] to %p : f32 -> memref<?xf32, #symm.heap>
    }
    gpu.return
  }
}

// -----

// wait: an acquire spin loop with a back-off, returning the value seen.
// CHECK-LABEL: gpu.func @wait
// CHECK-SAME: (%[[F:.*]]: memref<?xi32, #symm.heap>, %[[I:.*]]: index, %[[X:.*]]: i32, %[[P:.*]]: i32)
// CHECK: %[[T:.*]] = symm.translate %[[F]] to %[[P]]
// CHECK: %[[R:.*]] = scf.while : () -> i32 {
// CHECK:   %[[S:.*]] = symm.load %[[T]][%[[I]]] ordering(acquire) scope(device)
// CHECK:   %[[OK:.*]] = arith.cmpi sge, %[[S]], %[[X]] : i32
// CHECK:   %[[NOT:.*]] = arith.xori %[[OK]], %{{.*}} : i1
// CHECK:   scf.condition(%[[NOT]]) %[[S]] : i32
// CHECK: } do {
// CHECK:   symm.backoff 200
// CHECK:   scf.yield
// CHECK: arith.cmpi eq
// CHECK: arith.cmpi ne
// CHECK: arith.cmpi slt
// CHECK: arith.cmpi sle
// CHECK: arith.cmpi sgt
// CHECK: symm.backoff{{$}}
// CHECK: "test.use"(%[[R]])
gpu.module @m {
  gpu.func @wait(%f: memref<?xi32, #symm.heap>, %i: index, %x: i32, %p: i32) kernel {
    %r = symm.wait %f[%i] from %p ge %x scope(device) backoff(200) : memref<?xi32, #symm.heap> -> i32
    %0 = symm.wait %f[%i] eq %x scope(system) : memref<?xi32, #symm.heap> -> i32
    %1 = symm.wait %f[%i] ne %x scope(system) : memref<?xi32, #symm.heap> -> i32
    %2 = symm.wait %f[%i] lt %x scope(system) : memref<?xi32, #symm.heap> -> i32
    %3 = symm.wait %f[%i] le %x scope(system) : memref<?xi32, #symm.heap> -> i32
    %4 = symm.wait %f[%i] gt %x scope(system) : memref<?xi32, #symm.heap> -> i32
    "test.use"(%r) : (i32) -> ()
    gpu.return
  }
}

// -----

// put of a strided 2-D f16 tile: 16-byte (8 x f16) accesses when both sides are
// aligned at run time, a peeled head and tail when both are misaligned alike,
// element accesses otherwise; a release barrier at the signal's scope, then
// thread 0 raises the signal.
// CHECK-LABEL: gpu.func @put_signal
// CHECK-SAME: (%[[SRC:.*]]: memref<64x64xf16, strided<[?, 1], offset: ?>>, %[[DST:.*]]: memref<64x64xf16, strided<[?, 1], offset: ?>, #symm.heap>, %[[FLAGS:.*]]: memref<?xi32, #symm.heap>, %[[T:.*]]: index, %[[P:.*]]: i32, %[[C:.*]]: i32)
// CHECK-DAG: %[[TD:.*]] = symm.translate %[[DST]] to %[[P]]
// CHECK-DAG: gpu.thread_id x
// CHECK-DAG: gpu.block_dim z
// CHECK: memref.extract_aligned_pointer_as_index %[[SRC]]
// CHECK: memref.extract_aligned_pointer_as_index %[[TD]]
// CHECK: scf.if
// CHECK:   scf.for
// CHECK:     %[[V:.*]] = vector.load %[[SRC]][{{.*}}] {alignment = 16 : i64} : {{.*}}, vector<8xf16>
// CHECK:     vector.store %[[V]], %[[TD]][{{.*}}] {alignment = 16 : i64}
// Same misalignment on both sides: peel to the 16-byte boundary.
// CHECK: } else {
// CHECK:   scf.if
// CHECK:     scf.for
// CHECK:       arith.maxsi
// CHECK:       arith.minsi
// CHECK:       scf.if
// CHECK:         vector.load %[[SRC]]{{.*}} {alignment = 16 : i64}
// CHECK:       } else {
// CHECK:         scf.for
// CHECK:           memref.load %[[SRC]]
// Different misalignment: element by element.
// CHECK:   } else {
// CHECK:     scf.for
// CHECK:       memref.load %[[SRC]]
// CHECK:       memref.store %{{.*}}, %[[TD]]
// CHECK-NOT: symm.fence
// CHECK: symm.release_barrier scope(system)
// CHECK-NOT: symm.fence
// CHECK: scf.if
// CHECK:   %[[TF:.*]] = symm.translate %[[FLAGS]] to %[[P]]
// CHECK:   symm.atomic_rmw add %[[C]], %[[TF]][%[[T]]] ordering(release) scope(system)
gpu.module @m {
  gpu.func @put_signal(%src: memref<64x64xf16, strided<[?, 1], offset: ?>>,
                       %dst: memref<64x64xf16, strided<[?, 1], offset: ?>, #symm.heap>,
                       %flags: memref<?xi32, #symm.heap>, %t: index, %p: i32, %c: i32) kernel {
    symm.put %src to %dst on %p signal(add %c, %flags[%t] : memref<?xi32, #symm.heap>) scope(system) : memref<64x64xf16, strided<[?, 1], offset: ?>> -> memref<64x64xf16, strided<[?, 1], offset: ?>, #symm.heap>
    gpu.return
  }
}

// -----

// A row length that is not a multiple of the vector width gets a scalar tail;
// get translates its source and ends with a workgroup barrier.
// CHECK-LABEL: gpu.func @get_tail
// CHECK-SAME: (%[[SRC:.*]]: memref<4x10xf32, #symm.heap>, %[[DST:.*]]: memref<4x10xf32, #gpu.address_space<workgroup>>, %[[P:.*]]: i32)
// CHECK: %[[TS:.*]] = symm.translate %[[SRC]] to %[[P]]
// CHECK: scf.if
// CHECK:   scf.for
// CHECK:     scf.if
// CHECK:       vector.load %[[TS]]{{.*}} vector<4xf32>
// CHECK:     } else {
// CHECK:       scf.for
// CHECK:         memref.load %[[TS]]
// CHECK: gpu.barrier
// CHECK-NEXT: gpu.return
gpu.module @m {
  gpu.func @get_tail(%src: memref<4x10xf32, #symm.heap>, %dst: memref<4x10xf32, #gpu.address_space<workgroup>>, %p: i32) kernel {
    symm.get %src from %p to %dst : memref<4x10xf32, #symm.heap> -> memref<4x10xf32, #gpu.address_space<workgroup>>
    gpu.return
  }
}

// -----

// put reads its source as it stands: a tile other threads of the workgroup
// wrote into workgroup memory needs the kernel's own barrier before the put,
// and a put without a signal adds none.
// CHECK-LABEL: gpu.func @put_from_workgroup
// CHECK: memref.store
// CHECK-NEXT: gpu.barrier
// CHECK-NOT: gpu.barrier
// CHECK: memref.load
// CHECK-NOT: gpu.barrier
// CHECK: gpu.return
gpu.module @m {
  gpu.func @put_from_workgroup(%src: memref<64xf32, #gpu.address_space<workgroup>>, %dst: memref<64xf32, #symm.heap>, %p: i32, %v: f32) kernel {
    %tid = gpu.thread_id x
    memref.store %v, %src[%tid] : memref<64xf32, #gpu.address_space<workgroup>>
    gpu.barrier
    symm.put %src to %dst on %p : memref<64xf32, #gpu.address_space<workgroup>> -> memref<64xf32, #symm.heap>
    gpu.return
  }
}

// -----

// copy translates both sides; element types wider than 16 bytes or not a
// whole number of bytes are copied element by element.
// CHECK-LABEL: gpu.func @copy
// CHECK-DAG: symm.translate %{{.*}} to %[[A:.*]] :
// CHECK-DAG: symm.translate %{{.*}} to %[[B:.*]] :
// CHECK-NOT: vector.load
// CHECK: memref.load
gpu.module @m {
  gpu.func @copy(%src: memref<16xi1, #symm.heap>, %dst: memref<16xi1, #symm.heap>, %a: i32, %b: i32) kernel {
    symm.copy %src from %a to %dst on %b : memref<16xi1, #symm.heap> -> memref<16xi1, #symm.heap>
    gpu.return
  }
}

// -----

// The kernel context as a trailing argument.
// ARG-LABEL: gpu.func @needs_context
// ARG-SAME: %{{.*}}: !llvm.ptr<1>) kernel attributes {symm.context_argument}
// ARG-LABEL: gpu.func @no_context
// ARG-SAME: (%{{.*}}: memref<4xf32>) kernel {
gpu.module @m {
  gpu.func @needs_context(%buf: memref<4xf32, #symm.heap>, %p: i32, %f: f32) kernel {
    %c0 = arith.constant 0 : index
    symm.store %f, %buf[%c0] to %p : f32 -> memref<4xf32, #symm.heap>
    gpu.return
  }
  gpu.func @no_context(%buf: memref<4xf32>) kernel {
    gpu.return
  }
}

// -----

// Host code cannot hold tiles (the verifier says so); a device function is not
// a kernel, whose whole workgroup reaches the copy.
gpu.module @m {
  func.func @tile_in_device_function(%s: memref<4xf32>, %d: memref<4xf32, #symm.heap>, %p: i32) {
    // expected-error @+1 {{'symm.put' op is workgroup-cooperative and must be inside a GPU kernel (gpu.func or gpu.launch)}}
    symm.put %s to %d on %p : memref<4xf32> -> memref<4xf32, #symm.heap>
    return
  }
}
