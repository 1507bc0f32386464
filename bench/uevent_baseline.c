// SPDX-License-Identifier: Apache-2.0
/* Baseline for the power benchmark: the least a program can do between a power_supply uevent and
 * SIGTERM — one NETLINK_KOBJECT_UEVENT socket, a blocking recv, one read of the adapter's
 * `online` file, kill(2). Prints "sigterm <CLOCK_MONOTONIC seconds>" after each kill, and
 * "ready" once listening. Usage: uevent_baseline SYSFS_ROOT (run it in the benchmark's network
 * namespace; the benchmark injects the uevents there). */
#include <fcntl.h>
#include <linux/netlink.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static pid_t spawn_sleeper(void) {
    pid_t pid = fork();
    if (pid == 0) { execlp("sleep", "sleep", "1000", (char *)0); _exit(127); }
    return pid;
}

int main(int argc, char **argv) {
    if (argc < 2) return 2;
    char path[4096];
    snprintf(path, sizeof path, "%s/class/power_supply/AC/online", argv[1]);
    int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_KOBJECT_UEVENT);
    struct sockaddr_nl addr = {.nl_family = AF_NETLINK, .nl_groups = 1};
    if (fd < 0 || bind(fd, (struct sockaddr *)&addr, sizeof addr) != 0) { perror("uevent socket"); return 1; }
    pid_t child = spawn_sleeper();
    printf("ready\n");
    fflush(stdout);
    char buffer[8192];
    for (;;) {
        if (recv(fd, buffer, sizeof buffer, 0) <= 0) continue;
        int online_fd = open(path, O_RDONLY | O_CLOEXEC);
        char value = '1';
        if (online_fd >= 0) { if (read(online_fd, &value, 1) != 1) value = '1'; close(online_fd); }
        if (value == '0' && child > 0) {
            kill(child, SIGTERM);
            struct timespec now;
            clock_gettime(CLOCK_MONOTONIC, &now);
            printf("sigterm %ld.%09ld\n", (long)now.tv_sec, now.tv_nsec);
            fflush(stdout);
            waitpid(child, NULL, 0);
            child = -1;
        } else if (value == '1' && child < 0) {
            child = spawn_sleeper();
            printf("plugged\n");
            fflush(stdout);
        }
    }
}
