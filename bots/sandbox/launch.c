/* arena-launch: the steps between fork and exec of a bot's sandbox, as a small program.
 *
 * bots/sandbox/spawn.py's preexec does the same in Python, between fork and exec. But a
 * fork of a worker (about 100 MiB) copies its page tables and write-protects all of its
 * memory, and the Python that runs in the child touches more of it: CPU paid for every
 * sandbox by the worker and the child together. Started through this program,
 * Python's subprocess uses vfork instead: nothing is copied, and the parent waits only for
 * this program's exec (bots/sandbox/launcher.py builds and finds it).
 *
 *   arena-launch PARENT REPORT_FD [cgroup PROCS_OR_TASKS_FILE]... [oom SCORE]
 *                [scratch WHERE OPTIONS] [rlimit RESOURCE SOFT HARD]... [uid UID]
 *                -- PROGRAM [ARG]...
 *
 * The steps run in that order, each as spawn.preexec runs it: join the cgroups, mark the
 * process first to go when memory runs out, mount the bounded /tmp in a mount namespace
 * of its own, set the rlimits (after the last open: until exec this process holds every
 * descriptor the worker passed), give up the worker's uid, die with the worker's thread
 * (PR_SET_PDEATHSIG, after the uid change that clears it), and exec PROGRAM. Should the
 * worker be gone already, exit 70 in silence, as the preexec does.
 *
 * REPORT_FD is close-on-exec: the worker reads it until end of file. A step that fails
 * writes one line there ("step: error") and exits 71, so a failure is the host's and is
 * told as such, never mistaken for the bot's. Bots never see this program or talk to it;
 * it runs as the worker's own user, with nothing more than the worker may do.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>

enum { EXIT_PARENT_GONE = 70, EXIT_FAILED = 71 };

static int report_fd = 2;

static void fail(const char *step, const char *detail) {
    dprintf(report_fd, "%s: %s\n", step, detail);
    _exit(EXIT_FAILED);
}

static void fail_errno(const char *step) { fail(step, strerror(errno)); }

static long long number(const char *text, const char *what) {
    char *end;
    errno = 0;
    long long value = strtoll(text, &end, 10);
    if (errno || end == text || *end)
        fail(what, "not a number");
    return value;
}

static void write_text(const char *path, const char *text) {
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        fail_errno(path);
    size_t length = strlen(text);
    if (write(fd, text, length) != (ssize_t)length)
        fail_errno(path);
    if (close(fd) != 0)
        fail_errno(path);
}

/* The sandbox's /tmp: a tmpfs bounded in bytes and in files, mounted at WHERE in a mount
 * namespace of this process's own (bwrap, exec'd next, binds it at /tmp). A worker that
 * is not root first enters a user namespace of its own, mapping only its uid and gid. */
static void mount_scratch(const char *where, const char *options) {
    uid_t uid = getuid();
    gid_t gid = getgid();
    int own_userns = geteuid() != 0;
    if (unshare(CLONE_NEWNS | (own_userns ? CLONE_NEWUSER : 0)) != 0)
        fail_errno("unshare for the sandbox's /tmp");
    if (own_userns) {
        char map[64];
        snprintf(map, sizeof map, "%u %u 1", (unsigned)uid, (unsigned)uid);
        write_text("/proc/self/uid_map", map);
        write_text("/proc/self/setgroups", "deny");
        snprintf(map, sizeof map, "%u %u 1", (unsigned)gid, (unsigned)gid);
        write_text("/proc/self/gid_map", map);
    }
    /* Private first: the mount must not propagate back to the machine's namespace. */
    if (mount("none", "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0)
        fail_errno("making the sandbox's mounts private");
    if (mount("tmpfs", where, "tmpfs", MS_NOSUID | MS_NODEV, options) != 0)
        fail_errno("mounting the sandbox's /tmp");
}

int main(int argc, char **argv) {
    if (argc < 4)
        fail("arguments", "usage: arena-launch PARENT REPORT_FD [STEP ARG...]... -- PROGRAM");
    pid_t parent = (pid_t)number(argv[1], "parent");
    report_fd = (int)number(argv[2], "report fd");
    if (fcntl(report_fd, F_SETFD, FD_CLOEXEC) != 0) {
        report_fd = 2;
        fail_errno("report fd");
    }
    long long uid = -1;
    int i = 3;
    for (; i < argc && strcmp(argv[i], "--") != 0; i++) {
        const char *step = argv[i];
        if (!strcmp(step, "cgroup") && i + 1 < argc) {
            /* "0": the writer itself. Through a v1 "tasks" file this moves the calling
             * thread, the only one here, without the kernel's global threadgroup lock. */
            write_text(argv[++i], "0");
        } else if (!strcmp(step, "oom") && i + 1 < argc) {
            number(argv[i + 1], "oom score");
            write_text("/proc/self/oom_score_adj", argv[++i]);
        } else if (!strcmp(step, "scratch") && i + 2 < argc) {
            mount_scratch(argv[i + 1], argv[i + 2]);
            i += 2;
        } else if (!strcmp(step, "rlimit") && i + 3 < argc) {
            struct rlimit limit = {
                .rlim_cur = (rlim_t)number(argv[i + 2], "rlimit soft"),
                .rlim_max = (rlim_t)number(argv[i + 3], "rlimit hard"),
            };
            if (setrlimit((int)number(argv[i + 1], "rlimit resource"), &limit) != 0)
                fail_errno("setrlimit");
            i += 3;
        } else if (!strcmp(step, "uid") && i + 1 < argc) {
            uid = number(argv[++i], "uid");
        } else {
            fail("arguments", step);
        }
    }
    if (i + 1 >= argc)
        fail("arguments", "no program after --");
    if (uid >= 0) {
        if (setgroups(0, NULL) != 0)
            fail_errno("setgroups");
        if (setresgid((gid_t)uid, (gid_t)uid, (gid_t)uid) != 0)
            fail_errno("setresgid");
        if (setresuid((uid_t)uid, (uid_t)uid, (uid_t)uid) != 0)
            fail_errno("setresuid");
    }
    /* After the uid change, which clears it: die with the worker's thread. */
    if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) != 0)
        fail_errno("PR_SET_PDEATHSIG");
    if (getppid() != parent)
        _exit(EXIT_PARENT_GONE);
    execvp(argv[i + 1], &argv[i + 1]);
    fail_errno(argv[i + 1]);
}
