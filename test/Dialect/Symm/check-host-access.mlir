// RUN: symm-opt %s -split-input-file -verify-diagnostics -allow-unregistered-dialect -symm-check-host-access

// Host code may allocate, copy, set, launch with and free device memory; the
// kernels (gpu.module and gpu.launch bodies) read and write it.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @bump(%buf: memref<64xi32, #symm.heap>) kernel {
      %t = gpu.thread_id x
      %v = memref.load %buf[%t] : memref<64xi32, #symm.heap>
      memref.store %v, %buf[%t] : memref<64xi32, #symm.heap>
      gpu.return
    }
  }
  func.func @main() -> i32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %zero = arith.constant 0 : i32
    %buf = symm.alloc() : memref<64xi32, #symm.heap>
    gpu.memset %buf, %zero : memref<64xi32, #symm.heap>, i32
    symm.barrier
    gpu.launch_func @kernels::@bump blocks in (%c1, %c1, %c1) threads in (%c64, %c1, %c1)
        args(%buf : memref<64xi32, #symm.heap>)
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
      %v = memref.load %buf[%tx] : memref<64xi32, #symm.heap>
      memref.store %v, %buf[%tx] : memref<64xi32, #symm.heap>
      gpu.terminator
    }
    %device = gpu.alloc (%c64) : memref<?xi32>
    gpu.memcpy %device, %buf : memref<?xi32>, memref<64xi32, #symm.heap>
    %host = gpu.alloc host_shared () : memref<64xi32>
    gpu.memcpy %host, %buf : memref<64xi32>, memref<64xi32, #symm.heap>
    %n = memref.dim %device, %c0 : memref<?xi32>
    %v = memref.load %host[%c0] : memref<64xi32>
    memref.store %v, %host[%c1] : memref<64xi32>
    %plain = memref.alloc() : memref<64xi32>
    memref.copy %host, %plain : memref<64xi32> to memref<64xi32>
    gpu.dealloc %device : memref<?xi32>
    symm.dealloc %buf : memref<64xi32, #symm.heap>
    return %v : i32
  }
}

// -----

// An operation that declares no memory effects is not taken to access
// memory.
func.func @unknown(%buf: memref<4xi32, #symm.heap>) {
  "test.use"(%buf) : (memref<4xi32, #symm.heap>) -> ()
  return
}

// -----

func.func @load(%i: index) -> f32 {
  %buf = symm.alloc() : memref<64xf32, #symm.heap>
  // expected-error @+1 {{'memref.load' op reads #symm.heap memory in host code, which GPUs cannot do: copy it to or from a gpu.alloc host_shared buffer with gpu.memcpy (docs/Programs.md)}}
  %v = memref.load %buf[%i] : memref<64xf32, #symm.heap>
  return %v : f32
}

// -----

func.func @store(%buf: memref<?xf32, #symm.heap>, %i: index, %v: f32) {
  // expected-error @+1 {{'memref.store' op writes #symm.heap memory in host code}}
  memref.store %v, %buf[%i] : memref<?xf32, #symm.heap>
  return
}

// -----

func.func @atomic(%buf: memref<4xi32, #symm.heap>, %i: index, %v: i32) -> i32 {
  // expected-error @+1 {{'memref.atomic_rmw' op reads and writes #symm.heap memory in host code}}
  %old = memref.atomic_rmw addi %v, %buf[%i] : (i32, memref<4xi32, #symm.heap>) -> i32
  return %old : i32
}

// -----

// memref.copy is a host loop, not gpu.memcpy.
func.func @copy_out(%buf: memref<4xi32, #symm.heap>, %host: memref<4xi32>) {
  // expected-error @+1 {{'memref.copy' op reads #symm.heap memory in host code}}
  memref.copy %buf, %host : memref<4xi32, #symm.heap> to memref<4xi32>
  return
}

// -----

func.func @copy_in(%buf: memref<4xi32, #symm.heap>, %host: memref<4xi32>) {
  // expected-error @+1 {{'memref.copy' op writes #symm.heap memory in host code}}
  memref.copy %host, %buf : memref<4xi32> to memref<4xi32, #symm.heap>
  return
}

// -----

// A view of the heap, and a cast that drops the memory space, are still the
// heap.
func.func @through_views(%buf: memref<64xf32, #symm.heap>, %i: index) -> vector<4xf32> {
  %sub = memref.subview %buf[8] [16] [1] : memref<64xf32, #symm.heap> to memref<16xf32, strided<[1], offset: 8>, #symm.heap>
  %plain = memref.memory_space_cast %sub : memref<16xf32, strided<[1], offset: 8>, #symm.heap> to memref<16xf32, strided<[1], offset: 8>>
  %any = memref.cast %plain : memref<16xf32, strided<[1], offset: 8>> to memref<?xf32, strided<[1], offset: ?>>
  %pad = arith.constant 0.0 : f32
  // expected-error @+1 {{'vector.transfer_read' op reads #symm.heap memory in host code}}
  %v = vector.transfer_read %any[%i], %pad : memref<?xf32, strided<[1], offset: ?>>, vector<4xf32>
  return %v : vector<4xf32>
}

// -----

func.func @device_alloc(%i: index) -> f32 {
  %dev = gpu.alloc () : memref<64xf32>
  // expected-error @+1 {{'memref.load' op reads device memory (gpu.alloc without host_shared) in host code, which GPUs cannot do: copy it to or from a gpu.alloc host_shared buffer with gpu.memcpy (docs/Programs.md)}}
  %v = memref.load %dev[%i] : memref<64xf32>
  return %v : f32
}

// -----

func.func @async_device_alloc(%i: index, %v: f32) {
  %t0 = gpu.wait async
  %dev, %t1 = gpu.alloc async [%t0] () : memref<64xf32>
  gpu.wait [%t1]
  // expected-error @+1 {{'memref.store' op writes device memory (gpu.alloc without host_shared) in host code}}
  memref.store %v, %dev[%i] : memref<64xf32>
  return
}

// -----

func.func private @printMemrefF32(memref<*xf32>)

func.func @print(%buf: memref<4xf32, #symm.heap>) {
  %plain = memref.memory_space_cast %buf : memref<4xf32, #symm.heap> to memref<4xf32>
  %u = memref.cast %plain : memref<4xf32> to memref<*xf32>
  // expected-error @+1 {{'func.call' op passes #symm.heap memory to @printMemrefF32, which runs on the host and cannot access it on GPUs: pass a gpu.alloc host_shared copy made with gpu.memcpy (docs/Programs.md)}}
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}

// -----

// Device memory passed to a function of the module is followed into it.
func.func @first(%m: memref<?xi32>) -> i32 {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'memref.load' op reads device memory (gpu.alloc without host_shared) in host code}}
  %v = memref.load %m[%c0] : memref<?xi32>
  return %v : i32
}

