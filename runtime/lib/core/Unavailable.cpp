//===- Unavailable.cpp - Backends this build does not include ---*- C++ -*-===//
//
// Linked in place of the HIP backend when its headers were not found at
// configure time.
//
//===----------------------------------------------------------------------===//

#include "Runtime.h"

using namespace symm;

#ifndef SYMM_HAVE_HIP
Backend *symm::createHipBackend() {
  fail(SYMM_ERROR_UNAVAILABLE,
       "this Symm runtime was built without the hip backend (no HIP headers "
       "at configure time)");
  return nullptr;
}
#endif
