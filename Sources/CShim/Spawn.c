// SPDX-License-Identifier: Apache-2.0
#define _GNU_SOURCE
#include "CShimSpawn.h"
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <linux/mount.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/prctl.h>
#include <sys/resource.h>
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

// The child shares the parent's memory (CLONE_VM, as posix_spawn does) so that a launch costs
// no page-table copy however large the agent is — but, unlike posix_spawn, the parent does not
// wait for its execve (no CLONE_VFORK): on a busy machine a new child may wait milliseconds for
// a CPU, and the agent's event loop must not wait with it (measured: clone p99 15 ms, max 35 ms,
// while 1,000 plugins a second started on 2 cores). So everything the child reads lives in a
// block of its own (`spawn_block`: a copy of the request, and the child's stack), released only
// once the child has left this memory: after execve or exit, which the parent learns from the
// status pipe's EOF (its write end is close-on-exec). A failure before execve is written to that
// pipe first. The child makes raw system calls only: glibc's setuid() and friends would try to
// synchronise the parent's threads, and glibc's syscall() would write errno — the parent's.

static const char *const steps[] = {"signals", "setsid", "cgroup", "setgroups", "setgid", "setuid",
                                    "dup2", "chdir", "execve", "verify", "setpriority", "ioprio_set",
                                    "mkdir", "chown", "mount-namespace", "ReadWritePaths", "ReadOnlyPaths",
                                    "InaccessiblePaths", "PrivateTmp", "ProtectHome", "PrivateNetwork",
                                    "NoNewPrivileges", "ProtectSystem", "open-files"};
enum { step_execve = 8, step_verify = 9, step_nice = 10, step_ioprio = 11, step_mkdir = 12, step_chown = 13,
       step_namespace = 14, step_read_write = 15, step_read_only = 16, step_inaccessible = 17,
       step_private_tmp = 18, step_empty = 19, step_network = 20, step_nnp = 21, step_root_ro = 22,
       step_open_files = 23 };
#ifndef IOPRIO_WHO_PROCESS
#define IOPRIO_WHO_PROCESS 1
#endif

#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define CSHIM_UNDER_TSAN 1
#endif
#endif

// Every function the child runs is left uninstrumented by AddressSanitizer: the child runs at the
// same time as the agent on the same memory and with the agent thread's thread-local storage, so
// ASan's bookkeeping there (the thread's fake stack for use-after-return detection, among others) is
// the agent thread's, not the child's to touch. (Under ASan an instrumented apply_sandbox took
// frames from the loop thread's fake stack and poisoned them on return: a false
// stack-use-after-return report in the agent, then its abort.)
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CSHIM_CHILD_CODE __attribute__((no_sanitize("address")))
#endif
#endif
#ifndef CSHIM_CHILD_CODE
#define CSHIM_CHILD_CODE
#endif

// A system call that returns -errno and touches no memory but its arguments'.
#if defined(__x86_64__) && !defined(CSHIM_UNDER_TSAN)
#define CSHIM_CHILD_SHARES_MEMORY 1
CSHIM_CHILD_CODE static long child_syscall(long n, long a, long b, long c, long d, long e) {
    long ret;
    register long r10 __asm__("r10") = d;
    register long r8 __asm__("r8") = e;
    __asm__ volatile("syscall" : "=a"(ret) : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8)
                     : "rcx", "r11", "memory");
    return ret;
}
#elif defined(__aarch64__) && !defined(CSHIM_UNDER_TSAN)
#define CSHIM_CHILD_SHARES_MEMORY 1
CSHIM_CHILD_CODE static long child_syscall(long n, long a, long b, long c, long d, long e) {
    register long x8 __asm__("x8") = n;
    register long x0 __asm__("x0") = a;
    register long x1 __asm__("x1") = b;
    register long x2 __asm__("x2") = c;
    register long x3 __asm__("x3") = d;
    register long x4 __asm__("x4") = e;
    __asm__ volatile("svc 0" : "+r"(x0) : "r"(x8), "r"(x1), "r"(x2), "r"(x3), "r"(x4) : "memory");
    return x0;
}
#else
// Elsewhere (and under ThreadSanitizer) the child is a copy of the parent (a raw clone without
// CLONE_VM, which TSan does not see), so glibc's errno is its own.
CSHIM_CHILD_CODE static long child_syscall(long n, long a, long b, long c, long d, long e) {
    long ret = syscall(n, a, b, c, d, e);
    return ret < 0 ? -errno : ret;
}
#endif
#define SYS0(n) child_syscall((n), 0, 0, 0, 0, 0)
#define SYS1(n, a) child_syscall((n), (long)(a), 0, 0, 0, 0)
#define SYS2(n, a, b) child_syscall((n), (long)(a), (long)(b), 0, 0, 0)
#define SYS3(n, a, b, c) child_syscall((n), (long)(a), (long)(b), (long)(c), 0, 0)
#define SYS4(n, a, b, c, d) child_syscall((n), (long)(a), (long)(b), (long)(c), (long)(d), 0)
#define SYS5(n, a, b, c, d, e) child_syscall((n), (long)(a), (long)(b), (long)(c), (long)(d), (long)(e))

