/* The native twin of several Python attack bots in tests/bots/hostile/: one C program,
 * compiled once per attack with -DATTACK=<n>, that speaks the wire protocol itself and
 * attacks on its first move. tests/bots/test_hostile.py expects the same verdict as the
 * Python bot of the same name. A spy attack that succeeds exits with "ESCAPED: ..." on
 * stderr, which turns into a crash fault; those cases expect no fault.
 *
 *   1 fork_bomb      fork without end                        -> processes
 *   2 output_flood   answer, then flood stdout               -> output
 *   3 memory_bomb    touch 2 GiB at once                     -> memory
 *   4 memory_creep   touch 16 MiB at a time, forever         -> memory
 *   5 net_internet   TCP/UDP to 1.1.1.1 and 2606:4700::1111  -> contained (no fault)
 *   6 net_loopback   127.0.0.1:8000 and the test's abstract Unix socket -> contained
 *   7 raw_sockets    netlink, packet, raw ICMP, a listener   -> contained
 *   8 thread_bomb    start sleeping threads until refused    -> processes
 */
#include <arpa/inet.h>
#include <linux/netlink.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#ifndef ATTACK
#define ATTACK 0
#endif
#ifndef WORKER_PID
#define WORKER_PID "0"
#endif

static void escaped(const char *what) {
    fprintf(stderr, "ESCAPED: %s\n", what);
    exit(3);
}

static int try_connect(int family, int type, const void *address, socklen_t size) {
    int fd = socket(family, type, 0);
    if (fd < 0) return 0;
    int ok = connect(fd, address, size) == 0 && send(fd, "x", 1, MSG_NOSIGNAL) == 1;
    close(fd);
    return ok;
}

static void net_internet(void) {
    struct sockaddr_in v4 = {.sin_family = AF_INET, .sin_port = htons(53)};
    struct sockaddr_in6 v6 = {.sin6_family = AF_INET6, .sin6_port = htons(53)};
    inet_pton(AF_INET, "1.1.1.1", &v4.sin_addr);
    inet_pton(AF_INET6, "2606:4700::1111", &v6.sin6_addr);
    for (int type = SOCK_STREAM; type <= SOCK_DGRAM; type++) {
        if (try_connect(AF_INET, type, &v4, sizeof v4)) escaped("reached 1.1.1.1");
        if (try_connect(AF_INET6, type, &v6, sizeof v6)) escaped("reached 2606:4700::1111");
    }
}

static void net_loopback(void) {
    struct sockaddr_in v4 = {.sin_family = AF_INET, .sin_port = htons(8000)};
    inet_pton(AF_INET, "127.0.0.1", &v4.sin_addr);
    if (try_connect(AF_INET, SOCK_STREAM, &v4, sizeof v4)) escaped("connected to 127.0.0.1:8000");
    struct sockaddr_un unix_address = {.sun_family = AF_UNIX};
    const char *name = "arena-canary-" WORKER_PID; /* abstract: a leading NUL */
    memcpy(unix_address.sun_path + 1, name, strlen(name));
    socklen_t size = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + strlen(name));
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    if (fd >= 0 && connect(fd, (struct sockaddr *)&unix_address, size) == 0)
        escaped("connected to the test's abstract socket");
}

static void raw_sockets(void) {
    int fd;
    if ((fd = socket(AF_NETLINK, SOCK_RAW, NETLINK_ROUTE)) >= 0) escaped("opened a netlink socket");
    if ((fd = socket(AF_PACKET, SOCK_RAW, 0)) >= 0) escaped("opened a packet socket");
    if ((fd = socket(AF_INET, SOCK_RAW, IPPROTO_ICMP)) >= 0) escaped("opened a raw socket");
    struct sockaddr_in v4 = {.sin_family = AF_INET, .sin_port = htons(9999)};
    inet_pton(AF_INET, "127.0.0.1", &v4.sin_addr);
    fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd >= 0 && bind(fd, (struct sockaddr *)&v4, sizeof v4) == 0 && listen(fd, 1) == 0)
        escaped("listening on 127.0.0.1:9999");
}

static void *sleeper(void *unused) {
    (void)unused;
    sleep(1000);
    return NULL;
}

static void attack(void) {
    static const char flood[] = "{\"type\":\"action\",\"action\":0}\n";
    switch (ATTACK) {
    case 1:
        for (;;) fork();
    case 2:
        fputs(flood, stdout);
        fflush(stdout);
        for (;;) fputs(flood, stdout);
    case 3: {
        size_t size = (size_t)2 << 30;
        char *hog = malloc(size);
        if (hog) memset(hog, 1, size);
        fprintf(stderr, "allocated %p\n", (void *)hog);
        return;
    }
    case 4:
        for (;;) {
            char *chunk = malloc(16 << 20);
            if (chunk) memset(chunk, 1, 16 << 20);
        }
    case 5:
        net_internet();
        return;
    case 6:
        net_loopback();
        return;
    case 7:
        raw_sockets();
        return;
    case 8:
        for (;;) {
            pthread_t thread;
            if (pthread_create(&thread, NULL, sleeper, NULL) != 0) {
                fprintf(stderr, "can't start new thread\n");
                exit(1);
            }
        }
    }
}

int main(void) {
    static char line[1 << 16];
    int moves = 0;
    setvbuf(stdout, NULL, _IOFBF, 1 << 16);
    while (fgets(line, sizeof line, stdin)) {
        if (strstr(line, "\"type\":\"start\"") || strstr(line, "\"type\": \"start\"")) {
            puts("{\"type\":\"ready\"}");
        } else if (strstr(line, "\"type\":\"act\"") || strstr(line, "\"type\": \"act\"")) {
            if (moves++ == 0) attack();
            puts("{\"type\":\"action\",\"action\":0}");
        } else {
            return 0;
        }
        fflush(stdout);
    }
    return 0;
}
