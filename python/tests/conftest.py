"""Shared fixtures: the repository, the public vectors and the CLI (built by cargo)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path
from typing import List, Optional

import pytest

REPO = Path(__file__).resolve().parents[2]


def _cli() -> Optional[str]:
    given = os.environ.get("AGENTLOOP_CLI")
    if given:
        return given
    built = REPO / "target" / "debug" / "agentloop"
    if built.exists():
        return str(built)
    return shutil.which("agentloop")


@pytest.fixture(scope="session")
def cli() -> str:
    """The `agentloop` binary: $AGENTLOOP_CLI, else target/debug/agentloop."""
    path = _cli()
    if path is None:
        if os.environ.get("CI"):
            pytest.fail("CI must give the CLI: set AGENTLOOP_CLI or build agentloop-cli")
        pytest.skip("no agentloop CLI built (cargo build -p agentloop-cli)")
    return path


def run_cli(cli: str, args: List[str], cwd: Optional[Path] = None) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([cli, *args], cwd=cwd, capture_output=True, check=False)


@pytest.fixture(scope="session")
def vectors() -> Path:
    """The public test vectors ($AGENTLOOP_VECTORS, else ../shared/vectors)."""
    path = Path(os.environ.get("AGENTLOOP_VECTORS", REPO.parent / "shared" / "vectors"))
    if not path.is_dir():
        pytest.skip(f"no vectors at {path}")
    return path


@pytest.fixture(scope="session")
def cli_demo(cli: str, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder holding the three files `agentloop demo` wrote."""
    out = tmp_path_factory.mktemp("cli-demo")
    done = run_cli(cli, ["demo", "--out", str(out)])
    assert done.returncode == 0, done.stderr.decode()
    return out


@pytest.fixture(scope="session")
def standin() -> str:
    """The loopback stand-in provider: $AGENTLOOP_STANDIN, else target/debug/agentloop-standin."""
    path = os.environ.get("AGENTLOOP_STANDIN") or str(REPO / "target" / "debug" / "agentloop-standin")
    if not Path(path).exists():
        if os.environ.get("CI"):
            pytest.fail("CI must give the stand-in: set AGENTLOOP_STANDIN or build agentloop-standin")
        pytest.skip("no stand-in built (cargo build -p agentloop-standin)")
    return path
