// SPDX-License-Identifier: Apache-2.0
// Baseline for launch throughput: posix_spawn + waitpid of /bin/true N times in a loop.
// Prints "<seconds> <launches>".
#define _GNU_SOURCE
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>

extern char **environ;

int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 2000;
    char *args[] = {"/bin/true", NULL};
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    for (int i = 0; i < n; i++) {
        pid_t pid;
        if (posix_spawn(&pid, "/bin/true", NULL, NULL, args, environ) != 0) { perror("spawn"); return 1; }
        int status;
        waitpid(pid, &status, 0);
    }
    clock_gettime(CLOCK_MONOTONIC, &b);
    printf("%.6f %d\n", (b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9, n);
    return 0;
}
