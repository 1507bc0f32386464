#define _GNU_SOURCE
#include "CShimSpawn.h"
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/sched.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef CLONE_INTO_CGROUP
#define CLONE_INTO_CGROUP 0x200000000ULL
#endif

// The child reports a failure before execve as {errno, step index} on a close-on-exec pipe:
// EOF on the pipe means execve succeeded.
static const char *const steps[] = {"setsid", "cgroup", "setgroups", "setgid", "setuid", "dup2",
                                    "chdir", "execve"};

static void child_fail(int pipe_fd, int step) {
    int report[2] = {errno, step};
    ssize_t ignored = write(pipe_fd, report, sizeof report);
    (void)ignored;
    _exit(127);
}

static void run_child(const struct cshim_spawn_request *r, int report_fd) {
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    for (int sig = 1; sig < NSIG; sig++) signal(sig, SIG_DFL);
    if (setsid() < 0) child_fail(report_fd, 0);
    if (r->drop_privileges) {
        if (setgroups((size_t)r->group_count, r->groups) != 0) child_fail(report_fd, 2);
        if (setgid(r->gid) != 0) child_fail(report_fd, 3);
        if (setuid(r->uid) != 0) child_fail(report_fd, 4);
    }
    // dup2 onto 0,1,2; fds above are close-on-exec (the agent opens everything O_CLOEXEC) and
    // close_range below catches any that are not.
    if (dup2(r->stdin_fd, 0) < 0 || dup2(r->stdout_fd, 1) < 0 || dup2(r->stderr_fd, 2) < 0)
        child_fail(report_fd, 5);
    if (r->working_directory && chdir(r->working_directory) != 0) child_fail(report_fd, 6);
    // Close everything above stderr except the report pipe (close-on-exec itself).
    if (report_fd > 3) syscall(SYS_close_range, 3, report_fd - 1, 0);
    syscall(SYS_close_range, report_fd + 1, ~0U, 0);
    execve(r->path, r->argv, r->envp);
    child_fail(report_fd, 7);
}

int cshim_spawn_plugin(const struct cshim_spawn_request *r, pid_t *pid, int *pidfd,
                       const char **failed_step) {
    int report[2];
    if (pipe2(report, O_CLOEXEC) != 0) { *failed_step = "pipe"; return errno; }

    struct clone_args args;
    memset(&args, 0, sizeof args);
    int child_pidfd = -1;
    args.flags = CLONE_PIDFD;
    args.pidfd = (uint64_t)(uintptr_t)&child_pidfd;
    args.exit_signal = SIGCHLD;
    if (r->cgroup_fd >= 0) {
        args.flags |= CLONE_INTO_CGROUP;
        args.cgroup = (uint64_t)r->cgroup_fd;
    }
    long child = syscall(SYS_clone3, &args, sizeof args);
    if (child == 0) {
        close(report[0]);
        run_child(r, report[1]);
    }
    int saved = errno;
    close(report[1]);
    if (child < 0) {
        close(report[0]);
        *failed_step = r->cgroup_fd >= 0 ? "clone3 into cgroup" : "clone3";
        return saved;
    }
    // The pidfd was created by clone3 without O_CLOEXEC: set it, so later children don't inherit it.
    fcntl(child_pidfd, F_SETFD, FD_CLOEXEC);
    int failure[2];
    ssize_t n;
    do { n = read(report[0], failure, sizeof failure); } while (n < 0 && errno == EINTR);
    close(report[0]);
    *pid = (pid_t)child;
    *pidfd = child_pidfd;
    if (n == (ssize_t)sizeof failure) {
        int step = failure[1];
        *failed_step = (step >= 0 && step < (int)(sizeof steps / sizeof *steps)) ? steps[step] : "exec";
        return failure[0] ? failure[0] : EINVAL;
    }
    return 0;
}

int cshim_set_child_subreaper(void) { return prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); }

int cshim_pidfd_reap_blocking(int pidfd, int *code, int *status) {
    siginfo_t info;
    memset(&info, 0, sizeof info);
    int r;
    do { r = waitid(P_PIDFD, (id_t)pidfd, &info, WEXITED); } while (r < 0 && errno == EINTR);
    if (r < 0) return -1;
    *code = info.si_code;
    *status = info.si_status;
    return 1;
}

int cshim_reap_group(pid_t pgid) {
    int reaped = 0;
    for (;;) {
        siginfo_t info;
        memset(&info, 0, sizeof info);
        if (waitid(P_PGID, (id_t)pgid, &info, WEXITED | WNOHANG) != 0 || info.si_pid == 0) break;
        reaped++;
    }
    return reaped;
}

int cshim_reap_pid(pid_t pid) {
    siginfo_t info;
    memset(&info, 0, sizeof info);
    if (waitid(P_PID, (id_t)pid, &info, WEXITED | WNOHANG) != 0) return -1;
    return info.si_pid == 0 ? 0 : 1;
}