func.func @main() -> i32 {
  %c4 = arith.constant 4 : index
  %dev = gpu.alloc (%c4) : memref<?xi32>
  %v = call @first(%dev) : (memref<?xi32>) -> i32
  return %v : i32
}

// -----

// ... and device memory a function returns, out of it.
func.func @make() -> memref<4xi32> {
  %dev = gpu.alloc () : memref<4xi32>
  return %dev : memref<4xi32>
}

func.func @main() -> i32 {
  %c0 = arith.constant 0 : index
  %m = call @make() : () -> memref<4xi32>
  // expected-error @+1 {{'memref.load' op reads device memory}}
  %v = memref.load %m[%c0] : memref<4xi32>
  return %v : i32
}

// -----

// Through loop-carried values and branches.
func.func @loop(%buf: memref<4xi32, #symm.heap>, %n: index) -> i32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %plain = memref.memory_space_cast %buf : memref<4xi32, #symm.heap> to memref<4xi32>
  %host = memref.alloc() : memref<4xi32>
  %m = scf.for %i = %c0 to %n step %c1 iter_args(%cur = %host) -> (memref<4xi32>) {
    scf.yield %plain : memref<4xi32>
  }
  // expected-error @+1 {{'memref.load' op reads #symm.heap memory in host code}}
  %v = memref.load %m[%c0] : memref<4xi32>
  return %v : i32
}

// -----

func.func @branch(%buf: memref<4xi32, #symm.heap>) -> i32 {
  %plain = memref.memory_space_cast %buf : memref<4xi32, #symm.heap> to memref<4xi32>
  cf.br ^bb1(%plain : memref<4xi32>)
^bb1(%m: memref<4xi32>):
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'memref.load' op reads #symm.heap memory in host code}}
  %v = memref.load %m[%c0] : memref<4xi32>
  return %v : i32
}

// -----

// A plain symm.load on this rank is an ordinary load, in host code too
// (ordered and peer accesses there are verifier errors).
func.func @plain_symm_load(%buf: memref<4xi32, #symm.heap>, %i: index) -> i32 {
  // expected-error @+1 {{'symm.load' op reads #symm.heap memory in host code}}
  %v = symm.load %buf[%i] : memref<4xi32, #symm.heap> -> i32
  return %v : i32
}
