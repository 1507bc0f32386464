// SPDX-License-Identifier: Apache-2.0
// The least any agent can do for `agentctl status` and `agentctl submit --wait` (issue 32): a
// reference for bench/events.py, not an agent. One epoll loop answers on a Unix socket:
//   status      the status line it was given (a real agentd's answer, replayed);
//   subscribe   "subscribed";
//   submit      /bin/true spawned at once (posix_spawn, its own session, a pidfd), the submission's
//               record written and fdatasync'd by a writer thread meanwhile (DESIGN §10: a request
//               is acknowledged only once durable), then `run-started`, `run-ended` once reaped, and
//               the answer once durable — the lines agentd sends, with their fields.
// Usage: reference_agent SOCKET STATUS_LINE_FILE STATE_FILE
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

enum { max_clients = 64, buffer_size = 65536 };

struct client {
    int fd;
    char in[buffer_size];
    size_t used;
    long request;   // the submission waiting for its run and its sync, 0 when none
    int pidfd;
    int ended, durable;
};

static struct client clients[max_clients];
static char *status_line;
static size_t status_length;
static long next_request, sequence;
static int epoll_fd, sync_request_fd, sync_done_fd, state_fd;
static struct client *syncing;

static void send_line(struct client *c, const char *line, size_t length) {
    while (length > 0) {
        ssize_t n = send(c->fd, line, length, MSG_NOSIGNAL);
        if (n < 0) {
            if (errno == EINTR) continue;
            return;
        }
        line += n;
        length -= (size_t)n;
    }
}

static void send_event(struct client *c, const char *type, const char *extra) {
    char now[64], line[512];
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    struct tm tm;
    gmtime_r(&ts.tv_sec, &tm);
    strftime(now, sizeof now, "%Y-%m-%dT%H:%M:%S", &tm);
    int n = snprintf(line, sizeof line,
                     "{\"identifier\":\"local.trivial\",\"kind\":\"continued\",%s\"requestID\":%ld,\"runID\":\"r%06ld\","
                     "\"sequence\":%ld,%s\"time\":\"%s.%03ldZ\",\"type\":\"%s\"}\n",
                     strcmp(type, "run-started") == 0 ? "\"reason\":\"submitted\"," : "", c->request, c->request,
                     ++sequence, extra, now, ts.tv_nsec / 1000000, type);
    send_line(c, line, (size_t)n);
}

static void finish_if_done(struct client *c) {
    if (!c->ended || !c->durable) return;
    char line[256];
    int n = snprintf(line, sizeof line,
                     "{\"message\":\"submitted local.trivial as request %ld: started run r%06ld\",\"ok\":true,"
                     "\"requestID\":%ld,\"runID\":\"r%06ld\"}\n", c->request, c->request, c->request, c->request);
    send_line(c, line, (size_t)n);
    c->request = 0;
}

static void *writer(void *unused) {
    (void)unused;
    for (;;) {
        uint64_t value;
        if (read(sync_request_fd, &value, sizeof value) != sizeof value) continue;
        static const char record[] = "submission local.trivial queued\n";
        if (write(state_fd, record, sizeof record - 1) != (ssize_t)(sizeof record - 1) || fdatasync(state_fd) != 0)
            perror("state");
        value = 1;
        if (write(sync_done_fd, &value, sizeof value) != sizeof value) perror("eventfd");
    }
    return NULL;
}

static void submit(struct client *c) {
    c->request = ++next_request;
    c->ended = c->durable = 0;
    syncing = c;
    uint64_t one = 1;
    if (write(sync_request_fd, &one, sizeof one) != sizeof one) perror("eventfd");
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSID);
    char *args[] = {"/bin/true", NULL};
    pid_t pid;
    if (posix_spawn(&pid, "/bin/true", NULL, &attr, args, environ) != 0) { perror("spawn"); exit(1); }
    posix_spawnattr_destroy(&attr);
    c->pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
    struct epoll_event ev = {.events = EPOLLIN, .data.u64 = (uint64_t)(c - clients) | (1ULL << 32)};
    epoll_ctl(epoll_fd, EPOLL_CTL_ADD, c->pidfd, &ev);
    send_event(c, "run-started", "");
}

