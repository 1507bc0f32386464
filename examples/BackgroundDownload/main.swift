// SPDX-License-Identifier: Apache-2.0
// Apple's "Downloading files in the background", ported to agentd. On iOS a background
// URLSession downloads while the app is not running and then launches it with
// `urlSession(_:downloadTask:didFinishDownloadingTo:)`. Here the download is a job of the
// transfer plugin (resumable, checksummed, expired and resumed like any processing run) that the
// app requests, and `OnSuccess=` chains it into the app, whose handler gets the file's path as
// `AGENTD_PREVIOUS_RESULT` — the `location` of the delegate call. Its manifest and job files:
//
//   [Manifest]
//   PermittedIdentifiers=com.example.colorfeed.*
//   BackgroundModes=processing
//
//   [Job]
//   Identifier=com.example.colorfeed.download
//   Kind=processing
//   Exec=/usr/lib/agentd/plugins/transfer https://colorfeed.example.com/feed.json feed.json
//   OnSuccess=com.example.colorfeed.import
//
//   [Job]
//   Identifier=com.example.colorfeed.import
//   Kind=processing
//   Exec=/usr/bin/colorfeed-download
import BackgroundTasks
import Foundation

let downloadIdentifier = "com.example.colorfeed.download"
let importIdentifier = "com.example.colorfeed.import"
let environment = ProcessInfo.processInfo.environment
/// The sample starts the download an hour from now (`earliestBeginDate`); a test asks for less.
let downloadDelay = environment["COLORFEED_DOWNLOAD_SECONDS"].flatMap(Double.init) ?? 60 * 60

/// iOS: `backgroundTask.earliestBeginDate = …; backgroundTask.resume()` on a discretionary
/// background session. Here: a request for the download job, which needs the network.
func scheduleFeedDownload() -> Bool {
    let request = BGProcessingTaskRequest(identifier: downloadIdentifier)
    request.earliestBeginDate = Date(timeIntervalSinceNow: downloadDelay)
    request.requiresNetworkConnectivity = true
    do {
        try BGTaskScheduler.shared.submit(request)
        return true
    } catch {
        print("Could not schedule the feed download: \(error)")
        return false
    }
}

/// iOS: `urlSession(_:downloadTask:didFinishDownloadingTo:)`. The file stays the download job's;
/// the app keeps its own copy in its state directory.
func didFinishDownloading(to location: URL, task: BGProcessingTask) {
    do {
        let data = try Data(contentsOf: location)
        let feed = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        let entries = feed?["entries"] as? [Any] ?? []
        let directory = environment["STATE_DIRECTORY"] ?? FileManager.default.currentDirectoryPath
        try data.write(to: URL(fileURLWithPath: directory).appendingPathComponent("feed.json"), options: .atomic)
        print("imported \(entries.count) entries (\(data.count) bytes) from \(location.path)")
        task.setTaskCompleted(success: true)
    } catch {
        print("could not import \(location.path): \(error)")
        task.setTaskCompleted(success: false)
    }
}

BGTaskScheduler.shared.register(forTaskWithIdentifier: importIdentifier, using: nil) { task in
    guard let task = task as? BGProcessingTask, let path = environment["AGENTD_PREVIOUS_RESULT"] else {
        // Launched other than by the download's success (`agentctl simulate launch`): no file.
        print("nothing was downloaded: \(importIdentifier) runs after \(downloadIdentifier) succeeds")
        task.setTaskCompleted(success: false)
        return
    }
    task.expirationHandler = { task.setTaskCompleted(success: false) }
    didFinishDownloading(to: URL(fileURLWithPath: path), task: task)
}

if environment["AGENTD_IDENTIFIER"] == nil {
    // Started by a person: ask for the download and exit.
    guard scheduleFeedDownload() else { exit(1) }
    print("scheduled \(downloadIdentifier) no earlier than \(Int(downloadDelay)) s from now")
} else {
    // Launched by agentd, chained after the download: the handler ends the process.
    dispatchMain()
}
