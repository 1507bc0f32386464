// SPDX-License-Identifier: Apache-2.0
#define _GNU_SOURCE
#include "CShimSpawn.h"
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef CLONE_PIDFD
#define CLONE_PIDFD 0x00001000
#endif
#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC (1U << 2)
#endif

// The child shares the parent's memory (CLONE_VM | CLONE_VFORK, as posix_spawn does) so that a
// launch costs no page-table copy however large the agent is; the parent is suspended until
// the child has called execve or exited. The child therefore uses raw system calls only: glibc's
// setuid() and friends would try to synchronise the parent's threads, and nothing here may touch
// state the parent relies on. A failure before execve is reported through `failure`, which the
// parent reads once it resumes.

static const char *const steps[] = {"signals", "setsid", "cgroup", "setgroups", "setgid", "setuid",
                                    "dup2", "chdir", "execve", "verify", "setpriority", "ioprio_set"};
enum { step_execve = 8, step_verify = 9, step_nice = 10, step_ioprio = 11 };
#ifndef IOPRIO_WHO_PROCESS
#define IOPRIO_WHO_PROCESS 1
#endif

struct child_args {
    const struct cshim_spawn_request *request;
    volatile int failed_errno;
    volatile int failed_step;
};

// The kernel's struct sigaction for rt_sigaction(2).
struct kernel_sigaction {
    void (*handler)(int);
    unsigned long flags;
    void (*restorer)(void);
    uint64_t mask;
};

static int child_main(void *raw) {
    struct child_args *args = raw;
    const struct cshim_spawn_request *r = args->request;
    int step = 0;
#define CHECK(call, index) do { step = (index); if ((long)(call) < 0) goto fail; } while (0)
    // Default dispositions (SIGPIPE is ignored by the agent, and SIG_IGN survives execve) and an
    // empty mask (the agent blocks the signals it reads through signalfd).
    struct kernel_sigaction dfl = {0};
    dfl.handler = SIG_DFL;
    for (int sig = 1; sig < 65; sig++) {
        if (sig == SIGKILL || sig == SIGSTOP) continue;
        syscall(SYS_rt_sigaction, sig, &dfl, NULL, 8);
    }
    uint64_t none = 0;
    CHECK(syscall(SYS_rt_sigprocmask, SIG_SETMASK, &none, NULL, 8), 0);
    CHECK(syscall(SYS_setsid), 1);
    if (r->cgroup_procs_fd >= 0) {
        // Writing "0" to cgroup.procs moves the writing process: the child, before execve.
        CHECK(syscall(SYS_write, r->cgroup_procs_fd, "0", 1), 2);
    }
    for (int i = 0; i < r->more_cgroup_procs_count; i++) {
        CHECK(syscall(SYS_write, r->more_cgroup_procs_fds[i], "0", 1), 2);
    }
    // Priorities while still privileged: a negative Nice= needs CAP_SYS_NICE.
    if (r->set_nice) CHECK(syscall(SYS_setpriority, 0 /* PRIO_PROCESS */, 0, r->nice), step_nice);
    if (r->set_ioprio) CHECK(syscall(SYS_ioprio_set, IOPRIO_WHO_PROCESS, 0, r->ioprio), step_ioprio);
    if (r->drop_privileges) {
        CHECK(syscall(SYS_setgroups, (size_t)r->group_count, r->groups), 3);
        CHECK(syscall(SYS_setresgid, r->gid, r->gid, r->gid), 4);
        CHECK(syscall(SYS_setresuid, r->uid, r->uid, r->uid), 5);
    }
    // The agent may run with UMask=0027 (agentd.service); plugins get cron's 022 back.
    syscall(SYS_umask, 022);
    CHECK(syscall(SYS_dup2, r->stdin_fd, 0), 6);
    CHECK(syscall(SYS_dup2, r->stdout_fd, 1), 6);
    CHECK(syscall(SYS_dup2, r->stderr_fd, 2), 6);
    if (r->working_directory) CHECK(syscall(SYS_chdir, r->working_directory), 7);
    // Whatever the agent opened without O_CLOEXEC still never reaches the plugin.
    syscall(SYS_close_range, 3, ~0U, CLOSE_RANGE_CLOEXEC);
    if (r->exec_fd >= 0) {
        // The last look, after every other step: the parent's check may be a few system calls
        // old, and a plugin made group- or world-writable in between must not run either.
        struct stat checked;
        CHECK(syscall(SYS_fstat, r->exec_fd, &checked), step_verify);
        if (checked.st_mode & (S_IWGRP | S_IWOTH)) {
            errno = EPERM;
            goto fail;
        }
        if (r->exec_through_fd) {
            step = step_execve;
            syscall(SYS_execveat, r->exec_fd, "", r->argv, r->envp, AT_EMPTY_PATH);
            goto fail;
        }
        struct stat named;
        CHECK(syscall(SYS_newfstatat, AT_FDCWD, r->path, &named, 0), step_verify);
        if (named.st_dev != checked.st_dev || named.st_ino != checked.st_ino) {
            errno = ESTALE;
            goto fail;
        }
    }
    step = step_execve;
    syscall(SYS_execve, r->path, r->argv, r->envp);
fail:
    args->failed_errno = errno ? errno : EINVAL;
    args->failed_step = step;
    syscall(SYS_exit, 127);
    return 127;
#undef CHECK
}

