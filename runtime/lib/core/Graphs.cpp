//===- Graphs.cpp - Stream capture and graphs -------------------*- C++ -*-===//
//
// CUDA-style stream capture over the backend's. The runtime keeps the
// captures it began, so that a call that may wait for the device refuses
// while one is open instead of breaking it (a GPU driver invalidates the
// capture) or returning before work that is only recorded (the CPU target).
// It also keeps its graphs and the modules their launches use, so that a
// destroyed graph or an unloaded kernel is an error rather than a crash.
//
//===----------------------------------------------------------------------===//

#include "RuntimeState.h"

#include <algorithm>
#include <atomic>
#include <set>

using namespace symm;

/// A graph the runtime made, and the modules whose kernels it launches.
struct symm_graph {
  void *handle;
  std::vector<symm_module *> modules;
};

namespace {

/// A capture symm_stream_begin_capture began, and the modules whose kernels
/// it has recorded so far.
struct Capture {
  symm_stream *stream;
  std::vector<symm_module *> modules;
};

struct Graphs {
  std::mutex mutex;
  std::vector<Capture> open;
  /// open.size(), read without the mutex by every launch.
  std::atomic<size_t> openCount{0};
  std::set<symm_graph *> live;

  /// The open capture of `stream`, or null; the caller holds the mutex.
  Capture *find(symm_stream *stream) {
    for (Capture &c : open)
      if (c.stream == stream)
        return &c;
    return nullptr;
  }
  /// Forgets `stream`'s capture and returns the modules it recorded.
  std::vector<symm_module *> close(symm_stream *stream) {
    std::vector<symm_module *> modules;
    auto it = std::find_if(open.begin(), open.end(), [&](const Capture &c) {
      return c.stream == stream;
    });
    if (it == open.end())
      return modules;
    modules = std::move(it->modules);
    open.erase(it);
    openCount = open.size();
    return modules;
  }
};

Graphs &graphs() {
  static Graphs *g = new Graphs;
  return *g;
}

void addModules(std::vector<symm_module *> &to,
                const std::vector<symm_module *> &from) {
  for (symm_module *m : from)
    if (std::find(to.begin(), to.end(), m) == to.end())
      to.push_back(m);
}

/// An error unless `graph` is one symm_stream_end_capture returned and
/// symm_graph_destroy has not destroyed; the caller holds the mutex.
symm_status requireLive(symm_graph *graph, const char *call) {
  if (!graph)
    return fail(SYMM_ERROR_INVALID_ARGUMENT, "%s: null graph", call);
  if (!graphs().live.count(graph))
    return fail(SYMM_ERROR_INVALID_ARGUMENT,
                "%s: %p is not a live graph (destroyed already, or not "
                "returned by symm_stream_end_capture)",
                call, static_cast<void *>(graph));
  return SYMM_SUCCESS;
}

} // namespace

symm_status symm::requireNoCapture(const char *call) {
  Graphs &g = graphs();
  std::lock_guard<std::mutex> lock(g.mutex);
  if (g.open.empty())
    return SYMM_SUCCESS;
  return fail(SYMM_ERROR_INVALID_ARGUMENT,
              "%s while stream %p is being captured: a call that may wait "
              "for the device cannot be made during a capture; end it "
              "(symm_stream_end_capture) first",
              call, static_cast<void *>(g.open.front().stream));
}

symm_status symm::streamCapturing(symm_stream *stream, bool &capturing) {
  capturing = false;
  if (!stream)
    return SYMM_SUCCESS;
  return state().backend->streamIsCapturing(stream, &capturing);
}

void symm::noteLaunch(symm_stream *stream, symm_module *module) {
  Graphs &g = graphs();
  if (!stream || g.openCount == 0)
    return;
  std::lock_guard<std::mutex> lock(g.mutex);
  if (Capture *c = g.find(stream))
    addModules(c->modules, {module});
}

