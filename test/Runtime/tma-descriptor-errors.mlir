// A TMA descriptor the hardware cannot take ends the program with one line
// naming the rank and the cause, whatever the backend (the runtime checks
// before the backend encodes), and symm-run ends the job.
// RUN: symm-compile --target=host %s -o %t.exe
// RUN: not symm-run -n 2 %t.exe 2>&1 | FileCheck %s --check-prefix=ALIGN
// RUN: sed 's/call @misaligned/call @rank6/' %s > %t.rank6.mlir
// RUN: symm-compile --target=host %t.rank6.mlir -o %t.rank6.exe
// RUN: not symm-run -n 2 %t.rank6.exe 2>&1 | FileCheck %s --check-prefix=RANK
// RUN: sed 's/call @misaligned/call @stride/' %s > %t.stride.mlir
// RUN: symm-compile --target=host %t.stride.mlir -o %t.stride.exe
// RUN: not symm-run -n 2 %t.stride.exe 2>&1 | FileCheck %s --check-prefix=STRIDE
// RUN: sed 's/call @misaligned/call @box/' %s > %t.box.mlir
// RUN: symm-compile --target=host %t.box.mlir -o %t.box.exe
// RUN: not symm-run -n 2 %t.box.exe 2>&1 | FileCheck %s --check-prefix=BOX
// ALIGN: [rank [[R:[01]]]] symm: nvgpu.tma.create.descriptor failed: rank [[R]]: a TMA descriptor at 0x{{[0-9a-f]+}}: the tensor's first element must be 16-byte aligned
// ALIGN: symm-run: rank {{[01]}} exited with status 1
// RANK: [rank [[R:[01]]]] symm: nvgpu.tma.create.descriptor failed: rank [[R]]: a TMA descriptor of a 6-dimensional tensor: TMA takes 1 to 5 dimensions
// STRIDE: [rank [[R:[01]]]] symm: nvgpu.tma.create.descriptor failed: rank [[R]]: a TMA descriptor with a stride of 120 bytes in dimension 1 (innermost first): TMA strides are multiples of 16 bytes below 2^40
// BOX: [rank [[R:[01]]]] symm: nvgpu.tma.create.descriptor failed: rank [[R]]: a TMA descriptor with a box of 512 elements in dimension 0 (innermost first): TMA boxes take 1 to 256
!map = !nvgpu.tensormap.descriptor<tensor = memref<64x8xbf16, 3>, swizzle = none, l2promo = none, oob = zero, interleave = none>
module {
  // The tensor starts one bf16 element past a 16-byte boundary.
  func.func @misaligned() {
    %c8 = arith.constant 8 : index
    %c64 = arith.constant 64 : index
    %m = memref.alloc() {alignment = 64 : i64} : memref<64x64xbf16>
    %v = memref.subview %m[0, 1] [64, 63] [1, 1] : memref<64x64xbf16> to memref<64x63xbf16, strided<[64, 1], offset: 1>>
    %u = memref.cast %v : memref<64x63xbf16, strided<[64, 1], offset: 1>> to memref<*xbf16>
    %d = nvgpu.tma.create.descriptor %u box[%c64, %c8] : memref<*xbf16> -> !map
    return
  }
  // The descriptor's type says two dimensions; the tensor has six.
  func.func @rank6() {
    %c8 = arith.constant 8 : index
    %c64 = arith.constant 64 : index
    %m = memref.alloc() {alignment = 64 : i64} : memref<1x1x1x1x64x64xbf16>
    %u = memref.cast %m : memref<1x1x1x1x64x64xbf16> to memref<*xbf16>
    %d = nvgpu.tma.create.descriptor %u box[%c64, %c8] : memref<*xbf16> -> !map
    return
  }
  // Rows of 60 bf16 elements are 120 bytes apart.
  func.func @stride() {
    %c8 = arith.constant 8 : index
    %c64 = arith.constant 64 : index
    %m = memref.alloc() {alignment = 64 : i64} : memref<64x60xbf16>
    %u = memref.cast %m : memref<64x60xbf16> to memref<*xbf16>
    %d = nvgpu.tma.create.descriptor %u box[%c64, %c8] : memref<*xbf16> -> !map
    return
  }
  // A box of 512 elements in the innermost dimension.
  func.func @box() {
    %c64 = arith.constant 64 : index
    %c512 = arith.constant 512 : index
    %m = memref.alloc() {alignment = 64 : i64} : memref<64x1024xbf16>
    %u = memref.cast %m : memref<64x1024xbf16> to memref<*xbf16>
    %d = nvgpu.tma.create.descriptor %u box[%c64, %c512] : memref<*xbf16> -> !map
    return
  }
  func.func @main() {
    func.call @misaligned() : () -> ()
    return
  }
}
