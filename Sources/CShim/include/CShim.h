// SPDX-License-Identifier: Apache-2.0
// Thin C wrappers for Linux interfaces that `import Glibc` does not expose to Swift:
// epoll, signalfd, timerfd, eventfd, pidfd, SO_PEERCRED, POSIX_SPAWN_SETSID and
// function-like macros. Nothing here holds state or policy.
#ifndef AGENTD_CSHIM_H
#define AGENTD_CSHIM_H

#include <sys/types.h>
#include <stdint.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include "CShimSpawn.h"
#include "CShimSysfs.h"
#include "CShimNetlink.h"

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
/// Makes `pid` SCHED_BATCH (a batch task never preempts the running one when it wakes), for a
/// process about to get SIGKILL: its exit is cleanup, not work. 0, or -1 with errno.
int cshim_set_batch_policy(pid_t pid);
/// Reaps the child behind a pidfd without blocking. Returns 1 when reaped (status filled:
/// code is CLD_EXITED/CLD_KILLED/CLD_DUMPED, status the exit code or signal), 0 when still
/// running, -1 on error.
int cshim_pidfd_reap(int pidfd, int *code, int *status);
extern const int CSHIM_CLD_EXITED, CSHIM_CLD_KILLED, CSHIM_CLD_DUMPED;

// sockets
/// Peer credentials of a connected unix socket (SO_PEERCRED).
int cshim_peer_credentials(int fd, pid_t *pid, uid_t *uid, gid_t *gid);
/// A pidfd of the process that connected (SO_PEERPIDFD, Linux 6.5): it still names that process
/// after it exits, so a check through it cannot be fooled by a reused pid. -1 with errno
/// (ENOPROTOOPT on older kernels).
int cshim_peer_pidfd(int fd);
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
/// Starts writeback of the file's dirty pages without waiting for it (sync_file_range(2),
/// SYNC_FILE_RANGE_WRITE over the whole file). 0 or -1 with errno.
int cshim_start_writeback(int fd);
int cshim_set_nonblocking(int fd);
/// Whether some process has the file open for writing: 1 yes, 0 no, -1 cannot tell (errno).
/// fd must be open read-only. A read lease is refused while a writer holds the file; one
/// granted is given back at once. The caller owns the file or has CAP_LEASE, and ignores
/// SIGIO (a writer opening in between breaks the lease with it).
int cshim_open_for_writing(int fd);

// wait status macros
int cshim_wifexited(int status);
int cshim_wexitstatus(int status);
int cshim_wifsignaled(int status);
int cshim_wtermsig(int status);

// --- additions for AgentSystem Loop/Socket (append-only) ---
/// Creates a non-blocking, close-on-exec unix stream socket bound to path but not yet listening,
/// so the caller can chmod/chown the socket file before any client can connect.
int cshim_unix_bind(const char *path);
/// Starts listening on a bound socket.
int cshim_listen(int fd, int backlog);
/// Connects a non-blocking, close-on-exec unix stream socket to path. Returns the fd or -1 (errno:
/// ENOENT, ECONNREFUSED, EAGAIN when the listener's backlog is full, ...).
int cshim_unix_connect_nonblocking(const char *path);
/// Connects a blocking, close-on-exec unix stream socket to path with SO_SNDTIMEO set to timeout_ms
/// (0 = none), which bounds both a connect waiting for a full backlog and later sends.
int cshim_unix_connect_timeout(const char *path, int timeout_ms);
/// Supplementary groups of a unix socket peer (SO_PEERGROUPS). Returns the count written, or -1
/// (errno ERANGE: *needed holds the count required).
int cshim_peer_groups(int fd, gid_t *groups, int max, int *needed);
/// send(2) with MSG_NOSIGNAL | MSG_DONTWAIT: never raises SIGPIPE, never blocks.
ssize_t cshim_send_nonblocking(int fd, const void *buf, size_t len);
/// send(2) with MSG_NOSIGNAL only (blocking sockets); retries EINTR.
ssize_t cshim_send_nosignal(int fd, const void *buf, size_t len);
/// A non-blocking, close-on-exec timerfd on CLOCK_REALTIME_ALARM (WakeSystem=): it wakes a
/// suspended machine when it expires. -1 with errno EPERM without CAP_WAKE_ALARM, EINVAL (or
/// ENOTSUP) where the kernel has no alarm timers (no RTC that can wake the machine).
int cshim_alarm_timerfd_create(void);
/// Arms it for an absolute CLOCK_REALTIME time in nanoseconds since the epoch (0 disarms).
int cshim_alarm_timerfd_set(int fd, uint64_t realtime_ns);
/// The absolute CLOCK_REALTIME time it is armed for, read back from the kernel
/// (timerfd_gettime + now); 0 when disarmed, -1 on error.
int64_t cshim_alarm_timerfd_armed_at(int fd);