enum { child_stack_size = 32 * 1024 };

// What the child reads: the request with every pointer into `data`, then its stack.
struct spawn_block {
    size_t size;
    int status_fd; // the write end of the status pipe
    int in_cgroup; // non-zero: cloned into request.cgroup_dir_fd's cgroup already
    struct cshim_spawn_request request;
    char data[];
};

// The child's report of a failure before execve.
struct spawn_report {
    int step;
    int error;
    int item; // the index in the step's path list, or -1
};

#ifndef AT_RECURSIVE
#define AT_RECURSIVE 0x8000
#endif
#ifndef SYS_mount_setattr
#define SYS_mount_setattr 442
#endif

// Read-only (or writable again) the mount at `path`, with everything below it when recursive.
// Kernels before 5.12 have no mount_setattr: the mount at path alone is remounted there.
CSHIM_CHILD_CODE static long set_read_only(const char *path, int read_only, int recursive) {
    struct mount_attr attr = {0};
    if (read_only) attr.attr_set = MOUNT_ATTR_RDONLY;
    else attr.attr_clr = MOUNT_ATTR_RDONLY;
    long rc = child_syscall(SYS_mount_setattr, AT_FDCWD, (long)path, recursive ? AT_RECURSIVE : 0,
                            (long)&attr, sizeof attr);
    if (rc != -ENOSYS) return rc;
    return SYS5(SYS_mount, 0, path, 0, MS_BIND | MS_REMOUNT | (read_only ? MS_RDONLY : 0), 0);
}

