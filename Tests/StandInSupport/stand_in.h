// SPDX-License-Identifier: Apache-2.0
// What every D-Bus stand-in of the tests does around its own service: connect to the bus at an
// address, then serve it while reading commands from stdin, one per line, until stdin ends.
// Header-only: each stand-in is an executable target of its own.
#pragma once
#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <systemd/sd-bus.h>

/// Connects to the bus at `address` as a client; on failure names the call in `*failed`.
static inline int stand_in_connect(const char *address, sd_bus **out, const char **failed) {
    sd_bus *bus = NULL;
    int r = sd_bus_new(&bus);
    if (r < 0) { *failed = "sd_bus_new"; return r; }
    r = sd_bus_set_address(bus, address);
    if (r < 0) { *failed = "sd_bus_set_address"; return r; }
    r = sd_bus_set_bus_client(bus, 1);
    if (r < 0) { *failed = "sd_bus_set_bus_client"; return r; }
    r = sd_bus_start(bus);
    if (r < 0) { *failed = "sd_bus_start"; return r; }
    *out = bus;
    return 0;
}

/// Serves `bus` and hands each stdin line (without its newline) to `handle_line` until stdin
/// ends (0) or something fails (a negative errno, the call named in `*failed`). Lines over 255
/// bytes are dropped.
static inline int stand_in_serve(sd_bus *bus, int (*handle_line)(sd_bus *bus, char *line), const char **failed) {
    char line[256];
    size_t used = 0;
    int r;
    for (;;) {
        for (;;) {
            r = sd_bus_process(bus, NULL);
            if (r < 0) { *failed = "sd_bus_process"; return r; }
            if (r == 0) break;
        }
        uint64_t deadline = UINT64_MAX;
        r = sd_bus_get_timeout(bus, &deadline);
        if (r < 0) { *failed = "sd_bus_get_timeout"; return r; }
        int timeout_ms = -1;
        if (deadline != UINT64_MAX) {
            struct timespec ts;
            clock_gettime(CLOCK_MONOTONIC, &ts);
            uint64_t now = (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
            timeout_ms = deadline <= now ? 0 : (int)((deadline - now + 999) / 1000);
        }
        struct pollfd fds[2] = {
            { .fd = sd_bus_get_fd(bus), .events = (short)sd_bus_get_events(bus) },
            { .fd = STDIN_FILENO, .events = POLLIN },
        };
        if (poll(fds, 2, timeout_ms) < 0) {
            if (errno == EINTR) continue;
            *failed = "poll";
            return -errno;
        }
        if (!(fds[1].revents & (POLLIN | POLLHUP))) continue;
        ssize_t n = read(STDIN_FILENO, line + used, sizeof line - 1 - used);
        if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
        if (n <= 0) return 0;  // end of stdin: quit
        used += (size_t)n;
        char *newline;
        while ((newline = memchr(line, '\n', used)) != NULL) {
            *newline = '\0';
            r = handle_line(bus, line);
            if (r < 0) { *failed = "handling a command line"; return r; }
            size_t rest = used - (size_t)(newline + 1 - line);
            memmove(line, newline + 1, rest);
            used = rest;
        }
        if (used == sizeof line - 1) used = 0;  // an overlong line: dropped
    }
}
