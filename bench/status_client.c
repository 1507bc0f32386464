// SPDX-License-Identifier: Apache-2.0
// `status` round trips from a process of its own: N sequential requests, each on a new connection
// (what agentctl does), printing each round trip in microseconds. Timed in the Python bench process,
// a round trip would also hold the JSON parse of the answer and any wait for the GIL, which the
// thread reading the agent's log holds (in A/B runs on this host the two differed within the noise).
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

static double now_us(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

// One round trip; 0 when the answer is a whole line with "ok":true.
static int round_trip(const char *path, char *buffer, size_t size) {
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return -1;
    struct sockaddr_un addr = {.sun_family = AF_UNIX};
    strncpy(addr.sun_path, path, sizeof addr.sun_path - 1);
    static const char request[] = "{\"command\":\"status\"}\n";
    size_t used = 0;
    int ok = connect(fd, (struct sockaddr *)&addr, sizeof addr) == 0
        && write(fd, request, sizeof request - 1) == (ssize_t)(sizeof request - 1);
    while (ok && (used == 0 || buffer[used - 1] != '\n')) {
        if (used + 1 >= size) { ok = 0; break; }
        ssize_t got = read(fd, buffer + used, size - 1 - used);
        if (got <= 0) { ok = 0; break; }
        used += (size_t)got;
    }
    close(fd);
    buffer[used] = 0;
    return ok && strstr(buffer, "\"ok\":true") ? 0 : -1;
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: status_client SOCKET N\n");
        return 2;
    }
    int n = atoi(argv[2]);
    size_t size = 1 << 22;
    char *buffer = malloc(size);
    if (!buffer) return 1;
    for (int i = 0; i < n; i++) {
        double t0 = now_us();
        if (round_trip(argv[1], buffer, size) != 0) {
            fprintf(stderr, "status_client: round trip %d to %s failed: %.200s\n", i, argv[1], buffer);
            return 1;
        }
        printf("%.1f\n", now_us() - t0);
    }
    return 0;
}