// The job's sandbox (DESIGN §3); 0, or -errno with *step and *item set.
CSHIM_CHILD_CODE static long apply_sandbox(const struct cshim_spawn_request *r, int *step, int *item) {
    long rc;
#define EACH(list, index) for (int index = 0; (list) && (list)[index]; index++)
#define TRY(call, s, i) do { *step = (s); *item = (i); if ((rc = (call)) < 0) return rc; } while (0)
    if (r->mount_namespace) {
        TRY(SYS1(SYS_unshare, CLONE_NEWNS), step_namespace, -1);
        // A slave of the agent's namespace: the machine's mounts still arrive, ours never leave.
        TRY(SYS5(SYS_mount, 0, "/", 0, MS_REC | MS_SLAVE, 0), step_namespace, -1);
        EACH(r->read_write_paths, i) TRY(SYS5(SYS_mount, r->read_write_paths[i], r->read_write_paths[i], 0, MS_BIND | MS_REC, 0), step_read_write, i);
        EACH(r->read_only_paths, i) {
            TRY(SYS5(SYS_mount, r->read_only_paths[i], r->read_only_paths[i], 0, MS_BIND | MS_REC, 0), step_read_only, i);
            TRY(set_read_only(r->read_only_paths[i], 1, 1), step_read_only, i);
        }
        if (r->root_read_only) TRY(set_read_only("/", 1, 0), step_root_ro, -1);
        EACH(r->read_write_paths, i) TRY(set_read_only(r->read_write_paths[i], 0, 1), step_read_write, i);
        EACH(r->inaccessible_paths, i) {
            const char *path = r->inaccessible_paths[i];
            struct stat info;
            TRY(SYS4(SYS_newfstatat, AT_FDCWD, path, &info, 0), step_inaccessible, i);
            if ((info.st_mode & S_IFMT) == S_IFDIR) {
                TRY(SYS5(SYS_mount, "tmpfs", path, "tmpfs", MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC, "mode=000"),
                    step_inaccessible, i);
            } else {
                if (!r->inaccessible_file) return *step = step_inaccessible, *item = i, -EINVAL;
                TRY(SYS5(SYS_mount, r->inaccessible_file, path, 0, MS_BIND, 0), step_inaccessible, i);
                TRY(set_read_only(path, 1, 0), step_inaccessible, i);
            }
        }
        EACH(r->empty_paths, i) TRY(SYS5(SYS_mount, "tmpfs", r->empty_paths[i], "tmpfs", MS_RDONLY | MS_NOSUID | MS_NODEV, "mode=0755"), step_empty, i);
        EACH(r->private_tmp_paths, i) TRY(SYS5(SYS_mount, "tmpfs", r->private_tmp_paths[i], "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777"), step_private_tmp, i);
    }
    if (r->private_network) {
        TRY(SYS1(SYS_unshare, CLONE_NEWNET), step_network, -1);
        // Loopback up, as systemd's PrivateNetwork= leaves it. Where that needs CAP_NET_ADMIN
        // the agent lacks (a container started without its own network: nspawn keeps
        // CAP_SYS_ADMIN but drops CAP_NET_ADMIN) the namespace stays, with lo down: the job
        // is still cut off from every network, as systemd's jobs are there.
        long sock = SYS3(SYS_socket, AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        TRY(sock, step_network, -1);
        struct ifreq request;
        memset(&request, 0, sizeof request);
        memcpy(request.ifr_name, "lo", 3);
        TRY(SYS3(SYS_ioctl, sock, SIOCGIFFLAGS, &request), step_network, -1);
        request.ifr_flags |= IFF_UP;
        long up = SYS3(SYS_ioctl, sock, SIOCSIFFLAGS, &request);
        if (up != -EPERM) TRY(up, step_network, -1);
        SYS1(SYS_close, sock);
    }
    *step = 0;
    *item = -1;
    return 0;
#undef TRY
#undef EACH
}

// The kernel's struct sigaction for rt_sigaction(2).
struct kernel_sigaction {
    void (*handler)(int);
    unsigned long flags;
    void (*restorer)(void);
    uint64_t mask;
};

// Not instrumented by AddressSanitizer, as every function the child runs (CSHIM_CHILD_CODE).
CSHIM_CHILD_CODE static int child_main(void *raw) {
    struct spawn_block *block = raw;
    const struct cshim_spawn_request *r = &block->request;
    int step = 0;
    int item = -1;
    long rc = 0;
#define CHECK(call, index) do { step = (index); if ((rc = (call)) < 0) goto fail; } while (0)
    // Default dispositions (SIGPIPE is ignored by the agent, and SIG_IGN survives execve) and an
    // empty mask (the agent blocks the signals it reads through signalfd).
    struct kernel_sigaction dfl = {0};
    dfl.handler = SIG_DFL;
    for (int sig = 1; sig < 65; sig++) {
        if (sig == SIGKILL || sig == SIGSTOP) continue;
        SYS4(SYS_rt_sigaction, sig, &dfl, 0, 8);
    }
    uint64_t none = 0;
    CHECK(SYS4(SYS_rt_sigprocmask, SIG_SETMASK, &none, 0, 8), 0);
    CHECK(SYS0(SYS_setsid), 1);
    if (r->cgroup_dir_fd >= 0 && !block->in_cgroup) {
        // Writing "0" to cgroup.procs moves the writing process: the child, before execve.
        long procs = SYS4(SYS_openat, r->cgroup_dir_fd, "cgroup.procs", O_WRONLY | O_CLOEXEC, 0);
        CHECK(procs, 2);
        CHECK(SYS3(SYS_write, procs, "0", 1), 2);
        SYS1(SYS_close, procs);
    }
    for (int i = 0; i < r->cgroup_v1_tasks_count; i++) {
        // A v1 group's `tasks`: "0" moves the writing thread, the child's only one, so the kernel
        // takes no process-wide lock (moving a process through cgroup.procs takes the global
        // cgroup_threadgroup_rwsem, whose writer waits for an RCU grace period when no move came
        // just before: 16–20 ms in 3 of 100 launches here).
        CHECK(SYS3(SYS_write, r->cgroup_v1_tasks_fds[i], "0", 1), 2);
    }
    // The working directory (the job's state directory) while still root, with its mode whatever
    // the agent's umask, as the agent's own `mkdir -p` made it (FileSystem.makeDirectories).
    // Opened without following a link (O_NOFOLLOW on the last component: the parent is the
    // agent's own), and changed through that descriptor: a link planted in its place fails
    // (ELOOP) instead of having its target chmod'ed and given to the run's user.
    const char *to_make = r->made_directory ? r->made_directory : r->working_directory;
    if (r->make_working_directory && to_make) {
        rc = SYS3(SYS_mkdirat, AT_FDCWD, to_make, r->working_directory_mode);
        if (rc < 0 && rc != -EEXIST) {
            step = step_mkdir;
            goto fail;
        }
        long dir = SYS4(SYS_openat, AT_FDCWD, to_make, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC, 0);
        if (dir < 0) {
            rc = dir;
            step = step_mkdir;
            goto fail;
        }
        // Made now, or there with a wrong owner or mode: either way it ends the run's user's alone.
        CHECK(SYS2(SYS_fchmod, dir, r->working_directory_mode), step_mkdir);
        if (r->drop_privileges) CHECK(SYS3(SYS_fchown, dir, r->uid, r->gid), step_chown);
        SYS1(SYS_close, dir);
    }
    if ((rc = apply_sandbox(r, &step, &item)) < 0) goto fail;
    if (r->set_open_files) {
        // Lowering a soft limit needs no privilege; the hard limit stays as it is.
        struct { unsigned long long cur, max; } files;
        CHECK(SYS4(SYS_prlimit64, 0, RLIMIT_NOFILE, 0, &files), step_open_files);
        if (r->open_files_soft < files.cur) {
            files.cur = r->open_files_soft;
            CHECK(SYS4(SYS_prlimit64, 0, RLIMIT_NOFILE, &files, 0), step_open_files);
        }
    }
    // Priorities while still privileged: a negative Nice= needs CAP_SYS_NICE.
    if (r->set_nice) CHECK(SYS3(SYS_setpriority, 0 /* PRIO_PROCESS */, 0, r->nice), step_nice);
    if (r->set_ioprio) CHECK(SYS3(SYS_ioprio_set, IOPRIO_WHO_PROCESS, 0, r->ioprio), step_ioprio);
    if (r->drop_privileges) {
        CHECK(SYS2(SYS_setgroups, (size_t)r->group_count, r->groups), 3);
        CHECK(SYS3(SYS_setresgid, r->gid, r->gid, r->gid), 4);
        CHECK(SYS3(SYS_setresuid, r->uid, r->uid, r->uid), 5);
    }
    if (r->no_new_privileges) CHECK(SYS5(SYS_prctl, PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), step_nnp);
    // The agent may run with UMask=0027 (agentd.service); plugins get cron's 022 back.
    SYS1(SYS_umask, 022);
    CHECK(SYS2(SYS_dup2, r->stdin_fd, 0), 6);
    CHECK(SYS2(SYS_dup2, r->stdout_fd, 1), 6);
    CHECK(SYS2(SYS_dup2, r->stderr_fd, 2), 6);
    if (r->working_directory) {
        rc = SYS1(SYS_chdir, r->working_directory);
        if (rc < 0 && r->working_directory_may_be_missing) rc = SYS1(SYS_chdir, "/");
        CHECK(rc, 7);
    }
    // Whatever the agent opened without O_CLOEXEC still never reaches the plugin (the status
    // pipe is close-on-exec already: it must stay open until execve).
    SYS3(SYS_close_range, 3, ~0U, CLOSE_RANGE_CLOEXEC);
    if (r->exec_fd >= 0) {
        // The last look, after every other step: the parent's check may be a few system calls
        // old, and a plugin made group- or world-writable in between must not run either.
        struct stat checked;
        CHECK(SYS2(SYS_fstat, r->exec_fd, &checked), step_verify);
        if (checked.st_mode & (S_IWGRP | S_IWOTH)) {
            rc = -EPERM;
            goto fail;
        }
        if (r->exec_through_fd) {
            step = step_execve;
            rc = SYS5(SYS_execveat, r->exec_fd, "", r->argv, r->envp, AT_EMPTY_PATH);
            goto fail;
        }
        struct stat named;
        CHECK(SYS4(SYS_newfstatat, AT_FDCWD, r->path, &named, 0), step_verify);
        if (named.st_dev != checked.st_dev || named.st_ino != checked.st_ino) {
            rc = -ESTALE;
            goto fail;
        }
    }
    step = step_execve;
    rc = SYS3(SYS_execve, r->path, r->argv, r->envp);
fail:;
    struct spawn_report report = {.step = step, .error = rc < 0 ? (int)-rc : EINVAL, .item = item};
    SYS3(SYS_write, block->status_fd, &report, sizeof report);
    SYS1(SYS_exit, 127);
    return 127;
#undef CHECK
}

// Bytes needed to copy a NULL-terminated string array (pointers and characters).
static size_t strings_size(char *const *strings) {
    size_t size = sizeof(char *);
    for (; *strings; strings++) size += sizeof(char *) + strlen(*strings) + 1;
    return size;
}

static size_t optional_strings_size(char *const *strings) { return strings ? strings_size(strings) : 0; }

// Bump allocation inside the block's data (which has room for everything: sized first).
static void *take(char **cursor, size_t size, size_t align) {
    uintptr_t at = ((uintptr_t)*cursor + (align - 1)) & ~(uintptr_t)(align - 1);
    *cursor = (char *)(at + size);
    return (void *)at;
}

static char *copy_string(char **cursor, const char *string) {
    if (!string) return NULL;
    size_t length = strlen(string) + 1;
    return memcpy(take(cursor, length, 1), string, length);
}

static char *const *copy_strings(char **cursor, char *const *strings) {
    size_t count = 0;
    while (strings[count]) count++;
    char **copy = take(cursor, (count + 1) * sizeof(char *), sizeof(char *));
    for (size_t i = 0; i < count; i++) copy[i] = copy_string(cursor, strings[i]);
    copy[count] = NULL;
    return copy;
}

// The request copied into a fresh block, or NULL (errno set).
static struct spawn_block *make_block(const struct cshim_spawn_request *r) {
    size_t data = strlen(r->path) + 1 + strings_size(r->argv) + strings_size(r->envp)
        + (r->working_directory ? strlen(r->working_directory) + 1 : 0)
        + (r->made_directory ? strlen(r->made_directory) + 1 : 0)
        + (size_t)r->group_count * sizeof(gid_t) + (size_t)r->cgroup_v1_tasks_count * sizeof(int)
        + optional_strings_size(r->read_write_paths) + optional_strings_size(r->read_only_paths)
        + optional_strings_size(r->inaccessible_paths) + optional_strings_size(r->private_tmp_paths)
        + optional_strings_size(r->empty_paths)
        + (r->inaccessible_file ? strlen(r->inaccessible_file) + 1 : 0)
        + 128; // alignment padding
    size_t size = sizeof(struct spawn_block) + data + child_stack_size + 64;
    struct spawn_block *block = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (block == MAP_FAILED) return NULL;
    block->size = size;
    block->request = *r;
    char *cursor = block->data;
    struct cshim_spawn_request *copy = &block->request;
    copy->path = copy_string(&cursor, r->path);
    copy->argv = copy_strings(&cursor, r->argv);
    copy->envp = copy_strings(&cursor, r->envp);
    copy->working_directory = copy_string(&cursor, r->working_directory);
    copy->made_directory = copy_string(&cursor, r->made_directory);
    copy->inaccessible_file = copy_string(&cursor, r->inaccessible_file);
    if (r->read_write_paths) copy->read_write_paths = copy_strings(&cursor, r->read_write_paths);
    if (r->read_only_paths) copy->read_only_paths = copy_strings(&cursor, r->read_only_paths);
    if (r->inaccessible_paths) copy->inaccessible_paths = copy_strings(&cursor, r->inaccessible_paths);
    if (r->private_tmp_paths) copy->private_tmp_paths = copy_strings(&cursor, r->private_tmp_paths);
    if (r->empty_paths) copy->empty_paths = copy_strings(&cursor, r->empty_paths);
    if (r->group_count > 0 && r->groups) {
        gid_t *groups = take(&cursor, (size_t)r->group_count * sizeof(gid_t), sizeof(gid_t));
        memcpy(groups, r->groups, (size_t)r->group_count * sizeof(gid_t));
        copy->groups = groups;
    }
    if (r->cgroup_v1_tasks_count > 0 && r->cgroup_v1_tasks_fds) {
        int *fds = take(&cursor, (size_t)r->cgroup_v1_tasks_count * sizeof(int), sizeof(int));
        memcpy(fds, r->cgroup_v1_tasks_fds, (size_t)r->cgroup_v1_tasks_count * sizeof(int));
        copy->cgroup_v1_tasks_fds = fds;
    }
    return block;
}

// A copy of the parent, through the raw system call (ThreadSanitizer intercepts glibc's clone()
// and cannot follow a child that shares its memory: its ForkAfter CHECK fails); the child runs on
// (its copy of) the parent's stack. Used for runs with a memory limit, and under TSan.
static pid_t spawn_copy(struct spawn_block *block, int *child_pidfd) {
    long child = syscall(SYS_clone, (unsigned long)(CLONE_PIDFD | SIGCHLD), NULL, child_pidfd, NULL, 0);
    if (child == 0) child_main(block); // does not return
    return (pid_t)child;
}

// clone3's arguments up to `cgroup` (CLONE_ARGS_SIZE_VER2), spelled out: older headers lack it.
struct spawn_clone_args {
    uint64_t flags, pidfd, child_tid, parent_tid, exit_signal, stack, stack_size, tls, set_tid,
        set_tid_size, cgroup;
};
#ifndef SYS_clone3
#define SYS_clone3 435
#endif
#define SPAWN_CLONE_INTO_CGROUP 0x200000000ULL

// Born in the run's cgroup (CLONE_INTO_CGROUP) instead of moving there before execve: a move
// through cgroup.procs write-locks the kernel's global cgroup_threadgroup_rwsem, which waits for
// an RCU grace period whenever no move came just before — the child stalled 10–25 ms holding the
// cgroup lock in 3–5 of 200 `submit --wait` here, and the worker's mkdir/rmdir with it. Cloning
// into a cgroup takes that lock for reading only. Kernels before 5.7 refuse the flag (E2BIG;
// EINVAL on 5.3–5.6; ENOSYS without clone3): the child moves itself there, as before.
static atomic_int clone3_unsupported;

static struct spawn_clone_args clone_args_for(struct spawn_block *block, int *child_pidfd) {
    struct spawn_clone_args args = {0};
    args.flags = CLONE_PIDFD | SPAWN_CLONE_INTO_CGROUP;
    args.pidfd = (uint64_t)(uintptr_t)child_pidfd;
    args.exit_signal = SIGCHLD;
    args.cgroup = (uint64_t)block->request.cgroup_dir_fd;
    return args;
}

// A copy of the parent, as spawn_copy, born in the cgroup.
static long spawn_copy_into_cgroup(struct spawn_block *block, int *child_pidfd) {
    struct spawn_clone_args args = clone_args_for(block, child_pidfd);
    long child = syscall(SYS_clone3, &args, sizeof args);
    if (child == 0) child_main(block); // does not return
    return child < 0 ? -errno : child;
}

#ifdef CSHIM_CHILD_SHARES_MEMORY
// The top of the child's stack: the end of the block, 16-byte aligned.
static char *stack_top(struct spawn_block *block) {
    return (char *)(((uintptr_t)block + block->size) & ~(uintptr_t)15);
}

// Only x86_64 has the trampoline below; elsewhere a child that shares the agent's memory moves
// itself into its cgroup (one with a memory limit, a copy, is still cloned there).
#if defined(__x86_64__)
// clone3 with CLONE_VM: the child starts on its own stack inside the block, so it cannot return
// into this function's frame; it calls child_main from the assembly and exits. -errno or the pid.
static long spawn_shared_into_cgroup(struct spawn_block *block, int *child_pidfd) {
    struct spawn_clone_args args = clone_args_for(block, child_pidfd);
    args.flags |= CLONE_VM;
    char *top = stack_top(block);
    args.stack = (uint64_t)(uintptr_t)(top - child_stack_size);
    args.stack_size = child_stack_size;
    register long rax __asm__("rax") = SYS_clone3;
    register void *rdi __asm__("rdi") = &args;
    register long rsi __asm__("rsi") = sizeof args;
    register void *r12 __asm__("r12") = (void *)child_main;
    register void *r13 __asm__("r13") = block;
    __asm__ volatile("syscall\n\t"
                     "test %%rax, %%rax\n\t"
                     "jnz 1f\n\t"
                     "xor %%ebp, %%ebp\n\t"
                     "mov %%r13, %%rdi\n\t"
                     "call *%%r12\n\t"
                     "mov %%eax, %%edi\n\t"
                     "mov $60, %%eax\n\t" // exit(2): child_main does not return
                     "syscall\n\t"
                     "hlt\n"
                     "1:"
                     : "+r"(rax)
                     : "r"(rdi), "r"(rsi), "r"(r12), "r"(r13)
                     : "rcx", "r11", "cc", "memory");
    return rax;
}
#define SPAWN_SHARED_INTO_CGROUP 1
#endif

static pid_t spawn_moving(struct spawn_block *block, int *child_pidfd) {
    if (block->request.separate_memory) return spawn_copy(block, child_pidfd);
    return clone(child_main, stack_top(block), CLONE_VM | CLONE_PIDFD | SIGCHLD, block, child_pidfd);
}
#else
static pid_t spawn_moving(struct spawn_block *block, int *child_pidfd) { return spawn_copy(block, child_pidfd); }
#endif

// Whether the child can be cloned into its cgroup: a copy of the parent always, a child sharing
// the agent's memory where the trampoline exists (and the kernel has not refused the flag).
static int clones_into_cgroup(const struct spawn_block *block) {
    if (block->request.cgroup_dir_fd < 0 || atomic_load(&clone3_unsupported)) return 0;
#if defined(CSHIM_CHILD_SHARES_MEMORY) && !defined(SPAWN_SHARED_INTO_CGROUP)
    if (!block->request.separate_memory) return 0;
#endif
    return 1;
}

static long spawn_into_cgroup(struct spawn_block *block, int *child_pidfd) {
#ifdef SPAWN_SHARED_INTO_CGROUP
    if (!block->request.separate_memory) return spawn_shared_into_cgroup(block, child_pidfd);
#endif
    return spawn_copy_into_cgroup(block, child_pidfd);
}

static pid_t spawn_child(struct spawn_block *block, int *child_pidfd) {
    if (clones_into_cgroup(block)) {
        block->in_cgroup = 1;
        long child = spawn_into_cgroup(block, child_pidfd);
        if (child >= 0) return (pid_t)child;
        if (child == -ENOSYS || child == -E2BIG || child == -EINVAL) atomic_store(&clone3_unsupported, 1);
        // Any other refusal (the cgroup gone, a limit): the child's own move below reports it
        // with its step, as it always did.
        block->in_cgroup = 0;
    }
    return spawn_moving(block, child_pidfd);
}

int cshim_spawn_plugin(const struct cshim_spawn_request *r, struct cshim_spawn_started *started,
                       const char **failed_step) {
    int status[2];
    if (pipe2(status, O_CLOEXEC | O_NONBLOCK) != 0) {
        *failed_step = "pipe";
        return errno;
    }
    // The child's end blocks: its one report must not be lost to EAGAIN (the pipe is empty).
    fcntl(status[1], F_SETFL, 0);
    struct spawn_block *block = make_block(r);
    if (!block) {
        int saved = errno;
        close(status[0]);
        close(status[1]);
        *failed_step = "mmap";
        return saved;
    }
    block->status_fd = status[1];
    int child_pidfd = -1;
    pid_t child = spawn_child(block, &child_pidfd);
    int saved = errno;
    close(status[1]);
    if (child < 0) {
        close(status[0]);
        munmap(block, block->size);
        *failed_step = "clone";
        return saved;
    }
    // CLONE_PIDFD descriptors are created close-on-exec.
    started->pid = child;
    started->pidfd = child_pidfd;
    started->status_fd = status[0];
    started->block = block;
    return 0;
}

int cshim_spawn_status(int status_fd, int *failed_errno, const char **failed_step) {
    int item = -1;
    return cshim_spawn_status_item(status_fd, failed_errno, failed_step, &item);
}

int cshim_spawn_status_item(int status_fd, int *failed_errno, const char **failed_step, int *failed_item) {
    struct spawn_report report;
    for (;;) {
        ssize_t n = read(status_fd, &report, sizeof report);
        if (n == (ssize_t)sizeof report) {
            int step = report.step;
            *failed_errno = report.error;
            *failed_step = (step >= 0 && step < (int)(sizeof steps / sizeof *steps)) ? steps[step] : "exec";
            *failed_item = report.item;
            continue; // EOF follows once the child has exited
        }
        if (n == 0) return 1;
        if (n < 0 && errno == EINTR) continue;
        return 0; // EAGAIN: the child has not reached execve yet (or a short read: not ours)
    }
}

void cshim_spawn_release(void *block) {
    struct spawn_block *b = block;
    if (b) munmap(b, b->size);
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
