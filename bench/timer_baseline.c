// SPDX-License-Identifier: Apache-2.0
// Baseline for expiration precision: N deadlines on one timerfd in one epoll loop (what agentd
// does), each firing a kill(pid, 0). Prints the lateness of every firing in microseconds.
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static int cmp(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 200;
    uint64_t *deadlines = malloc(sizeof(uint64_t) * n);
    uint64_t start = now_ns() + 500000000ull;
    // Spread like launches in a burst: one every 0.5 ms.
    for (int i = 0; i < n; i++) deadlines[i] = start + (uint64_t)i * 500000ull;
    qsort(deadlines, n, sizeof *deadlines, cmp);
    int ep = epoll_create1(0), tfd = timerfd_create(CLOCK_MONOTONIC, 0);
    struct epoll_event ev = {.events = EPOLLIN};
    epoll_ctl(ep, EPOLL_CTL_ADD, tfd, &ev);
    int next = 0;
    while (next < n) {
        struct itimerspec its = {0};
        its.it_value.tv_sec = deadlines[next] / 1000000000ull;
        its.it_value.tv_nsec = deadlines[next] % 1000000000ull;
        timerfd_settime(tfd, TFD_TIMER_ABSTIME, &its, NULL);
        struct epoll_event out;
        epoll_wait(ep, &out, 1, -1);
        uint64_t expirations;
        if (read(tfd, &expirations, sizeof expirations) < 0) return 1;
        uint64_t t = now_ns();
        while (next < n && deadlines[next] <= t) {
            kill(getpid(), 0);
            printf("%.1f\n", (now_ns() - deadlines[next]) / 1000.0);
            next++;
        }
    }
    return 0;
}
