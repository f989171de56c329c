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
 *
 * Built with ARENA_FREESTANDING on x86-64, it uses no C library: system calls
 * are made directly, and the program starts at _start. A C library's start-up, which
 * reads the processor's cache geometry with CPUID (each one a trap to the hypervisor in
 * a virtual machine), costs more than everything this program does, on every sandbox
 * start. Elsewhere the same code runs on the C library's syscall().
 */
#include <linux/errno.h>
#include <linux/fcntl.h>
#include <linux/mount.h>
#include <linux/prctl.h>
#include <linux/sched.h>

enum { EXIT_PARENT_GONE = 70, EXIT_FAILED = 71 };
enum { KILL_SIGNAL = 9 }; /* SIGKILL on every Linux architecture */

#if defined(ARENA_FREESTANDING) && defined(__x86_64__)
#include <asm/unistd.h>

/* A system call; the kernel's result: a negative errno on failure. */
static long sys(long n, long a, long b, long c, long d, long e) {
    register long r10 __asm__("r10") = d;
    register long r8 __asm__("r8") = e;
    long result;
    __asm__ volatile("syscall"
                     : "=a"(result)
                     : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8)
                     : "rcx", "r11", "memory");
    return result;
}

/* The compiler may emit calls to these for a struct's initialisation or copy. */
void *memset(void *to, int value, unsigned long length) {
    unsigned char *out = to;
    while (length--)
        *out++ = (unsigned char)value;
    return to;
}

void *memcpy(void *to, const void *from, unsigned long length) {
    unsigned char *out = to;
    const unsigned char *in = from;
    while (length--)
        *out++ = *in++;
    return to;
}

static int run(int argc, char **argv, char **envp);

__attribute__((noreturn, used)) void arena_start(long *stack) {
    int argc = (int)stack[0];
    char **argv = (char **)(stack + 1);
    sys(__NR_exit_group, run(argc, argv, argv + argc + 1), 0, 0, 0, 0);
    __builtin_unreachable();
}

/* The kernel starts the program with argc, then argv and envp, at the stack pointer. */
__asm__(".text\n.global _start\n_start:\n"
        "  xor %rbp, %rbp\n  mov %rsp, %rdi\n  and $-16, %rsp\n  call arena_start\n");

#else /* the C library's syscall() */
#include <errno.h>
#include <sys/syscall.h>
#include <unistd.h>

static long sys(long n, long a, long b, long c, long d, long e) {
    long result = syscall(n, a, b, c, d, e);
    return result == -1 ? -errno : result;
}

static int run(int argc, char **argv, char **envp);

int main(int argc, char **argv, char **envp) { return run(argc, argv, envp); }
#endif

static int report_fd = 2;

static unsigned long length_of(const char *text) {
    unsigned long length = 0;
    while (text[length])
        length++;
    return length;
}

static int same(const char *a, const char *b) {
    while (*a && *a == *b)
        a++, b++;
    return *a == *b;
}

/* The C library's texts for the errors these steps can meet. */
static const char *const ERRORS[] = {
    0, "Operation not permitted", "No such file or directory", "No such process",
    "Interrupted system call", "Input/output error", "No such device or address",
    "Argument list too long", "Exec format error", "Bad file descriptor", "No child processes",
    "Resource temporarily unavailable", "Cannot allocate memory", "Permission denied",
    "Bad address", "Block device required", "Device or resource busy", "File exists",
    "Invalid cross-device link", "No such device", "Not a directory", "Is a directory",
    "Invalid argument", "Too many open files in system", "Too many open files",
    "Inappropriate ioctl for device", "Text file busy", "File too large",
    "No space left on device", "Illegal seek", "Read-only file system", "Too many links",
    "Broken pipe", "Numerical argument out of domain", "Numerical result out of range",
    "Resource deadlock avoided", "File name too long", "No locks available",
    "Function not implemented", "Directory not empty", "Too many levels of symbolic links",
};

/* "STEP: DETAIL\n" on the report pipe in one write, then exit. */
__attribute__((noreturn)) static void fail(const char *step, const char *detail) {
    struct {
        const char *base;
        unsigned long length;
    } parts[] = {{step, length_of(step)}, {": ", 2}, {detail, length_of(detail)}, {"\n", 1}};
    sys(__NR_writev, report_fd, (long)parts, 4, 0, 0);
    sys(__NR_exit_group, EXIT_FAILED, 0, 0, 0, 0);
    __builtin_unreachable();
}

