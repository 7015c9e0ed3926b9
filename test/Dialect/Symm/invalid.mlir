// RUN: symm-opt %s -split-input-file -verify-diagnostics

func.func @peer_on_non_heap(%m: memref<4xf32>, %i: index, %p: i32) {
  // expected-error @+1 {{peer access requires a memref in #symm.heap, got 'memref<4xf32>'}}
  %v = symm.load %m[%i] from %p : memref<4xf32> -> f32
  return
}

// -----

func.func @peer_store_on_non_heap(%m: memref<4xf32>, %i: index, %p: i32, %x: f32) {
  // expected-error @+1 {{peer access requires a memref in #symm.heap}}
  symm.store %x, %m[%i] to %p : f32 -> memref<4xf32>
  return
}

// -----

func.func @peer_rmw_on_non_heap(%m: memref<4xi32>, %i: index, %p: i32, %x: i32) {
  // expected-error @+1 {{peer access requires a memref in #symm.heap}}
  %o = symm.atomic_rmw add %x, %m[%i] on %p ordering(relaxed) scope(system) : i32 -> memref<4xi32>
  return
}

// -----

func.func @acquire_store(%m: memref<4xi32, #symm.heap>, %i: index, %x: i32) {
  // expected-error @+1 {{a store cannot have acquire ordering; use relaxed, release or seq_cst}}
  symm.store %x, %m[%i] ordering(acquire) scope(system) : i32 -> memref<4xi32, #symm.heap>
  return
}

// -----

func.func @acq_rel_store(%m: memref<4xi32, #symm.heap>, %i: index, %x: i32) {
  // expected-error @+1 {{a store cannot have acq_rel ordering}}
  symm.store %x, %m[%i] ordering(acq_rel) scope(device) : i32 -> memref<4xi32, #symm.heap>
  return
}

// -----

func.func @release_load(%m: memref<4xi32, #symm.heap>, %i: index) {
  // expected-error @+1 {{a load cannot have release ordering; use relaxed, acquire or seq_cst}}
  %v = symm.load %m[%i] ordering(release) scope(system) : memref<4xi32, #symm.heap> -> i32
  return
}

// -----

func.func @acq_rel_load(%m: memref<4xi32, #symm.heap>, %i: index) {
  // expected-error @+1 {{a load cannot have acq_rel ordering}}
  %v = symm.load %m[%i] ordering(acq_rel) scope(system) : memref<4xi32, #symm.heap> -> i32
  return
}

// -----

func.func @ordered_vector_load(%m: memref<8xi32, #symm.heap>, %i: index) {
  // expected-error @+1 {{an ordered access is a scalar atomic; result type 'vector<4xi32>' must be the element type 'i32'}}
  %v = symm.load %m[%i] ordering(acquire) scope(system) : memref<8xi32, #symm.heap> -> vector<4xi32>
  return
}

// -----

func.func @ordered_vector_store(%m: memref<8xi32, #symm.heap>, %i: index, %v: vector<4xi32>) {
  // expected-error @+1 {{an ordered access is a scalar atomic; value type 'vector<4xi32>'}}
  symm.store %v, %m[%i] ordering(release) scope(system) : vector<4xi32> -> memref<8xi32, #symm.heap>
  return
}

// -----

func.func @ordering_without_scope(%m: memref<4xi32>, %i: index) {
  // expected-error @+1 {{ordering and scope must be given together}}
  %v = "symm.load"(%m, %i) <{ordering = 1 : i32, operandSegmentSizes = array<i32: 1, 1, 0>}> : (memref<4xi32>, index) -> i32
  return
}

// -----

func.func @index_count(%m: memref<4x4xf32, #symm.heap>, %i: index) {
  // expected-error @+1 {{expects 2 indices for 'memref<4x4xf32, #symm.heap>', got 1}}
  %v = symm.load %m[%i] : memref<4x4xf32, #symm.heap> -> f32
  return
}

// -----

func.func @index_count_rmw(%m: memref<4xi32>, %i: index, %x: i32) {
  // expected-error @+1 {{expects 1 indices for 'memref<4xi32>', got 2}}
  %o = symm.atomic_rmw add %x, %m[%i, %i] ordering(relaxed) scope(system) : i32 -> memref<4xi32>
  return
}

// -----

