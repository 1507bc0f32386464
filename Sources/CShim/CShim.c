// SPDX-License-Identifier: Apache-2.0
#define _GNU_SOURCE
#include "CShim.h"
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <fcntl.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <malloc.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <sys/un.h>
#include <sys/wait.h>

const uint32_t CSHIM_EPOLLIN = EPOLLIN, CSHIM_EPOLLOUT = EPOLLOUT, CSHIM_EPOLLERR = EPOLLERR,
               CSHIM_EPOLLHUP = EPOLLHUP, CSHIM_EPOLLRDHUP = EPOLLRDHUP, CSHIM_EPOLLPRI = EPOLLPRI,
               CSHIM_EPOLLET = EPOLLET;
const int CSHIM_CLD_EXITED = CLD_EXITED, CSHIM_CLD_KILLED = CLD_KILLED, CSHIM_CLD_DUMPED = CLD_DUMPED;

int cshim_epoll_create(void) { return epoll_create1(EPOLL_CLOEXEC); }

static int epoll_ctl_data(int epfd, int op, int fd, uint32_t events, uint64_t data) {
    struct epoll_event ev;
    memset(&ev, 0, sizeof ev);
    ev.events = events;
    ev.data.u64 = data;
    return epoll_ctl(epfd, op, fd, &ev);
}
int cshim_epoll_add(int epfd, int fd, uint32_t events, uint64_t data) {
    return epoll_ctl_data(epfd, EPOLL_CTL_ADD, fd, events, data);
}
int cshim_epoll_mod(int epfd, int fd, uint32_t events, uint64_t data) {
    return epoll_ctl_data(epfd, EPOLL_CTL_MOD, fd, events, data);
}
int cshim_epoll_del(int epfd, int fd) { return epoll_ctl(epfd, EPOLL_CTL_DEL, fd, NULL); }

int cshim_epoll_wait(int epfd, uint32_t *events, uint64_t *data, int max, int timeout_ms) {
    struct epoll_event evs[64];
    if (max > 64) max = 64;
    int n;
    do { n = epoll_wait(epfd, evs, max, timeout_ms); } while (n < 0 && errno == EINTR);
    for (int i = 0; i < n; i++) { events[i] = evs[i].events; data[i] = evs[i].data.u64; }
    return n;
}

int cshim_timerfd_create(void) { return timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK); }
int cshim_timerfd_set_absolute(int fd, uint64_t ns) {
    struct itimerspec its;
    memset(&its, 0, sizeof its);
    its.it_value.tv_sec = (time_t)(ns / 1000000000ull);
    its.it_value.tv_nsec = (long)(ns % 1000000000ull);
    return timerfd_settime(fd, TFD_TIMER_ABSTIME, &its, NULL);
}
int cshim_alarm_timerfd_create(void) {
    return timerfd_create(CLOCK_REALTIME_ALARM, TFD_CLOEXEC | TFD_NONBLOCK);
}
int cshim_alarm_timerfd_set(int fd, uint64_t realtime_ns) {
    return cshim_timerfd_set_absolute(fd, realtime_ns);
}
int64_t cshim_alarm_timerfd_armed_at(int fd) {
    struct itimerspec its;
    if (timerfd_gettime(fd, &its) < 0) return -1;
    if (its.it_value.tv_sec == 0 && its.it_value.tv_nsec == 0) return 0;
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    return ((int64_t)now.tv_sec + (int64_t)its.it_value.tv_sec) * 1000000000LL
        + (int64_t)now.tv_nsec + (int64_t)its.it_value.tv_nsec;
}
static uint64_t clock_ns(clockid_t id) {
    struct timespec ts;
    clock_gettime(id, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}
uint64_t cshim_monotonic_ns(void) { return clock_ns(CLOCK_MONOTONIC); }
uint64_t cshim_boottime_ns(void) { return clock_ns(CLOCK_BOOTTIME); }
int64_t cshim_realtime_ns(void) { return (int64_t)clock_ns(CLOCK_REALTIME); }

static void fill_set(sigset_t *set, const int *signals, int count) {
    sigemptyset(set);
    for (int i = 0; i < count; i++) sigaddset(set, signals[i]);
}
int cshim_block_signals(const int *signals, int count) {
    sigset_t set;
    fill_set(&set, signals, count);
    return pthread_sigmask(SIG_BLOCK, &set, NULL);
}
int cshim_signalfd_for(const int *signals, int count) {
    sigset_t set;
    fill_set(&set, signals, count);
    if (pthread_sigmask(SIG_BLOCK, &set, NULL) != 0) return -1;
    return signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
}
int cshim_signalfd_read(int fd) {
    struct signalfd_siginfo info;
    ssize_t n = read(fd, &info, sizeof info);
    if (n == (ssize_t)sizeof info) return (int)info.ssi_signo;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return 0;
    return -1;
}

int cshim_eventfd(void) { return eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK); }
int cshim_eventfd_signal(int fd) {
    uint64_t one = 1;
    ssize_t n;
    do { n = write(fd, &one, sizeof one); } while (n < 0 && errno == EINTR);
    return n == (ssize_t)sizeof one || errno == EAGAIN ? 0 : -1;
}
uint64_t cshim_eventfd_drain(int fd) {
    uint64_t value = 0;
    if (read(fd, &value, sizeof value) != (ssize_t)sizeof value) return 0;
    return value;
}