__attribute__((noreturn)) static void fail_errno(const char *step, long error) {
    long code = -error;
    if (code > 0 && code < (long)(sizeof ERRORS / sizeof *ERRORS))
        fail(step, ERRORS[code]);
    char text[40] = "Unknown error ";
    char digits[20];
    int count = 0, at = 14;
    do
        digits[count++] = (char)('0' + code % 10);
    while ((code /= 10) > 0 && count < 19);
    while (count)
        text[at++] = digits[--count];
    text[at] = 0;
    fail(step, text);
}

/* A whole decimal number, as strtoll reads it with nothing left over. */
static long long number(const char *text, const char *what) {
    const char *at = text;
    int negative = *at == '-';
    if (*at == '-' || *at == '+')
        at++;
    if (!*at)
        fail(what, "not a number");
    unsigned long long value = 0;
    for (; *at; at++) {
        if (*at < '0' || *at > '9' || value > (~0ULL >> 1) / 10)
            fail(what, "not a number");
        value = value * 10 + (unsigned long long)(*at - '0');
        if (value > (~0ULL >> 1) + negative)
            fail(what, "not a number");
    }
    return negative ? (long long)(0 - value) : (long long)value;
}

static void write_text(const char *path, const char *text) {
    long fd = sys(__NR_openat, AT_FDCWD, (long)path, O_WRONLY | O_CLOEXEC, 0, 0);
    if (fd < 0)
        fail_errno(path, fd);
    long length = (long)length_of(text);
    long written = sys(__NR_write, fd, (long)text, length, 0, 0);
    if (written != length)
        fail_errno(path, written < 0 ? written : -EIO);
    long closed = sys(__NR_close, fd, 0, 0, 0, 0);
    if (closed != 0)
        fail_errno(path, closed);
}

static void decimal(char *out, unsigned long value) {
    char digits[20];
    int count = 0;
    do
        digits[count++] = (char)('0' + value % 10);
    while ((value /= 10) > 0);
    while (count)
        *out++ = digits[--count];
    *out = 0;
}

/* "ID ID 1": one id mapped to itself. */
static void identity_map(char *out, unsigned long id) {
    char digits[24];
    decimal(digits, id);
    char *at = out;
    for (int twice = 0; twice < 2; twice++) {
        for (const char *in = digits; *in;)
            *at++ = *in++;
        *at++ = ' ';
    }
    *at++ = '1';
    *at = 0;
}

/* The sandbox's /tmp: a tmpfs bounded in bytes and in files, mounted at WHERE in a mount
 * namespace of this process's own (bwrap, exec'd next, binds it at /tmp). A worker that
 * is not root first enters a user namespace of its own, mapping only its uid and gid. */
static void mount_scratch(const char *where, const char *options) {
    long uid = sys(__NR_getuid, 0, 0, 0, 0, 0);
    long gid = sys(__NR_getgid, 0, 0, 0, 0, 0);
    int own_userns = sys(__NR_geteuid, 0, 0, 0, 0, 0) != 0;
    long done = sys(__NR_unshare, CLONE_NEWNS | (own_userns ? CLONE_NEWUSER : 0), 0, 0, 0, 0);
    if (done != 0)
        fail_errno("unshare for the sandbox's /tmp", done);
    if (own_userns) {
        char map[64];
        identity_map(map, (unsigned long)uid);
        write_text("/proc/self/uid_map", map);
        write_text("/proc/self/setgroups", "deny");
        identity_map(map, (unsigned long)gid);
        write_text("/proc/self/gid_map", map);
    }
    /* Private first: the mount must not propagate back to the machine's namespace. */
    done = sys(__NR_mount, (long)"none", (long)"/", 0, MS_REC | MS_PRIVATE, 0);
    if (done != 0)
        fail_errno("making the sandbox's mounts private", done);
    done = sys(__NR_mount, (long)"tmpfs", (long)where, (long)"tmpfs", MS_NOSUID | MS_NODEV,
               (long)options);
    if (done != 0)
        fail_errno("mounting the sandbox's /tmp", done);
}

