// SPDX-License-Identifier: Apache-2.0
import CShim
import Glibc

/// What to start: argv without a shell, a complete environment, and who and where.
public struct SpawnRequest {
    /// The plugin, checked by ``PluginSafety`` just before: the child runs this file.
    public var executable: CheckedExecutable
    /// argv; `arguments[0]` is the absolute executable path.
    public var arguments: [String]
    /// `KEY=VALUE` strings: the whole environment (the agent clears its own).
    public var environment: [String]
    public var workingDirectory: String?
    /// The child makes `workingDirectory` with this mode (one that exists is fine) and gives it
    /// to `user`, before it drops privileges: nil when it exists already as it should.
    public var makesWorkingDirectory: mode_t?
    /// The directory `makesWorkingDirectory` makes when it is not the working directory (the
    /// job's state directory, under a `WorkingDirectory=` of its own); nil: `workingDirectory`.
    public var madeDirectory: String?
    /// `WorkingDirectory=-…`: a directory the child cannot enter is no failure; it starts in `/`.
    public var workingDirectoryMayBeMissing = false
    /// Drop to this user (and its groups) in the child; nil keeps the agent's.
    public var user: UserAccount?
    /// Clone the child straight into this cgroup.
    public var cgroup: RunCgroup?
    /// `tasks` of the run's cgroup v1 groups (per-run limits on a hybrid host), joined by the
    /// child before exec like `cgroup`.
    public var cgroupV1TasksFDs: [Int32]
    /// `Nice=`, set in the child before exec.
    public var nice: Int32?
    /// `IOSchedulingClass=`/`IOSchedulingPriority=` as the kernel's ioprio value.
    public var ioPriority: Int32?
    /// The child is a copy of the agent rather than sharing its memory until execve: needed when
    /// it joins a memory-limited cgroup, whose OOM killer would otherwise kill the agent too.
    public var separatesMemory = false
    /// The job's own sandbox, applied in the child before it drops privileges; nil for none.
    public var sandbox: ProcessSandbox?
    /// RLIMIT_NOFILE's soft limit for the child (never above its hard limit); nil keeps the
    /// agent's.
    public var openFilesSoftLimit: UInt64?

    public init(executable: CheckedExecutable, arguments: [String], environment: [String],
                workingDirectory: String? = nil, user: UserAccount? = nil, cgroup: RunCgroup? = nil,
                cgroupV1TasksFDs: [Int32] = []) {
        self.executable = executable
        self.arguments = arguments
        self.environment = environment
        self.workingDirectory = workingDirectory
        self.user = user
        self.cgroup = cgroup
        self.cgroupV1TasksFDs = cgroupV1TasksFDs
    }
}

/// A started child: its pid, a pidfd for its exit, and the agent's ends of its stdout/stderr
/// pipes (non-blocking, close-on-exec). The child is the leader of a new session and process
/// group, so its pgid is its pid (once it has called setsid, its first steps).
///
/// The spawn does not wait for the child's execve: `handshake` says when it got there, or why
/// it could not (``ExecHandshake``).
public struct SpawnedChild {
    public var pid: pid_t
    public var pidfd: Int32
    public var stdoutFD: Int32
    public var stderrFD: Int32
    public var handshake: ExecHandshake

    /// SIGKILL to the child and its process group (its own, from setsid — which it may not have
    /// reached yet: the spawn does not wait): for a child that cannot be followed.
    public func killGroup() {
        cshim_pidfd_send_signal(pidfd, SIGKILL)
        kill(-pid, SIGKILL)
    }
}

/// Why a spawn failed, for `spawn-failed(reason)`.
public struct SpawnFailure: Error, Sendable, CustomStringConvertible {
    public var step: String
    public var errno: Int32
    /// Which path of the step's sandbox list (``ProcessSandbox``) failed, when it was one.
    public var item: Int?

    public init(step: String, errno: Int32, item: Int? = nil) {
        self.step = step
        self.errno = errno
        self.item = item
    }

    public var description: String {
        let text = SystemError.text(errno)
        return step == "execve" ? text : "\(step): \(text)"
    }

    /// With the sandbox path that failed named: `ReadWritePaths=/var/tmp/x: No such file or directory`.
    public func described(with sandbox: ProcessSandbox?) -> String {
        guard let item, let path = sandbox?.path(failedAt: step, item: item) else { return description }
        return "\(step)=\(path): \(SystemError.text(errno))"
    }

    /// The child's last look before exec found the checked plugin changed (``PluginSafety``
    /// step 3): made group- or world-writable, or its name now leading to another file.
    public var isVerification: Bool { step == "verify" }

    /// The child could not make the working directory it was asked to make, or give it to the
    /// plugin's user (``SpawnRequest/makesWorkingDirectory``).
    public var isWorkingDirectory: Bool { step == "mkdir" || step == "chown" }
}

