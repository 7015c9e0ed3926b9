//===- Trace.cpp - Kernel traces for every rank -----------------*- C++ -*-===//
//
// One buffer per rank receives the events of every traced module's kernels.
// At symm_finalize each rank copies its events back, the ranks align their
// clocks at a barrier, and each writes its events, aligned, to a part file
// beside the trace; rank 0 then pairs beginnings with ends and signals with
// the waits they satisfied, and writes the Chrome trace-event JSON.
//
//===----------------------------------------------------------------------===//

#include "Trace.h"
#include "Environment.h"
#include "RuntimeState.h"
#include "symm/abi.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

using namespace symm;

namespace {

constexpr int kDefaultEvents = 128; // per subgroup
constexpr int kDefaultSlots = 4096; // subgroups
constexpr int kAlignmentRounds = 5; // barriers the clock offset is taken at
constexpr uint32_t kThisRank = 0xffffffffu;
/// A part file's owner of a signal to every peer.
constexpr int64_t kEveryPeer = -2;

struct Tracer {
  std::mutex mutex;
  void *counts = nullptr; // device: uint64_t[slots + 1]
  void *events = nullptr; // device: symm_trace_event[slots * capacity]
  uint32_t slots = 0, capacity = 0;
  /// Each traced module's name table, by module number.
  std::vector<std::string> names;
};

Tracer &tracer() {
  static Tracer *t = new Tracer;
  return *t;
}

const char *tracePath() { return env::get(env::kTrace); }

/// SYMM_TRACE_EVENTS or SYMM_TRACE_SLOTS, checked at symm_init.
int setting(const char *name, int fallback) {
  const char *text = env::get(name);
  return text ? *env::parseInt(text, 1, 1 << 20) : fallback;
}

/// An event read back, its time on the trace's clock.
struct Event {
  int64_t time;
  uint16_t kind;
  uint16_t subgroup;
  uint32_t block;
  uint64_t a, b;
  std::string name;
};

std::string partPath(const char *path, int rank) {
  return std::string(path) + ".rank" + std::to_string(rank);
}

/// This rank's clock offset to rank 0's: the median over a few barriers of
/// the difference between the clocks read right after each.
symm_status measureOffset(State &s, int64_t &offset) {
  std::vector<int64_t> samples;
  for (int round = 0; round < kAlignmentRounds; ++round) {
    if (symm_status st = s.bootstrap->barrier())
      return st;
    uint64_t mine = 0;
    if (symm_status st = s.backend->readClock(&mine))
      return st;
    std::vector<uint64_t> all(size_t(s.size));
    if (symm_status st =
            s.bootstrap->allgather(&mine, sizeof(mine), all.data()))
      return st;
    samples.push_back(int64_t(all[0]) - int64_t(mine));
  }
  std::sort(samples.begin(), samples.end());
  offset = samples[samples.size() / 2];
  return SYMM_SUCCESS;
}

/// Copies the events back: what each slot kept, and how many it dropped.
symm_status readEvents(Backend &b, std::vector<Event> &events,
                       uint64_t &dropped) {
  Tracer &t = tracer();
  std::vector<uint64_t> counts(t.slots + 1);
  std::vector<symm_trace_event> raw(size_t(t.slots) * t.capacity);
  if (symm_status st = b.memcpy(counts.data(), t.counts,
                                counts.size() * sizeof(uint64_t), nullptr))
    return st;
  if (symm_status st = b.memcpy(raw.data(), t.events,
                                raw.size() * sizeof(symm_trace_event), nullptr))
    return st;
  if (symm_status st = b.synchronize())
    return st;
  dropped = counts[t.slots];
  for (uint32_t slot = 0; slot < t.slots; ++slot) {
    uint64_t kept = std::min<uint64_t>(counts[slot], t.capacity);
    dropped += counts[slot] - kept;
    for (uint64_t i = 0; i < kept; ++i) {
      const symm_trace_event &e = raw[size_t(slot) * t.capacity + i];
      Event event{int64_t(e.time), e.kind, e.subgroup, e.block, e.a, e.b, ""};
      if (e.kind <= SYMM_TRACE_RANGE_END) {
        uint64_t module = e.a >> 32, at = e.a & 0xffffffffu;
        if (module < t.names.size() && at < t.names[module].size())
          event.name = t.names[module].c_str() + at;
      }
      events.push_back(std::move(event));
    }
  }
  return SYMM_SUCCESS;
}

/// The part file of this rank: a header line, then one line per event with
/// its flag, if any, as (owner, offset in the owner's heap).
symm_status writePart(State &s, const std::vector<Event> &events,
                      uint64_t dropped, int64_t offset, const char *path) {
  std::ofstream out(partPath(path, s.rank));
  out << "rank " << s.rank << " dropped " << dropped << "\n";
  uint64_t heap = reinterpret_cast<uint64_t>(s.bases[size_t(s.rank)]);
  for (const Event &e : events) {
    int64_t owner = -1, at = -1;
    bool flag = e.kind == SYMM_TRACE_WAIT_BEGIN ||
                e.kind == SYMM_TRACE_WAIT_END || e.kind == SYMM_TRACE_SIGNAL;
    uint64_t value = e.b;
    if (flag) {
      uint32_t peer = uint32_t(e.b >> 32);
      owner = peer == kThisRank               ? s.rank
              : peer == SYMM_TRACE_EVERY_PEER ? kEveryPeer
                                              : int64_t(peer);
      value = e.b & 0xffffffffu;
      if (e.a >= heap && e.a < heap + s.heapBytes)
        at = int64_t(e.a - heap);
    } else if (e.kind >= SYMM_TRACE_PUT_BEGIN) {
      owner = int64_t(e.a); // the peer
    }
    out << e.kind << ' ' << e.block << ' ' << e.subgroup << ' '
        << e.time + offset << ' ' << owner << ' ' << at << ' ' << value << ' '
        << int64_t(e.b) << ' ' << e.name << '\n';
  }
  out.close();
  if (!out)
    return fail(SYMM_ERROR_INVALID_ARGUMENT,
                "cannot write the trace's part %s (SYMM_TRACE=%s)",
                partPath(path, s.rank).c_str(), path);
  return SYMM_SUCCESS;
}

struct RankEvent {
  int rank;
  int64_t time, owner, at;
  uint64_t value;
  int64_t id;
  uint16_t kind, subgroup;
  uint32_t block;
  std::string name;
  size_t order; // in the rank's part
  uint64_t tid() const { return uint64_t(block) * 1024 + subgroup; }
};

std::string jsonString(const std::string &text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\')
      out += '\\';
    if (static_cast<unsigned char>(c) < 0x20) {
      char escaped[8];
      snprintf(escaped, sizeof(escaped), "\\u%04x", c);
      out += escaped;
      continue;
    }
    out += c;
  }
  return out + "\"";
}

