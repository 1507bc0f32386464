// SPDX-License-Identifier: Apache-2.0
// Spawning a plugin: clone3(CLONE_VM | CLONE_PIDFD | CLONE_INTO_CGROUP) — posix_spawn's cost, plus
// a pidfd, without waiting for the child's execve — born in the run's cgroup, in a new session,
// with dropped privileges, its own stdio, and no inherited descriptors. The child runs only raw
// system calls between clone and execve, on a copy of the request.
#ifndef AGENTD_CSHIM_SPAWN_H
#define AGENTD_CSHIM_SPAWN_H
#include <sys/types.h>

struct cshim_spawn_request {
    const char *path;          // absolute executable
    char *const *argv;         // NULL-terminated
    char *const *envp;         // NULL-terminated
    const char *working_directory; // chdir() target, or NULL
    // Non-zero: the child makes working_directory first (mkdirat, then fchmodat to
    // working_directory_mode whatever the umask; one that exists is fine) and, when it drops privileges, gives it to uid/gid (fchownat) while
    // still root. A new directory is an inode allocation, which on a busy ext4 file system with
    // many recent deletions took the agent's loop 25% of its time during a burst of first runs.
    int make_working_directory;
    mode_t working_directory_mode;
    // The directory make_working_directory makes, when it is not the working directory (the
    // job's state directory under a WorkingDirectory= of its own); NULL: working_directory.
    const char *made_directory;
    // Non-zero: a working directory that cannot be entered (WorkingDirectory=-…, systemd's "-")
    // is no failure; the child starts in / instead.
    int working_directory_may_be_missing;
    int stdin_fd, stdout_fd, stderr_fd;
    // The run's cgroup v2 directory (O_RDONLY | O_DIRECTORY), or -1. The child is cloned into it
    // (CLONE_INTO_CGROUP); where the kernel cannot (before 5.7), the child writes its
    // cgroup.procs before execve instead.
    int cgroup_dir_fd;
    int drop_privileges;       // non-zero: setgroups/setgid/setuid below
    uid_t uid;
    gid_t gid;
    const gid_t *groups;
    int group_count;
    const int *cgroup_v1_tasks_fds; // cgroup v1 pids/memory groups' `tasks` files, or NULL
    int cgroup_v1_tasks_count;
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
    // Non-zero: the child is a copy of the agent (clone without CLONE_VM) instead of sharing its
    // memory. For runs with a memory limit: the OOM killer kills every process that shares the
    // victim's memory, so a child that joined a memory-limited group while sharing the agent's
    // would take the agent with it (MemoryMax=512 killed agentd).
    int separate_memory;
    // The job's own sandbox (DESIGN §3), applied in the child as root, before privileges are
    // dropped, as systemd applies a unit's (NULL lists are empty). Any list set, or
    // mount_namespace non-zero: the child gets a mount namespace of its own (a slave of the
    // agent's, so nothing it mounts reaches the machine), in which:
    int mount_namespace;
    char *const *read_write_paths;   // made mount points first, so that they stay writable
    char *const *read_only_paths;    // bind-mounted read-only with everything below them
    int root_read_only;              // "/" itself read-only (ProtectSystem=strict)
    char *const *inaccessible_paths; // an empty read-only 0000 tmpfs over a directory,
                                     // inaccessible_file bound over anything else
    const char *inaccessible_file;   // a mode-0000 regular file the agent made
    char *const *private_tmp_paths;  // a fresh tmpfs (mode 1777): PrivateTmp=
    char *const *empty_paths;        // an empty read-only tmpfs (mode 0755): ProtectHome=tmpfs
    int private_network;             // a network namespace with only loopback, up
    int no_new_privileges;           // prctl(PR_SET_NO_NEW_PRIVS) after setuid, before execve
    // Non-zero: RLIMIT_NOFILE's soft limit set to open_files_soft (at most the hard limit, which
    // stays): the limit the agent was started with, before it raised its own for its many runs.
    int set_open_files;
    unsigned long long open_files_soft;
};

/// A child that was started: it runs on without the caller waiting for its execve.
struct cshim_spawn_started {
    pid_t pid;
    int pidfd;       // close-on-exec
    // Readable (EOF) once the child has called execve or exited; before an exit that ends a
    // failed start it holds the child's report. O_NONBLOCK | O_CLOEXEC. Read by cshim_spawn_status.
    int status_fd;
    // The memory the child runs on until then: cshim_spawn_release it only after
    // cshim_spawn_status returned 1.
    void *block;
};

/// Starts the child. On success returns 0 and fills *started (the request may be freed at once:
/// the child has a copy). On failure to start it at all returns an errno and sets *failed_step
/// ("pipe", "mmap", "clone"). A failure in the child before execve ("execve", "setuid",
/// "verify"…) is learnt later, from the status fd.
int cshim_spawn_plugin(const struct cshim_spawn_request *request, struct cshim_spawn_started *started,
                       const char **failed_step);

/// Reads the status fd without waiting. Returns 1 once the child is past execve or has exited
/// (EOF: its block may be released); 0 while it has not got there yet. When the child reported a
/// failure before execve, sets *failed_errno (non-zero) and *failed_step; leaves them untouched
/// otherwise.
int cshim_spawn_status(int status_fd, int *failed_errno, const char **failed_step);
/// As cshim_spawn_status, also saying which path of a sandbox list failed (-1: none).
int cshim_spawn_status_item(int status_fd, int *failed_errno, const char **failed_step, int *failed_item);

/// Frees a started child's block (NULL is ignored).
void cshim_spawn_release(void *block);

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
