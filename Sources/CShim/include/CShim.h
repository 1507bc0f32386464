// Thin C wrappers for Linux interfaces that `import Glibc` does not expose to Swift:
// epoll, signalfd, timerfd, eventfd, pidfd, SO_PEERCRED, POSIX_SPAWN_SETSID and
// function-like macros. Nothing here holds state or policy.
#ifndef AGENTD_CSHIM_H
#define AGENTD_CSHIM_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <sys/types.h>
#include <stdint.h>
#include <signal.h>
#include <spawn.h>

// epoll
int cshim_epoll_create(void);
int cshim_epoll_add(int epfd, int fd, uint32_t events, uint64_t data);
int cshim_epoll_mod(int epfd, int fd, uint32_t events, uint64_t data);
int cshim_epoll_del(int epfd, int fd);
/// Waits for events; fills parallel arrays of readiness masks and user data. Returns count or -1.
int cshim_epoll_wait(int epfd, uint32_t *events, uint64_t *data, int max, int timeout_ms);
extern const uint32_t CSHIM_EPOLLIN, CSHIM_EPOLLOUT, CSHIM_EPOLLERR, CSHIM_EPOLLHUP, CSHIM_EPOLLRDHUP,
    CSHIM_EPOLLPRI, CSHIM_EPOLLET;

// timerfd on CLOCK_MONOTONIC; absolute nanoseconds, 0 disarms.
int cshim_timerfd_create(void);
int cshim_timerfd_set_absolute(int fd, uint64_t monotonic_ns);
/// CLOCK_MONOTONIC and CLOCK_BOOTTIME in nanoseconds.
uint64_t cshim_monotonic_ns(void);
uint64_t cshim_boottime_ns(void);
/// CLOCK_REALTIME in nanoseconds since the epoch.
int64_t cshim_realtime_ns(void);

// signalfd: blocks the given signals in the calling thread and returns a descriptor for them.
int cshim_signalfd_for(const int *signals, int count);
/// Reads one signal from a signalfd: returns the signal number, 0 when none is pending, -1 on error.
int cshim_signalfd_read(int fd);
/// Blocks the given signals in the calling thread (helper threads must not receive them).
int cshim_block_signals(const int *signals, int count);

// eventfd
int cshim_eventfd(void);
int cshim_eventfd_signal(int fd);
/// Drains the counter; returns the count, 0 when nothing was pending.
uint64_t cshim_eventfd_drain(int fd);

// pidfd
int cshim_pidfd_open(pid_t pid);
int cshim_pidfd_send_signal(int pidfd, int sig);
/// Reaps the child behind a pidfd without blocking. Returns 1 when reaped (status filled:
/// code is CLD_EXITED/CLD_KILLED/CLD_DUMPED, status the exit code or signal), 0 when still
/// running, -1 on error.
int cshim_pidfd_reap(int pidfd, int *code, int *status);
extern const int CSHIM_CLD_EXITED, CSHIM_CLD_KILLED, CSHIM_CLD_DUMPED;

// sockets
/// Peer credentials of a connected unix socket (SO_PEERCRED).
int cshim_peer_credentials(int fd, pid_t *pid, uid_t *uid, gid_t *gid);
int cshim_accept_nonblocking(int listen_fd);
/// Creates, binds and listens on a unix stream socket at path (non-blocking, close-on-exec).
int cshim_unix_listen(const char *path, int backlog);
/// Connects a blocking, close-on-exec unix stream socket to path.
int cshim_unix_connect(const char *path);

// process spawning
/// posix_spawn with a new session (POSIX_SPAWN_SETSID), the given fds as stdin/stdout/stderr,
/// a default signal mask and default dispositions. Returns 0 or an errno.
int cshim_spawn_session(pid_t *pid, const char *path, char *const argv[], char *const envp[],
                        int stdin_fd, int stdout_fd, int stderr_fd);
int cshim_pipe_cloexec_nonblock(int fds[2]);
int cshim_set_nonblocking(int fd);

// wait status macros
int cshim_wifexited(int status);
int cshim_wexitstatus(int status);
int cshim_wifsignaled(int status);
int cshim_wtermsig(int status);

#endif