/// Microseconds, as the trace-event format counts, from nanoseconds.
std::string micros(int64_t ns) {
  char text[32];
  snprintf(text, sizeof(text), "%" PRId64 ".%03" PRId64, ns / 1000, ns % 1000);
  return text;
}

/// What a range shows: its name, the peer of a transfer, or the flag.
std::string sliceName(const RankEvent &e) {
  switch (e.kind) {
  case SYMM_TRACE_KERNEL_BEGIN:
    return e.name;
  case SYMM_TRACE_RANGE_BEGIN:
    return e.id >= 0 ? e.name + " " + std::to_string(e.id) : e.name;
  case SYMM_TRACE_WAIT_BEGIN:
    return "wait";
  case SYMM_TRACE_PUT_BEGIN:
    return "put to rank " + std::to_string(e.owner);
  case SYMM_TRACE_GET_BEGIN:
    return "get from rank " + std::to_string(e.owner);
  }
  return "?";
}

const char *category(uint16_t kind) {
  switch (kind) {
  case SYMM_TRACE_KERNEL_BEGIN:
    return "kernel";
  case SYMM_TRACE_RANGE_BEGIN:
    return "range";
  case SYMM_TRACE_WAIT_BEGIN:
    return "wait";
  case SYMM_TRACE_SIGNAL:
    return "signal";
  default:
    return "transfer";
  }
}

