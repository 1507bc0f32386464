// SPDX-License-Identifier: Apache-2.0
// Baseline for progress throughput: read a pipe (stdin) in 64 KiB chunks and count lines with
// memchr, as fast as C can. Prints "<seconds> <lines>".
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int main(void) {
    static char buffer[1 << 16];
    long lines = 0;
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    ssize_t n;
    while ((n = read(0, buffer, sizeof buffer)) > 0) {
        char *p = buffer, *end = buffer + n;
        while ((p = memchr(p, '\n', end - p))) { lines++; p++; }
    }
    clock_gettime(CLOCK_MONOTONIC, &b);
    printf("%.6f %ld\n", (b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9, lines);
    return 0;
}
