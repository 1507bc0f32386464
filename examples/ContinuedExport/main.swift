// SPDX-License-Identifier: Apache-2.0
// Apple's "Performing long-running tasks on iOS and iPadOS" (a continued export), ported to
// agentd: the person starts an export, the app submits a BGContinuedProcessingTaskRequest for a
// dynamic identifier under its job's (one queue entry per export), and the handler reports
// `progress` and `updateTitle(_:subtitle:)` while it works. Its manifest and job file:
//
//   [Manifest]
//   PermittedIdentifiers=com.example.photos.export com.example.photos.export.*
//   BackgroundModes=continued
//
//   [Job]
//   Identifier=com.example.photos.export
//   Kind=continued
//   Exec=/usr/bin/photos-export
//
// `photos-export ALBUM [--fail]` submits the export of ALBUM (`--fail`: strategy `.fail`, refused
// when it cannot start now, such as when agentd.conf's MaxConcurrent= runs are live; otherwise
// `.queue`, which waits its turn).
import BackgroundTasks
import Foundation
import Synchronization

let exportPrefix = "com.example.photos.export"
let environment = ProcessInfo.processInfo.environment
/// How many photos an album has, and how long one takes: a test asks for fewer, faster.
let photoCount = environment["PHOTOS_EXPORT_COUNT"].flatMap(Int64.init) ?? 120
let secondsPerPhoto = environment["PHOTOS_EXPORT_SECONDS_PER_PHOTO"].flatMap(Double.init) ?? 0.5

/// One line on stdout, written at once (the agent reads lines as the run goes on).
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

func submitExport(album: String, strategy: BGContinuedProcessingTaskRequest.SubmissionStrategy) -> Bool {
    let request = BGContinuedProcessingTaskRequest(identifier: "\(exportPrefix).\(album)",
                                                   title: "Exporting \(album)", subtitle: "About to start...")
    request.strategy = strategy
    do {
        try BGTaskScheduler.shared.submit(request)
        say("submitted the export of \(album)")
        return true
    } catch let error as BGTaskScheduler.Error where error.code == .immediateRunIneligible {
        say("could not start the export of \(album) now: \(error)")
    } catch {
        say("could not submit the export of \(album): \(error)")
    }
    return false
}

func handleExport(task: BGContinuedProcessingTask) {
    let album = String(task.identifier.dropFirst(exportPrefix.count + 1))
    let expired = Atomic<Bool>(false)
    task.expirationHandler = {
        // The person pressed Cancel, or the agent expired the run: stop after this photo.
        expired.store(true, ordering: .sequentiallyConsistent)
    }
    let progress = task.progress
    progress.totalUnitCount = photoCount
    task.updateTitle("Exporting \(album)", subtitle: "0 of \(photoCount)")
    while !progress.isFinished && !expired.load(ordering: .sequentiallyConsistent) {
        Thread.sleep(forTimeInterval: secondsPerPhoto)  // exporting one photo
        progress.completedUnitCount += 1
        task.updateTitle("Exporting \(album)", subtitle: "\(progress.completedUnitCount) of \(photoCount)")
    }
    if progress.isFinished {
        say("exported \(photoCount) photos of \(album)")
        task.setTaskCompleted(success: true)
    } else {
        say("export of \(album) stopped after \(progress.completedUnitCount) of \(photoCount) photos")
        task.setTaskCompleted(success: false)
    }
}

BGTaskScheduler.shared.register(forTaskWithIdentifier: "\(exportPrefix).*", using: nil) { task in
    guard let task = task as? BGContinuedProcessingTask else {
        task.setTaskCompleted(success: false)
        return
    }
    handleExport(task: task)
}

if environment["AGENTD_IDENTIFIER"] == nil {
    // Started by a person (iOS: the Export button): submit the export and exit.
    let arguments = CommandLine.arguments.dropFirst()
    guard let album = arguments.first(where: { !$0.hasPrefix("-") }) else {
        say("usage: photos-export ALBUM [--fail]")
        exit(2)
    }
    exit(submitExport(album: album, strategy: arguments.contains("--fail") ? .fail : .queue) ? 0 : 1)
} else {
    // Launched by agentd: the handler runs on its queue and ends the process.
    dispatchMain()
}