int cshim_pidfd_open(pid_t pid) { return (int)syscall(SYS_pidfd_open, pid, 0); }
int cshim_pidfd_send_signal(int pidfd, int sig) {
    return (int)syscall(SYS_pidfd_send_signal, pidfd, sig, NULL, 0);
}

int cshim_set_batch_policy(pid_t pid) {
    struct sched_param none = {0};
    return sched_setscheduler(pid, SCHED_BATCH, &none);
}
int cshim_pidfd_reap(int pidfd, int *code, int *status) {
    siginfo_t info;
    memset(&info, 0, sizeof info);
    int r;
    do { r = waitid(P_PIDFD, (id_t)pidfd, &info, WEXITED | WNOHANG); } while (r < 0 && errno == EINTR);
    if (r < 0) return -1;
    if (info.si_pid == 0) return 0;
    *code = info.si_code;
    *status = info.si_status;
    return 1;
}

int cshim_peer_credentials(int fd, pid_t *pid, uid_t *uid, gid_t *gid) {
    struct ucred cred;
    socklen_t len = sizeof cred;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0) return -1;
    *pid = cred.pid; *uid = cred.uid; *gid = cred.gid;
    return 0;
}
#ifndef SO_PEERPIDFD
#define SO_PEERPIDFD 77
#endif
int cshim_peer_pidfd(int fd) {
    int pidfd = -1;
    socklen_t len = sizeof pidfd;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERPIDFD, &pidfd, &len) != 0) return -1;
    return pidfd;
}
int cshim_accept_nonblocking(int listen_fd) {
    return accept4(listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
}
static int fill_addr(struct sockaddr_un *addr, const char *path) {
    memset(addr, 0, sizeof *addr);
    addr->sun_family = AF_UNIX;
    if (strlen(path) >= sizeof addr->sun_path) { errno = ENAMETOOLONG; return -1; }
    strcpy(addr->sun_path, path);
    return 0;
}
int cshim_unix_listen(const char *path, int backlog) {
    struct sockaddr_un addr;
    if (fill_addr(&addr, path) != 0) return -1;
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) return -1;
    if (bind(fd, (struct sockaddr *)&addr, sizeof addr) != 0 || listen(fd, backlog) != 0) {
        int saved = errno; close(fd); errno = saved; return -1;
    }
    return fd;
}
int cshim_unix_connect(const char *path) {
    struct sockaddr_un addr;
    if (fill_addr(&addr, path) != 0) return -1;
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return -1;
    if (connect(fd, (struct sockaddr *)&addr, sizeof addr) != 0) {
        int saved = errno; close(fd); errno = saved; return -1;
    }
    return fd;
}

