"""Finding a delegated cgroup v2 subtree, on the machine's real cgroup v2 hierarchy.

The development machines mount cgroup v2 beside cgroup v1 (hybrid) with the memory and pids
controllers bound to v1, so no cgroup v2 group here can bound a bot's memory: what runs for
real is the detection (a private cgroup namespace with a cgroup2 mount of its own, as Docker
gives a container; a group systemd marks delegated) and the preparation of a delegated group
(every process moved into a leaf, so that controllers can be enabled for its children),
with the required controllers emptied where the test says so. A group's memory.max bounding
a whole tree is cgroups.CgroupV2, used when ARENA_CGROUP_V2 names such a group.
"""

from __future__ import annotations

import json
import os
import secrets
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

DETECT = r"""
import json, os, sys
from pathlib import Path
from bots.sandbox import cgroups
if sys.argv[1] == "none":
    cgroups.V2_CONTROLLERS = ()  # this machine's cgroup v2 has no memory or pids to give
base = cgroups.delegated_v2()
later = None
if base is not None:  # a process started after the preparation (a pool process, say)
    import subprocess
    later = subprocess.run(
        [sys.executable, "-c", "from bots.sandbox import cgroups; cgroups.V2_CONTROLLERS = ();"
         "print(cgroups.delegated_v2())"],
        capture_output=True, text=True, check=True).stdout.strip()
print(json.dumps({
    "base": base and str(base), "reason": cgroups.v2_unavailable_reason(), "later": later,
    "own": open("/proc/self/cgroup").read().splitlines()[-1],
    "subtree": base and (base / "cgroup.subtree_control").read_text().strip(),
    "left_in_base": base and (base / "cgroup.procs").read_text().split(),
}))
"""


def unified_mount() -> Path | None:
    for line in Path("/proc/self/mountinfo").read_text().splitlines():
        fields = line.split()
        after = fields[fields.index("-") + 1 :]
        if after[0] == "cgroup2" and fields[3] == "/":
            return Path(fields[4])
    return None


@pytest.fixture
def test_group():
    """A fresh group in the machine's cgroup v2 hierarchy, removed afterwards."""
    mount = unified_mount()
    if os.geteuid() != 0 or mount is None or shutil.which("unshare") is None:
        pytest.skip("needs root, a cgroup v2 mount and unshare")
    group = mount / f"arena-test-{secrets.token_hex(4)}"
    group.mkdir()
    try:
        yield group
    finally:
        for leaf in sorted(group.rglob("*"), reverse=True):
            if leaf.is_dir():
                leaf.rmdir()
        group.rmdir()


def run_in(group: Path, controllers: str, private_namespace: bool, tmp_path: Path) -> dict:
    """DETECT in a process moved into ``group``; with ``private_namespace``, inside a cgroup
    namespace rooted there and a cgroup2 mount of its own, as in a container."""
    script = tmp_path / "detect.py"
    script.write_text(DETECT)
    detect = f"{shlex.quote(sys.executable)} {shlex.quote(str(script))} {controllers}"
    if private_namespace:
        mount = tmp_path / "cgroup"
        mount.mkdir(exist_ok=True)
        inner = f"mount -t cgroup2 none {shlex.quote(str(mount))} && exec {detect}"
        command = f"unshare --cgroup --mount --propagation private sh -c {shlex.quote(inner)}"
    else:
        command = detect
    move = f"echo $$ > {shlex.quote(str(group / 'cgroup.procs'))} && exec {command}"
    run = subprocess.run(
        ["sh", "-c", move], cwd=REPO, capture_output=True, text=True, timeout=60,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )  # fmt: skip
    assert run.returncode == 0, run.stderr[-3000:]
    return json.loads(run.stdout.splitlines()[-1])


def test_a_containers_cgroup_without_memory_and_pids_is_not_used_and_says_why(test_group, tmp_path):
    out = run_in(test_group, "memory,pids", private_namespace=True, tmp_path=tmp_path)
    assert out["base"] is None
    assert out["own"] == "0::/"  # the root of its own cgroup namespace
    assert "memory" in out["reason"] and "pids" in out["reason"], out["reason"]
    assert "not available" in out["reason"], out["reason"]


def test_a_containers_own_cgroup_is_prepared_for_a_group_per_bot(test_group, tmp_path):
    """Every process of the container's group moves to a leaf of its own (cgroup v2 enables
    a controller for a group's children only once the group itself holds no process); the
    bots' groups then go beside it. A process started later, in the leaf, finds the same."""
    out = run_in(test_group, "none", private_namespace=True, tmp_path=tmp_path)
    assert out["base"] == str(tmp_path / "cgroup"), out["reason"]
    assert out["own"] == "0::/arena-worker"
    assert out["left_in_base"] == []
    assert out["later"] == out["base"]
    assert (test_group / "arena-worker").is_dir()


def test_a_group_systemd_did_not_delegate_is_left_alone_until_marked(test_group, tmp_path):
    out = run_in(test_group, "none", private_namespace=False, tmp_path=tmp_path)
    assert out["base"] is None
    assert "not delegated" in out["reason"], out["reason"]
    assert not (test_group / "arena-worker").exists()  # nothing moved
    # systemd marks a group it delegates (Delegate=yes) with this attribute.
    os.setxattr(test_group, "trusted.delegate", b"1")
    out = run_in(test_group, "none", private_namespace=False, tmp_path=tmp_path)
    assert out["base"] == str(test_group), out["reason"]
    assert out["own"] == f"0::/{test_group.name}/arena-worker"


def test_the_compose_files_bot_running_containers_have_a_memory_limit():
    """Where Docker keeps the cgroup tree read-only, the container's limit is what bounds
    the bots of a worker together (no swap beyond it)."""
    import yaml

    services = yaml.safe_load((REPO / "docker-compose.yml").read_text())["services"]
    for name in ("worker", "service"):
        limit = services[name]["mem_limit"]
        assert limit.startswith("${ARENA_") and limit.endswith("g}"), limit
        assert services[name]["memswap_limit"] == limit
