// SPDX-License-Identifier: Apache-2.0
import AgentCore
import AgentSystem
import Glibc

/// Starts runs' plugins on this machine (the real ``RunLaunching``): the plugin's safety check
/// at every spawn, the run's user, its state directory, its cgroup and per-run limits, the clone
/// and the `PluginProcess` that follows it; and the clean-up of what an earlier agent's runs left.
final class RunLauncher: RunLaunching {
    let loop: EventLoop
    let log: Logger
    private let catalogue: JobCatalogue
    /// The state directory (its ``RunsParentNote``).
    let stateDirectory: String
    /// Where per-job `STATE_DIRECTORY`s go (`<state>/jobs/ID`).
    let jobsDirectory: String
    /// The agent's `LANG`, handed to plugins.
    private let lang: String?
    /// The control socket, handed to every run as `AGENTD_SOCKET` (a run may act for its own
    /// manifest's identifiers).
    var socketPath: String?
    private let buffer = ReadBuffer()
    private var users = UserCache()
    /// Checks each plugin again right before it is spawned (DESIGN §3).
    private let safety: PluginSafety
    let bootID: String?
    /// The open-file soft limit runs get back (`OpenFileLimit`); nil: the agent's own.
    private let openFilesForRuns: UInt64?
    /// Parent cgroup of every run's cgroup; nil where cgroup v2 is not writable (process groups only).
    var cgroupParent: String?
    /// What enforces TasksMax=/MemoryMax=/MemoryHigh= here (nil before setUpCgroups).
    var limitControllers: LimitControllers?
    /// Makes the next runs' cgroups ahead and removes ended runs' cgroups, off the loop.
    var cgroupWorker: RunCgroupWorker?
    /// Kills and cleans up what runs of a dead agent left (kept while cgroups wait to empty).
    private var recovery: RunRecovery?

    init(loop: EventLoop, log: Logger, catalogue: JobCatalogue, stateDirectory: String, procRoot: String, lang: String?) {
        self.loop = loop
        self.log = log
        self.catalogue = catalogue
        self.lang = lang
        self.stateDirectory = stateDirectory
        jobsDirectory = stateDirectory + "/jobs/"
        let user = SystemFactsProbe.currentUser()
        safety = PluginSafety(agentUID: user.uid, agentUserName: user.name)
        openFilesForRuns = OpenFileLimit.forRuns
        switch BootID.read(procRoot: procRoot) {
        case .success(let id): bootID = id
        case .failure(let error):
            bootID = nil
            log.warning("no boot id (\(error)): after a restart, leftovers of runs are killed only through their cgroups")
        }
        setUpCgroups()
    }