/* execvp's search: PROGRAM itself if it names a path, else each folder of PATH. */
static long exec_program(char **argv, char **envp) {
    const char *program = argv[0];
    for (const char *at = program; *at; at++)
        if (*at == '/')
            return sys(__NR_execve, (long)program, (long)argv, (long)envp, 0, 0);
    const char *path = "/bin:/usr/bin";
    for (char **variable = envp; *variable; variable++) {
        const char *v = *variable;
        if (v[0] == 'P' && v[1] == 'A' && v[2] == 'T' && v[3] == 'H' && v[4] == '=')
            path = v + 5;
    }
    unsigned long name_length = length_of(program);
    long error = -ENOENT;
    int denied = 0;
    while (1) {
        const char *end = path;
        while (*end && *end != ':')
            end++;
        char full[4096];
        unsigned long folder = (unsigned long)(end - path);
        if (folder + 1 + name_length < sizeof full) {
            unsigned long at = 0;
            for (const char *in = path; in < end;)
                full[at++] = *in++;
            if (at)
                full[at++] = '/';
            for (const char *in = program; *in;)
                full[at++] = *in++;
            full[at] = 0;
            error = sys(__NR_execve, (long)full, (long)argv, (long)envp, 0, 0);
            if (error == -EACCES)
                denied = 1;
            else if (error != -ENOENT && error != -ENOTDIR)
                return error;
        }
        if (!*end)
            return denied ? -EACCES : error;
        path = end + 1;
    }
}

static int run(int argc, char **argv, char **envp) {
    if (argc < 4)
        fail("arguments", "usage: arena-launch PARENT REPORT_FD [STEP ARG...]... -- PROGRAM");
    long parent = (long)number(argv[1], "parent");
    report_fd = (int)number(argv[2], "report fd");
    long done = sys(__NR_fcntl, report_fd, F_SETFD, FD_CLOEXEC, 0, 0);
    if (done != 0) {
        report_fd = 2;
        fail_errno("report fd", done);
    }
    long long uid = -1;
    int i = 3;
    for (; i < argc && !same(argv[i], "--"); i++) {
        const char *step = argv[i];
        if (same(step, "cgroup") && i + 1 < argc) {
            /* "0": the writer itself. Through a v1 "tasks" file this moves the calling
             * thread, the only one here, without the kernel's global threadgroup lock. */
            write_text(argv[++i], "0");
        } else if (same(step, "oom") && i + 1 < argc) {
            number(argv[i + 1], "oom score");
            write_text("/proc/self/oom_score_adj", argv[++i]);
        } else if (same(step, "scratch") && i + 2 < argc) {
            mount_scratch(argv[i + 1], argv[i + 2]);
            i += 2;
        } else if (same(step, "rlimit") && i + 3 < argc) {
            unsigned long long limit[2] = {
                (unsigned long long)number(argv[i + 2], "rlimit soft"),
                (unsigned long long)number(argv[i + 3], "rlimit hard"),
            };
            long resource = (long)number(argv[i + 1], "rlimit resource");
            done = sys(__NR_prlimit64, 0, resource, (long)limit, 0, 0);
            if (done != 0)
                fail_errno("setrlimit", done);
            i += 3;
        } else if (same(step, "uid") && i + 1 < argc) {
            uid = number(argv[++i], "uid");
        } else {
            fail("arguments", step);
        }
    }
    if (i + 1 >= argc)
        fail("arguments", "no program after --");
    if (uid >= 0) {
        if ((done = sys(__NR_setgroups, 0, 0, 0, 0, 0)) != 0)
            fail_errno("setgroups", done);
        if ((done = sys(__NR_setresgid, (long)uid, (long)uid, (long)uid, 0, 0)) != 0)
            fail_errno("setresgid", done);
        if ((done = sys(__NR_setresuid, (long)uid, (long)uid, (long)uid, 0, 0)) != 0)
            fail_errno("setresuid", done);
    }
    /* After the uid change, which clears it: die with the worker's thread. */
    if ((done = sys(__NR_prctl, PR_SET_PDEATHSIG, KILL_SIGNAL, 0, 0, 0)) != 0)
        fail_errno("PR_SET_PDEATHSIG", done);
    if (sys(__NR_getppid, 0, 0, 0, 0, 0) != parent)
        return EXIT_PARENT_GONE;
    fail_errno(argv[i + 1], exec_program(&argv[i + 1], envp));
}
