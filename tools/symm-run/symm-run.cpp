//===- symm-run.cpp - Start N ranks of a Symm program -----------*- C++ -*-===//
//
//   symm-run -n N [--backend B] [--heap-size S] [--timeout T]
//            [--target T] [--check-host-access] [--check-races] [--]
//            PROGRAM|FILE.mlir [ARGS...]
//   symm-run --list-backends
//
// Starts N ranks on this node with SYMM_RANK, SYMM_WORLD_SIZE,
// SYMM_LOCAL_RANK and a private rendezvous folder in the environment,
// prefixes every output line with "[rank k] ", and exits with the status of
// the rank that failed first, after ending the others. A .mlir program is
// compiled with symm-compile first (cached by content and target). Processes
// start without a shell; the ranks die with symm-run, and a watcher process
// removes the rendezvous folder however symm-run ends.
//
//===----------------------------------------------------------------------===//

#include "Environment.h"
#include "symm/kernel_context.h"
#include "symm/runtime.h"
#include "symm/version.h"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <optional>
#include <poll.h>
#include <spawn.h>
#include <string>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

extern char **environ;

namespace fs = std::filesystem;
using namespace symm;

namespace {

volatile sig_atomic_t interrupted = 0;
void onSignal(int sig) { interrupted = sig; }

/// "host|cuda|hip": the runtime's backends, as the usage spells them.
std::string backendChoices(const char *separator) {
  std::string choices;
  for (size_t i = 0; const char *name = symm_backend_at(i); ++i)
    choices += (i ? separator : "") + std::string(name);
  return choices;
}

std::string usageLine() {
  return "usage: symm-run -n N [--backend " + backendChoices("|") +
         "] [--heap-size S] [--timeout SECONDS] [--target T] "
         "[--check-host-access] [--check-races] [--trace=FILE] [--] "
         "PROGRAM|FILE.mlir "
         "[ARGS...]\n"
         "       symm-run --list-backends\n";
}

[[noreturn]] void usage(const std::string &message) {
  fprintf(stderr, "symm-run: %s\n%s", message.c_str(), usageLine().c_str());
  exit(2);
}

[[noreturn]] void help() {
  printf("%s\n", usageLine().c_str());
  printf(
      "Starts N ranks of PROGRAM on this node, prefixes every output line "
      "with\n\"[rank k] \", and exits with the status of the rank that failed "
      "first\n(128 + signal for a rank that was killed), after ending the "
      "others.\nA FILE.mlir is compiled with symm-compile first, and cached.\n"
      "\n"
      "options:\n"
      "  -n N, --np N     number of ranks, 1 to %d (default 1)\n"
      "  --backend B      %s (default $SYMM_BACKEND, else %s)\n"
      "  --heap-size S    symmetric heap of each rank: bytes, with an "
      "optional\n"
      "                   K, M, G or T suffix (default $SYMM_HEAP_SIZE, else "
      "1G)\n"
      "  --timeout T      seconds a rendezvous or barrier may wait (default\n"
      "                   $SYMM_TIMEOUT, else 60)\n"
      "  --target T       the target a FILE.mlir is compiled for (default: "
      "the\n"
      "                   backend's; see --list-backends)\n"
      "  --check-host-access\n"
      "                   compile a FILE.mlir with symm-compile's\n"
      "                   --check-host-access: host code that reads or "
      "writes\n"
      "                   GPU memory is an error on the CPU target too\n"
      "  --check-races    check the kernels for data races on CPU ranks\n"
      "                   (SYMM_HOST_CHECK_RACES=1; a FILE.mlir is compiled\n"
      "                   with symm-compile --check-races)\n"
      "  --trace=FILE     write a trace of the kernels of every rank to FILE\n"
      "                   (SYMM_TRACE=FILE; a FILE.mlir is compiled with\n"
      "                   symm-compile --trace; docs/Tracing.md)\n"
      "  --list-backends  print each backend and its default target, and "
      "exit\n"
      "  -h, --help       print this help and exit\n"
      "  --version        print Symm's version and exit\n"
      "\n"
      "environment:\n"
      "  SYMM_CACHE_DIR   where compiled programs are kept (default "
      "~/.cache/symm)\n",
      SYMM_MAX_RANKS, backendChoices(", ").c_str(), symm_backend_at(0));
  exit(0);
}

/// One line per backend: its name and the target it runs by default.
[[noreturn]] void listBackends() {
  for (size_t i = 0; const char *name = symm_backend_at(i); ++i)
    printf("%s %s\n", name, symm_backend_default_target(name));
  exit(0);
}

std::string selfDir() {
  char buffer[4096];
  ssize_t n = readlink("/proc/self/exe", buffer, sizeof(buffer) - 1);
  if (n <= 0)
    return ".";
  buffer[n] = 0;
  std::string path(buffer);
  return path.substr(0, path.rfind('/'));
}

/// Runs `argv` (no shell) and returns its wait status, or -1 when it could
/// not start.
int runProcess(const std::vector<std::string> &argv) {
  std::vector<char *> args;
  for (const std::string &a : argv)
    args.push_back(const_cast<char *>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid;
  if (int err =
          posix_spawn(&pid, args[0], nullptr, nullptr, args.data(), environ)) {
    fprintf(stderr, "symm-run: cannot run %s: %s\n", args[0], strerror(err));
    return -1;
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
    ;
  return status;
}

/// Compiles `source` with symm-compile for `target` and `flags`, reusing an
/// executable compiled from the same bytes and arguments before.
std::string compileProgram(const std::string &source, const std::string &target,
                           const std::vector<std::string> &flags) {
  std::ifstream in(source, std::ios::binary);
  if (!in) {
    fprintf(stderr, "symm-run: cannot read %s\n", source.c_str());
    exit(2);
  }
  std::string bytes((std::istreambuf_iterator<char>(in)),
                    std::istreambuf_iterator<char>());
  std::string compiler = selfDir() + "/symm-compile";
  // A rebuilt compiler, or a changed file of the device library it links
  // from beside it, invalidates what the old one produced.
  auto stamp = [](const std::string &path) {
    struct stat info {};
    stat(path.c_str(), &info);
    return path + "\n" + std::to_string(info.st_mtime) + "\n" +
           std::to_string(info.st_size) + "\n";
  };
  std::string key = bytes + "\n" + target + "\n" + stamp(compiler);
  std::error_code listed;
  std::vector<std::string> library;
  for (const auto &entry : fs::directory_iterator(
           selfDir() + "/../share/symm/library", listed))
    library.push_back(entry.path().string());
  std::sort(library.begin(), library.end());
  for (const std::string &file : library)
    key += stamp(file);
  for (const std::string &flag : flags)
    key += "\n" + flag;
  size_t hash = std::hash<std::string>()(key);
  fs::path cache;
  if (const char *c = env::get("SYMM_CACHE_DIR"))
    cache = c;
  else if (const char *home = env::get("HOME"))
    cache = fs::path(home) / ".cache" / "symm";
  else
    cache = "/tmp/symm-cache-" + std::to_string(getuid());
  std::error_code ec;
  fs::create_directories(cache, ec);
  if (ec) {
    fprintf(stderr, "symm-run: cannot create the cache folder %s: %s\n",
            cache.c_str(), ec.message().c_str());
    exit(2);
  }
  char name[64];
  snprintf(name, sizeof(name), "%016zx-%s", hash, target.c_str());
  fs::path exe = cache / name;
  if (access(exe.c_str(), X_OK) == 0)
    return exe;
  fs::path tmp = exe.string() + ".tmp." + std::to_string(getpid());
  // An absolute path: a file named like an option stays a file.
  std::vector<std::string> argv = {compiler, "--target=" + target,
                                   "--emit=exe"};
  argv.insert(argv.end(), flags.begin(), flags.end());
  argv.insert(argv.end(), {fs::absolute(source).string(), "-o", tmp.string()});
  int status = runProcess(argv);
  if (status < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    fs::remove(tmp, ec);
    fprintf(stderr, "symm-run: compiling %s failed\n", source.c_str());
    exit(1);
  }
  fs::rename(tmp, exe, ec);
  if (ec) {
    fprintf(stderr, "symm-run: cannot move the compiled program to %s: %s\n",
            exe.c_str(), ec.message().c_str());
    exit(1);
  }
  return exe;
}

/// Starts the watcher: a process of its own group that outlives symm-run
/// and, once the returned pipe closes (symm-run ended, SIGKILL included),
/// kills the process groups of the ranks symm-run told it about, unless
/// symm-run said they are all gone, and removes `dir`.
int startWatcher(const std::string &dir) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) {
    perror("symm-run: pipe");
    exit(1);
  }
  pid_t pid = fork();
  if (pid < 0) {
    perror("symm-run: fork");
    exit(1);
  }
  if (pid > 0) {
    close(fds[0]);
    return fds[1];
  }
  // Out of symm-run's group and the terminal's, so that what ends symm-run
  // does not end the watcher first.
  setsid();
  signal(SIGINT, SIG_IGN);
  signal(SIGHUP, SIG_IGN);
  close(fds[1]);
  int devNull = open("/dev/null", O_RDWR);
  for (int fd : {STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO})
    dup2(devNull, fd);
  std::vector<pid_t> ranks;
  bool finished = false;
  pid_t message;
  ssize_t n;
  while ((n = read(fds[0], &message, sizeof(message))) != 0) {
    if (n < 0 && errno == EINTR)
      continue;
    if (n != sizeof(message))
      break;
    if (message == 0)
      finished = true;
    else
      ranks.push_back(message);
  }
  if (!finished)
    for (pid_t rank : ranks)
      kill(-rank, SIGKILL);
  std::error_code ec;
  fs::remove_all(dir, ec);
  _exit(0);
}

void tellWatcher(int watcher, pid_t message) {
  ssize_t n;
  do
    n = write(watcher, &message, sizeof(message));
  while (n < 0 && errno == EINTR);
}

struct Rank {
  pid_t pid = -1;
  int out = -1;
  std::string pending;
  bool running = false;
  int status = 0;
  /// The signal symm-run had sent this rank when it ended (0: none), so that
  /// a rank that crashed is told from a rank that was ended.
  int sentSignal = 0;
  int reapOrder = -1;
};

/// Writes `bytes` bytes of a rank's output as one line with its prefix,
/// every byte as it came (a NUL included).
void writeLine(int index, const char *bytes, size_t size) {
  printf("[rank %d] ", index);
  fwrite(bytes, 1, size, stdout);
  putchar('\n');
}

/// Writes every complete line of `rank`'s output with its prefix.
void drain(Rank &rank, int index, bool flushAll) {
  char buffer[65536];
  ssize_t n = read(rank.out, buffer, sizeof(buffer));
  if (n > 0)
    rank.pending.append(buffer, n);
  size_t start = 0, newline;
  while ((newline = rank.pending.find('\n', start)) != std::string::npos) {
    writeLine(index, rank.pending.data() + start, newline - start);
    start = newline + 1;
  }
  rank.pending.erase(0, start);
  if ((n <= 0 || flushAll) && !rank.pending.empty()) {
    writeLine(index, rank.pending.data(), rank.pending.size());
    rank.pending.clear();
  }
  fflush(stdout);
  if (n <= 0 && !(n < 0 && errno == EINTR)) {
    close(rank.out);
    rank.out = -1;
  }
}

std::string describe(int status) {
  if (WIFSIGNALED(status))
    return std::string("was killed by signal ") +
           std::to_string(WTERMSIG(status)) + " (" +
           strsignal(WTERMSIG(status)) + ")";
  return "exited with status " + std::to_string(WEXITSTATUS(status));
}

bool failed(const Rank &rank) {
  return !WIFEXITED(rank.status) || WEXITSTATUS(rank.status) != 0;
}

/// The rank to report: the first to die of a signal symm-run did not send
/// (a crash makes its peers fail too, and they may be reaped first), else the
/// first to fail. -1 when none failed.
int culprit(const std::vector<Rank> &all) {
  int crashed = -1, first = -1;
  for (int r = 0; r < int(all.size()); ++r) {
    const Rank &rank = all[r];
    if (rank.reapOrder < 0 || !failed(rank))
      continue;
    auto earlier = [&](int other) {
      return other < 0 || rank.reapOrder < all[other].reapOrder;
    };
    if (WIFSIGNALED(rank.status) && WTERMSIG(rank.status) != rank.sentSignal &&
        earlier(crashed))
      crashed = r;
    if (earlier(first))
      first = r;
  }
  return crashed >= 0 ? crashed : first;
}

/// The kind of a compiler target, which decides the backends that run it:
/// its name up to the first digit (host, sm_, gfx).
std::string targetKind(const std::string &target) {
  return target.substr(0, target.find_first_of("0123456789"));
}

/// Fails with a usage error when `backend` cannot run programs compiled for
/// `target` but another backend can (symm-compile reports a target no backend
/// runs).
void checkBackendRuns(const std::string &backend, const std::string &target) {
  std::string kind = targetKind(target);
  const char *own = symm_backend_default_target(backend.c_str());
  if (kind == targetKind(own))
    return;
  for (size_t i = 0; const char *other = symm_backend_at(i); ++i)
    if (kind == targetKind(symm_backend_default_target(other)))
      usage("the " + backend + " backend does not run programs compiled for "
            "--target=" + target + "; use --backend " + other +
            ", or a --target like " + own);
}

/// The value of option `flag`, parsed by `parse`; a usage error naming the
/// value when it is not one.
template <typename T>
T parseOption(const char *flag, const std::string &text,
              std::optional<T> parsed, const std::string &what) {
  if (!parsed)
    usage(std::string(flag) + " '" + text + "' is not " + what);
  return *parsed;
}

} // namespace