func.func @load_element_type(%m: memref<4xf32, #symm.heap>, %i: index) {
  // expected-error @+1 {{result type 'f16' does not match the memref element type 'f32'}}
  %v = symm.load %m[%i] : memref<4xf32, #symm.heap> -> f16
  return
}

// -----

func.func @store_vector_element_type(%m: memref<8xf32, #symm.heap>, %i: index, %v: vector<4xi32>) {
  // expected-error @+1 {{value vector element type 'i32' does not match the memref element type 'f32'}}
  symm.store %v, %m[%i] : vector<4xi32> -> memref<8xf32, #symm.heap>
  return
}

// -----

func.func @ordered_index_element(%m: memref<4xindex>, %i: index) {
  // expected-error @+1 {{an ordered access requires an integer or float element type, got 'index'}}
  %v = symm.load %m[%i] ordering(acquire) scope(system) : memref<4xindex> -> index
  return
}

// -----

func.func @float_kind_on_int(%m: memref<4xi32, #symm.heap>, %i: index, %x: i32) {
  // expected-error @+1 {{'fadd' requires a float type, got 'i32'}}
  %o = symm.atomic_rmw fadd %x, %m[%i] ordering(relaxed) scope(system) : i32 -> memref<4xi32, #symm.heap>
  return
}

// -----

func.func @int_kind_on_float(%m: memref<4xf32, #symm.heap>, %i: index, %x: f32) {
  // expected-error @+1 {{'add' requires an integer type, got 'f32' (use fadd, fmax, fmin or xchg on floats)}}
  %o = symm.atomic_rmw add %x, %m[%i] ordering(relaxed) scope(system) : f32 -> memref<4xf32, #symm.heap>
  return
}

// -----

func.func @rmw_vector(%m: memref<8xi32, #symm.heap>, %i: index, %x: vector<2xi32>) {
  // expected-error @+1 {{atomics are scalar, got 'vector<2xi32>'}}
  %o = symm.atomic_rmw add %x, %m[%i] ordering(relaxed) scope(system) : vector<2xi32> -> memref<8xi32, #symm.heap>
  return
}

// -----

func.func @rmw_element_type(%m: memref<8xi64, #symm.heap>, %i: index, %x: i32) {
  // expected-error @+1 {{value type 'i32' does not match the memref element type 'i64'}}
  %o = symm.atomic_rmw add %x, %m[%i] ordering(relaxed) scope(system) : i32 -> memref<8xi64, #symm.heap>
  return
}

// -----

func.func @cas_vector(%m: memref<8xi32, #symm.heap>, %i: index, %x: vector<2xi32>) {
  // expected-error @+1 {{compare-and-swap requires a scalar integer, got 'vector<2xi32>'}}
  %o = symm.atomic_cas %x, %x, %m[%i] ordering(acq_rel) scope(system) : vector<2xi32> -> memref<8xi32, #symm.heap>
  return
}

// -----

func.func @cas_float(%m: memref<8xf32, #symm.heap>, %i: index, %x: f32) {
  // expected-error @+1 {{compare-and-swap requires a scalar integer, got 'f32'}}
  %o = symm.atomic_cas %x, %x, %m[%i] ordering(acq_rel) scope(system) : f32 -> memref<8xf32, #symm.heap>
  return
}

// -----

func.func @wait_value_type(%m: memref<8xi32, #symm.heap>, %i: index, %x: i64) {
  // expected-note @-1 {{prior use here}}
  // expected-error @+1 {{use of value '%x' expects different type than prior uses: 'i32' vs 'i64'}}
  %o = symm.wait %m[%i] ge %x scope(system) : memref<8xi32, #symm.heap> -> i32
  return
}

// -----

func.func @wait_result_type(%m: memref<8xi32, #symm.heap>, %i: index, %x: i32) {
  // expected-error @+1 {{result type 'i64' does not match the flag element type 'i32'}}
  %o = symm.wait %m[%i] ge %x scope(system) : memref<8xi32, #symm.heap> -> i64
  return
}

// -----

func.func @wait_float_flag(%m: memref<8xf32, #symm.heap>, %i: index, %x: f32) {
  // expected-error @+1 {{flags must have an integer element type, got 'f32'}}
  %o = symm.wait %m[%i] ge %x scope(system) : memref<8xf32, #symm.heap> -> f32
  return
}

// -----