/// Reads every rank's part (and removes it).
bool readParts(int size, const char *path, std::vector<RankEvent> &events,
               std::vector<uint64_t> &dropped, std::string &error) {
  for (int r = 0; r < size; ++r) {
    std::string part = partPath(path, r);
    std::ifstream in(part);
    std::string word;
    int rank = -1;
    uint64_t lost = 0;
    if (!(in >> word >> rank >> word >> lost) || rank != r) {
      error = "rank " + std::to_string(r) + "'s part " + part +
              " is missing or damaged";
      return false;
    }
    dropped.push_back(lost);
    std::string line;
    std::getline(in, line);
    while (std::getline(in, line)) {
      std::istringstream fields(line);
      RankEvent e{};
      e.rank = r;
      e.order = events.size();
      fields >> e.kind >> e.block >> e.subgroup >> e.time >> e.owner >> e.at >>
          e.value >> e.id;
      fields.get();
      std::getline(fields, e.name);
      if (!fields.eof() && fields.fail()) {
        error = "rank " + std::to_string(r) + "'s part " + part +
                " has a damaged line: " + line;
        return false;
      }
      events.push_back(std::move(e));
    }
    in.close();
    std::remove(part.c_str());
  }
  return true;
}

/// The JSON: processes (ranks) and threads (subgroups), the ranges whose
/// beginning and end were both recorded, signals, and a flow from each
/// satisfied wait's latest earlier signal of its flag.
bool writeJson(int size, const char *path, std::vector<RankEvent> &events,
               const std::vector<uint64_t> &dropped, std::string &error) {
  // By time; events of one time keep the order their threads recorded.
  std::sort(events.begin(), events.end(),
            [](const RankEvent &x, const RankEvent &y) {
              return std::tie(x.time, x.order) < std::tie(y.time, y.order);
            });
  int64_t start = events.empty() ? 0 : events.front().time;
  // Lines in the order of the events they come from: a range's beginning
  // is written once its end is found, at its own place.
  std::vector<std::tuple<size_t, size_t, std::string>> out;
  auto place = [&](const RankEvent &e, std::string line) {
    out.emplace_back(size_t(&e - events.data()), out.size(), std::move(line));
  };
  auto common = [&](const RankEvent &e) {
    return ",\"pid\":" + std::to_string(e.rank) +
           ",\"tid\":" + std::to_string(e.tid()) +
           ",\"ts\":" + micros(e.time - start);
  };
  std::map<std::pair<int, uint64_t>, std::pair<uint32_t, uint16_t>> threads;
  std::map<std::pair<int, uint64_t>, std::vector<const RankEvent *>> open;
  // Signals by flag (owner, offset), in time order.
  std::map<std::pair<int64_t, int64_t>, std::vector<const RankEvent *>> signals;
  uint64_t unpaired = 0, flows = 0;
  for (const RankEvent &e : events) {
    auto thread = std::make_pair(e.rank, e.tid());
    threads[thread] = {e.block, e.subgroup};
    bool begins =
        e.kind == SYMM_TRACE_KERNEL_BEGIN || e.kind == SYMM_TRACE_RANGE_BEGIN ||
        e.kind == SYMM_TRACE_WAIT_BEGIN || e.kind == SYMM_TRACE_PUT_BEGIN ||
        e.kind == SYMM_TRACE_GET_BEGIN;
    if (begins) {
      open[thread].push_back(&e);
      continue;
    }
    if (e.kind == SYMM_TRACE_SIGNAL) {
      bool every = e.owner == kEveryPeer;
      std::string to = every ? "every peer" : "rank " + std::to_string(e.owner);
      place(e, "{\"name\":\"signal to " + to +
                   "\",\"cat\":\"signal\",\"ph\":\"i\",\"s\":\"t\"" +
                   common(e) + ",\"args\":{\"offset\":" + std::to_string(e.at) +
                   ",\"value\":" + std::to_string(e.value) + "}}");
      for (int64_t owner = every ? 0 : e.owner;
           e.at >= 0 && owner < (every ? size : e.owner + 1); ++owner)
        if (!every || owner != e.rank)
          signals[{owner, e.at}].push_back(&e);
      continue;
    }
    // An end closes the innermost open range when it is its beginning's
    // kind (and name); otherwise its beginning was dropped or never ran.
    std::vector<const RankEvent *> &stack = open[thread];
    if (stack.empty() || stack.back()->kind + 1 != e.kind ||
        (e.kind == SYMM_TRACE_RANGE_END && stack.back()->name != e.name) ||
        (e.kind == SYMM_TRACE_KERNEL_END && stack.back()->name != e.name)) {
      ++unpaired;
      continue;
    }
    const RankEvent &begin = *stack.back();
    stack.pop_back();
    std::string name = jsonString(sliceName(begin));
    std::string args;
    if (e.kind == SYMM_TRACE_WAIT_END)
      args = ",\"args\":{\"owner\":" + std::to_string(e.owner) +
             ",\"offset\":" + std::to_string(e.at) +
             ",\"seen\":" + std::to_string(e.value) + "}";
    std::string cat = std::string(",\"cat\":\"") + category(begin.kind) + "\"";
    place(begin,
          "{\"name\":" + name + cat + ",\"ph\":\"B\"" + common(begin) + "}");
    if (e.kind == SYMM_TRACE_WAIT_END && e.at >= 0) {
      // The flow starts at the latest signal of the flag before the wait
      // was satisfied.
      auto it = signals.find({e.owner, e.at});
      if (it != signals.end() && !it->second.empty()) {
        const RankEvent &signal = *it->second.back();
        std::string id = std::to_string(++flows);
        place(signal, "{\"name\":\"signal\",\"cat\":\"flow\",\"ph\":\"s\","
                      "\"id\":" +
                          id + common(signal) + "}");
        place(e, "{\"name\":\"signal\",\"cat\":\"flow\",\"ph\":\"f\","
                 "\"bp\":\"e\",\"id\":" +
                     id + common(e) + "}");
      }
    }
    place(e,
          "{\"name\":" + name + cat + ",\"ph\":\"E\"" + common(e) + args + "}");
  }
  for (auto &[thread, stack] : open)
    unpaired += stack.size();

  std::ofstream json(path);
  json << "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n";
  bool first = true;
  auto emit = [&](const std::string &line) {
    json << (first ? "" : ",\n") << line;
    first = false;
  };
  for (int r = 0; r < size; ++r) {
    emit(
        "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":" + std::to_string(r) +
        ",\"args\":{\"name\":\"rank " + std::to_string(r) + "\"}}");
    emit("{\"name\":\"process_sort_index\",\"ph\":\"M\",\"pid\":" +
         std::to_string(r) + ",\"args\":{\"sort_index\":" + std::to_string(r) +
         "}}");
  }
  for (auto &[thread, where] : threads)
    emit("{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":" +
         std::to_string(thread.first) +
         ",\"tid\":" + std::to_string(thread.second) +
         ",\"args\":{\"name\":\"block " + std::to_string(where.first) +
         " subgroup " + std::to_string(where.second) + "\"}}");
  std::sort(out.begin(), out.end());
  for (const auto &[at, seq, line] : out)
    emit(line);
  std::string lost;
  for (int r = 0; r < size; ++r)
    lost += (r ? "," : "") + std::to_string(dropped[size_t(r)]);
  json << "\n],\"otherData\":{\"dropped_events_per_rank\":\"" << lost
       << "\",\"unpaired_events\":\"" << unpaired << "\"}}\n";
  json.close();
  if (!json) {
    error = std::string("cannot write the trace to ") + path;
    return false;
  }
  return true;
}

} // namespace

