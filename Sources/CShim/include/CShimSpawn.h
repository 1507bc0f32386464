// SPDX-License-Identifier: Apache-2.0
// Spawning a plugin: clone(CLONE_VM | CLONE_VFORK | CLONE_PIDFD) — posix_spawn's cost, plus a
// pidfd — into the run's cgroup, a new session, dropped privileges, its own stdio, and no
// inherited descriptors. The child runs only raw system calls between clone and execve.
#ifndef AGENTD_CSHIM_SPAWN_H
#define AGENTD_CSHIM_SPAWN_H
#include <sys/types.h>

struct cshim_spawn_request {
    const char *path;          // absolute executable
    char *const *argv;         // NULL-terminated
    char *const *envp;         // NULL-terminated
    const char *working_directory; // chdir() target, or NULL
    int stdin_fd, stdout_fd, stderr_fd;
    int cgroup_procs_fd;       // O_WRONLY fd of the run's cgroup.procs, or -1
    int drop_privileges;       // non-zero: setgroups/setgid/setuid below
    uid_t uid;
    gid_t gid;
    const gid_t *groups;
    int group_count;
    const int *more_cgroup_procs_fds; // cgroup v1 pids/memory groups' cgroup.procs, or NULL
    int more_cgroup_procs_count;
    // The executable the agent checked (PluginSafety), or -1 to execve(path) unchecked. Right
    // before exec the child fstat()s it again and refuses (EPERM, step "verify") one that has
    // become group- or world-writable since.
    int exec_fd;
    // Non-zero: execveat(exec_fd, "", AT_EMPTY_PATH), so the file checked is the file that runs.
    // Zero (a #! script, whose interpreter reopens it by name anyway): execve(path), after
    // checking that path still names exec_fd's file (ESTALE, step "verify", when not).
    int exec_through_fd;
    // Non-zero: setpriority(PRIO_PROCESS, 0, nice) before privileges are dropped (Nice=).
    int set_nice;
    int nice;
    // Non-zero: ioprio_set(IOPRIO_WHO_PROCESS, 0, ioprio) (IOSchedulingClass=/Priority=); ioprio
    // is the kernel's (class << 13) | level.
    int set_ioprio;
    int ioprio;
};

/// Starts the child. On success returns 0 and fills *pid and *pidfd. On failure returns an errno
/// and sets *failed_step to a short static description ("clone", "execve", "setuid", "verify"…). When the
/// child was created but failed before execve, *pid and *pidfd are filled too (non-negative) and
/// the caller must reap it (it has already exited with status 127).
int cshim_spawn_plugin(const struct cshim_spawn_request *request, pid_t *pid, int *pidfd,
                       const char **failed_step);

/// Opens `path` (following symlinks) as O_PATH | O_CLOEXEC: a handle on the file to fstat and
/// to execveat, needing no read permission and opening no device. -1 with errno on failure.
int cshim_open_executable(const char *path);

/// Makes the agent the reaper of orphaned descendants (PR_SET_CHILD_SUBREAPER).
int cshim_set_child_subreaper(void);
/// Blocks until the child behind pidfd has exited and reaps it.
int cshim_pidfd_reap_blocking(int pidfd, int *code, int *status);
/// Reaps every exited child in process group pgid (orphans reparented to the subreaper agent).
/// Returns how many; never waits.
int cshim_reap_group(pid_t pgid);
/// Reaps one exited child by pid without waiting: 1 reaped, 0 still running, -1 not our child.
int cshim_reap_pid(pid_t pid);
#endif
