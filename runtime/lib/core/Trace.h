//===- Trace.h - Kernel traces for every rank -------------------*- C++ -*-===//
//
// With SYMM_TRACE=<file>, modules compiled with `symm-compile --trace` record
// their kernels' events in a buffer this rank owns (symm/abi.h); at
// symm_finalize every rank's events become one Chrome trace-event JSON file
// (docs/Tracing.md), which rank 0 writes.
//
//===----------------------------------------------------------------------===//

#ifndef SYMM_RUNTIME_LIB_CORE_TRACE_H
#define SYMM_RUNTIME_LIB_CORE_TRACE_H

#include "Runtime.h"

namespace symm {

struct State;

/// Checks SYMM_TRACE, SYMM_TRACE_EVENTS and SYMM_TRACE_SLOTS (symm_init).
symm_status checkTraceEnvironment();

/// Whether SYMM_TRACE asks this rank for a trace.
bool tracing();

/// After `module` loaded: a module compiled with --trace receives the
/// buffer (allocated on first use) when SYMM_TRACE is set.
symm_status traceModuleLoaded(Backend &backend, void *module);

/// symm_finalize, once every rank's device work is done and before the heap
/// goes (collective): gathers the events and writes the trace.
symm_status writeTrace(State &state);

/// Frees the buffer (the backend goes next).
void releaseTrace(Backend &backend);

} // namespace symm

#endif // SYMM_RUNTIME_LIB_CORE_TRACE_H