func.func @wait_backoff(%m: memref<8xi32, #symm.heap>, %i: index, %x: i32) {
  // expected-error @+1 {{attribute 'backoff' failed to satisfy constraint}}
  %o = symm.wait %m[%i] ge %x scope(system) backoff(0) : memref<8xi32, #symm.heap> -> i32
  return
}

// -----

func.func @signal_value_type(%m: memref<8xi32, #symm.heap>, %i: index, %x: i64, %p: i32) {
  // expected-error @+1 {{value type 'i64' does not match the flag element type 'i32'}}
  symm.signal add %x, %m[%i] on %p scope(system) : i64 -> memref<8xi32, #symm.heap>
  return
}

// -----

func.func @signal_peer_non_heap(%m: memref<8xi32>, %i: index, %x: i32, %p: i32) {
  // expected-error @+1 {{peer access requires a memref in #symm.heap}}
  symm.signal set %x, %m[%i] on %p scope(system) : i32 -> memref<8xi32>
  return
}

// -----

func.func @put_shape(%s: memref<64xf32>, %d: memref<32xf32, #symm.heap>, %p: i32) {
  // expected-error @+1 {{source shape of 'memref<64xf32>' does not match destination shape of 'memref<32xf32, #symm.heap>'}}
  symm.put %s to %d on %p : memref<64xf32> -> memref<32xf32, #symm.heap>
  return
}

// -----

func.func @put_rank(%s: memref<64xf32>, %d: memref<8x8xf32, #symm.heap>, %p: i32) {
  // expected-error @+1 {{source rank 1 does not match destination rank 2}}
  symm.put %s to %d on %p : memref<64xf32> -> memref<8x8xf32, #symm.heap>
  return
}

// -----

func.func @put_element(%s: memref<64xf16>, %d: memref<64xf32, #symm.heap>, %p: i32) {
  // expected-error @+1 {{source element type 'f16' does not match destination element type 'f32'}}
  symm.put %s to %d on %p : memref<64xf16> -> memref<64xf32, #symm.heap>
  return
}

// -----

func.func @put_not_heap(%s: memref<64xf32>, %d: memref<64xf32>, %p: i32) {
  // expected-error @+1 {{destination must be a memref in #symm.heap, got 'memref<64xf32>'}}
  symm.put %s to %d on %p : memref<64xf32> -> memref<64xf32>
  return
}

// -----

func.func @put_signal_flag_not_heap(%s: memref<64xf32>, %d: memref<64xf32, #symm.heap>, %f: memref<4xi32>, %i: index, %c: i32, %p: i32) {
  // expected-error @+1 {{signal flag must be a memref in #symm.heap, got 'memref<4xi32>'}}
  symm.put %s to %d on %p signal(add %c, %f[%i] : memref<4xi32>) scope(system) : memref<64xf32> -> memref<64xf32, #symm.heap>
  return
}

// -----