int cshim_spawn_session(pid_t *pid, const char *path, char *const argv[], char *const envp[],
                        int stdin_fd, int stdout_fd, int stderr_fd) {
    posix_spawn_file_actions_t actions;
    posix_spawnattr_t attr;
    posix_spawn_file_actions_init(&actions);
    posix_spawnattr_init(&attr);
    posix_spawn_file_actions_adddup2(&actions, stdin_fd, 0);
    posix_spawn_file_actions_adddup2(&actions, stdout_fd, 1);
    posix_spawn_file_actions_adddup2(&actions, stderr_fd, 2);
    sigset_t none, all;
    sigemptyset(&none);
    sigfillset(&all);
    posix_spawnattr_setsigmask(&attr, &none);
    posix_spawnattr_setsigdefault(&attr, &all);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSID | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    int rc = posix_spawn(pid, path, &actions, &attr, argv, envp);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
    return rc;
}
int cshim_pipe_cloexec_nonblock(int fds[2]) { return pipe2(fds, O_CLOEXEC | O_NONBLOCK); }
int cshim_open_for_writing(int fd) {
    if (fcntl(fd, F_SETLEASE, F_RDLCK) == 0) {
        fcntl(fd, F_SETLEASE, F_UNLCK);
        return 0;
    }
    return errno == EAGAIN ? 1 : -1;
}

int cshim_start_writeback(int fd) { return sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WRITE); }
int cshim_set_nonblocking(int fd) {
    int flags = fcntl(fd, F_GETFL);
    return flags < 0 ? -1 : fcntl(fd, F_SETFL, flags | O_NONBLOCK);
}

int cshim_wifexited(int status) { return WIFEXITED(status); }
int cshim_wexitstatus(int status) { return WEXITSTATUS(status); }
int cshim_wifsignaled(int status) { return WIFSIGNALED(status); }
int cshim_wtermsig(int status) { return WTERMSIG(status); }

// --- additions for AgentSystem Loop/Socket (append-only) ---
int cshim_unix_bind(const char *path) {
    struct sockaddr_un addr;
    if (fill_addr(&addr, path) != 0) return -1;
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) return -1;
    if (bind(fd, (struct sockaddr *)&addr, sizeof addr) != 0) {
        int saved = errno; close(fd); errno = saved; return -1;
    }
    return fd;
}
int cshim_listen(int fd, int backlog) { return listen(fd, backlog); }
int cshim_unix_connect_nonblocking(const char *path) {
    struct sockaddr_un addr;
    if (fill_addr(&addr, path) != 0) return -1;
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) return -1;
    int r;
    do { r = connect(fd, (struct sockaddr *)&addr, sizeof addr); } while (r != 0 && errno == EINTR);
    if (r != 0) { int saved = errno; close(fd); errno = saved; return -1; }
    return fd;
}
int cshim_unix_connect_timeout(const char *path, int timeout_ms) {
    struct sockaddr_un addr;
    if (fill_addr(&addr, path) != 0) return -1;
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return -1;
    if (timeout_ms > 0) {
        struct timeval tv;
        tv.tv_sec = timeout_ms / 1000;
        tv.tv_usec = (timeout_ms % 1000) * 1000;
        if (setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv) != 0) {
            int saved = errno; close(fd); errno = saved; return -1;
        }
    }
    if (connect(fd, (struct sockaddr *)&addr, sizeof addr) != 0) {
        int saved = errno; close(fd); errno = saved; return -1;
    }
    return fd;
}
int cshim_peer_groups(int fd, gid_t *groups, int max, int *needed) {
    socklen_t len = (socklen_t)(max > 0 ? max : 0) * (socklen_t)sizeof(gid_t);
    *needed = 0;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, groups, &len) != 0) {
        if (errno == ERANGE) *needed = (int)(len / sizeof(gid_t));
        return -1;
    }
    return (int)(len / sizeof(gid_t));
}
ssize_t cshim_send_nonblocking(int fd, const void *buf, size_t len) {
    ssize_t n;
    do { n = send(fd, buf, len, MSG_NOSIGNAL | MSG_DONTWAIT); } while (n < 0 && errno == EINTR);
    return n;
}
ssize_t cshim_send_nosignal(int fd, const void *buf, size_t len) {
    ssize_t n;
    do { n = send(fd, buf, len, MSG_NOSIGNAL); } while (n < 0 && errno == EINTR);
    return n;
}
uint64_t cshim_timerfd_drain(int fd) {
    uint64_t count = 0;
    ssize_t n;
    do { n = read(fd, &count, sizeof count); } while (n < 0 && errno == EINTR);
    return n == (ssize_t)sizeof count ? count : 0;
}
int cshim_signal_disposition(int sig, int ignore) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = ignore ? SIG_IGN : SIG_DFL;
    sigemptyset(&sa.sa_mask);
    return sigaction(sig, &sa, NULL);
}
int cshim_signal_is_blocked(int sig) {
    sigset_t current;
    if (pthread_sigmask(SIG_BLOCK, NULL, &current) != 0) return -1;
    return sigismember(&current, sig);
}
int cshim_unblock_signals(const int *signals, int count) {
    sigset_t set;
    fill_set(&set, signals, count);
    return pthread_sigmask(SIG_UNBLOCK, &set, NULL);
}
int cshim_thread_kill(pid_t tid, int sig) { return (int)syscall(SYS_tgkill, getpid(), tid, sig); }
pid_t cshim_gettid(void) { return (pid_t)syscall(SYS_gettid); }

