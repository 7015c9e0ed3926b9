//===- Builtins.cpp - Compiler runtime functions CPU code calls -*- C++ -*-===//
//
// LLVM's x86-64 backend calls __truncsfbf2/__truncdfbf2 for bf16 values it
// keeps in registers across blocks (a bf16 phi or select), even after the
// CPU pipeline has emulated bf16 arithmetic. libgcc before GCC 13 has no such
// functions, so the runtime, which every CPU-target module and whole program
// is loaded with, defines them: round to nearest even, NaNs stay quiet NaNs.
//
//===----------------------------------------------------------------------===//

#include "symm/runtime.h"

#include <cstdint>
#include <cstring>

namespace {

uint16_t toBF16Bits(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  if ((bits & 0x7fffffffu) > 0x7f800000u)
    return static_cast<uint16_t>((bits >> 16) | 0x40);
  bits += 0x7fffu + ((bits >> 16) & 1);
  return static_cast<uint16_t>(bits >> 16);
}

__bf16 fromBits(uint16_t bits) {
  __bf16 result;
  std::memcpy(&result, &bits, sizeof(result));
  return result;
}

} // namespace

extern "C" {

SYMM_EXPORT __bf16 __truncsfbf2(float value) {
  return fromBits(toBF16Bits(value));
}

/// Through float: a double within 2^-24 (relative) of a tie between two bf16
/// values can round the other way than a direct rounding would.
SYMM_EXPORT __bf16 __truncdfbf2(double value) {
  return fromBits(toBF16Bits(static_cast<float>(value)));
}

} // extern "C"
