"""Shared by the tests."""

import os

# What launchers tell a rank about its job: symm-run, torchrun, Open MPI.
_JOB_VARIABLES = ("SYMM_RANK", "SYMM_WORLD_SIZE", "SYMM_LOCAL_RANK",
                  "SYMM_RENDEZVOUS", "RANK", "WORLD_SIZE", "LOCAL_RANK",
                  "MASTER_", "OMPI_", "PMIX_")


def solo_env(**extra):
    """This process's environment without its job's variables: a child
    started with it is a one-rank job of its own."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(_JOB_VARIABLES)}
    env.update(extra)
    return env