// --- clocks that follow the machine ---
void cshim_read_clocks(uint64_t *monotonic_ns, uint64_t *boottime_ns, int64_t *realtime_ns) {
    *monotonic_ns = clock_ns(CLOCK_MONOTONIC);
    *boottime_ns = clock_ns(CLOCK_BOOTTIME);
    *realtime_ns = (int64_t)clock_ns(CLOCK_REALTIME);
}
int cshim_realtime_timerfd_create(void) {
    return timerfd_create(CLOCK_REALTIME, TFD_CLOEXEC | TFD_NONBLOCK);
}
int cshim_realtime_timerfd_arm_cancel_on_set(int fd) {
    struct itimerspec its;
    memset(&its, 0, sizeof its);
    // Far enough that it never expires by itself (year ~2^40); the kernel clamps to KTIME_MAX.
    its.it_value.tv_sec = (time_t)1 << 40;
    return timerfd_settime(fd, TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET, &its, NULL);
}
int cshim_realtime_timerfd_consume(int fd) {
    uint64_t count = 0;
    ssize_t n;
    do { n = read(fd, &count, sizeof count); } while (n < 0 && errno == EINTR);
    if (n == (ssize_t)sizeof count) return 1;
    if (n < 0 && errno == ECANCELED) return 1;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return 0;
    return -1;
}
int cshim_inotify_init(void) { return inotify_init1(IN_NONBLOCK | IN_CLOEXEC); }
int cshim_inotify_watch_directory(int fd, const char *directory) {
    return inotify_add_watch(fd, directory,
                             IN_CREATE | IN_MOVED_TO | IN_CLOSE_WRITE | IN_DELETE | IN_MOVED_FROM |
                                 IN_ATTRIB | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR);
}
int cshim_inotify_drain_for_name(int fd, const char *name) {
    char buffer[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
    int matched = 0;
    for (;;) {
        ssize_t n = read(fd, buffer, sizeof buffer);
        if (n < 0) {
            if (errno == EINTR) continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK) return matched;
            return -1;
        }
        if (n == 0) return matched;
        for (char *p = buffer; p < buffer + n;) {
            const struct inotify_event *event = (const struct inotify_event *)p;
            if (event->mask & (IN_Q_OVERFLOW | IN_DELETE_SELF | IN_MOVE_SELF | IN_IGNORED)) matched = 1;
            if (event->len > 0 && strcmp(event->name, name) == 0) matched = 1;
            p += sizeof(struct inotify_event) + event->len;
        }
    }
}
int cshim_realtime_set_to_now(void) {
    // (adjtimex ADJ_SETOFFSET of zero would be an exact no-op, but it leaves the offset the
    // kernel compares unchanged, so it cancels nothing.)
    struct timespec ts;
    if (clock_gettime(CLOCK_REALTIME, &ts) != 0) return -1;
    return clock_settime(CLOCK_REALTIME, &ts);
}
long cshim_utc_offset_at(int64_t when, int refresh_zone) {
    // localtime_r need not re-read the zone (glibc's does not): tzset() does, when TZ is unset
    // and /etc/localtime changed, or when TZ itself changed.
    if (refresh_zone) tzset();
    time_t t = (time_t)when;
    struct tm parts;
    if (localtime_r(&t, &parts) == NULL) return 0;
    return parts.tm_gmtoff;
}

int cshim_malloc_trim(void) {
    return malloc_trim(0);
}

int cshim_madvise_pageout(uintptr_t start, size_t length) {
#ifndef MADV_PAGEOUT
#define MADV_PAGEOUT 21
#endif
    return madvise((void *)start, length, MADV_PAGEOUT);
}
