// SPDX-License-Identifier: Apache-2.0
// Baseline for reload latency: the least a watcher can do. Watches DIR for IN_MOVED_TO and prints
// "<monotonic seconds> <name>" for each event, unbuffered, so the harness can compare agentd's
// registration time against the kernel's delivery time for the same rename.
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <sys/inotify.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv) {
    if (argc != 2) { fprintf(stderr, "usage: %s DIR\n", argv[0]); return 2; }
    int fd = inotify_init1(IN_CLOEXEC);
    if (fd < 0 || inotify_add_watch(fd, argv[1], IN_MOVED_TO) < 0) { perror("inotify"); return 1; }
    printf("ready\n");
    fflush(stdout);
    char buf[65536] __attribute__((aligned(8)));
    for (;;) {
        ssize_t n = read(fd, buf, sizeof buf);
        if (n <= 0) return 1;
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        for (char *p = buf; p < buf + n;) {
            struct inotify_event *ev = (struct inotify_event *)p;
            if (ev->len) printf("%ld.%09ld %s\n", (long)ts.tv_sec, ts.tv_nsec, ev->name);
            p += sizeof *ev + ev->len;
        }
        fflush(stdout);
    }
}
