// SPDX-License-Identifier: Apache-2.0
// Baseline for cold start: list a directory and open, fstat and read every file in it — the I/O
// floor under agentd's start-up with the same files. Prints the elapsed seconds.
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv) {
    if (argc != 2) { fprintf(stderr, "usage: %s DIR\n", argv[0]); return 2; }
    double start = now();
    DIR *dir = opendir(argv[1]);
    if (!dir) { perror("opendir"); return 1; }
    int dfd = dirfd(dir);
    char buf[65536];
    long files = 0, bytes = 0;
    struct dirent *entry;
    while ((entry = readdir(dir))) {
        if (entry->d_name[0] == '.') continue;
        int fd = openat(dfd, entry->d_name, O_RDONLY | O_CLOEXEC);
        if (fd < 0) continue;
        struct stat st;
        fstat(fd, &st);
        ssize_t n;
        while ((n = read(fd, buf, sizeof buf)) > 0) bytes += n;
        close(fd);
        files++;
    }
    closedir(dir);
    printf("%.6f %ld %ld\n", now() - start, files, bytes);
    return 0;
}
