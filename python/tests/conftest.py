"""Every test runs on every rank of the job (symm-run -n N, or torchrun-style
variables): ranks call the same collectives in the same order, so a test that
fails raises on every rank instead of leaving a peer waiting."""

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

import symm

HERE = Path(__file__).resolve().parent


def pytest_configure(config):
    # Ranks run pytest side by side: each needs a temporary folder of its own,
    # which another rank's clean-up of pytest's shared folder cannot remove.
    if not config.option.basetemp:
        config.option.basetemp = tempfile.mkdtemp(prefix="symm-pytest-")
        config.symm_basetemp = config.option.basetemp


def pytest_unconfigure(config):
    if hasattr(config, "symm_basetemp"):
        shutil.rmtree(config.symm_basetemp, ignore_errors=True)


def pytest_sessionstart(session):
    # Before any test, so that skip conditions may ask for the world size;
    # symm.finalize() runs at exit.
    symm.init()


def _compile(name: str, out: Path, *options: str) -> Path:
    tool = os.environ.get("SYMM_COMPILE") or shutil.which("symm-compile")
    if not tool:
        pytest.fail("symm-compile not found: set SYMM_COMPILE or PATH")
    subprocess.run([tool, "--target=host", *options,
                    str(HERE / "kernels" / name), "-o", str(out)], check=True)
    return out


@pytest.fixture(scope="session")
def kernels_path(tmp_path_factory) -> Path:
    """kernels.mlir compiled for the host target (once per rank)."""
    return _compile("kernels.mlir", tmp_path_factory.mktemp("k") / "k.so")


@pytest.fixture(scope="session")
def kernels(kernels_path):
    return symm.load(kernels_path)


@pytest.fixture(scope="session")
def context_kernels(tmp_path_factory):
    path = _compile("context_argument.mlir",
                    tmp_path_factory.mktemp("c") / "c.so",
                    "--kernel-context=argument")
    return symm.load(path)


@pytest.fixture(scope="session")
def tensor_map_kernels(tmp_path_factory):
    """tensor_map.mlir compiled for the host target: a kernel that takes TMA
    descriptors."""
    return symm.load(_compile("tensor_map.mlir",
                              tmp_path_factory.mktemp("t") / "t.so"))