#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define CSHIM_UNDER_TSAN 1
#endif
#endif

#ifdef CSHIM_UNDER_TSAN
// ThreadSanitizer intercepts glibc's clone() and cannot follow a child that shares its memory
// (its ForkAfter CHECK fails). Under TSan only, the child is a copy (raw clone syscall without
// CLONE_VM: TSan never sees it, and the child makes raw system calls only), still CLONE_VFORK so
// the parent waits for execve, and reports a failure through a page shared with the parent.
static pid_t spawn_child(struct child_args *args, int *child_pidfd) {
    struct child_args *shared = mmap(NULL, sizeof *shared, PROT_READ | PROT_WRITE,
                                     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (shared == MAP_FAILED) return -1;
    *shared = *args;
    long child = syscall(SYS_clone, (unsigned long)(CLONE_VFORK | CLONE_PIDFD | SIGCHLD), NULL,
                         child_pidfd, NULL, 0);
    if (child == 0) child_main(shared); // does not return
    int saved = errno;
    args->failed_errno = shared->failed_errno;
    args->failed_step = shared->failed_step;
    munmap(shared, sizeof *shared);
    errno = saved;
    return (pid_t)child;
}
#else
static pid_t spawn_child(struct child_args *args, int *child_pidfd) {
    // The child runs on this buffer (part of this frame) while this thread is suspended
    // (CLONE_VFORK); it only makes system calls, so 16 KiB is ample.
    char stack_storage[16 * 1024] __attribute__((aligned(16)));
    return clone(child_main, stack_storage + sizeof stack_storage,
                 CLONE_VM | CLONE_VFORK | CLONE_PIDFD | SIGCHLD, args, child_pidfd);
}
#endif

int cshim_spawn_plugin(const struct cshim_spawn_request *r, pid_t *pid, int *pidfd,
                       const char **failed_step) {
    struct child_args args = {.request = r, .failed_errno = 0, .failed_step = -1};
    int child_pidfd = -1;
    pid_t child = spawn_child(&args, &child_pidfd);
    if (child < 0) {
        *failed_step = "clone";
        return errno;
    }
    // CLONE_PIDFD descriptors are created close-on-exec.
    *pid = child;
    *pidfd = child_pidfd;
    if (args.failed_step >= 0) {
        int step = args.failed_step;
        *failed_step = (step < (int)(sizeof steps / sizeof *steps)) ? steps[step] : "exec";
        return args.failed_errno;
    }
    return 0;
}

int cshim_open_executable(const char *path) { return open(path, O_PATH | O_CLOEXEC); }

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