symm_status symm::checkTraceEnvironment() {
  for (const char *name : {env::kTraceEvents, env::kTraceSlots})
    if (const char *text = env::get(name);
        text && !env::parseInt(text, 1, 1 << 20))
      return fail(SYMM_ERROR_INVALID_ARGUMENT,
                  "%s='%s' is not a whole number from 1 to 1048576", name,
                  text);
  return SYMM_SUCCESS;
}

bool symm::tracing() { return tracePath() != nullptr; }

symm_status symm::traceModuleLoaded(Backend &backend, void *module) {
  void *global = nullptr, *names = nullptr;
  size_t bytes = 0, namesBytes = 0;
  if (symm_status st =
          backend.findGlobal(module, SYMM_TRACE_SYMBOL, &global, &bytes))
    return st;
  // Not compiled with --trace, or no trace asked for: nothing records.
  if (!global || !tracePath())
    return SYMM_SUCCESS;
  if (bytes != sizeof(symm_trace_buffer))
    return fail(SYMM_ERROR_INVALID_ARGUMENT,
                "the module's %s has %zu bytes, the runtime's %zu: compiled "
                "by another Symm version?",
                SYMM_TRACE_SYMBOL, bytes, sizeof(symm_trace_buffer));
  if (symm_status st = backend.findGlobal(module, SYMM_TRACE_NAMES_SYMBOL,
                                          &names, &namesBytes))
    return st;
  Tracer &t = tracer();
  std::lock_guard<std::mutex> lock(t.mutex);
  if (!t.counts) {
    t.slots = uint32_t(setting(env::kTraceSlots, kDefaultSlots));
    t.capacity = uint32_t(setting(env::kTraceEvents, kDefaultEvents));
    size_t countBytes = (size_t(t.slots) + 1) * sizeof(uint64_t);
    size_t eventBytes = size_t(t.slots) * t.capacity * sizeof(symm_trace_event);
    if (symm_status st = backend.memAlloc(countBytes, false, &t.counts))
      return st;
    if (symm_status st = backend.memAlloc(eventBytes, false, &t.events))
      return st;
    if (symm_status st =
            backend.memset(t.counts, 0, 4, countBytes / 4, nullptr))
      return st;
  }
  std::string table(namesBytes, '\0');
  if (names && namesBytes)
    if (symm_status st =
            backend.memcpy(table.data(), names, namesBytes, nullptr))
      return st;
  // Copies may be asynchronous: the table is complete, and the buffer
  // written, after this.
  symm_trace_buffer buffer{};
  buffer.counts = reinterpret_cast<uint64_t>(t.counts);
  buffer.events = reinterpret_cast<uint64_t>(t.events);
  buffer.slots = t.slots;
  buffer.capacity = t.capacity;
  buffer.module = uint32_t(t.names.size());
  if (symm_status st = backend.memcpy(global, &buffer, sizeof(buffer), nullptr))
    return st;
  if (symm_status st = backend.synchronize())
    return st;
  t.names.push_back(std::move(table));
  return SYMM_SUCCESS;
}

