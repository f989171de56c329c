"""A seccomp filter for bots, assembled by hand as classic BPF (no libseccomp dependency).

bwrap's ``--seccomp FD`` reads a raw ``struct sock_filter[]`` from a descriptor and installs
it just before exec (bwrap also sets no_new_privs). The filter:

- kills the process on any architecture other than x86_64 (no i386/x32 syscall tables to
  sidestep the numbers below) and refuses x32-ABI numbers;
- refuses with EPERM: ptrace, process_vm_*, mount and the new mount API, umount, pivot_root,
  chroot, unshare, setns, keyctl/add_key/request_key, bpf, io_uring_*, perf_event_open,
  userfaultfd, fanotify, handle-based open, kernel modules, kexec, swap, reboot, acct;
- refuses clone3 with ENOSYS (its flags live in memory a filter cannot read; libc then
  falls back to clone) and clone with any CLONE_NEW* flag with EPERM;
- refuses every socket family but AF_UNIX with EAFNOSUPPORT (there is no network anyway).

Everything else is allowed: Python, threads and fork must keep working.
"""

from __future__ import annotations

import errno
import os
import platform
import struct

AUDIT_ARCH_X86_64 = 0xC000003E
X32_SYSCALL_BIT = 0x40000000
CLONE_NEW_MASK = 0x7E020000  # NEWNS | NEWCGROUP | NEWUTS | NEWIPC | NEWUSER | NEWPID | NEWNET
AF_UNIX = 1

RET_ALLOW = 0x7FFF0000
RET_KILL_PROCESS = 0x80000000
RET_ERRNO = 0x00050000

LD_W_ABS = 0x20
JEQ = 0x15
JGE = 0x35
JSET = 0x45
RET = 0x06

# x86_64 numbers (asm/unistd_64.h)
DENIED_X86_64 = {
    "ptrace": 101, "process_vm_readv": 310, "process_vm_writev": 311,
    "mount": 165, "umount2": 166, "pivot_root": 155, "chroot": 161,
    "open_tree": 428, "move_mount": 429, "fsopen": 430, "fsconfig": 431, "fsmount": 432,
    "fspick": 433, "mount_setattr": 442,
    "unshare": 272, "setns": 308,
    "add_key": 248, "request_key": 249, "keyctl": 250,
    "bpf": 321, "io_uring_setup": 425, "io_uring_enter": 426, "io_uring_register": 427,
    "perf_event_open": 298, "userfaultfd": 323, "fanotify_init": 300,
    "name_to_handle_at": 303, "open_by_handle_at": 304, "lookup_dcookie": 212,
    "init_module": 175, "finit_module": 313, "delete_module": 176,
    "kexec_load": 246, "kexec_file_load": 320,
    "swapon": 167, "swapoff": 168, "reboot": 169, "acct": 163,
}  # fmt: skip
NR_CLONE, NR_CLONE3, NR_SOCKET, NR_SOCKETPAIR = 56, 435, 41, 53


def _ins(code: int, k: int, jt: int = 0, jf: int = 0) -> bytes:
    return struct.pack("<HBBI", code, jt, jf, k)


def supported() -> bool:
    return platform.machine() == "x86_64"


def program() -> bytes:
    """The filter as bytes, ready for ``bwrap --seccomp``."""
    eperm = RET_ERRNO | errno.EPERM
    out = [
        _ins(LD_W_ABS, 4),  # arch
        _ins(JEQ, AUDIT_ARCH_X86_64, 1, 0),
        _ins(RET, RET_KILL_PROCESS),
        _ins(LD_W_ABS, 0),  # syscall number
        _ins(JGE, X32_SYSCALL_BIT, 0, 1),
        _ins(RET, eperm),
    ]
    for nr in sorted(DENIED_X86_64.values()):
        out += [_ins(JEQ, nr, 0, 1), _ins(RET, eperm)]
    out += [_ins(JEQ, NR_CLONE3, 0, 1), _ins(RET, RET_ERRNO | errno.ENOSYS)]
    out += [
        _ins(JEQ, NR_CLONE, 0, 4),
        _ins(LD_W_ABS, 16),  # flags (low 32 bits of args[0])
        _ins(JSET, CLONE_NEW_MASK, 0, 1),
        _ins(RET, eperm),
        _ins(RET, RET_ALLOW),
        _ins(JEQ, NR_SOCKET, 1, 0),
        _ins(JEQ, NR_SOCKETPAIR, 0, 4),
        _ins(LD_W_ABS, 16),  # domain
        _ins(JEQ, AF_UNIX, 0, 1),
        _ins(RET, RET_ALLOW),
        _ins(RET, RET_ERRNO | errno.EAFNOSUPPORT),
        _ins(RET, RET_ALLOW),
    ]
    return b"".join(out)


_PROGRAM: bytes | None = None


def program_fd() -> int | None:
    """A pipe's read end holding the filter (bwrap reads it to EOF); None where unsupported."""
    global _PROGRAM
    if not supported():
        return None
    if _PROGRAM is None:
        _PROGRAM = program()
    read_end, write_end = os.pipe()
    os.write(write_end, _PROGRAM)  # a few hundred bytes: fits the pipe buffer
    os.close(write_end)
    return read_end


def describe() -> str:
    if not supported():
        return f"off (no filter for {platform.machine()})"
    return f"on ({len(DENIED_X86_64) + 2} syscalls refused, non-Unix sockets refused)"