    /// The agent's own nice value, read once: plugins are reset from it to their `Nice=`.
    private lazy var agentNice: Int32 = {
        errno = 0
        return getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0)
    }()

    /// The uid a root agent runs a drop-in script as, which may own the script (DESIGN §3: it
    /// runs as its owner; the registry has resolved `User=` to that owner).
    private func dropInOwner(_ job: JobDefinition) -> UInt32? {
        guard job.isDropInScript, geteuid() == 0, let name = job.user else { return nil }
        return users.lookup(name, now: loop.now)?.uid
    }

    func start(_ run: ActiveRun, arguments extraArguments: [String],
               events: PluginProcess.Callbacks) -> Result<any RunProcess, LaunchProblem> {
        let job = run.job
        // The cgroup worker makes the next runs' cgroups once this one's child is out.
        defer { cgroupWorker?.wakeAfterSpawn() }
        // The command the run's lifecycle is at: every Exec= line in turn (issue 26 item 6).
        let index = run.state.lifecycle.command
        let commands = job.commands
        let argv = commands.indices.contains(index) ? commands[index].argv : job.exec
        guard let program = argv.first else { return .failure(LaunchProblem("Exec= names no program")) }
        // Checked at every spawn, not only when the job loaded: a plugin made world-writable
        // since never runs (DESIGN §3). First, before anything is made for the run.
        let executable: CheckedExecutable
        switch safety.check(program, runAsOwner: dropInOwner(job)) {
        case .success(let checked): executable = checked
        case .failure(let refusal): return .failure(LaunchProblem(refusal.message, refusesProgram: true))
        }
        var user: UserAccount?
        if geteuid() == 0 {
            let name = job.user ?? catalogue.settings.resolvedDefaultUser(privileged: true, agentUserName: "root")
            guard let account = users.lookup(name, now: loop.now) else { return .failure(LaunchProblem("no such user \(name)")) }
            user = account
        }
        // An unprivileged agent runs plugins as itself: HOME and the rest are its own.
        let account = user ?? ownAccount
        let fileVariables: [EnvironmentVariable]
        switch EnvironmentFiles.read(job.extra.environmentFiles, restrictedTo: dropInOwner(job).flatMap { $0 == 0 ? nil : $0 }) {
        case .success(let variables): fileVariables = variables
        case .failure(let problem): return .failure(problem)
        }
        let stateDirectory = self.stateDirectory(of: job)
        let sandbox: ProcessSandbox?
        switch self.sandbox(of: job) {
        case .success(let planned): sandbox = planned
        case .failure(let problem): return .failure(problem)
        }
        let makesStateDirectory: mode_t?
        switch prepareStateDirectory(stateDirectory, for: user) {
        case .success(let mode): makesStateDirectory = mode
        case .failure(let problem): return .failure(problem)
        }
        let cgroup: RunCgroup?
        if index > 0 {
            cgroup = run.keptCgroup
        } else {
            switch prepareCgroups(run) {
            case .success(let made): cgroup = made
            case .failure(let problem): return .failure(problem)
            }
            if commands.count > 1 { run.keptCgroup = cgroup }
        }
        var previousOutput: String?
        if let lines = run.previousOutput, index == 0 {
            switch FailureOutputs.write(lines, directory: stateDirectory, owner: user) {
            case .success(let path): previousOutput = path
            case .failure(let problem): return .failure(problem)
            }
        }
        let environment = PluginEnvironment.build(
            job: job, run: run.state, stateDirectory: stateDirectory, lang: lang,
            account: PluginEnvironment.Account(name: account.name, home: account.home, shell: account.shell),
            fileVariables: fileVariables, previousOutput: previousOutput, socket: socketPath)
        let workingDirectory = self.workingDirectory(of: job, home: account.home)
        var request = SpawnRequest(
            executable: executable,
            arguments: PluginEnvironment.expand(argv, in: environment) + extraArguments,
            environment: environment, workingDirectory: workingDirectory, user: user, cgroup: cgroup,
            cgroupV1TasksFDs: run.limitGroups?.joinDescriptors ?? [])
        request.makesWorkingDirectory = makesStateDirectory
        if workingDirectory != stateDirectory { request.madeDirectory = stateDirectory }
        request.workingDirectoryMayBeMissing = job.extra.workingDirectoryMayBeMissing
        request.sandbox = sandbox
        // `Nice=`, else 0 (DESIGN §3) when the agent itself runs above it (agentd.service's
        // Nice=-10): a plugin never inherits the agent's own priority.
        request.nice = job.priority.nice.map(Int32.init) ?? (agentNice < 0 ? 0 : nil)
        request.ioPriority = job.priority.ioPriorityValue
        request.openFilesSoftLimit = openFilesForRuns
        request.separatesMemory = job.limits.limitsMemory
        if let weight = job.priority.cpuWeight { _ = cgroup?.setCPUWeight(weight) }
        let spawned = PluginSpawner.spawn(request)
        // The next command joins the same limit groups; the last closes them (or their release).
        if index == commands.count - 1 { run.limitGroups?.closeJoinDescriptors() }
        switch spawned {
        case .failure(let failure):
            cgroup?.remove()
            releaseLimits(run)
            return .failure(LaunchProblem(failure.described(with: sandbox)))
        case .success(let child):
            do {
                let process = try PluginProcess(loop: loop, child: child, cgroup: cgroup,
                                                buffer: buffer, callbacks: events)
                process.priority = job.priority
                process.keepsCgroup = run.keptCgroup != nil
                return .success(process)
            } catch {
                child.killGroup()
                cgroup?.killAll()
                releaseLimits(run)
                return .failure(LaunchProblem("cannot watch the child: \(error)"))
            }
        }
    }

    func problem(of failure: SpawnFailure, job: JobDefinition) -> LaunchProblem {
        if failure.step == "chdir" {
            // The run's user as the launch chose it: its User=, else DefaultUser= (nobody).
            let name = job.user ?? catalogue.settings.resolvedDefaultUser(privileged: true, agentUserName: "root")
            let home = (geteuid() == 0 ? users.lookup(name, now: loop.now) : nil)?.home ?? ownAccount.home
            return LaunchProblem("WorkingDirectory=\(workingDirectory(of: job, home: home)): \(SystemError.text(failure.errno))")
        }
        if failure.isWorkingDirectory {
            // The child makes the job's state directory at its first run (prepareStateDirectory).
            return LaunchProblem("state directory: \(failure.step) \(stateDirectory(of: job)): \(SystemError.text(failure.errno)); check that \(jobsDirectory) is writable by the agent and its file system is neither full nor read-only (ls -ld \(jobsDirectory); lsattr -d \(jobsDirectory); df -h \(jobsDirectory))")
        }
        if failure.item != nil {
            // A sandbox step: name the key and the path, as the plan gave them to the child.
            return LaunchProblem(failure.described(with: (try? sandbox(of: job).get()) ?? nil))
        }
        guard failure.isVerification, let program = job.exec.first else { return LaunchProblem(failure.description) }
        // The child's last look found the plugin changed since the check: say how now.
        if case .failure(let refusal) = safety.check(program, runAsOwner: dropInOwner(job)) { return LaunchProblem(refusal.message) }
        return LaunchProblem("unsafe: \(program) changed while it was being started; find out who is changing it")
    }

    /// A job's `STATE_DIRECTORY`.
    private func stateDirectory(of job: JobDefinition) -> String { jobsDirectory + job.identifier.rawValue }

    /// `WorkingDirectory=`: the state directory unless it names another; `~` is the home of the
    /// run's user, as systemd allows.
    private func workingDirectory(of job: JobDefinition, home: String) -> String {
        switch job.extra.workingDirectory {
        case nil: stateDirectory(of: job)
        case "~"?: home
        case let path?: path
        }
    }

    /// The agent's own user, whose passwd entry an unprivileged agent's runs get.
    private lazy var ownAccount: UserAccount = UserAccount.current()

    /// The job's state directory: nil when it is there, owned as it should be (every run but a
    /// job's first); else the mode the plugin's child makes it with before it drops privileges
    /// (a new directory is an inode allocation, which ext4 can make slow: the loop does not wait
    /// for it). Its parent, shared by every job, is made here when missing.
    private func prepareStateDirectory(_ path: String, for user: UserAccount?) -> Result<mode_t?, LaunchProblem> {
        switch FileSystem.entry(at: path) {
        case .directory(let uid, let gid, let mode):
            // plugin-protocol.md: owned by the run's user and 0700, that user's alone; a mode
            // loosened since (chmod 777) is set back as a wrong owner is.
            if user.map({ $0.uid == uid && $0.gid == gid }) ?? true, mode == 0o700 { return .success(nil) }
        case .symbolicLink, .other:
            // Never followed: a link planted there would have the run's user given its target.
            return .failure(LaunchProblem("state directory: \(path) is not a directory (a symbolic link or "
                + "a file); the agent never follows a link there: remove it (rm \(path)) and the next run "
                + "makes the directory"))
        case .missing:
            break
        }
        let parent = FileSystem.parentDirectory(of: path)
        do {
            // As the agent makes them at start (the state directory removed under it): every
            // run's user must pass through to its own directory, which is that user's alone.
            // The per-user agent's runs are its own user's: its state stays private.
            if !FileSystem.isOwnedDirectory(parent, owner: nil) {
                try FileSystem.makeDirectories(parent, mode: geteuid() == 0 ? 0o755 : 0o700)
            }
        } catch {
            return .failure(LaunchProblem("state directory: \(error)"))
        }
        // The run's user's alone, as DESIGN §10 has the per-user agent's state (0700).
        return .success(0o700)
    }

    func recover(_ place: RecordedRunPlace) -> String {
        runRecovery.recover(place)
    }

    /// What the dead agent's runs left that no record leads to: through the cgroups it noted and
    /// its recorded runs name; and where it noted none (it had no cgroup v2, or it is the first
    /// agent on this state) or this agent has none, through the processes that carry the socket
    /// and a run id above every recorded one (`highest`) — unless this agent has launched runs
    /// itself already (the state opened late), whose ids those could be.
    func recoverUnrecorded(after recorded: [RecordedRunPlace], highest: UInt64,
                           launchedAny: Bool) -> [(run: RunID, done: String)] {
        let noted = RunsParentNote.read(stateDirectory: stateDirectory)
        var killed = runRecovery.recoverUnrecorded(noted: noted, after: recorded)
        if noted == nil || cgroupParent == nil, !launchedAny, let socketPath {
            let found = Set(killed.map(\.run))
            killed += runRecovery.recoverUnrecordedProcesses(socket: socketPath, above: highest)
                .filter { !found.contains($0.run) }
        }
        do {
            try RunsParentNote.write(cgroupParent, stateDirectory: stateDirectory)
        } catch {
            log.warning("cannot note the runs' cgroup in the state directory (\(error)): if this agent is killed "
                + "right after starting a run, the next one may not find that run's processes; make \(stateDirectory) "
                + "writable by the agent")
        }
        return killed
    }

    private var runRecovery: RunRecovery {
        if let recovery { return recovery }
        let made = RunRecovery(loop: loop, log: log, currentBoot: bootID,
                               cgroupMount: CgroupHierarchy.detect()?.mountPoint, ownParent: cgroupParent)
        recovery = made
        return made
    }

    deinit {
        removeCgroups()
    }
}

/// Why a plugin could not be started: becomes `spawn-failed(message)`.
struct LaunchProblem: Error {
    var message: String
    /// The command's program itself was refused (missing, unsafe): nothing was made for the
    /// run, and a `-` line's failure is ignored as systemd ignores its 203/EXEC.
    var refusesProgram = false
    init(_ message: String, refusesProgram: Bool = false) {
        self.message = message
        self.refusesProgram = refusesProgram
    }
}