/// Reads a timerfd's expiration count without blocking; 0 when it has not expired.
uint64_t cshim_timerfd_drain(int fd);
/// Sets the disposition of sig to SIG_IGN (1) or SIG_DFL (0) process-wide.
int cshim_signal_disposition(int sig, int ignore);
/// 1 when sig is blocked in the calling thread, 0 when not, -1 on error.
int cshim_signal_is_blocked(int sig);
/// Unblocks the given signals in the calling thread.
int cshim_unblock_signals(const int *signals, int count);
/// Sends sig to one thread of this process (tgkill).
int cshim_thread_kill(pid_t tid, int sig);
/// The calling thread's kernel thread id.
pid_t cshim_gettid(void);

// --- clocks that follow the machine (AgentSystem Loop: ClockStepWatch, LocalTimeWatch) ---
/// Reads CLOCK_MONOTONIC, CLOCK_BOOTTIME and CLOCK_REALTIME back to back (one loop iteration's clock).
void cshim_read_clocks(uint64_t *monotonic_ns, uint64_t *boottime_ns, int64_t *realtime_ns);
/// A non-blocking, close-on-exec timerfd on CLOCK_REALTIME, for noticing clock steps.
int cshim_realtime_timerfd_create(void);
/// Arms it for an absolute time far in the future with TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET:
/// any later step of the wall clock (settimeofday, clock_settime, adjtimex ADJ_SETOFFSET, a resume)
/// makes it readable and its read fail with ECANCELED. Returns 0 or -1.
int cshim_realtime_timerfd_arm_cancel_on_set(int fd);
/// Reads a cancel-on-set timerfd: 1 when the clock was set (ECANCELED) or the timer expired, 0 when
/// nothing happened (EAGAIN), -1 on another error.
int cshim_realtime_timerfd_consume(int fd);
/// A non-blocking, close-on-exec inotify descriptor.
int cshim_inotify_init(void);
/// Watches a directory for entries created, moved in, written, deleted or moved away. Returns the
/// watch descriptor or -1.
int cshim_inotify_watch_directory(int fd, const char *directory);
/// Drains every pending event: 1 when one of them names `name` (or the queue overflowed, or the
/// directory itself went away), 0 when none does, -1 on an error other than EAGAIN.
int cshim_inotify_drain_for_name(int fd, const char *name);
/// Sets CLOCK_REALTIME to the time it shows, read just before (tests: a step of well under a
/// microsecond that still cancels TFD_TIMER_CANCEL_ON_SET timers). Needs CAP_SYS_TIME. 0 or -1.
int cshim_realtime_set_to_now(void);
/// tzset() then the UTC offset (tm_gmtoff, seconds east) in effect at `when` (unix seconds).
long cshim_utc_offset_at(int64_t when, int refresh_zone);

// --- an idle agent's memory (AgentSystem Service: IdleMemoryTrim) ---
/// malloc_trim(0): free heap pages back to the kernel. 1 when some were released, else 0.
int cshim_malloc_trim(void);
/// madvise(MADV_PAGEOUT) (Linux 5.4): the kernel reclaims the range's clean pages that only
/// this process maps. 0, or -1 with errno (EINVAL before 5.4).
int cshim_madvise_pageout(uintptr_t start, size_t length);

/* stdout line-buffered, as on a terminal: a launched app's print() lines reach agentd as they
   are written (BackgroundTasks), not when the process ends. */
static inline void cshim_line_buffer_stdout(void) { setvbuf(stdout, NULL, _IOLBF, 0); }

#endif
