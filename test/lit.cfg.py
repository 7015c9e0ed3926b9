# -*- Python -*- lit configuration for Symm.

import os

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "SYMM"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".c", ".test"]
config.excludes = ["CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py", "Inputs", "Embedding"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.symm_obj_root, "test")

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%symm_src_root", config.symm_src_root))
config.substitutions.append(("%symm_obj_root", config.symm_obj_root))

llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP"])
llvm_config.use_default_substitutions()

tool_dirs = [config.symm_tools_dir, config.llvm_tools_dir]
# Programs the suite runs on CPU ranks must also run on GPUs, where host code
# cannot touch device memory: every compile checks that, as GPU targets always
# do (test/Target/check-host-access.mlir compiles without it by its path).
tools = ["symm-opt",
         ToolSubst("symm-compile", extra_args=["--check-host-access"]),
         "symm-run", "symm-launch", "symm-lsp-server", "symm-reduce",
         "symm-context-driver", "symm-capi-test", "symm-capi-compile-test",
         "llvm-readelf", "llvm-objdump"]
llvm_config.add_tool_substitutions(tools, tool_dirs)
# The plugin is tested with Debian's own mlir-opt, never a Symm tool.
llvm_config.add_tool_substitutions(["mlir-opt"], [config.llvm_tools_dir])
config.substitutions.append(
    ("%symm_plugin", os.path.join(config.symm_obj_root, "lib", "SymmPlugin.so")))
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
llvm_config.with_environment("PATH", config.symm_tools_dir, append_path=True)

import shutil
if shutil.which("ptxas") or os.path.exists("/usr/local/cuda/bin/ptxas"):
    config.available_features.add("ptxas")
# `--param check_races=1`: every kernel the suite runs on CPU ranks is
# checked for data races (docs/CPUTarget.md): programs that symm-run
# compiles (test/Integration's %symm_run adds --check-races), the workloads'
# and the collectives' kernels with their race-checking builds. A test that
# cannot run so says `UNSUPPORTED: check-races` and why.
if lit_config.params.get("check_races", "0") == "1":
    config.environment["SYMM_HOST_CHECK_RACES"] = "1"
    config.available_features.add("check-races")
if config.symm_nvshmem_backend:
    config.available_features.add("nvshmem-backend")
if shutil.which("mpirun"):
    config.available_features.add("mpirun")
# Every collective call compares its arguments across ranks
# (docs/Collectives.md, checked mode).
config.environment["SYMM_CHECK_COLLECTIVES"] = "1"
# A job id for launcher tests that derive the rendezvous from MASTER_PORT.
config.substitutions.append(("%{port}", str(20000 + os.getpid() % 20000)))
# The first four digits of TCP ports for the tcp bootstrap's tests (a fifth
# digit follows): 20000 to 31999, below Linux's ephemeral ports.
config.substitutions.append(("%{tcp_port}", str(2000 + os.getpid() % 1200)))
# Whether this machine can listen on IPv6's loopback.
try:
    import socket
    with socket.socket(socket.AF_INET6, socket.SOCK_STREAM) as probe:
        probe.bind(("::1", 0))
    config.available_features.add("ipv6")
except OSError:
    pass