int main(int argc, char **argv) {
  int ranks = 1;
  std::string backend, heapSize, timeout, target;
  std::vector<std::string> compileFlags;
  bool checkRaces = false;
  std::string trace;
  int i = 1;
  for (; i < argc; ++i) {
    std::string arg = argv[i];
    auto value = [&](const char *flag) -> std::string {
      std::string f = flag;
      if (arg.rfind(f + "=", 0) == 0)
        return arg.substr(f.size() + 1);
      if (i + 1 >= argc)
        usage("missing value for " + f);
      return argv[++i];
    };
    auto is = [&](const char *flag) {
      return arg == flag || arg.rfind(std::string(flag) + "=", 0) == 0;
    };
    if (arg == "--") {
      ++i;
      break;
    }
    if (is("-n") || is("--np")) {
      const char *flag = is("-n") ? "-n" : "--np";
      std::string text = value(flag);
      ranks = parseOption(
          flag, text, env::parseInt(text.c_str(), 1, SYMM_MAX_RANKS),
          "a number of ranks between 1 and " + std::to_string(SYMM_MAX_RANKS));
    } else if (is("--backend")) {
      backend = value("--backend");
    } else if (is("--heap-size")) {
      heapSize = value("--heap-size");
      parseOption("--heap-size", heapSize, env::parseSize(heapSize.c_str()),
                  env::kSizeForm);
    } else if (is("--timeout")) {
      timeout = value("--timeout");
      parseOption("--timeout", timeout, env::parseSeconds(timeout.c_str()),
                  env::kSecondsForm);
    } else if (is("--target")) {
      target = value("--target");
    } else if (arg == "--check-host-access") {
      compileFlags.push_back(arg);
    } else if (arg == "--check-races") {
      checkRaces = true;
    } else if (is("--trace")) {
      trace = value("--trace");
      if (trace.empty())
        usage("--trace needs a file: --trace=FILE");
    } else if (arg == "-h" || arg == "--help") {
      help();
    } else if (arg == "--list-backends") {
      listBackends();
    } else if (arg == "--version") {
      printf("symm-run (Symm) %s\n", SYMM_VERSION);
      return 0;
    } else if (arg[0] == '-') {
      usage("unknown option " + arg);
    } else {
      break;
    }
  }
  if (i >= argc)
    usage("no program given");
  if (backend.empty())
    backend =
        env::get(env::kBackend) ? env::get(env::kBackend) : symm_backend_at(0);
  const char *defaultTarget = symm_backend_default_target(backend.c_str());
  if (!defaultTarget)
    usage("--backend must be one of " + backendChoices(", "));
  // What the ranks would inherit is checked as strictly as the options.
  if (const char *h = env::get(env::kHeapSize);
      heapSize.empty() && h && !env::parseSize(h))
    usage(env::describeSize(env::kHeapSize, h));
  if (const char *t = env::get(env::kTimeout);
      timeout.empty() && t && !env::parseSeconds(t))
    usage(env::describeSeconds(env::kTimeout, t));

  if (const char *races = env::get(env::kCheckRaces)) {
    if (strcmp(races, "0") && strcmp(races, "1"))
      usage(std::string(env::kCheckRaces) + "='" + races +
            "' is neither 0 nor 1");
    checkRaces |= !strcmp(races, "1");
  }
  if (checkRaces)
    compileFlags.push_back("--check-races");
  if (trace.empty() && env::get(env::kTrace))
    trace = env::get(env::kTrace);
  if (!trace.empty())
    compileFlags.push_back("--trace");
  std::string program = argv[i];
  if (program.size() > 5 && program.substr(program.size() - 5) == ".mlir") {
    if (target.empty())
      target = defaultTarget;
    checkBackendRuns(backend, target);
    program = compileProgram(program, target, compileFlags);
  }

  char dirTemplate[] = "/tmp/symm-run-XXXXXX"; // mkdtemp makes it 0700
  if (!mkdtemp(dirTemplate)) {
    perror("symm-run: mkdtemp");
    return 1;
  }
  std::string dir = dirTemplate;
  int watcher = startWatcher(dir);

  struct sigaction action {};
  action.sa_handler = onSignal;
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
  signal(SIGPIPE, SIG_IGN);

  pid_t self = getpid();
  bool startFailed = false;
  std::vector<Rank> all(ranks);
  for (int r = 0; r < ranks; ++r) {
    int pipefd[2];
    if (pipe2(pipefd, O_CLOEXEC) != 0) {
      perror("symm-run: pipe");
      return 1;
    }
    pid_t pid = fork();
    if (pid == 0) {
      setpgid(0, 0);
      // A rank dies with symm-run, however symm-run ends.
      prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (getppid() != self)
        _exit(1);
      dup2(pipefd[1], STDOUT_FILENO);
      dup2(pipefd[1], STDERR_FILENO);
      setenv(env::kRank, std::to_string(r).c_str(), 1);
      setenv(env::kWorldSize, std::to_string(ranks).c_str(), 1);
      setenv(env::kLocalRank, std::to_string(r).c_str(), 1);
      setenv(env::kRendezvous, dir.c_str(), 1);
      setenv(env::kBackend, backend.c_str(), 1);
      if (!heapSize.empty())
        setenv(env::kHeapSize, heapSize.c_str(), 1);
      if (!timeout.empty())
        setenv(env::kTimeout, timeout.c_str(), 1);
      if (checkRaces)
        setenv(env::kCheckRaces, "1", 1);
      if (!trace.empty())
        setenv(env::kTrace, trace.c_str(), 1);
      execvp(program.c_str(), argv + i);
      fprintf(stderr, "symm-run: cannot run %s: %s\n", program.c_str(),
              strerror(errno));
      _exit(127);
    }
    close(pipefd[1]);
    if (pid < 0) {
      perror("symm-run: cannot start a rank");
      close(pipefd[0]);
      startFailed = true;
      break;
    }
    // Also set here: the rank may not have run yet when it is signalled.
    setpgid(pid, pid);
    tellWatcher(watcher, pid);
    all[r].pid = pid;
    all[r].out = pipefd[0];
    all[r].running = true;
  }

  int running = std::count_if(all.begin(), all.end(),
                              [](const Rank &r) { return r.running; });
  int reaped = 0;
  bool killing = startFailed;
  int graceMs = 0;
  while (running > 0 || std::any_of(all.begin(), all.end(),
                                    [](const Rank &r) { return r.out >= 0; })) {
    std::vector<pollfd> fds;
    std::vector<int> owners;
    for (int r = 0; r < ranks; ++r)
      if (all[r].out >= 0) {
        fds.push_back({all[r].out, POLLIN, 0});
        owners.push_back(r);
      }
    if (!fds.empty() && poll(fds.data(), fds.size(), 50) > 0)
      for (size_t k = 0; k < fds.size(); ++k)
        if (fds[k].revents)
          drain(all[owners[k]], owners[k], false);
    if (fds.empty())
      usleep(50000);

    int status;
    pid_t pid;
    while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
      for (Rank &rank : all) {
        if (rank.pid != pid)
          continue;
        rank.running = false;
        rank.status = status;
        rank.reapOrder = reaped++;
        --running;
        if (failed(rank))
          killing = true;
      }
    }
    if (interrupted && !killing) {
      fprintf(stderr, "symm-run: interrupted; ending all ranks\n");
      killing = true;
    }
    if (killing && running > 0) {
      int sig = graceMs >= 2000 ? SIGKILL : SIGTERM;
      if (graceMs == 0 || graceMs >= 2000)
        for (Rank &rank : all)
          if (rank.running) {
            kill(-rank.pid, sig);
            rank.sentSignal = sig;
          }
      graceMs += 50;
    }
  }
  for (int r = 0; r < ranks; ++r)
    if (!all[r].pending.empty())
      writeLine(r, all[r].pending.data(), all[r].pending.size());
  fflush(stdout);

  int result = 0;
  if (interrupted) {
    result = 128 + interrupted;
  } else if (startFailed) {
    result = 1;
  } else if (int r = culprit(all); r >= 0) {
    const Rank &rank = all[r];
    bool ended = std::any_of(all.begin(), all.end(), [](const Rank &other) {
      return other.sentSignal != 0;
    });
    fprintf(stderr, "symm-run: rank %d %s%s\n", r,
            describe(rank.status).c_str(),
            ended ? "; ended the other ranks" : "");
    result = WIFEXITED(rank.status) ? WEXITSTATUS(rank.status)
                                    : 128 + WTERMSIG(rank.status);
  }
  // Every rank is gone: the watcher only has to confirm the folder's removal.
  tellWatcher(watcher, 0);
  std::error_code ec;
  fs::remove_all(dir, ec);
  if (ec)
    fprintf(stderr, "symm-run: could not remove %s: %s\n", dir.c_str(),
            ec.message().c_str());
  return result;
}