/// Starts plugins (clone with CLONE_VM + execveat/execve in C, not waiting for the execve; see
/// CShimSpawn.h): stdin /dev/null, stdout and stderr on pipes, a new session, privileges
/// dropped, no agent descriptor leaked, and the checked executable re-checked in the child
/// right before exec. A failure only the child can meet (execve, setuid, the last check) comes
/// later, through the child's ``ExecHandshake``.
public enum PluginSpawner {
    public static func spawn(_ request: SpawnRequest) -> Result<SpawnedChild, SpawnFailure> {
        guard !request.arguments.isEmpty else {
            return .failure(SpawnFailure(step: "argv", errno: EINVAL))
        }
        let executable = request.executable.path
        let devNull = open("/dev/null", O_RDONLY | O_CLOEXEC)
        guard devNull >= 0 else { return .failure(SpawnFailure(step: "open /dev/null", errno: errno)) }
        defer { close(devNull) }
        var out: [Int32] = [-1, -1]
        var err: [Int32] = [-1, -1]
        guard cshim_pipe_cloexec_nonblock(&out) == 0 else { return .failure(SpawnFailure(step: "pipe", errno: errno)) }
        guard cshim_pipe_cloexec_nonblock(&err) == 0 else {
            let saved = errno
            close(out[0]); close(out[1])
            return .failure(SpawnFailure(step: "pipe", errno: saved))
        }
        // The child's ends must block: plugins expect ordinary blocking stdio.
        clearNonBlocking(out[1])
        clearNonBlocking(err[1])

        // Read by the child before exec: kept at a fixed address for the whole spawn.
        let v1Groups = UnsafeMutableBufferPointer<Int32>.allocate(capacity: max(1, request.cgroupV1TasksFDs.count))
        _ = v1Groups.initialize(from: request.cgroupV1TasksFDs)
        defer { v1Groups.deallocate() }
        var started = cshim_spawn_started()
        var failedStep: UnsafePointer<CChar>?
        let sandbox = request.sandbox ?? ProcessSandbox()
        let rc = withSandboxLists(sandbox) { lists in withCStrings(request.arguments) { argv in
            withCStrings(request.environment) { envp in
                withOptionalCString(request.workingDirectory) { cwd in withOptionalCString(request.madeDirectory) { made in
                    let groups = request.user?.groups ?? []
                    return groups.withUnsafeBufferPointer { groupBuffer in
                        var spec = cshim_spawn_request()
                        spec.argv = argv
                        spec.envp = envp
                        spec.working_directory = cwd
                        spec.made_directory = made
                        spec.working_directory_may_be_missing = request.workingDirectoryMayBeMissing ? 1 : 0
                        if let mode = request.makesWorkingDirectory {
                            spec.make_working_directory = 1
                            spec.working_directory_mode = mode
                        }
                        spec.stdin_fd = devNull
                        spec.stdout_fd = out[1]
                        spec.stderr_fd = err[1]
                        spec.cgroup_dir_fd = request.cgroup?.directoryFD ?? -1
                        spec.cgroup_v1_tasks_fds = UnsafePointer(v1Groups.baseAddress)
                        spec.cgroup_v1_tasks_count = Int32(request.cgroupV1TasksFDs.count)
                        spec.exec_fd = request.executable.descriptor
                        spec.exec_through_fd = request.executable.runsThroughDescriptor ? 1 : 0
                        if let nice = request.nice { spec.set_nice = 1; spec.nice = nice }
                        if let ioprio = request.ioPriority { spec.set_ioprio = 1; spec.ioprio = ioprio }
                        if let files = request.openFilesSoftLimit {
                            spec.set_open_files = 1
                            spec.open_files_soft = files
                        }
                        spec.separate_memory = request.separatesMemory ? 1 : 0
                        lists.apply(to: &spec, sandbox)
                        // Only root can change user; an unprivileged agent runs plugins as itself.
                        if let user = request.user, geteuid() == 0, user.uid != 0 {
                            spec.drop_privileges = 1
                            spec.uid = user.uid
                            spec.gid = user.gid
                            spec.groups = groupBuffer.baseAddress
                            spec.group_count = Int32(groupBuffer.count)
                        }
                        return executable.withCString { path in
                            spec.path = path
                            return cshim_spawn_plugin(&spec, &started, &failedStep)
                        }
                    }
                } }
            }
        } }
        close(out[1])
        close(err[1])
        if rc != 0 {
            close(out[0])
            close(err[0])
            let step = failedStep.map { String(cString: $0) } ?? "spawn"
            return .failure(SpawnFailure(step: step, errno: rc))
        }
        return .success(SpawnedChild(pid: started.pid, pidfd: started.pidfd, stdoutFD: out[0], stderrFD: err[0],
                                     handshake: ExecHandshake(fd: started.status_fd, block: started.block)))
    }

    private static func clearNonBlocking(_ fd: Int32) {
        let flags = fcntl(fd, F_GETFL)
        if flags >= 0 { _ = fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) }
    }
}

/// Calls `body` with a NULL-terminated C array of the strings, valid for the call only.
func withCStrings<R>(_ strings: [String], _ body: (UnsafePointer<UnsafeMutablePointer<CChar>?>) -> R) -> R {
    var pointers: [UnsafeMutablePointer<CChar>?] = strings.map { strdup($0) }
    pointers.append(nil)
    defer { for pointer in pointers { free(pointer) } }
    return pointers.withUnsafeBufferPointer { buffer in
        // Never nil: the array holds at least the terminating nil.
        body(buffer.baseAddress.unsafelyUnwrapped)
    }
}

func withOptionalCString<R>(_ string: String?, _ body: (UnsafePointer<CChar>?) -> R) -> R {
    guard let string else { return body(nil) }
    return string.withCString { body($0) }
}