symm_status symm::writeTrace(State &s) {
  const char *path = tracePath();
  if (!path)
    return SYMM_SUCCESS;
  Tracer &t = tracer();
  std::vector<Event> events;
  uint64_t dropped = 0;
  if (t.counts)
    if (symm_status st = readEvents(*s.backend, events, dropped))
      return st;
  if (dropped)
    fprintf(stderr,
            "symm: rank %d: the trace dropped %" PRIu64
            " events (%s=%u per subgroup, %s=%u subgroups)\n",
            s.rank, dropped, env::kTraceEvents, t.capacity, env::kTraceSlots,
            t.slots);
  // Measured at barriers, whose skew under load (tens of microseconds on
  // two busy cores) would misorder a signal and the wait it ended, unless
  // the ranks read one clock.
  int64_t offset = 0;
  if (!s.backend->ranksShareClock())
    if (symm_status st = measureOffset(s, offset))
      return st;
  if (symm_status st = writePart(s, events, dropped, offset, path))
    return st;
  // Every part is written before rank 0 reads them.
  if (symm_status st = s.bootstrap->barrier())
    return st;
  if (s.rank != 0)
    return SYMM_SUCCESS;
  std::vector<RankEvent> all;
  std::vector<uint64_t> lost;
  std::string error;
  if (!readParts(s.size, path, all, lost, error) ||
      !writeJson(s.size, path, all, lost, error))
    return fail(SYMM_ERROR_INVALID_ARGUMENT, "SYMM_TRACE=%s: %s", path,
                error.c_str());
  return SYMM_SUCCESS;
}

void symm::releaseTrace(Backend &backend) {
  Tracer &t = tracer();
  std::lock_guard<std::mutex> lock(t.mutex);
  if (t.counts)
    backend.memFree(t.counts);
  if (t.events)
    backend.memFree(t.events);
  t.counts = t.events = nullptr;
  t.names.clear();
}