symm_status symm::requireNoGraphUses(symm_module *module) {
  Graphs &g = graphs();
  std::lock_guard<std::mutex> lock(g.mutex);
  for (symm_graph *graph : g.live)
    if (std::find(graph->modules.begin(), graph->modules.end(), module) !=
        graph->modules.end())
      return fail(SYMM_ERROR_INVALID_ARGUMENT,
                  "symm_module_unload: graph %p launches kernels of this "
                  "module; destroy it (symm_graph_destroy) first",
                  static_cast<void *>(graph));
  return SYMM_SUCCESS;
}

void symm::discardCapture(symm_stream *stream) {
  Graphs &g = graphs();
  std::lock_guard<std::mutex> lock(g.mutex);
  g.close(stream);
  bool capturing = false;
  if (streamCapturing(stream, capturing) != SYMM_SUCCESS || !capturing)
    return;
  Backend &b = *state().backend;
  void *graph = nullptr;
  // A capture a GPU driver invalidated ends without a graph.
  if (b.streamEndCapture(stream, &graph) == SYMM_SUCCESS)
    b.graphDestroy(graph);
}

void symm::discardGraphs() {
  std::vector<symm_stream *> streams;
  {
    std::lock_guard<std::mutex> lock(graphs().mutex);
    for (const Capture &c : graphs().open)
      streams.push_back(c.stream);
  }
  for (symm_stream *stream : streams)
    discardCapture(stream);
  Graphs &g = graphs();
  std::lock_guard<std::mutex> lock(g.mutex);
  for (symm_graph *graph : g.live) {
    state().backend->graphDestroy(graph->handle);
    delete graph;
  }
  g.live.clear();
}

extern "C" {

symm_status symm_stream_begin_capture(symm_stream *stream) {
  if (symm_status st = requireInit())
    return st;
  if (!stream)
    return fail(SYMM_ERROR_INVALID_ARGUMENT,
                "symm_stream_begin_capture: the default (null) stream cannot "
                "be captured; capture a stream from symm_stream_create");
  if (symm_status st = requireLiveStream(stream, "symm_stream_begin_capture"))
    return st;
  Graphs &g = graphs();
  std::lock_guard<std::mutex> lock(g.mutex);
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
  g.open.push_back(Capture{stream, {}});
  g.openCount = g.open.size();
  return SYMM_SUCCESS;
}

symm_status symm_stream_end_capture(symm_stream *stream, symm_graph **graph) {
  if (symm_status st = requireInit())
    return st;
  if (!graph)
    return fail(SYMM_ERROR_INVALID_ARGUMENT,
                "symm_stream_end_capture: null graph pointer");
  Graphs &g = graphs();
  std::lock_guard<std::mutex> lock(g.mutex);
  bool capturing;
  if (symm_status st = streamCapturing(stream, capturing))
    return st;
  if (!capturing)
    return fail(SYMM_ERROR_INVALID_ARGUMENT,
                "symm_stream_end_capture: stream %p is not being captured "
                "(symm_stream_begin_capture begins a capture)",
                static_cast<void *>(stream));
  // The capture ends here even when no graph can be made of it.
  std::vector<symm_module *> modules = g.close(stream);
  void *handle = nullptr;
  if (symm_status st = state().backend->streamEndCapture(stream, &handle))
    return st;
  *graph = new symm_graph{handle, std::move(modules)};
  g.live.insert(*graph);
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
  Graphs &g = graphs();
  std::lock_guard<std::mutex> lock(g.mutex);
  if (symm_status st = requireLive(graph, "symm_graph_launch"))
    return st;
  if (symm_status st = requireLiveStream(stream, "symm_graph_launch"))
    return st;
  if (symm_status st = state().backend->graphLaunch(graph->handle, stream))
    return st;
  // Launched into a capture, the graph becomes part of the new one.
  if (Capture *c = stream ? g.find(stream) : nullptr)
    addModules(c->modules, graph->modules);
  return SYMM_SUCCESS;
}

symm_status symm_graph_destroy(symm_graph *graph) {
  if (symm_status st = requireInit())
    return st;
  Graphs &g = graphs();
  std::lock_guard<std::mutex> lock(g.mutex);
  if (symm_status st = requireLive(graph, "symm_graph_destroy"))
    return st;
  g.live.erase(graph);
  symm_status st = state().backend->graphDestroy(graph->handle);
  delete graph;
  return st;
}

} // extern "C"
