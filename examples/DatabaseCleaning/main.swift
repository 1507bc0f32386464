// SPDX-License-Identifier: Apache-2.0
// Apple's ColorFeed sample, the processing half: cleaning the database needs external power,
// and when the agent expires the run (SIGTERM) the expiration handler stops the work and keeps
// a checkpoint, from which the next run goes on. Its job file:
//
//   [Job]
//   Identifier=com.example.colorfeed.db-cleaning
//   Kind=processing
//   Exec=/usr/bin/colorfeed-db-cleaning
//   GracePeriod=5s
import BackgroundTasks
import Foundation
import Synchronization

let cleaningIdentifier = "com.example.colorfeed.db-cleaning"
let entryCount = 600

/// One line on stdout, written at once: directives (`PROGRESS=`, `CHECKPOINT=`) must reach the
/// agent while the run goes on, not when a buffer fills.
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

func scheduleDatabaseCleaningIfNeeded() {
    let request = BGProcessingTaskRequest(identifier: cleaningIdentifier)
    request.requiresNetworkConnectivity = false
    request.requiresExternalPower = true
    do {
        try BGTaskScheduler.shared.submit(request)
    } catch {
        print("Could not schedule database cleaning: \(error)")
    }
}

/// Where the last run stopped (`AGENTD_CHECKPOINT`), so no entry is cleaned twice.
let resumeAt = ProcessInfo.processInfo.environment["AGENTD_CHECKPOINT"].flatMap(Int.init) ?? 0

func handleDatabaseCleaning(task: BGProcessingTask) {
    let cancelled = Atomic<Bool>(false)
    let cleaned = Atomic<Int>(resumeAt)
    task.expirationHandler = {
        cancelled.store(true, ordering: .sequentiallyConsistent)
        let done = cleaned.load(ordering: .sequentiallyConsistent)
        // The checkpoint is handed back to the next run as AGENTD_CHECKPOINT.
        say("CHECKPOINT=\(done)")
        say("expirationHandler: stopped at entry \(done) of \(entryCount); checkpoint kept")
        task.setTaskCompleted(success: false)
    }
    say("cleaning entries \(resumeAt) to \(entryCount)")
    for entry in resumeAt..<entryCount {
        if cancelled.load(ordering: .sequentiallyConsistent) { return }
        Thread.sleep(forTimeInterval: 0.05)  // deleting one old entry
        cleaned.store(entry + 1, ordering: .sequentiallyConsistent)
        say("PROGRESS=\(entry + 1)/\(entryCount)")
    }
    say("CHECKPOINT=0")
    task.setTaskCompleted(success: true)
}

// The work runs on a queue of its own, so the expiration handler (on the main queue) is
// called while it runs.
let work = DispatchQueue(label: "db-cleaning")
BGTaskScheduler.shared.register(forTaskWithIdentifier: cleaningIdentifier, using: .main) { task in
    guard let processing = task as? BGProcessingTask else {
        task.setTaskCompleted(success: false)
        return
    }
    work.async { handleDatabaseCleaning(task: processing) }
}

if ProcessInfo.processInfo.environment["AGENTD_IDENTIFIER"] == nil {
    scheduleDatabaseCleaningIfNeeded()
    print("scheduled \(cleaningIdentifier): it runs on external power")
} else {
    dispatchMain()
}