func.func @put_signal_indices(%s: memref<64xf32>, %d: memref<64xf32, #symm.heap>, %f: memref<4x4xi32, #symm.heap>, %i: index, %c: i32, %p: i32) {
  // expected-error @+1 {{expects 2 signal indices for 'memref<4x4xi32, #symm.heap>', got 1}}
  symm.put %s to %d on %p signal(add %c, %f[%i] : memref<4x4xi32, #symm.heap>) scope(system) : memref<64xf32> -> memref<64xf32, #symm.heap>
  return
}

// -----

func.func @put_signal_needs_scope(%s: memref<64xf32>, %d: memref<64xf32, #symm.heap>, %f: memref<4xi32, #symm.heap>, %i: index, %c: i32, %p: i32) {
  // expected-error @+1 {{expected 'scope'}}
  symm.put %s to %d on %p signal(add %c, %f[%i] : memref<4xi32, #symm.heap>) : memref<64xf32> -> memref<64xf32, #symm.heap>
  return
}

// -----

func.func @put_signal_kind(%s: memref<64xf32>, %d: memref<64xf32, #symm.heap>, %f: memref<4xi32, #symm.heap>, %i: index, %c: i32, %p: i32) {
  // expected-error @+1 {{expected signal kind 'set' or 'add'}}
  symm.put %s to %d on %p signal(sub %c, %f[%i] : memref<4xi32, #symm.heap>) scope(system) : memref<64xf32> -> memref<64xf32, #symm.heap>
  return
}

// -----

func.func @put_scope_without_signal(%s: memref<64xf32>, %d: memref<64xf32, #symm.heap>, %p: i32) {
  // expected-error @+1 {{scope belongs to the signal and must be given with it}}
  "symm.put"(%s, %d, %p) <{scope = 2 : i32, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0>}> : (memref<64xf32>, memref<64xf32, #symm.heap>, i32) -> ()
  return
}

// -----

func.func @get_not_heap(%s: memref<64xf32>, %d: memref<64xf32>, %p: i32) {
  // expected-error @+1 {{source must be a memref in #symm.heap, got 'memref<64xf32>'}}
  symm.get %s from %p to %d : memref<64xf32> -> memref<64xf32>
  return
}

// -----

func.func @get_shape(%s: memref<64xf32, #symm.heap>, %d: memref<65xf32>, %p: i32) {
  // expected-error @+1 {{does not match destination shape}}
  symm.get %s from %p to %d : memref<64xf32, #symm.heap> -> memref<65xf32>
  return
}

// -----

func.func @copy_not_heap(%s: memref<64xf32, #symm.heap>, %d: memref<64xf32>, %p: i32) {
  // expected-error @+1 {{destination must be a memref in #symm.heap}}
  symm.copy %s from %p to %d on %p : memref<64xf32, #symm.heap> -> memref<64xf32>
  return
}

// -----

func.func @translate_non_heap(%m: memref<4xf32>, %p: i32) {
  // expected-error @+1 {{translated memref must be a memref in #symm.heap, got 'memref<4xf32>'}}
  %t = symm.translate %m to %p : memref<4xf32>
  return
}

// -----

func.func @relaxed_fence() {
  // expected-error @+1 {{a relaxed fence orders nothing; use acquire, release, acq_rel or seq_cst}}
  symm.fence ordering(relaxed) scope(system)
  return
}

// -----

func.func @unknown_scope() {
  // expected-error @+1 {{expected string or keyword containing one of the following enum values for attribute 'scope' [workgroup, device, system]}}
  symm.fence ordering(release) scope(cluster)
  return
}

// -----

gpu.module @kernels {
  gpu.func @alloc_in_kernel() kernel {
    // expected-error @+1 {{'symm.alloc' op is a collective host operation and cannot appear in device code}}
    %b = symm.alloc() : memref<4xf32, #symm.heap>
    gpu.return
  }
}

// -----

gpu.module @kernels {
  gpu.func @dealloc_in_kernel(%b: memref<4xf32, #symm.heap>) kernel {
    // expected-error @+1 {{'symm.dealloc' op is a collective host operation}}
    symm.dealloc %b : memref<4xf32, #symm.heap>
    gpu.return
  }
}

// -----

gpu.module @kernels {
  gpu.func @barrier_in_kernel() kernel {
    // expected-error @+1 {{'symm.barrier' op is a collective host operation}}
    symm.barrier
    gpu.return
  }
}

// -----

func.func @alloc_not_heap() {
  // expected-error @+1 {{result must be a memref in #symm.heap, got 'memref<4xf32>'}}
  %b = symm.alloc() : memref<4xf32>
  return
}

// -----

func.func @alloc_dynamic_count(%n: index) {
  // expected-error @+1 {{expects one size operand per dynamic dimension of 'memref<?x?xf32, #symm.heap>' (2), got 1}}
  %b = symm.alloc(%n) : memref<?x?xf32, #symm.heap>
  return
}

// -----

func.func @alloc_layout() {
  // expected-error @+1 {{the result layout must be the identity}}
  %b = symm.alloc() : memref<4xf32, strided<[2]>, #symm.heap>
  return
}

// -----

func.func @alloc_too_large() {
  // expected-error @+1 {{'symm.alloc' op allocates more than 2^63 - 1 bytes ('memref<4294967296x4294967296xf32, #symm.heap>'); the symmetric heap is at most 2^62 bytes}}
  %b = symm.alloc() : memref<4294967296x4294967296xf32, #symm.heap>
  return
}

// -----

func.func @alloc_static_part_too_large(%n: index) {
  // expected-error @+1 {{'symm.alloc' op allocates more than 2^63 - 1 bytes}}
  %b = symm.alloc(%n) : memref<?x2147483648x2147483648xi16, #symm.heap>
  return
}

// -----

func.func @dealloc_not_heap(%b: memref<4xf32>) {
  // expected-error @+1 {{operand must be a memref in #symm.heap}}
  symm.dealloc %b : memref<4xf32>
  return
}

// -----

func.func @ordered_alignment(%m: memref<4xi32, #symm.heap>, %i: index) {
  // expected-error @+1 {{an ordered access is naturally aligned; alignment applies to plain accesses only}}
  %v = symm.load %m[%i] ordering(acquire) scope(system) {alignment = 4 : i64} : memref<4xi32, #symm.heap> -> i32
  return
}

// -----

func.func @bad_alignment(%m: memref<8xf32, #symm.heap>, %i: index, %v: vector<4xf32>) {
  // expected-error @+1 {{attribute 'alignment' failed to satisfy constraint}}
  symm.store %v, %m[%i] {alignment = 3 : i64} : vector<4xf32> -> memref<8xf32, #symm.heap>
  return
}

// -----

func.func @rank0_tile(%s: memref<f32>, %d: memref<f32, #symm.heap>, %p: i32) {
  // expected-error @+1 {{tiles must have rank 1 or more}}
  symm.put %s to %d on %p : memref<f32> -> memref<f32, #symm.heap>
  return
}

// -----

// Device operations in host code: the host has no kernel context to
// translate with and no lowering for them.
func.func @translate_on_host(%m: memref<4xf32, #symm.heap>, %p: i32) -> memref<4xf32, #symm.heap> {
  // expected-error @+1 {{'symm.translate' op is a translation to a peer's view, which only device code can do; move it into a kernel (a gpu.func in a gpu.module, or a gpu.launch body); host code copies symmetric memory with gpu.memcpy}}
  %t = symm.translate %m to %p : memref<4xf32, #symm.heap>
  return %t : memref<4xf32, #symm.heap>
}

// -----

func.func @peer_load_on_host(%m: memref<4xf32, #symm.heap>, %i: index, %p: i32) -> f32 {
  // expected-error @+1 {{'symm.load' op is a peer access, which only device code can do}}
  %v = symm.load %m[%i] from %p : memref<4xf32, #symm.heap> -> f32
  return %v : f32
}

// -----

func.func @peer_store_on_host(%m: memref<4xf32, #symm.heap>, %i: index, %p: i32, %x: f32) {
  // expected-error @+1 {{'symm.store' op is a peer access, which only device code can do}}
  symm.store %x, %m[%i] to %p : f32 -> memref<4xf32, #symm.heap>
  return
}

// -----

func.func @ordered_load_on_host(%m: memref<4xi32, #symm.heap>, %i: index) -> i32 {
  // expected-error @+1 {{'symm.load' op is an atomic access, which only device code can do}}
  %v = symm.load %m[%i] ordering(acquire) scope(system) : memref<4xi32, #symm.heap> -> i32
  return %v : i32
}

// -----

func.func @rmw_on_host(%m: memref<4xi32, #symm.heap>, %i: index, %x: i32) -> i32 {
  // expected-error @+1 {{'symm.atomic_rmw' op is an atomic access, which only device code can do}}
  %o = symm.atomic_rmw add %x, %m[%i] ordering(relaxed) scope(system) : i32 -> memref<4xi32, #symm.heap>
  return %o : i32
}

// -----

func.func @xchg_on_host(%m: memref<4xf32, #symm.heap>, %i: index, %x: f32) -> f32 {
  // expected-error @+1 {{'symm.atomic_rmw' op is an atomic access, which only device code can do}}
  %o = symm.atomic_rmw xchg %x, %m[%i] ordering(relaxed) scope(system) : f32 -> memref<4xf32, #symm.heap>
  return %o : f32
}

// -----

func.func @cas_on_host(%m: memref<4xi32, #symm.heap>, %i: index, %x: i32) -> i32 {
  // expected-error @+1 {{'symm.atomic_cas' op is an atomic access, which only device code can do}}
  %o = symm.atomic_cas %x, %x, %m[%i] ordering(acq_rel) scope(system) : i32 -> memref<4xi32, #symm.heap>
  return %o : i32
}

// -----

func.func @fence_on_host() {
  // expected-error @+1 {{'symm.fence' op is a memory fence, which only device code can do}}
  symm.fence ordering(release) scope(system)
  return
}

// -----

func.func @release_barrier_on_host() {
  // expected-error @+1 {{'symm.release_barrier' op is a workgroup barrier, which only device code can do}}
  symm.release_barrier scope(system)
  return
}

// -----

func.func @wait_on_host(%m: memref<4xi32, #symm.heap>, %i: index, %x: i32) -> i32 {
  // expected-error @+1 {{'symm.wait' op is a spin-wait on a flag, which only device code can do}}
  %o = symm.wait %m[%i] ge %x scope(system) : memref<4xi32, #symm.heap> -> i32
  return %o : i32
}

// -----

func.func @signal_on_host(%m: memref<4xi32, #symm.heap>, %i: index, %x: i32, %p: i32) {
  // expected-error @+1 {{'symm.signal' op is an atomic signal, which only device code can do}}
  symm.signal add %x, %m[%i] on %p scope(system) : i32 -> memref<4xi32, #symm.heap>
  return
}

// -----

func.func @put_on_host(%s: memref<4xf32>, %d: memref<4xf32, #symm.heap>, %f: memref<4xi32, #symm.heap>, %p: i32, %x: i32, %i: index) {
  // expected-error @+1 {{'symm.put' op is a workgroup-cooperative tile copy, which only device code can do}}
  symm.put %s to %d on %p : memref<4xf32> -> memref<4xf32, #symm.heap>
  return
}

// -----

func.func @signalled_put_on_host(%s: memref<4xf32>, %d: memref<4xf32, #symm.heap>, %f: memref<4xi32, #symm.heap>, %p: i32, %x: i32, %i: index) {
  // expected-error @+1 {{'symm.put' op is a workgroup-cooperative tile copy, which only device code can do}}
  symm.put %s to %d on %p signal(add %x, %f[%i] : memref<4xi32, #symm.heap>) scope(system) : memref<4xf32> -> memref<4xf32, #symm.heap>
  return
}

// -----

func.func @get_on_host(%s: memref<4xf32, #symm.heap>, %d: memref<4xf32>, %p: i32) {
  // expected-error @+1 {{'symm.get' op is a workgroup-cooperative tile copy, which only device code can do}}
  symm.get %s from %p to %d : memref<4xf32, #symm.heap> -> memref<4xf32>
  return
}

// -----

func.func @copy_on_host(%s: memref<4xf32, #symm.heap>, %p: i32) {
  // expected-error @+1 {{'symm.copy' op is a workgroup-cooperative tile copy, which only device code can do}}
  symm.copy %s from %p to %s on %p : memref<4xf32, #symm.heap> -> memref<4xf32, #symm.heap>
  return
}

// -----

// Plain local accesses are ordinary loads and stores, in host code too; in a
// gpu.launch body every device operation is at home.
func.func @plain_on_host(%m: memref<4xf32, #symm.heap>, %i: index, %x: f32, %p: i32) -> f32 {
  symm.store %x, %m[%i] : f32 -> memref<4xf32, #symm.heap>
  %v = symm.load %m[%i] : memref<4xf32, #symm.heap> -> f32
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    symm.store %x, %m[%i] to %p : f32 -> memref<4xf32, #symm.heap>
    gpu.terminator
  }
  return %v : f32
}

// -----

// The optimisation levels symm-compile's -O accepts.
// expected-error @+1 {{#symm.host_target: optimisation level O = 7 is out of range; use 0, 1, 2 or 3}}
gpu.module @kernels [#symm.host_target<O = 7>] {
}

// -----

gpu.module @kernels {
  gpu.func @trace_unnamed() kernel {
    // expected-error @+1 {{'symm.trace.begin' op needs a name for the trace to show}}
    symm.trace.begin ""
    symm.trace.end ""
    gpu.return
  }
}

// -----

gpu.module @kernels {
  gpu.func @trace_no_end() kernel {
    // expected-error @+1 {{'symm.trace.begin' op has no symm.trace.end "tile" in its function; every range needs both}}
    symm.trace.begin "tile"
    symm.trace.end "other"
    symm.trace.begin "other"
    gpu.return
  }
}

// -----

gpu.module @kernels {
  gpu.func @trace_no_begin() kernel {
    // expected-error @+1 {{'symm.trace.end' op has no symm.trace.begin "tile" in its function; every range needs both}}
    symm.trace.end "tile"
    gpu.return
  }
}

// -----

func.func @trace_on_host() {
  // expected-error @+1 {{'symm.trace.begin' op is a trace range, which only device code can do}}
  symm.trace.begin "host"
  symm.trace.end "host"
  return
}

// -----

gpu.module @kernels {
  gpu.func @record_signal_named(%x: i64) kernel {
    // expected-error @+1 {{'symm.trace.record' op signal events take no name}}
    symm.trace.record signal "s" (%x, %x) : i64, i64
    gpu.return
  }
}

// -----

gpu.module @kernels {
  gpu.func @record_range_unnamed(%x: i64) kernel {
    // expected-error @+1 {{'symm.trace.record' op range_begin events need a name}}
    symm.trace.record range_begin (%x) : i64
    gpu.return
  }
}

// -----

gpu.module @kernels {
  gpu.func @record_arguments(%x: i64) kernel {
    // expected-error @+1 {{'symm.trace.record' op wait_end events take 2 arguments, got 1}}
    symm.trace.record wait_end (%x) : i64
    gpu.return
  }
}

// -----

gpu.module @lines_need_heap {
func.func @line_not_heap(%m: memref<?xi64>, %i: index, %x: vector<2xi64>, %f: i64) {
  // expected-error @+1 {{a line's memref must be a memref in #symm.heap, got 'memref<?xi64>'}}
  symm.line_store %x, %m[%i] flag %f : vector<2xi64>, i64 -> memref<?xi64>
  return
}
}

// -----

gpu.module @lines_of_i64 {
func.func @line_of_i32(%m: memref<?xi32, #symm.heap>, %i: index, %f: i64) {
  // expected-error @+1 {{a line is 16 i64 words; the memref's element type must be i64, got 'i32'}}
  %v, %r = symm.line_load %m[%i] flag %f : memref<?xi32, #symm.heap> -> vector<2xi64>, i1
  return
}
}

// -----

gpu.module @lines_indexed {
func.func @line_indices(%m: memref<?x16xi64, #symm.heap>, %i: index, %x: vector<2xi64>, %f: i64) {
  // expected-error @+1 {{expects 2 indices for 'memref<?x16xi64, #symm.heap>', got 1}}
  symm.line_store %x, %m[%i] flag %f : vector<2xi64>, i64 -> memref<?x16xi64, #symm.heap>
  return
}
}

// -----

func.func @line_on_host(%m: memref<?xi64, #symm.heap>, %i: index, %f: i64) {
  // expected-error @+1 {{is a line access, which only device code can do}}
  %v, %r = symm.line_load %m[%i] flag %f : memref<?xi64, #symm.heap> -> vector<2xi64>, i1
  return
}

// -----

gpu.module @lines_piece {
func.func @line_piece_type(%m: memref<?xi64, #symm.heap>, %i: index, %x: vector<4xi32>, %f: i64) {
  // expected-error @+1 {{operand #0 must be vector of 64-bit signless integer values of length 2}}
  symm.line_store %x, %m[%i] flag %f : vector<4xi32>, i64 -> memref<?xi64, #symm.heap>
  return
}
}

// -----

gpu.module @early_launch_device_function {
  // expected-error @+1 {{'symm.early_launch' marks a kernel (a gpu.func with 'kernel'), not 'gpu.func'}}
  gpu.func @helper() attributes {symm.early_launch} {
    gpu.return
  }
}

// -----

// expected-error @+1 {{'symm.early_launch' marks a kernel (a gpu.func with 'kernel'), not 'func.func'}}
func.func @early_launch_host() attributes {symm.early_launch} {
  return
}

// -----

gpu.module @early_launch_value {
  // expected-error @+1 {{'symm.early_launch' is a unit attribute}}
  gpu.func @k() kernel attributes {symm.early_launch = 1 : i32} {
    gpu.return
  }
}

// -----

gpu.module @co_resident_device_function {
  // expected-error @+1 {{'symm.co_resident' marks a kernel (a gpu.func with 'kernel'), not 'gpu.func'}}
  gpu.func @helper() attributes {symm.co_resident} {
    gpu.return
  }
}

// -----

// expected-error @+1 {{'symm.co_resident' marks a kernel (a gpu.func with 'kernel'), not 'func.func'}}
func.func @co_resident_host() attributes {symm.co_resident} {
  return
}

// -----

gpu.module @co_resident_value {
  // expected-error @+1 {{'symm.co_resident' is a unit attribute}}
  gpu.func @k() kernel attributes {symm.co_resident = true} {
    gpu.return
  }
}