static void handle_line(struct client *c, const char *line) {
    if (strstr(line, "\"command\":\"status\"")) {
        send_line(c, status_line, status_length);
    } else if (strstr(line, "\"command\":\"subscribe\"")) {
        char answer[96];
        int n = snprintf(answer, sizeof answer, "{\"message\":\"subscribed\",\"ok\":true,\"sequence\":%ld}\n", sequence);
        send_line(c, answer, (size_t)n);
    } else if (strstr(line, "\"command\":\"submit\"")) {
        submit(c);
    }
}

static void close_client(struct client *c) {
    epoll_ctl(epoll_fd, EPOLL_CTL_DEL, c->fd, NULL);
    close(c->fd);
    c->fd = -1;
}

static void readable(struct client *c) {
    ssize_t n = read(c->fd, c->in + c->used, sizeof c->in - c->used - 1);
    if (n <= 0) { close_client(c); return; }
    c->used += (size_t)n;
    c->in[c->used] = 0;
    char *start = c->in, *newline;
    while ((newline = strchr(start, '\n'))) {
        *newline = 0;
        handle_line(c, start);
        start = newline + 1;
    }
    c->used -= (size_t)(start - c->in);
    memmove(c->in, start, c->used);
}

static void reaped(struct client *c) {
    siginfo_t info;
    waitid(P_PIDFD, (id_t)c->pidfd, &info, WEXITED);
    epoll_ctl(epoll_fd, EPOLL_CTL_DEL, c->pidfd, NULL);
    close(c->pidfd);
    c->ended = 1;
    send_event(c, "run-ended", "\"stopReason\":\"success\",");
    finish_if_done(c);
}

static int listen_on(const char *path) {
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    struct sockaddr_un addr = {.sun_family = AF_UNIX};
    snprintf(addr.sun_path, sizeof addr.sun_path, "%s", path);
    unlink(path);
    if (bind(fd, (struct sockaddr *)&addr, sizeof addr) != 0 || listen(fd, 64) != 0) { perror(path); exit(1); }
    return fd;
}

static char *read_file(const char *path, size_t *length) {
    FILE *f = fopen(path, "r");
    if (!f) { perror(path); exit(1); }
    static char buffer[1 << 20];
    *length = fread(buffer, 1, sizeof buffer - 1, f);
    fclose(f);
    return buffer;
}

int main(int argc, char **argv) {
    if (argc != 4) { fprintf(stderr, "usage: reference_agent SOCKET STATUS_LINE_FILE STATE_FILE\n"); return 2; }
    signal(SIGPIPE, SIG_IGN);
    status_line = read_file(argv[2], &status_length);
    state_fd = open(argv[3], O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
    sync_request_fd = eventfd(0, EFD_CLOEXEC);
    sync_done_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    pthread_t thread;
    pthread_create(&thread, NULL, writer, NULL);
    int listener = listen_on(argv[1]);
    epoll_fd = epoll_create1(EPOLL_CLOEXEC);
    struct epoll_event ev = {.events = EPOLLIN, .data.u64 = 1ULL << 33};
    epoll_ctl(epoll_fd, EPOLL_CTL_ADD, listener, &ev);
    ev.data.u64 = 1ULL << 34;
    epoll_ctl(epoll_fd, EPOLL_CTL_ADD, sync_done_fd, &ev);
    for (int i = 0; i < max_clients; i++) clients[i].fd = -1;
    printf("ready\n");
    fflush(stdout);
    for (;;) {
        struct epoll_event events[16];
        int n = epoll_wait(epoll_fd, events, 16, -1);
        for (int i = 0; i < n; i++) {
            uint64_t tag = events[i].data.u64;
            if (tag & (1ULL << 33)) {
                int fd;
                while ((fd = accept4(listener, NULL, NULL, SOCK_CLOEXEC)) >= 0) {
                    int slot = 0;
                    while (slot < max_clients && clients[slot].fd >= 0) slot++;
                    if (slot == max_clients) { close(fd); continue; }
                    clients[slot] = (struct client){.fd = fd, .pidfd = -1};
                    struct epoll_event cev = {.events = EPOLLIN, .data.u64 = (uint64_t)slot};
                    epoll_ctl(epoll_fd, EPOLL_CTL_ADD, fd, &cev);
                }
            } else if (tag & (1ULL << 34)) {
                uint64_t value;
                if (read(sync_done_fd, &value, sizeof value) == sizeof value && syncing) {
                    syncing->durable = 1;
                    finish_if_done(syncing);
                    syncing = NULL;
                }
            } else if (tag & (1ULL << 32)) {
                reaped(&clients[tag & 0xffffffff]);
            } else {
                readable(&clients[tag]);
            }
        }
    }
}
