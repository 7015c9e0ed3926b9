//===- Graphs.cpp - Stream capture and graphs -------------------*- C++ -*-===//
//
// CUDA-style stream capture over the backend's. The runtime keeps the streams
// whose capture it began, so that a call that waits for the device refuses
// while one is open instead of breaking it (a GPU driver invalidates the
// capture) or returning before work that is only recorded (the CPU target).
//
//===----------------------------------------------------------------------===//

#include "RuntimeState.h"

#include <algorithm>

using namespace symm;

namespace {
/// Forgets `stream`'s capture; the caller holds captureMutex().
void untrack(symm_stream *stream) {
  std::vector<symm_stream *> &open = state().capturing;
  open.erase(std::remove(open.begin(), open.end(), stream), open.end());
}
} // namespace

std::mutex &symm::captureMutex() {
  static std::mutex *m = new std::mutex;
  return *m;
}

symm_status symm::requireNoCapture(const char *call) {
  std::lock_guard<std::mutex> lock(captureMutex());
  if (state().capturing.empty())
    return SYMM_SUCCESS;
  return fail(SYMM_ERROR_INVALID_ARGUMENT,
              "%s while stream %p is being captured: a call that may wait "
              "for the device cannot be made during a capture; end it "
              "(symm_stream_end_capture) first",
              call, static_cast<void *>(state().capturing.front()));
}

symm_status symm::streamCapturing(symm_stream *stream, bool &capturing) {
  capturing = false;
  if (!stream)
    return SYMM_SUCCESS;
  return state().backend->streamIsCapturing(stream, &capturing);
}

void symm::discardCapture(symm_stream *stream) {
  std::lock_guard<std::mutex> lock(captureMutex());
  untrack(stream);
  bool capturing = false;
  if (streamCapturing(stream, capturing) != SYMM_SUCCESS || !capturing)
    return;
  Backend &b = *state().backend;
  void *graph = nullptr;
  // A capture a GPU driver invalidated ends without a graph.
  if (b.streamEndCapture(stream, &graph) == SYMM_SUCCESS)
    b.graphDestroy(graph);
}

extern "C" {

symm_status symm_stream_begin_capture(symm_stream *stream) {
  if (symm_status st = requireInit())
    return st;
  if (!stream)
    return fail(SYMM_ERROR_INVALID_ARGUMENT,
                "symm_stream_begin_capture: the default (null) stream cannot "
                "be captured; capture a stream from symm_stream_create");
  std::lock_guard<std::mutex> lock(captureMutex());
  bool capturing;
  if (symm_status st = streamCapturing(stream, capturing))
    return st;
  if (capturing)
    return fail(SYMM_ERROR_INVALID_ARGUMENT,
                "symm_stream_begin_capture: stream %p is already being "
                "captured",
                static_cast<void *>(stream));
  if (symm_status st = state().backend->streamBeginCapture(stream))
    return st;
  state().capturing.push_back(stream);
  return SYMM_SUCCESS;
}

symm_status symm_stream_end_capture(symm_stream *stream, symm_graph **graph) {
  if (symm_status st = requireInit())
    return st;
  if (!graph)
    return fail(SYMM_ERROR_INVALID_ARGUMENT,
                "symm_stream_end_capture: null graph pointer");
  std::lock_guard<std::mutex> lock(captureMutex());
  bool capturing;
  if (symm_status st = streamCapturing(stream, capturing))
    return st;
  if (!capturing)
    return fail(SYMM_ERROR_INVALID_ARGUMENT,
                "symm_stream_end_capture: stream %p is not being captured "
                "(symm_stream_begin_capture begins a capture)",
                static_cast<void *>(stream));
  // The capture ends here even when no graph can be made of it.
  untrack(stream);
  void *g = nullptr;
  if (symm_status st = state().backend->streamEndCapture(stream, &g))
    return st;
  *graph = static_cast<symm_graph *>(g);
  return SYMM_SUCCESS;
}

symm_status symm_stream_is_capturing(symm_stream *stream, int *capturing) {
  if (symm_status st = requireInit())
    return st;
  if (!capturing)
    return fail(SYMM_ERROR_INVALID_ARGUMENT,
                "symm_stream_is_capturing: null result pointer");
  bool c;
  if (symm_status st = streamCapturing(stream, c))
    return st;
  *capturing = c;
  return SYMM_SUCCESS;
}

symm_status symm_graph_launch(symm_graph *graph, symm_stream *stream) {
  if (symm_status st = requireInit())
    return st;
  if (!graph)
    return fail(SYMM_ERROR_INVALID_ARGUMENT, "symm_graph_launch: null graph");
  return state().backend->graphLaunch(graph, stream);
}

symm_status symm_graph_destroy(symm_graph *graph) {
  if (symm_status st = requireInit())
    return st;
  if (!graph)
    return fail(SYMM_ERROR_INVALID_ARGUMENT, "symm_graph_destroy: null graph");
  return state().backend->graphDestroy(graph);
}

} // extern "C"
